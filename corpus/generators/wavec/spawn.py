"""Start workload.py's training loop in ``--nprocs`` processes with ``torch.multiprocessing.spawn`` (no launcher):
each child gets RANK/WORLD_SIZE/MASTER_* in its environment, then runs ``train.main()`` with the remaining arguments.
"""
from __future__ import annotations

import argparse
import os
import sys

import torch.multiprocessing as mp


def child(rank: int, world: int, argv: list[str]) -> None:
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(world))
    sys.argv = ["train.py", *argv]
    import train  # workload.py, copied next to this file as train.py

    train.main()


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--nprocs", type=int, default=2)
    a, rest = p.parse_known_args()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29771")
    mp.spawn(child, args=(a.nprocs, rest), nprocs=a.nprocs)
