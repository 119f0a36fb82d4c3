"""A data-parallel training script (gloo, CPU) that leaves PyTorch Flight Recorder dumps when a collective hangs.

Launched by ``generate.py`` under the real ``torchrun``. A small MLP is trained with gradient accumulation
(``--accum`` micro-steps per step, each printed) and gradients averaged by ``all_reduce`` by hand. ``--scenario``
decides what goes wrong on ``--fail-rank`` at ``--fail-step``.

Flight Recorder: torch records every collective of every process group in a ring buffer when
``TORCH_FR_BUFFER_SIZE`` (older name ``TORCH_NCCL_TRACE_BUFFER_SIZE``) is > 0, for gloo as for NCCL. With NCCL the
watchdog writes the dumps itself on a timeout (``TORCH_NCCL_DUMP_ON_TIMEOUT=1``) to
``TORCH_FR_DUMP_TEMP_FILE<rank>`` and tells the other ranks through the store to dump too. gloo has no watchdog,
so this script does the same by hand: every rank runs a thread that waits for a store key; the rank whose
collective times out sets it and every rank that can still run Python writes
``torch._C._distributed_c10d._dump_fr_trace()`` (pickle) and/or ``_dump_fr_trace_json(True, False)`` (JSON) to
``$TORCH_FR_DUMP_TEMP_FILE<rank>`` (``.json`` appended for JSON). A rank also dumps when torchrun sends it SIGTERM
while tearing the job down (a rank that gloo aborts, or one frozen by SIGSTOP, cannot: it leaves no dump).
"""
from __future__ import annotations

import argparse
import logging
import os
import signal
import socket
import sys
import threading
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch import nn

LOG = logging.getLogger("train")
DUMP_KEY = "flight_recorder/dump"


