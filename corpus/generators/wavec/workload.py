"""Wave C data-parallel job (torch.distributed, gloo, CPU): a tiny MLP fed by a real DataLoader, gradients
all_reduced by hand, ``step N loss X`` per rank. Runs under torchrun / ``python -m torch.distributed.run``, the
DeepSpeed launcher and ``accelerate launch`` (all set RANK/WORLD_SIZE/MASTER_* in the environment).

``--fault`` on ``--fault-rank`` from ``--fault-step``:
  leak            the rank keeps every step's 96 MiB activations in a list (host memory grows until a limit bites)
  loader-raise    a DataLoader worker raises on a corrupt record (ValueError in ``__getitem__``)
  loader-segv     a DataLoader worker dies by SIGSEGV (ctypes.string_at(0) in ``__getitem__``)
  gradnorm        the loss is scaled up until gradients overflow; ``clip_grad_norm_(error_if_nonfinite=True)`` raises
  anomaly         ``torch.autograd.detect_anomaly()``: sqrt of a negative number -> SqrtBackward0 returned nan
``--dcp-dir`` saves a torch.distributed.checkpoint every ``--ckpt-every`` steps (every rank writes its shard).
Nothing here prints a message that stands in for a library's or the kernel's.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import time

import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset


class Shards(Dataset):
    """Synthetic regression records; ``bad`` indices are corrupt (fault injection in the worker process)."""

    def __init__(self, n: int, width: int, fault: str, bad: set[int]) -> None:
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, width, generator=g)
        self.y = self.x[:, :1] * 2.0
        self.fault, self.bad = fault, bad

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        if i in self.bad:
            if self.fault == "loader-raise":
                raise ValueError(f"record {i}: expected 32 features, got 0 (truncated shard?)")
            if self.fault == "loader-segv":
                ctypes.string_at(0)
        return self.x[i], self.y[i]


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=10)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--sleep", type=float, default=0.05)
    p.add_argument("--timeout", type=float, default=1800.0, help="process-group timeout, seconds")
    p.add_argument("--dcp-dir", default="")
    p.add_argument("--ckpt-every", type=int, default=10)
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)  # the DeepSpeed launcher passes it
    return p.parse_args()


def log(rank: int, msg: str) -> None:
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} [rank{rank}] {msg}", flush=True)


def main() -> None:
    a = parse()
    if a.fault == "anomaly":
        torch.autograd.set_detect_anomaly(True)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    attempt = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    log(rank, f"init done: world_size={world} attempt={attempt} pid={os.getpid()}")
    torch.manual_seed(rank)
    model = torch.nn.Sequential(torch.nn.Linear(a.width, a.hidden), torch.nn.ReLU(), torch.nn.Linear(a.hidden, 1))
    for p in model.parameters():
        dist.broadcast(p.data, 0)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    n = a.batch * world * (a.steps + 2)
    bad = set()
    if a.fault in ("loader-raise", "loader-segv"):
        bad = set(range(a.batch * (world * a.fault_step + a.fault_rank), a.batch * (world * a.fault_step + a.fault_rank + 1)))
    data = Shards(n, a.width, a.fault, bad)
    idx = [i for i in range(n) if (i // a.batch) % world == rank]  # each rank reads its own interleaved batches
    loader = DataLoader(torch.utils.data.Subset(data, idx), batch_size=a.batch, num_workers=a.workers)
    kept = []
    me = rank == a.fault_rank
    for step, (x, y) in enumerate(loader):
        if step >= a.steps:
            break
        out = model(x)
        loss = torch.nn.functional.mse_loss(out, y)
        if me and step >= a.fault_step:
            if a.fault == "leak":
                kept.append(torch.ones(96 * 2**20 // 4))  # 96 MiB per step, never released
                log(rank, f"cached activations for step {step}: {len(kept)} buffers")
            elif a.fault == "gradnorm":
                loss = loss * 1e38 * 1e38  # a loss term that overflows float32
            elif a.fault == "anomaly":
                loss = loss + (out.detach().min() - out.max() - 1).sqrt()  # sqrt of a negative -> nan in backward
        opt.zero_grad()
        loss.backward()
        for p in model.parameters():
            dist.all_reduce(p.grad)
            p.grad /= world
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0, error_if_nonfinite=a.fault == "gradnorm")
        opt.step()
        log(rank, f"step {step} loss {loss.item():.4f} grad_norm {norm.item():.4f}")
        if a.dcp_dir and (step + 1) % a.ckpt_every == 0:
            import torch.distributed.checkpoint as dcp

            dcp.save({"model": model.state_dict(), "optim": opt.state_dict()},
                     checkpoint_id=os.path.join(a.dcp_dir, f"step_{step + 1}"))
            log(rank, f"saved distributed checkpoint step_{step + 1}")
        time.sleep(a.sleep)
    dist.barrier()
    log(rank, "training finished")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
