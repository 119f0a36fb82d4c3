"""Lightning version of the fresh workload: a tiny MLP trained with ``Trainer(strategy="ddp")`` on CPU processes.

Faults as in workload.py (``--fault segv|abort`` on ``--fault-rank`` at ``--fault-step``); ``--lr`` large plus
``--early-stop`` lets Lightning's own ``EarlyStopping(check_finite=True)`` stop a diverged run; ``--ckpt-dir``
adds a ``ModelCheckpoint`` every 10 steps (pointed at a tiny tmpfs by the generator).
"""
from __future__ import annotations

import argparse
import ctypes
import os

import lightning as L
import torch
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self, a: argparse.Namespace) -> None:
        super().__init__()
        self.a = a
        self.net = torch.nn.Sequential(torch.nn.Linear(32, a.hidden), torch.nn.ReLU(), torch.nn.Linear(a.hidden, 1))

    def training_step(self, batch, idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        if self.global_rank == self.a.fault_rank and self.global_step == self.a.fault_step:
            if self.a.fault == "segv":
                ctypes.string_at(0)
            elif self.a.fault == "abort":
                os.abort()
            elif self.a.fault == "memoryerror":
                staging = bytearray(64 * 2**30)  # a 64 GiB staging buffer on a 23 GiB host
                del staging
        self.log("train_loss", loss, on_step=True, prog_bar=False, sync_dist=True)
        print(f"[rank{self.global_rank}] step {self.global_step} loss {loss.item():.4f}", flush=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=self.a.lr)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--devices", type=int, default=2)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=10)
    p.add_argument("--early-stop", action="store_true")
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--samples", type=int, default=4096)
    a = p.parse_args()
    torch.manual_seed(0)
    x = torch.randn(a.samples, 32)
    y = x @ torch.randn(32, 1)
    callbacks = []
    if a.early_stop:
        callbacks.append(EarlyStopping(monitor="train_loss", check_finite=True, patience=1000, check_on_train_epoch_end=True,
                                       verbose=True))
    if a.ckpt_dir:
        callbacks.append(ModelCheckpoint(dirpath=a.ckpt_dir, every_n_train_steps=10, save_top_k=-1))
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_steps=a.steps, callbacks=callbacks,
                        logger=False, enable_progress_bar=False, enable_checkpointing=bool(a.ckpt_dir),
                        val_check_interval=5, limit_val_batches=0, log_every_n_steps=1)
    trainer.fit(Regressor(a), DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True))


if __name__ == "__main__":
    main()
