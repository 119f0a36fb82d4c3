"""Cart-pole PPO with DDP over gloo: every rank runs its own vectorised cart-poles (rollout), the PPO update's
gradients are averaged by DDP. Started with torch.multiprocessing.spawn."""
import argparse
import datetime
import faulthandler
import os
import pickle
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

import ppo_core as pc


def log(rank, msg):
    print(f"{time.strftime('%H:%M:%S')} [rank {rank}] {msg}", flush=True)


class Node:
    """A node of the rollout lookahead tree kept for the replay viewer (parent link, state, action)."""

    def __init__(self, parent, state, action):
        self.parent, self.state, self.action = parent, state, action


def worker(rank, a):
    faulthandler.enable()
    if a.recursion_limit:
        sys.setrecursionlimit(a.recursion_limit)
    torch.set_num_threads(1)
    world = a.nprocs
    os.environ.update(RANK=str(rank), WORLD_SIZE=str(world))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.pg_timeout))
    log(rank, f"process group up: world {world}, backend {dist.get_backend()}, "
              f"debug {os.environ.get('TORCH_DISTRIBUTED_DEBUG', 'OFF')}")
    torch.manual_seed(0)
    sim_hz = a.sim_hz_rank1 if (rank == 1 and a.sim_hz_rank1) else 50
    wind = a.wind if rank in a.wind_ranks else 0.0
    env = pc.CartPoleVec(a.envs, seed=1000 + rank, sim_hz=sim_hz, wind=wind)
    log(rank, f"env: {a.envs} cart-poles, sim {sim_hz} Hz ({env.substeps} substeps per action), wind {wind}, "
              f"obs dim {env.obs_dim}, max episode steps {env.max_steps}")
    model = DDP(pc.ActorCritic(pc.OBS_DIM, a.hidden))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr, eps=1e-5)
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        log(rank, f"actor-critic: {n} parameters; batch {a.steps * a.envs} transitions per rank, "
                  f"minibatch {a.minibatch}, {a.ppo_epochs} PPO epochs, lr {a.lr}")
    obs = None
    total = 0
    t0 = time.time()
    tree = None
    for it in range(a.iters):
        batch, obs, st = pc.rollout(env, model.module, a.steps, obs)
        total += a.steps * a.envs * world
        log(rank, f"iter {it} rollout: {st['episodes']} episodes, return {st['return_mean']:.1f}, "
                  f"{st['fps']:.0f} env-steps/s")
        if a.gather_returns:
            # every rank's finished-episode returns, for the learning-curve plot on rank 0
            mine = torch.tensor(st["returns"], dtype=torch.float32)
            parts = [torch.zeros_like(mine) for _ in range(world)]
            dist.all_gather(parts, mine)
            if rank == 0:
                allr = torch.cat(parts)
                log(rank, f"iter {it} all ranks: {len(allr)} episodes, return {allr.mean():.1f} max {allr.max():.0f}")
        upd, k = pc.ppo_update(model, opt, batch, epochs=a.ppo_epochs, minibatch=a.minibatch, seed=it)
        r = torch.tensor([st["return_mean"] if st["episodes"] else 0.0, float(st["episodes"])])
        dist.all_reduce(r)
        if rank == 0:
            log(rank, f"iter {it} update: {k} minibatches, {pc.fmt(upd)} | mean return {r[0] / world:.1f} "
                      f"({int(r[1])} episodes) | {total} env-steps, {total / (time.time() - t0):.0f} steps/s")
        if a.tree_depth and it == a.iters // 2:
            # lookahead tree of the rollout, saved for the replay viewer
            tree = Node(None, obs[0].copy(), -1)
            s = obs[0].copy()
            for d in range(a.tree_depth):
                s = s + 0.001
                tree = Node(tree, s, d % 2)
            if rank == 0:
                log(rank, f"saving lookahead tree ({a.tree_depth} nodes) to tree_it{it}.pt")
                torch.save({"tree": tree, "iter": it}, f"tree_it{it}.pt")
                log(rank, "tree saved")
            dist.barrier()
    if rank == 0:
        torch.save(model.module.state_dict(), "ppo_cartpole.pt")
        log(rank, f"saved ppo_cartpole.pt after {total} env-steps in {time.time() - t0:.0f}s")
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--iters", type=int, default=20)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--minibatch", type=int, default=128)
    ap.add_argument("--ppo-epochs", type=int, default=4)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2.5e-4)
    ap.add_argument("--pg-timeout", type=int, default=60)
    ap.add_argument("--sim-hz-rank1", type=int, default=0)
    ap.add_argument("--wind", type=float, default=0.0)
    ap.add_argument("--wind-ranks", type=int, nargs="*", default=[])
    ap.add_argument("--gather-returns", action="store_true")
    ap.add_argument("--tree-depth", type=int, default=0)
    ap.add_argument("--recursion-limit", type=int, default=0)
    a = ap.parse_args()
    print(f"cart-pole PPO: torch {torch.__version__}, numpy {np.__version__}, {a.nprocs} ranks, "
          f"MASTER_PORT={os.environ.get('MASTER_PORT')}", flush=True)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)
