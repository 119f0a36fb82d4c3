"""Lightning wave C job: a tiny MLP trained with ``Trainer(strategy="ddp")`` on CPU processes, fed by DataLoader
worker processes.

``--fault``: ``loader-segv`` (a worker of ``--fault-rank`` dies by SIGSEGV at ``--fault-step``), ``hang`` (rank
``--fault-rank`` blocks reading a FIFO nobody writes, from ``--fault-step``: it stops printing and its peers wait in
the next gradient all_reduce), ``anomaly`` (``Trainer(detect_anomaly=True)`` and a sqrt of a negative number).
``--big`` makes each batch 4 MiB so DataLoader workers need /dev/shm; ``--num-nodes 2`` asks for a second node
that the generator never starts; ``--noisy`` is a healthy run that triggers Lightning's usual warnings (default
logger, epoch-level metric not synced across ranks, few loader workers, logging interval longer than the epoch).
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import time

import lightning as L
import torch
from lightning.pytorch.strategies import DDPStrategy
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __init__(self, n: int, width: int, a: argparse.Namespace) -> None:
        self.n, self.width, self.a = n, width, a

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(self.width, generator=g)
        info = torch.utils.data.get_worker_info()
        if self.a.fault == "loader-segv" and info is not None and i == self.a.bad_index:
            ctypes.string_at(0)
        return x, x[:1] * 2.0


class Regressor(L.LightningModule):
    def __init__(self, a: argparse.Namespace, width: int) -> None:
        super().__init__()
        self.a = a
        self.net = torch.nn.Sequential(torch.nn.Linear(width, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))

    def training_step(self, batch, idx):
        x, y = batch
        out = self.net(x)
        loss = torch.nn.functional.mse_loss(out, y)
        mine = self.global_rank == self.a.fault_rank and self.global_step >= self.a.fault_step
        if mine and self.a.fault == "hang":
            with open(self.a.fifo) as f:  # blocks: nobody ever opens the FIFO for writing
                f.read()
        if mine and self.a.fault == "anomaly":
            loss = loss + (out.detach().min() - out.max() - 1).sqrt()
        time.sleep(self.a.sleep)
        self.log("train_loss", loss, on_step=True, on_epoch=self.a.noisy)  # noisy: epoch-level, not synced
        print(f"{datetime.datetime.now():%H:%M:%S} [rank{self.global_rank}] step {self.global_step} loss {loss.item():.4f}",
              flush=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--devices", type=int, default=2)
    p.add_argument("--num-nodes", type=int, default=1)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=10)
    p.add_argument("--sleep", type=float, default=0.0, help="seconds per step (a slower model)")
    p.add_argument("--big", action="store_true")
    p.add_argument("--noisy", action="store_true")
    p.add_argument("--timeout", type=float, default=1800.0, help="process-group timeout, seconds")
    p.add_argument("--fifo", default="stalled.fifo")
    a = p.parse_args()
    width = 1024 * 1024 // 8 if a.big else 32  # --big: 16 samples x 128 Ki floats = 8 MiB per batch
    batch = 16
    a.bad_index = batch * (a.devices * a.fault_step + a.fault_rank)  # DistributedSampler(shuffle=False) interleaves
    if a.fault == "hang" and not os.path.exists(a.fifo):
        os.mkfifo(a.fifo)
    strategy = DDPStrategy(timeout=datetime.timedelta(seconds=a.timeout))
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, num_nodes=a.num_nodes, strategy=strategy,
                        max_steps=a.steps, logger=a.noisy, enable_progress_bar=a.noisy,
                        enable_checkpointing=a.noisy, detect_anomaly=a.fault == "anomaly",
                        log_every_n_steps=50 if a.noisy else 1)
    loader = DataLoader(Records(batch * a.devices * (a.steps + 2), width, a), batch_size=batch,
                        num_workers=a.workers, shuffle=False)
    trainer.fit(Regressor(a, width), loader)
    if trainer.global_rank == 0:
        print("training finished", flush=True)


if __name__ == "__main__":
    main()
