"""The ``logsleuth verify`` probe: the smallest job that exercises a training job's communication path.

Launched by the real launcher, once per rank::

    python -m torch.distributed.run --standalone --nproc-per-node 2 probe.py --backend gloo

(multi-node: the same ``--nnodes/--node-rank/--rdzv-endpoint`` arguments as training). Each rank initialises the
default process group with a short timeout, then runs all_reduce, all_gather, reduce_scatter, broadcast and
send/recv (each rank sends to ``rank+1`` and receives from ``rank-1``, as nccl-tests' ``sendrecv_perf``) over a
range of message sizes, checks every result element by element, and times them. Backend ``nccl`` on GPUs
(one GPU per local rank), ``gloo`` on CPU; ``auto`` picks ``nccl`` when CUDA devices are visible.

Bandwidth follows nccl-tests (``doc/PERFORMANCE.md``, https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md):

* ``S`` is the message size in bytes: the buffer of all_reduce/broadcast/send, the *total* (gathered) output of
  all_gather and the *total* input of reduce_scatter (``count * sizeof(float) * n`` with ``count`` per rank).
* ``t`` is the time of one operation, averaged over the timed iterations and then over ranks (nccl-tests'
  default ``-a 1``).
* ``algbw = S / t`` and ``busbw = algbw * factor`` with ``factor`` = ``2(n-1)/n`` for all_reduce, ``(n-1)/n`` for
  all_gather and reduce_scatter, ``1`` for broadcast and send/recv (``n`` = world size). busbw is comparable to
  the hardware's bottleneck link bandwidth independently of ``n``. Units: GB/s with 1 GB = 1e9 bytes.

Output: every line this script prints is ``[rankR]: logsleuth-probe {json}``, one JSON object per line, so the
runner (``logsleuth.verify.run``) reads results from the captured per-rank files and the analyzer sees the rank
prefix. ``ev`` is one of ``start`` (versions, device), ``phase`` (``init_start``, ``init_done``, ``op_start``),
``result`` (rank 0 only: op, bytes, iters, time_us, algbw/busbw in GB/s, wrong elements over all ranks),
``skip`` (an op the backend lacks) and ``done``. Failures are not caught: the real exception and the backend's
own error lines (with ``NCCL_DEBUG=INFO``) are what the analyzer reads. ``--inject`` deliberately breaks one rank
(``hang@R``: stop before the first collective; ``absent@R``: never reach init_process_group; ``corrupt@R``: send
wrong data) so the diagnosis path can be tested on real failures.

This file imports only the standard library and torch, so it runs anywhere torch runs.
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import sys
import time
from datetime import timedelta
from typing import Any

OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "sendrecv")
ELEM = 4  # bytes per float32 element
PREFIX = "logsleuth-probe"
# a torch.Tensor: torch is imported only when the probe runs (the optional ``verify`` extra), so not typed here
Tensor = Any


def bus_factor(op: str, n: int) -> float:
    """nccl-tests' bus-bandwidth correction factor for ``op`` on ``n`` ranks (doc/PERFORMANCE.md)."""
    if op == "all_reduce":
        return 2.0 * (n - 1) / n
    if op in ("all_gather", "reduce_scatter"):
        return (n - 1) / n
    if op in ("broadcast", "sendrecv"):
        return 1.0
    raise ValueError(f"unknown op {op!r}")


def message_sizes(min_bytes: int, max_bytes: int, factor: int) -> list[int]:
    """Sizes ``min_bytes * factor**k`` up to ``max_bytes`` (always included), in bytes."""
    if min_bytes < 1 or max_bytes < min_bytes or factor < 2:
        raise ValueError("need 1 <= min_bytes <= max_bytes and factor >= 2")
    out, s = [], min_bytes
    while s < max_bytes:
        out.append(s)
        s *= factor
    out.append(max_bytes)
    return out


