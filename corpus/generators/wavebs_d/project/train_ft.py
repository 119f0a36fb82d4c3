"""bearing-fault-ft: fault-tolerant data-parallel training of a small vibration-spectrum classifier with torchft.

One replica group per `torchrun` (REPLICA_GROUP_ID, NUM_REPLICA_GROUPS); the groups meet at the torchft lighthouse
(TORCHFT_LIGHTHOUSE), gradients are averaged across the groups that are in the current quorum, and a group that
(re)joins heals from a peer's live state dict. Each group writes its own checkpoints.
"""
import argparse
import ctypes
import logging
import os
import socket
import sys
import time
from datetime import timedelta
from pathlib import Path

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

from torchft import DistributedDataParallel, Manager, ProcessGroupGloo
from torchft.optim import OptimizerWrapper
from torchft.data import DistributedSampler

REPLICA = int(os.environ.get("REPLICA_GROUP_ID", 0))
NUM_GROUPS = int(os.environ.get("NUM_REPLICA_GROUPS", 2))
RANK = int(os.environ.get("RANK", 0))
HOST = socket.gethostname()

logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [{HOST} rg{REPLICA} r{RANK}] %(name)s: %(message)s")
log = logging.getLogger("bearing_ft")
for _quiet in ("torchft_commits", "torchft_quorums", "torchft_errors"):  # otel event loggers: empty messages
    logging.getLogger(_quiet).setLevel(logging.WARNING)

p = argparse.ArgumentParser()
p.add_argument("--steps", type=int, default=200)
p.add_argument("--batch", type=int, default=32)
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--hidden", type=int, default=64)
p.add_argument("--classes", type=int, default=4)
p.add_argument("--min-replicas", type=int, default=1)
p.add_argument("--log-every", type=int, default=10)
p.add_argument("--ckpt-every", type=int, default=50)
p.add_argument("--ckpt-dir", default="checkpoints")
p.add_argument("--resume", action="store_true")
p.add_argument("--step-sleep", type=float, default=0.05)
p.add_argument("--inject", default="")
p.add_argument("--inject-step", type=int, default=80)
p.add_argument("--inject-replica", type=int, default=1)
p.add_argument("--warn", action="store_true")
args = p.parse_args()


def make_data(n=12000, feats=32, classes=4, seed=1234):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(classes, feats, generator=g) * 0.3
    y = torch.randint(0, classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, feats, generator=g)
    return TensorDataset(x, y)


class BearingNet(nn.Module):
    def __init__(self, feats=32, hidden=64, classes=4):
        super().__init__()
        self.fc1 = nn.Linear(feats, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x):
        return self.head(F.gelu(self.fc2(F.gelu(self.fc1(x)))))


def remap_labels(y, table):
    return torch.tensor([table[int(v)] for v in y])


def main():
    torch.manual_seed(0)
    ds = make_data(classes=args.classes)
    sampler = DistributedSampler(ds, replica_rank=REPLICA, num_replica_groups=NUM_GROUPS,
                                 group_rank=int(os.environ.get("RANK", 0)), num_replicas=int(os.environ.get("WORLD_SIZE", 1)),
                                 shuffle=True)
    loader = DataLoader(ds, batch_size=args.batch, sampler=sampler, num_workers=0)
    model = BearingNet(hidden=args.hidden, classes=args.classes)
    inner_opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    log.info("task=bearing-fault-ft replica_group=%d/%d host=%s params=%d batch=%d lr=%g min_replicas=%d",
             REPLICA, NUM_GROUPS, HOST, sum(p.numel() for p in model.parameters()), args.batch, args.lr,
             args.min_replicas)

    def load_state_dict(sd):
        model.load_state_dict(sd["model"])
        inner_opt.load_state_dict(sd["optim"])

    def state_dict():
        return {"model": model.state_dict(), "optim": inner_opt.state_dict()}

    pg = ProcessGroupGloo(timeout=timedelta(seconds=15))
    manager = Manager(pg=pg, min_replica_size=args.min_replicas, load_state_dict=load_state_dict,
                      state_dict=state_dict, replica_id=f"bearing_ft_{REPLICA}", timeout=timedelta(seconds=15),
                      quorum_timeout=timedelta(seconds=45), max_retries=8)
    ckdir = Path(args.ckpt_dir) / f"replica_{REPLICA}"
    if args.resume and ckdir.exists():
        cks = sorted(ckdir.glob("step_*.pt"), key=lambda q: int(q.stem.split("_")[1]))
        if cks:
            sd = torch.load(cks[-1], weights_only=False)
            load_state_dict(sd["user"])
            manager.load_state_dict(sd["torchft"])
            log.info("resumed from %s (manager step %d)", cks[-1], manager.current_step())
    ddp = DistributedDataParallel(manager, model)
    opt = OptimizerWrapper(manager, inner_opt)
    if args.warn:
        import warnings
        warnings.warn("torch.utils.data.DataLoader: pin_memory=True but no accelerator is found", UserWarning)
    label_table = {i: i for i in range(args.classes)}
    t0, seen = time.time(), 0
    ep = 0
    while manager.current_step() < args.steps:
        sampler.set_epoch(ep)
        ep += 1
        for x, y in loader:
            step = manager.current_step()
            if step >= args.steps:
                break
            inj = args.inject and REPLICA == args.inject_replica and step >= args.inject_step
            if inj and args.inject == "keyerror":
                label_table = {k: v for k, v in label_table.items() if k != 3}
                y = remap_labels(y, label_table)
            if inj and args.inject == "segv":
                log.info("loading vibration FFT feature kernel")
                ctypes.string_at(0)
            if inj and args.inject == "abort":
                os.abort()
            if inj and args.inject == "oom":
                hog = []
                while True:
                    hog.append(torch.ones(64 * 1024 * 1024 // 4))
            opt.zero_grad()
            out = ddp(x)
            loss = F.cross_entropy(out, y)
            loss.backward()
            if args.inject == "nan" and not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at step {step}: training diverged")
            opt.step()
            committed = manager.current_step() > step
            seen += len(y)
            # cluster-wide accuracy: per-class hit counts summed over the replica groups
            ncls = args.classes + 1 if (args.inject == "shape" and REPLICA == args.inject_replica
                                          and step >= args.inject_step) else args.classes
            hits = torch.zeros(ncls)
            pred = out.argmax(1)
            for c in range(args.classes):
                hits[c] = ((pred == y) & (y == c)).sum()
            manager.allreduce(hits).wait()
            if step % args.log_every == 0:
                rate = seen / (time.time() - t0)
                log.info("step %d | loss %.4f | acc %.3f | participants %d | committed %s | %.0f samples/s",
                         step, loss.item(), hits.sum().item() / (args.batch * max(1, manager.num_participants())), manager.num_participants(), committed,
                         rate)
            if committed and RANK == 0 and step > 0 and step % args.ckpt_every == 0:
                ckdir.mkdir(parents=True, exist_ok=True)
                path = ckdir / f"step_{step}.pt"
                torch.save({"user": state_dict(), "torchft": manager.state_dict()}, path)
                log.info("saved checkpoint %s", path)
            if args.step_sleep:
                time.sleep(args.step_sleep)
    log.info("finished %d steps (replica group %d, %d batches committed)", manager.current_step(), REPLICA,
             manager.batches_committed())
    manager.shutdown(wait=False)


if __name__ == "__main__":
    main()
