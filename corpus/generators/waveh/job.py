"""Wave H data-parallel job (torch.distributed, gloo, CPU) for launchers that do not set torch's own variables:
Open MPI's ``mpirun`` (``OMPI_COMM_WORLD_RANK``/``SIZE``/``LOCAL_RANK``) and Slurm's ``srun`` (``SLURM_PROCID``/
``SLURM_NTASKS``/``SLURM_LOCALID``), as well as torchrun (``RANK``/``WORLD_SIZE``). ``MASTER_ADDR``/``MASTER_PORT`` come
from the environment (the job script sets them, as users do under mpirun and Slurm).

A small MLP regression over records read from a CSV file (``--data``, written by ``make_data.py``) or from a raw
float32 file mapped with ``numpy.memmap`` (``--mmap-data``); gradients averaged by a hand-written flattened
all_reduce (no DDP); an evaluation every ``--eval-every`` steps whose loss is all_reduced; checkpoints by rank 0.

Options that make a real bug or condition possible (nothing here prints a message in a library's place):
  --feature-cache        each rank memoises the expanded features of every record it has seen (never evicted):
                         the process grows by --expand floats per record
  --eval-by-hand         the eval records are split by hand (``records[rank::world]``) and a rank with no eval
                         records skips the eval all_reduce (``if shard:``), so its collectives no longer match
  --eval-cache DIR       before the first eval rank 0 builds an eval cache under an exclusive ``fcntl.flock`` on
                         DIR/eval.lock (waits as long as another process holds the lock) while the others wait
                         at a barrier
  --pg-timeout S         process-group timeout in seconds (torch's default 1800 otherwise)
  --refresh-data CMD     rank 0 starts CMD (the data-prep step for the next epoch) in the background after step
                         --refresh-step
"""
from __future__ import annotations

import argparse
import csv
import datetime
import fcntl
import logging
import os
import socket
import subprocess
import time

import numpy as np
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, Dataset, DistributedSampler, Subset

log = logging.getLogger("train")


def env_int(names: tuple[str, ...], default: int) -> int:
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    return default


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/train.csv")
    p.add_argument("--mmap-data", default="")
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--max-steps", type=int, default=0)
    p.add_argument("--batch", type=int, default=32)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.02)
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--eval-every", type=int, default=25)
    p.add_argument("--eval-records", type=int, default=64)
    p.add_argument("--eval-by-hand", action="store_true")
    p.add_argument("--eval-cache", default="")
    p.add_argument("--feature-cache", action="store_true")
    p.add_argument("--expand", type=int, default=4096)
    p.add_argument("--save-dir", default="")
    p.add_argument("--save-every", type=int, default=0)
    p.add_argument("--pg-timeout", type=float, default=1800.0)
    p.add_argument("--sleep", type=float, default=0.02)
    p.add_argument("--refresh-data", default="")
    p.add_argument("--refresh-step", type=int, default=10)
    return p.parse_args()


class CsvRecords(Dataset):
    """Rows ``f0..fN,target`` of a CSV file, parsed on access (the file is read once, as text)."""

    def __init__(self, path: str, features: int, cache: bool, expand: int) -> None:
        with open(path, newline="") as f:
            r = csv.reader(f)
            self.header = next(r)
            self.rows = list(r)
        self.features, self.cache, self.expand, self.memo = features, cache, expand, {}

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, i: int):
        if i in self.memo:
            return self.memo[i]
        row = self.rows[i]
        x = torch.tensor([float(v) for v in row[: self.features]])
        y = torch.tensor([float(row[self.features])])
        if self.cache:
            # expanded (random Fourier) features, memoised so later epochs skip the work
            w = torch.Generator().manual_seed(i)
            extra = torch.cos(torch.randn(self.expand, generator=w) * x.sum())
            self.memo[i] = (x, y, extra)
            return self.memo[i]
        return x, y, torch.zeros(0)


class MappedRecords(Dataset):
    """Records of ``features + 1`` float32 values in a raw file, read through ``numpy.memmap``."""

    def __init__(self, path: str, features: int) -> None:
        self.arr = np.memmap(path, dtype=np.float32, mode="r").reshape(-1, features + 1)
        self.features = features

    def __len__(self) -> int:
        return self.arr.shape[0]

    def __getitem__(self, i: int):
        row = torch.from_numpy(np.array(self.arr[i]))
        return row[: self.features], row[self.features:], torch.zeros(0)


def average_gradients(model: torch.nn.Module, world: int) -> None:
    flat = torch.cat([p.grad.flatten() for p in model.parameters()])
    dist.all_reduce(flat)
    flat /= world
    off = 0
    for p in model.parameters():
        n = p.numel()
        p.grad.copy_(flat[off:off + n].view_as(p.grad))
        off += n


