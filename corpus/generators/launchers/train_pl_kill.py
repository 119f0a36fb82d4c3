"""Lightning ``Trainer(strategy=...)`` on CPU processes where one rank is killed (SIGKILL) at one step.

``--strategy ddp``: Lightning's own subprocess launcher (``_ChildProcessObserver`` polls the children every 5 s and
logs "Child process with PID N terminated with code C"); the other ranks stay ``--survivors-wait`` seconds outside
any collective, as in a long data-loading phase. ``--strategy ddp_spawn``: ``torch.multiprocessing.spawn``.
"""
from __future__ import annotations

import argparse
import os
import signal
import time

import lightning as L
import torch
from torch.utils.data import DataLoader, TensorDataset


class Regressor(L.LightningModule):
    def __init__(self, a: argparse.Namespace) -> None:
        super().__init__()
        self.a = a
        self.net = torch.nn.Linear(8, 1)

    def training_step(self, batch, idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        if self.global_step == self.a.fault_step:
            if self.global_rank == self.a.fault_rank:
                os.kill(os.getpid(), getattr(signal, self.a.signal))
            else:
                time.sleep(self.a.survivors_wait)
        print(f"[rank{self.global_rank}] step {self.global_step} loss {loss.item():.4f}", flush=True)
        return loss

    def configure_optimizers(self):
        return torch.optim.SGD(self.parameters(), lr=0.05)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--strategy", default="ddp")
    p.add_argument("--signal", default="SIGKILL")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=3)
    p.add_argument("--survivors-wait", type=float, default=12.0)
    a = p.parse_args()
    x = torch.randn(512, 8)
    dl = DataLoader(TensorDataset(x, x.sum(1, keepdim=True)), batch_size=16)
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy=a.strategy, max_steps=10, logger=False,
                        enable_checkpointing=False, enable_progress_bar=False, enable_model_summary=False)
    trainer.fit(Regressor(a), dl)


if __name__ == "__main__":
    main()