def iterations(size: int, budget_bytes: int, max_iters: int) -> int:
    """Timed iterations for one size: about ``budget_bytes`` moved, between 2 and ``max_iters``."""
    return max(2, min(max_iters, budget_bytes // max(size, 1)))


class Probe:
    def __init__(self, args: argparse.Namespace) -> None:
        import torch
        import torch.distributed as dist

        self.torch, self.dist, self.args = torch, dist, args
        self.rank = int(os.environ.get("RANK", "0"))
        self.world = int(os.environ.get("WORLD_SIZE", "1"))
        self.local_rank = int(os.environ.get("LOCAL_RANK", "0"))
        backend = args.backend
        if backend == "auto":
            backend = "nccl" if torch.cuda.is_available() and torch.cuda.device_count() > 0 else "gloo"
        self.backend = backend
        if backend == "nccl":
            ndev = torch.cuda.device_count()
            if ndev == 0:
                raise RuntimeError("backend nccl asked for, but torch sees no CUDA device")
            # one GPU per local rank; more local ranks than GPUs share devices (NCCL then reports duplicate GPUs)
            self.device = torch.device("cuda", self.local_rank % ndev)
            torch.cuda.set_device(self.device)
        else:
            self.device = torch.device("cpu")
        self.inject = self._parse_inject(args.inject)

    # -- output -------------------------------------------------------------------------------------------------
    def emit(self, ev: str, **fields: object) -> None:
        rec = {"ev": ev, "rank": self.rank, **fields}
        print(f"[rank{self.rank}]: {PREFIX} {json.dumps(rec, separators=(',', ':'))}", flush=True)

    @staticmethod
    def _parse_inject(spec: str) -> tuple[str, int] | None:
        if not spec or spec == "none":
            return None
        kind, _, r = spec.partition("@")
        if kind not in ("hang", "absent", "corrupt") or not r.isdigit():
            raise SystemExit(f"{PREFIX}: bad --inject {spec!r} (hang@R, absent@R or corrupt@R)")
        return kind, int(r)

    def injected(self, kind: str) -> bool:
        return self.inject is not None and self.inject == (kind, self.rank)

    # -- helpers ------------------------------------------------------------------------------------------------
    def sync(self) -> None:
        if self.backend == "nccl":
            self.torch.cuda.synchronize(self.device)

    def versions(self) -> dict[str, object]:
        torch = self.torch
        info: dict[str, object] = {
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "backend": self.backend,
            "host": socket.gethostname(),
            "pid": os.getpid(),
            "world_size": self.world,
            "local_rank": self.local_rank,
            "device": str(self.device),
        }
        if self.backend == "nccl":
            info["gpu"] = torch.cuda.get_device_name(self.device)
            info["gpu_count"] = torch.cuda.device_count()
            try:
                v = torch.cuda.nccl.version()
                info["nccl"] = ".".join(map(str, v)) if isinstance(v, tuple) else str(v)
            except Exception:  # noqa: BLE001 - a CPU build has no NCCL
                info["nccl"] = None
        return info

    # -- the probe ----------------------------------------------------------------------------------------------
    def init(self) -> None:
        dist, args = self.dist, self.args
        if self.injected("absent"):
            self.emit("phase", name="absent", note="fault injection: this rank never reaches init_process_group")
            time.sleep(10**6)
        self.emit(
            "phase",
            name="init_start",
            backend=self.backend,
            timeout_s=args.pg_timeout,
            master=f"{os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}",
        )
        t0 = time.perf_counter()
        kwargs: dict[str, object] = {"backend": self.backend, "timeout": timedelta(seconds=args.pg_timeout)}
        if self.backend == "nccl":
            import inspect

            if "device_id" in inspect.signature(dist.init_process_group).parameters:
                kwargs["device_id"] = self.device  # eager NCCL init: communicator errors show here, not later
        dist.init_process_group(**kwargs)
        self.emit(
            "phase", name="init_done", seconds=round(time.perf_counter() - t0, 3), world_size=dist.get_world_size()
        )

    def buffers(self, op: str, size: int) -> tuple[Tensor, Tensor, int]:
        """(input, output, actual bytes S) for one op; S follows nccl-tests' definition per op."""
        torch, n = self.torch, self.world
        kw = {"dtype": torch.float32, "device": self.device}
        if op in ("all_gather", "reduce_scatter"):
            per_rank = max(1, size // (ELEM * n))
            total = per_rank * n
            if op == "all_gather":
                return torch.empty(per_rank, **kw), torch.empty(total, **kw), total * ELEM
            return torch.empty(total, **kw), torch.empty(per_rank, **kw), total * ELEM
        count = max(1, size // ELEM)
        return torch.empty(count, **kw), torch.empty(count, **kw), count * ELEM

    def run_op(self, op: str, inp: Tensor, out: Tensor) -> None:
        dist, n, r = self.dist, self.world, self.rank
        if op == "all_reduce":
            dist.all_reduce(inp)
        elif op == "all_gather":
            fn = getattr(dist, "all_gather_single", None) or dist.all_gather_into_tensor
            fn(out, inp)
        elif op == "reduce_scatter":
            fn = getattr(dist, "reduce_scatter_single", None) or dist.reduce_scatter_tensor
            fn(out, inp)
        elif op == "broadcast":
            dist.broadcast(inp, src=0)
        elif op == "sendrecv":
            reqs = dist.batch_isend_irecv(
                [dist.P2POp(dist.isend, inp, (r + 1) % n), dist.P2POp(dist.irecv, out, (r - 1) % n)]
            )
            for q in reqs:
                q.wait()

    def check(self, op: str, inp: Tensor, out: Tensor) -> int:
        """Fill inputs with a rank/index pattern, run ``op`` once and count wrong elements on this rank."""
        torch, n, r = self.torch, self.world, self.rank
        f32 = torch.float32
        idx = torch.arange(inp.numel(), device=self.device, dtype=torch.int64)  # exact beyond 2**24 elements

        def pat(m: int, sl: slice = slice(None)) -> Tensor:
            return torch.remainder(idx[sl], m).to(f32)

        if op == "all_reduce":
            inp.copy_(r + 1 + pat(7))
            expect = n * (n + 1) / 2 + n * pat(7)
            got = inp
        elif op == "all_gather":
            inp.copy_(r * 256 + pat(251))
            src = torch.arange(n, device=self.device, dtype=f32).repeat_interleave(inp.numel())
            expect = src * 256 + pat(251).repeat(n)
            got = out
        elif op == "reduce_scatter":
            inp.copy_(r + 1 + pat(13))
            expect = n * (n + 1) / 2 + n * pat(13, slice(r * out.numel(), (r + 1) * out.numel()))
            got = out
        elif op == "broadcast":
            pattern = 1 + pat(251)
            inp.copy_(pattern if r == 0 else torch.full_like(pattern, -1.0))
            expect, got = pattern, inp
        else:  # sendrecv
            inp.copy_(r * 256 + pat(251))
            out.fill_(-1.0)
            expect = ((r - 1) % n) * 256 + pat(251)
            got = out
        if self.injected("corrupt"):
            inp.add_(0.5)  # this rank's contribution is wrong from here on
        self.run_op(op, inp, out)
        self.sync()
        return int((got != expect).sum().item())

    def measure(self, op: str, size: int) -> None:
        torch, dist, args, n = self.torch, self.dist, self.args, self.world
        if op == "sendrecv" and n < 2:
            self.emit("skip", op=op, reason="send/recv needs two ranks")
            return
        inp, out, nbytes = self.buffers(op, size)
        self.emit("phase", name="op_start", op=op, bytes=nbytes)
        wrong = self.check(op, inp, out)
        inp.zero_()  # in-place sums of the timed iterations stay finite
        iters = iterations(nbytes, args.budget_bytes, args.iters)
        for _ in range(args.warmup):
            self.run_op(op, inp, out)
        dist.barrier()  # every rank starts timing together...
        self.sync()  # ...after its queued GPU work (warm-up and the barrier itself) has finished
        t0 = time.perf_counter()
        for _ in range(iters):
            self.run_op(op, inp, out)
        self.sync()
        per_op = (time.perf_counter() - t0) / iters
        stats = torch.tensor([per_op, float(wrong)], dtype=torch.float64, device=self.device)
        dist.all_reduce(stats)  # sum over ranks: time -> mean below, wrong -> total
        t = float(stats[0].item()) / n
        total_wrong = int(round(float(stats[1].item())))
        algbw = nbytes / t / 1e9
        if self.rank == 0:
            self.emit(
                "result",
                op=op,
                bytes=nbytes,
                iters=iters,
                time_us=round(t * 1e6, 2),
                algbw_gbps=round(algbw, 4),
                busbw_gbps=round(algbw * bus_factor(op, n), 4),
                wrong=total_wrong,
                world_size=n,
            )

    def main(self) -> int:
        args = self.args
        t_start = time.perf_counter()
        info = self.versions()
        self.emit("start", **info)
        # a plain line the analyzer's version finder understands (``torch version X``)
        print(f"[rank{self.rank}]: {PREFIX} torch version {info['torch']} backend {self.backend}", flush=True)
        self.init()
        if self.injected("hang"):
            self.emit("phase", name="hang", note="fault injection: this rank stops before the first collective")
            time.sleep(10**6)
        sizes = message_sizes(args.min_bytes, args.max_bytes, args.factor)
        for op in args.ops.split(","):
            for size in sizes:
                self.measure(op, size)
        self.dist.barrier()
        self.emit("done", seconds=round(time.perf_counter() - t_start, 3))
        self.dist.destroy_process_group()
        return 0


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(prog="probe.py", description="logsleuth verify probe (run under torchrun)")
    ap.add_argument("--backend", choices=["auto", "nccl", "gloo"], default="auto")
    ap.add_argument("--ops", default=",".join(OPS), help="comma-separated subset of " + ",".join(OPS))
    ap.add_argument("--min-bytes", type=int, default=8)
    ap.add_argument("--max-bytes", type=int, default=None, help="default 256 MiB on nccl, 4 MiB on gloo")
    ap.add_argument("--factor", type=int, default=4, help="size step (multiplier)")
    ap.add_argument("--iters", type=int, default=20, help="most timed iterations per size")
    ap.add_argument("--warmup", type=int, default=2)
    ap.add_argument(
        "--budget-bytes",
        type=int,
        default=None,
        help="bytes to move per size when choosing iterations (default 2 GiB nccl, 32 MiB gloo)",
    )
    ap.add_argument("--pg-timeout", type=float, default=30.0, help="process-group timeout, seconds")
    ap.add_argument("--inject", default="none", help="fault injection for tests: hang@R, absent@R, corrupt@R")
    args = ap.parse_args(argv)
    for op in args.ops.split(","):
        if op not in OPS:
            ap.error(f"unknown op {op!r}; choose from {', '.join(OPS)}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    probe = Probe(args)
    gpu = probe.backend == "nccl"
    if args.max_bytes is None:
        args.max_bytes = (256 << 20) if gpu else (4 << 20)
    if args.budget_bytes is None:
        args.budget_bytes = (2 << 30) if gpu else (32 << 20)
    args.min_bytes = min(args.min_bytes, args.max_bytes)
    return probe.main()


if __name__ == "__main__":
    sys.exit(main())