def build_eval_cache(path: str, rank: int) -> None:
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "eval.lock"), "w") as lk:
        log.info("acquiring eval cache lock %s", os.path.join(path, "eval.lock"))
        fcntl.flock(lk, fcntl.LOCK_EX)
        log.info("building eval cache in %s", path)
        np.save(os.path.join(path, f"eval-rank{rank}.npy"), np.zeros(16, dtype=np.float32))
        fcntl.flock(lk, fcntl.LOCK_UN)


def evaluate(model, ev: torch.Tensor, rank: int, world: int, by_hand: bool, features: int):
    model.eval()
    with torch.no_grad():
        if by_hand:
            shard = ev[rank::world]  # a rank gets nothing when there are fewer eval records than ranks
            if len(shard):
                loss = torch.nn.functional.mse_loss(model(shard[:, :features]), shard[:, features:], reduction="sum")
                t = torch.stack([loss, torch.tensor(float(len(shard)))])
                dist.all_reduce(t)
                model.train()
                return (t[0] / t[1]).item(), int(t[1].item())
            model.train()
            return None, 0
        shard = ev[rank * len(ev) // world:(rank + 1) * len(ev) // world]
        loss = torch.nn.functional.mse_loss(model(shard[:, :features]), shard[:, features:], reduction="sum")
        t = torch.stack([loss, torch.tensor(float(len(shard)))])
        dist.all_reduce(t)
    model.train()
    return (t[0] / t[1]).item(), int(t[1].item())


def main() -> None:
    a = parse()
    rank = env_int(("RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"), 0)
    world = env_int(("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"), 1)
    local = env_int(("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"), 0)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s [rank {rank}/{world}] %(levelname)s %(name)s: %(message)s")
    log.info("host=%s pid=%d local_rank=%d master=%s:%s", socket.gethostname(), os.getpid(), local,
             os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"))
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.pg_timeout))
    log.info("process group ready: backend=%s world_size=%d", dist.get_backend(), dist.get_world_size())
    torch.manual_seed(0)
    if a.mmap_data:
        ds = MappedRecords(a.mmap_data, a.features)
        log.info("mapped %s: %d records of %d features", a.mmap_data, len(ds), a.features)
    else:
        ds = CsvRecords(a.data, a.features, a.feature_cache, a.expand)
        log.info("read %s: %d records, columns %s..%s", a.data, len(ds), ds.header[0], ds.header[-1])
    n_train = len(ds) - a.eval_records  # the last records are held out for evaluation
    ev = torch.stack([torch.cat(ds[i][:2]) for i in range(n_train, len(ds))])
    train_ds = Subset(ds, range(n_train))
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(train_ds, batch_size=a.batch, sampler=sampler)
    model = torch.nn.Sequential(torch.nn.Linear(a.features, a.hidden), torch.nn.ReLU(),
                                torch.nn.Linear(a.hidden, a.hidden), torch.nn.ReLU(), torch.nn.Linear(a.hidden, 1))
    for p in model.parameters():  # same start on every rank
        dist.broadcast(p.data, 0)
    opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    log.info("model params=%d batch=%d steps/epoch=%d epochs=%d", sum(p.numel() for p in model.parameters()),
             a.batch, len(loader), a.epochs)
    step, t0, refresher, cache_ready = 0, time.time(), None, False
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        for x, y, extra in loader:
            pred = model(x)
            loss = torch.nn.functional.mse_loss(pred, y)
            if extra.numel():
                loss = loss + 0.0 * extra.mean()
            opt.zero_grad()
            loss.backward()
            average_gradients(model, world)
            opt.step()
            step += 1
            if step % a.log_every == 0:
                rss = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
                log.info("epoch %d step %d loss %.4f rss %.0f MiB %.2f s/step", epoch, step, loss.item(), rss,
                         (time.time() - t0) / step)
            if a.refresh_data and rank == 0 and step == a.refresh_step and refresher is None:
                log.info("starting data prep for epoch %d: %s", epoch + 1, a.refresh_data)
                refresher = subprocess.Popen(a.refresh_data, shell=True)
            if a.eval_every and step % a.eval_every == 0:
                if a.eval_cache and not cache_ready:
                    if rank == 0:  # one writer; the others wait at the barrier
                        build_eval_cache(a.eval_cache, rank)
                    dist.barrier()
                    cache_ready = True
                ev_loss, n = evaluate(model, ev, rank, world, a.eval_by_hand, a.features)
                if ev_loss is None:
                    log.info("step %d: no eval records on this rank", step)
                else:
                    log.info("step %d eval_loss %.4f over %d records", step, ev_loss, n)
            if a.save_every and step % a.save_every == 0 and rank == 0:
                os.makedirs(a.save_dir, exist_ok=True)
                path = os.path.join(a.save_dir, f"step{step}.pt")
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
                log.info("saved %s", path)
            time.sleep(a.sleep)
            if a.max_steps and step >= a.max_steps:
                break
        log.info("epoch %d done at step %d", epoch, step)
        dist.barrier()
    log.info("training finished: %d steps in %.1f s", step, time.time() - t0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
