"""OpenRLHF-style weight sync: trainer (rank 0) and rollout engines join a gloo group via init_process_group.

One engine is (by the --skip-rank argument) never told to join, like an engine whose
init call was dropped, so the others wait for the store rendezvous until it times out.
"""
import argparse
import datetime
import os
import socket
import time

import ray
import rlcommon
import torch
import torch.distributed as dist
from rlcommon import init_ray, make_group, setup_logging, spawn_in_group

ap = argparse.ArgumentParser()
ap.add_argument("--num-engines", type=int, default=2)
ap.add_argument("--skip-rank", type=int, default=2)
ap.add_argument("--timeout", type=int, default=15)
ap.add_argument("--engine-timeout", type=int, default=None,
                help="init_process_group timeout used by the engines (default: --timeout)")
ap.add_argument("--order", choices=["trainer-first", "engines-first"], default="trainer-first",
                help="which side's init_process_group call is issued first (1.5 s apart)")
args = ap.parse_args()


class SyncMixin:
    def ping(self):
        return os.getpid()

    def init_process_group(self, master_address, master_port, rank, world_size, group_name, timeout_s):
        self.log.info("init_process_group: group=%s rank=%d/%d master=%s:%d backend=gloo timeout=%ds",
                      group_name, rank, world_size, master_address, master_port, timeout_s)
        dist.init_process_group(backend="gloo", init_method=f"tcp://{master_address}:{master_port}",
                                world_size=world_size, rank=rank, group_name=group_name,
                                timeout=datetime.timedelta(seconds=timeout_s))
        self.log.info("weight sync group %s ready (rank %d)", group_name, rank)
        return rank

    def broadcast_weights(self):
        for p in self.model.parameters():
            dist.broadcast(p.data, src=0)
        return True


class PolicyTrainer(SyncMixin, rlcommon.PolicyTrainer):
    pass


class RolloutWorker(SyncMixin, rlcommon.RolloutWorker):
    pass


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


log = setup_logging()
init_ray()
pg = make_group(args.num_engines, log=log)
ray.get(pg.ready(), timeout=30)
trainer, engines = spawn_in_group(pg, args.num_engines, trainer_cls=ray.remote(PolicyTrainer),
                                  rollout_cls=ray.remote(RolloutWorker))
master_address, master_port = "127.0.0.1", free_port()
world_size = args.num_engines + 1
log.info("creating weight sync group: master=%s:%d world_size=%d", master_address, master_port, world_size)
ray.get([a.ping.remote() for a in [trainer] + engines])
members = list(enumerate([trainer] + engines))
if args.order == "engines-first":
    members = members[1:] + members[:1]
refs = []
for rank, actor in members:
    if rank == args.skip_rank:
        continue
    if refs:
        time.sleep(1.5)
    timeout = args.timeout if rank == 0 or args.engine_timeout is None else args.engine_timeout
    refs.append(actor.init_process_group.remote(master_address, master_port, rank, world_size,
                                                "openrlhf", timeout))
ranks = ray.get(refs)
log.info("weight sync group ready: ranks %s", ranks)
ray.get([a.broadcast_weights.remote() for a in [trainer] + engines])
log.info("broadcast weights done")
