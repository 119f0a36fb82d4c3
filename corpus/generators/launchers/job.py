"""A tiny gloo data-parallel job for launcher exit reports: one rank ends by a signal or an exit code at one step.

``--fault kill`` (SIGKILL, what the kernel OOM killer sends), ``segv``, ``abort``, ``term`` (SIGTERM) or ``exit``
(``sys.exit(3)``) on ``--fault-rank`` at ``--fault-step``. ``--survivors-wait S``: the other ranks spend S seconds
outside any collective at that step (as in a long data-loading phase), so the launcher, not a collective error,
is the first to notice. Reads RANK/WORLD_SIZE/MASTER_* as torchrun, DeepSpeed, accelerate and Lightning set them.
"""
from __future__ import annotations

import argparse
import ctypes
import os
import signal
import sys
import time

import torch
import torch.distributed as dist


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--fault", default="kill")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=4)
    p.add_argument("--survivors-wait", type=float, default=0.0)
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)
    a = p.parse_args()
    if int(os.environ.get("WORLD_SIZE", "1")) > 1:
        dist.init_process_group("gloo")
        rank, world = dist.get_rank(), dist.get_world_size()
    else:
        rank, world = 0, 1
    print(f"[rank{rank}] pid={os.getpid()} world_size={world}", flush=True)
    w = torch.zeros(8)
    for step in range(a.steps):
        g = torch.randn(8)
        if step == a.fault_step:
            if rank == a.fault_rank:
                if a.fault == "kill":
                    os.kill(os.getpid(), signal.SIGKILL)
                elif a.fault == "segv":
                    ctypes.string_at(0)
                elif a.fault == "abort":
                    os.abort()
                elif a.fault == "term":
                    os.kill(os.getpid(), signal.SIGTERM)
                elif a.fault == "exit":
                    sys.exit(3)
            elif a.survivors_wait:
                time.sleep(a.survivors_wait)
        if world > 1:
            dist.all_reduce(g)
        w -= 0.1 * g / world
        print(f"[rank{rank}] step {step} loss {float(w.norm()):.4f}", flush=True)
        time.sleep(0.05)
    if world > 1:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