def setup_logging() -> None:
    rank = os.environ.get("RANK", "?")
    handler = logging.StreamHandler(sys.stdout)
    handler.setFormatter(logging.Formatter(f"%(asctime)s [rank{rank}] %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(logging.INFO)


def write_dump(rank: int, fmt: str) -> None:
    """Write this rank's Flight Recorder buffer where torch's own dumper would (``TORCH_FR_DUMP_TEMP_FILE<rank>``)."""
    prefix = os.environ.get("TORCH_FR_DUMP_TEMP_FILE") or os.environ.get("TORCH_NCCL_DEBUG_INFO_TEMP_FILE")
    if not prefix:
        return
    c10d = torch._C._distributed_c10d
    if fmt in ("pickle", "both"):
        with open(f"{prefix}{rank}", "wb") as f:
            f.write(c10d._dump_fr_trace())
    if fmt in ("json", "both"):
        with open(f"{prefix}{rank}.json", "wb") as f:
            data = c10d._dump_fr_trace_json(True, False)
            f.write(data if isinstance(data, bytes) else data.encode())
    LOG.info("flight recorder trace dumped to %s%d (%s)", prefix, rank, fmt)


def start_dump_listener(rank: int, fmt: str) -> None:
    """Dump when another rank asks through the store (what ``TORCH_NCCL_DUMP_ON_TIMEOUT`` does for NCCL)."""
    store = dist.distributed_c10d._get_default_store()

    def wait() -> None:
        while True:
            try:
                if store.check([DUMP_KEY]):
                    write_dump(rank, fmt)
                    return
            except Exception:  # the store went away: the job is over
                return
            time.sleep(0.2)

    threading.Thread(target=wait, daemon=True, name="fr-dump").start()

    def on_sigterm(signum, frame) -> None:  # torchrun tears the job down: leave the trace first
        write_dump(rank, fmt)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_sigterm)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenario", default="ok",
                    choices=["ok", "stall", "skip", "op", "size", "subgroup_stall", "freeze"])
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--accum", type=int, default=2, help="micro-steps per optimizer step")
    ap.add_argument("--fail-rank", type=int, default=1)
    ap.add_argument("--fail-step", type=int, default=3)
    ap.add_argument("--fail-micro", type=int, default=0, help="micro-step at which the stalled rank stops")
    ap.add_argument("--pg-timeout", type=float, default=10.0, help="process-group timeout, seconds")
    ap.add_argument("--stall-seconds", type=float, default=60.0)
    ap.add_argument("--step-sleep", type=float, default=0.05)
    ap.add_argument("--fr-format", default="pickle", choices=["pickle", "json", "both", "none"])
    ap.add_argument("--no-dump-ranks", default="", help="comma-separated ranks that never dump")
    args = ap.parse_args()

    setup_logging()
    torch.manual_seed(0)
    rank = int(os.environ["RANK"])
    world_size = int(os.environ["WORLD_SIZE"])
    LOG.info("starting worker pid=%d host=%s world_size=%d master=%s:%s", os.getpid(), socket.gethostname(),
             world_size, os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"))
    LOG.info("torch %s, backend=gloo, pg timeout=%ss, TORCH_FR_BUFFER_SIZE=%s", torch.__version__, args.pg_timeout,
             os.environ.get("TORCH_FR_BUFFER_SIZE", "unset"))
    dist.init_process_group(backend="gloo", timeout=timedelta(seconds=args.pg_timeout))
    LOG.info("process group initialized: rank %d/%d", dist.get_rank(), dist.get_world_size())
    no_dump = {int(r) for r in args.no_dump_ranks.split(",") if r}
    if args.fr_format != "none" and rank not in no_dump:
        start_dump_listener(rank, args.fr_format)
    # a "tensor-parallel" pair that syncs activations statistics each step (all ranks must call new_group)
    pair = [1, 2] if world_size >= 3 else [0, 1]
    tp_group = dist.new_group(pair, timeout=timedelta(seconds=args.pg_timeout)) if args.scenario == "subgroup_stall" else None

    dim = 16
    model = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 1))
    for p in model.parameters():
        dist.broadcast(p.data, src=0)
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    loss_fn = nn.MSELoss()
    w = torch.linspace(-1.0, 1.0, dim)
    LOG.info("model: %d parameters, %d steps x %d micro-steps", sum(p.numel() for p in model.parameters()),
             args.steps, args.accum)

    t0 = time.time()
    try:
        for step in range(args.steps):
            failing = rank == args.fail_rank and step == args.fail_step
            opt.zero_grad(set_to_none=True)
            for micro in range(args.accum):
                if failing and micro == args.fail_micro and args.scenario == "stall":
                    time.sleep(args.stall_seconds)  # e.g. a blocking read on a dead NFS mount
                if failing and micro == args.fail_micro and args.scenario == "freeze":
                    os.kill(os.getpid(), signal.SIGSTOP)  # the whole process freezes (no thread runs, no dump)
                g = torch.Generator().manual_seed(step * 1000 + micro * 10 + rank)
                x = torch.randn(16, dim, generator=g)
                y = (x * w).sum(1, keepdim=True)
                loss = loss_fn(model(x), y) / args.accum
                loss.backward()
                LOG.info("step %d micro %d/%d loss %.4f", step, micro + 1, args.accum, loss.item() * args.accum)
            if tp_group is not None and rank in pair:
                if failing:
                    time.sleep(args.stall_seconds)  # this rank never reaches the pair's collective
                stats = torch.tensor([float(step), float(rank)])
                dist.all_reduce(stats, group=tp_group)
            grads = [p.grad for p in model.parameters()]
            if failing and args.scenario == "op":
                dist.broadcast(grads[0], src=0)  # this rank thinks it must re-sync the first layer instead
            elif failing and args.scenario == "size":
                dist.all_reduce(grads[0][:4].clone())  # a bucket cut short: another size at the same sequence id
            for i, g_ in enumerate(grads):
                if failing and args.scenario == "skip" and i == 0:
                    continue  # this rank skips the first layer's gradient sync on this step
                dist.all_reduce(g_)
                g_ /= world_size
            opt.step()
            lt = loss.detach().clone()
            dist.all_reduce(lt)
            LOG.info("step %d loss %.4f elapsed %.2fs", step, lt.item() / world_size, time.time() - t0)
            time.sleep(args.step_sleep)
        dist.barrier()
    except RuntimeError as exc:
        LOG.error("collective failed on rank %d: %s", rank, str(exc).splitlines()[0][:300])
        if args.fr_format != "none":
            dist.distributed_c10d._get_default_store().set(DUMP_KEY, str(rank))
            time.sleep(3)  # let every rank write its dump before this one exits
        raise
    if rank == 0:
        LOG.info("training finished in %.2fs", time.time() - t0)
    dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
