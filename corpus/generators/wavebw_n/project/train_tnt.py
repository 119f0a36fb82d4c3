"""Team training script: a small MLP classifier on generated data, trained with TorchTNT's AutoUnit under
DDPStrategy (gloo on CPU), TorchTNT's DistributedCheckpointSaver (DCP), TQDMProgressBar, IterationTimeLogger
(StdoutLogger) and GarbageCollector callbacks. Launched per node by ``python -m torch.distributed.run``.

An optional ``train_hooks.py`` next to this file (``on_step(rank, step, batch, loss)``) is called from a callback
after every train step (the team's debugging/audit hooks)."""
from __future__ import annotations

import argparse
import logging
import os
import socket
from datetime import timedelta

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

from torchtnt.framework import train
from torchtnt.framework.auto_unit import AutoUnit
from torchtnt.framework.callback import Callback
from torchtnt.framework.callbacks import (DistributedCheckpointSaver, GarbageCollector, IterationTimeLogger,
                                          TQDMProgressBar)
from torchtnt.framework.callbacks.early_stopping import EarlyStopping
from torchtnt.utils import init_from_env, seed
from torchtnt.utils.distributed import get_global_rank, get_world_size
from torchtnt.utils.early_stop_checker import EarlyStopChecker
from torchtnt.utils.loggers import StdoutLogger
from torchtnt.utils.prepare_module import DDPStrategy

try:
    import train_hooks
except ImportError:
    train_hooks = None


class TeacherData(Dataset):
    """Inputs N(0, 1) in ``dim`` dimensions, labels from a fixed random two-layer teacher network."""

    def __init__(self, n: int, dim: int, classes: int, seed_: int = 1234) -> None:
        g = torch.Generator().manual_seed(seed_)
        self.x = torch.randn(n, dim, generator=g)
        w1, w2 = torch.randn(dim, 64, generator=g), torch.randn(64, classes, generator=g)
        self.y = (torch.tanh(self.x @ w1) @ w2).argmax(1)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int):
        return self.x[i], self.y[i]


class MLPUnit(AutoUnit):
    def __init__(self, *, lr: float, log_every: int, metric_logger, **kw) -> None:
        super().__init__(**kw)
        self.lr = lr
        self.log_every = log_every
        self.metric_logger = metric_logger
        self.last_loss = float("nan")

    def compute_loss(self, state, data):
        x, y = data
        out = self.module(x)
        return nn.functional.cross_entropy(out, y), out

    def configure_optimizers_and_lr_scheduler(self, module):
        opt = torch.optim.SGD(module.parameters(), lr=self.lr, momentum=0.9)
        return opt, torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.7)

    def on_train_step_end(self, state, data, step, results) -> None:
        self.last_loss = results.loss.detach().item()
        if step % self.log_every == 0:
            self.metric_logger.log_dict({"loss": self.last_loss, "lr": self.optimizer.param_groups[0]["lr"]},
                                        step)


class Hooks(Callback):
    def on_train_step_end(self, state, unit) -> None:
        if train_hooks is not None:
            train_hooks.on_step(get_global_rank(), unit.train_progress.num_steps_completed, None, unit.last_loss)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--samples", type=int, default=24576)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=512)
    ap.add_argument("--classes", type=int, default=10)
    ap.add_argument("--batch-size", type=int, default=64, help="per rank")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--save-every", type=int, default=40)
    ap.add_argument("--keep-last", type=int, default=2)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--pg-timeout", type=float, default=1800.0)
    ap.add_argument("--detect-anomaly", action="store_true")
    ap.add_argument("--early-stop", action="store_true", help="stop when the loss is not finite (EarlyStopping)")
    ap.add_argument("--log-every", type=int, default=10)
    a = ap.parse_args()

    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s %(levelname)s [{socket.gethostname()} rank{os.environ.get('RANK', '?')}]"
                               " %(name)s: %(message)s")
    device = init_from_env(device_type="cpu", pg_backend="gloo", pg_timeout=timedelta(seconds=a.pg_timeout))
    rank, world = get_global_rank(), get_world_size()
    seed(42)
    logging.info("device=%s world_size=%d host=%s", device, world, socket.gethostname())

    ds = TeacherData(a.samples, a.dim, a.classes)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True)
    dl = DataLoader(ds, batch_size=a.batch_size, sampler=sampler, num_workers=a.workers, drop_last=True)
    module = nn.Sequential(nn.Linear(a.dim, a.hidden), nn.ReLU(), nn.Linear(a.hidden, a.hidden), nn.ReLU(),
                           nn.Linear(a.hidden, a.classes))
    mlog = StdoutLogger()
    unit = MLPUnit(module=module, device=device, strategy=DDPStrategy(), lr=a.lr, log_every=a.log_every,
                   metric_logger=mlog, detect_anomaly=a.detect_anomaly or None)
    if a.resume:
        DistributedCheckpointSaver.restore_from_latest(a.ckpt_dir, unit, train_dataloader=dl)
    callbacks = [
        TQDMProgressBar(refresh_rate=10),
        IterationTimeLogger(mlog, moving_avg_window=10, log_every_n_steps=a.log_every),
        GarbageCollector(step_interval=20),
        DistributedCheckpointSaver(a.ckpt_dir, save_every_n_train_steps=a.save_every, keep_last_n_checkpoints=a.keep_last),
        Hooks(),
    ]
    if a.early_stop:
        callbacks.append(EarlyStopping("last_loss", EarlyStopChecker(mode="min", patience=1000, check_finite=True),
                                       interval="step"))
    train(unit, dl, max_epochs=a.epochs, callbacks=callbacks)
    logging.info("training done: %d steps, last loss %.4f", unit.train_progress.num_steps_completed, unit.last_loss)


if __name__ == "__main__":
    main()
