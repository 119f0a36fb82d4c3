"""Small data-parallel training job (torch.distributed, gloo, CPU) with one injected fault.

A tiny MLP regresses synthetic data; gradients are all_reduced by hand; every rank logs
``step N loss X`` with a timestamp. ``--fault`` decides what goes wrong on ``--fault-rank`` at
``--fault-step``: a native crash (SIGSEGV through ctypes, SIGABRT, SIGBUS through a truncated
mmap), a host allocation that cannot be satisfied, a diverging loss, or a checkpoint written to
a full filesystem. The process is whatever the launcher started; nothing here fakes a message
that the library or the kernel prints.
"""
from __future__ import annotations

import argparse
import ctypes
import json
import logging
import math
import mmap
import os
import sys
import tempfile
import time

import torch
import torch.distributed as dist


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=12)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--ckpt-every", type=int, default=10)
    p.add_argument("--nan-check", default="raise", choices=["raise", "exit", "none"])
    p.add_argument("--sleep", type=float, default=0.05)
    p.add_argument("--log-file", default="")
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)  # the DeepSpeed launcher passes it
    return p.parse_args()


def native_fault(kind: str) -> None:
    if kind == "segv":
        ctypes.string_at(0)  # read from address 0 -> SIGSEGV in libc's strlen
    elif kind == "abort":
        os.abort()
    elif kind == "sigbus":
        fd, path = tempfile.mkstemp(prefix="shard-", suffix=".bin")
        os.write(fd, b"\0" * mmap.PAGESIZE * 4)
        m = mmap.mmap(fd, mmap.PAGESIZE * 4)
        os.ftruncate(fd, 0)  # the file behind the mapping shrinks (as when another process rewrites a shard)
        m[mmap.PAGESIZE * 2]  # touching a page past EOF -> SIGBUS
    elif kind == "sigill":
        # a kernel built for an instruction set this CPU lacks: jump into code that is one undefined instruction (ud2)
        code = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        code.write(b"\x0f\x0b")
        ctypes.CFUNCTYPE(None)(ctypes.addressof(ctypes.c_char.from_buffer(code)))()
    elif kind == "bad-free":
        # an extension frees memory it does not own: glibc detects it and aborts
        buf = ctypes.create_string_buffer(64)
        ctypes.CDLL(None).free(ctypes.c_void_p(ctypes.addressof(buf) + 16))
    elif kind == "fatal":
        import faulthandler

        faulthandler.enable()
        ctypes.string_at(0)


def host_alloc(kind: str) -> None:
    if kind == "memoryerror":
        buf = bytearray(64 * 2**30)  # a 64 GiB staging buffer for the whole eval set
        del buf
    elif kind == "numpy":
        import numpy as np

        sims = np.zeros((300_000, 300_000), dtype=np.float32)  # pairwise similarity matrix, 335 GiB
        del sims
    elif kind == "torch-alloc":
        cache = torch.empty(48 * 2**30, dtype=torch.uint8)  # a 48 GiB activation cache
        del cache


def main() -> None:
    a = parse()
    run(a)


def run(a: argparse.Namespace) -> None:
    """One rank's training loop; the process group comes from the env:// variables."""
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    handlers = [logging.StreamHandler(sys.stdout)]
    if a.log_file:  # each rank also appends to a log file (on a full disk in the generator's disk-logfile run)
        os.makedirs(os.path.dirname(a.log_file), exist_ok=True)
        handlers.append(logging.FileHandler(a.log_file.replace("{rank}", str(rank))))
    logging.basicConfig(level=logging.INFO, handlers=handlers,
                        format=f"%(asctime)s [rank{rank}] %(levelname)s train: %(message)s")
    log = logging.getLogger("train")
    log.info("world_size=%d backend=%s lr=%g steps=%d", world, dist.get_backend(), a.lr, a.steps)
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, a.hidden), torch.nn.ReLU(), torch.nn.Linear(a.hidden, 1))
    for p in model.parameters():
        dist.broadcast(p.data, 0)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    g = torch.Generator().manual_seed(1 + rank)
    w_true = torch.randn(32, 1, generator=torch.Generator().manual_seed(7))
    scaler = torch.amp.GradScaler("cpu", init_scale=2.0**16, growth_interval=1000) if a.fault == "scale-collapse" else None
    for step in range(1, a.steps + 1):
        x = torch.randn(64, 32, generator=g)
        y = x @ w_true
        if a.fault == "inf-batch" and rank == a.fault_rank and step == a.fault_step:
            x[3, 5] = float("inf")  # one corrupt sample on one rank; the all_reduce spreads its nan gradients
        out = model(x)
        if a.fault == "log-zero" and step >= a.fault_step:
            prob = torch.sigmoid(out * 1e4)  # saturated probabilities reach exactly 0 and 1
            loss = -(torch.log(prob) * 0 + torch.log(1 - prob)).mean()
        else:
            loss = torch.nn.functional.mse_loss(out, y)
        if a.fault == "scale-collapse" and step >= a.fault_step:
            loss = loss * float("inf")  # an overflowing term: every step's gradients are inf
        opt.zero_grad()
        if scaler is not None:
            scaler.scale(loss).backward()
        else:
            loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        if scaler is not None:
            scaler.step(opt)
            scaler.update()
            scale = scaler.get_scale()
            log.info("step %d loss %.4f loss_scale %g", step, loss.item(), scale)
            if scale < 1e-4:
                raise RuntimeError(f"loss scale {scale} fell below 1e-4 at step {step}: gradients overflow every step")
        else:
            opt.step()
            log.info("step %d loss %.4f", step, loss.item())
        if a.nan_check != "none" and not math.isfinite(loss.item()):
            if a.nan_check == "exit":
                print(f"Loss is {loss.item()}, stopping training", flush=True)
                sys.exit(1)
            raise ValueError(f"Loss is NaN or Inf at step {step} (loss={loss.item()})")
        if rank == a.fault_rank and step == a.fault_step:
            native_fault(a.fault)
            host_alloc(a.fault)
        if a.ckpt_dir and step % a.ckpt_every == 0:
            if rank == 0:
                os.makedirs(a.ckpt_dir, exist_ok=True)
                path = os.path.join(a.ckpt_dir, f"step{step:05d}")
                os.makedirs(path, exist_ok=True)
                if a.fault == "disk-numpy":
                    import numpy as np

                    np.save(os.path.join(path, "eval_predictions.npy"), np.random.rand(200_000))
                if a.fault == "disk-json":
                    with open(os.path.join(path, "trainer_state.json"), "w") as f:
                        json.dump({"step": step, "history": [[float(v) for v in torch.randn(64)] for _ in range(400)]}, f)
                torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "step": step},
                           os.path.join(path, "checkpoint.pt"))
                log.info("saved checkpoint %s", path)
            dist.barrier()
        time.sleep(a.sleep)
    dist.barrier()
    log.info("training finished after %d steps", a.steps)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
