"""Wave F ``torch.multiprocessing.spawn`` entry point around ``job.py``: ``--nprocs`` local processes of node
``--node-rank`` in a job of ``--nnodes`` nodes (rank = node_rank * nprocs + local rank); MASTER_ADDR/MASTER_PORT come
from the environment as in a hand-written multi-node launch script."""
from __future__ import annotations

import argparse
import os

import torch.multiprocessing as mp

import job


def worker(local_rank: int, a: argparse.Namespace, rest: list[str]) -> None:
    os.environ["RANK"] = str(a.node_rank * a.nprocs + local_rank)
    os.environ["LOCAL_RANK"] = str(local_rank)
    os.environ["WORLD_SIZE"] = str(a.nnodes * a.nprocs)
    job.train(job.parse(rest))


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--nprocs", type=int, default=2)
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node-rank", type=int, default=0)
    a, rest = p.parse_known_args()
    print(f"node {a.node_rank}/{a.nnodes}: spawning {a.nprocs} processes, MASTER_ADDR={os.environ['MASTER_ADDR']} "
          f"MASTER_PORT={os.environ['MASTER_PORT']}", flush=True)
    mp.spawn(worker, args=(a, rest), nprocs=a.nprocs, join=True)
