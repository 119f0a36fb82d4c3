"""Wave G Lightning job (copied from wave F; ``--log-feature`` adds a log(count) input feature computed from a
count column, where one record's count is 0 when ``--zero-count N`` is given (a real bad input: log(0) = -inf);
``--early-stop P`` adds EarlyStopping on val_loss with patience P; ``--metrics-rank R`` gives rank R job.py's
MetricsBuffer of per-sample losses, whose flush re-takes the lock its caller holds): a tiny MLP ``LightningModule`` trained with ``Trainer(accelerator="cpu", strategy="ddp")``
(Lightning starts the other ranks itself), a validation loop, ``ModelCheckpoint`` and the TQDM progress bar.

``--leak-rank R --leak-step S``: from step S rank R keeps each step's 64 MiB feature cache (a real, growing host
allocation: under a memory cgroup the kernel OOM killer ends it). ``--slow-rank R --slow-seconds S``: at the end of
the first epoch rank R spends S seconds "exporting embeddings" while the others go on to the next collective
(``--pg-timeout``: the DDP process-group timeout, seconds). ``--bad-record N``: record N of the training set has an
empty target (a corrupt row), so the batch that holds it cannot be collated. Nothing here prints a library's message.
"""
from __future__ import annotations

import argparse
import datetime
import time
import logging

import lightning as L
import torch
from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint, TQDMProgressBar
from lightning.pytorch.strategies import DDPStrategy
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("train_pl")


class Regressor(L.LightningModule):
    def __init__(self, width: int, leak_rank: int, leak_step: int, slow_rank: int = -1, slow_s: float = 0,
                 lr: float = 3e-3, metrics_rank: int = -1, metrics_cap: int = 64) -> None:
        super().__init__()
        self.slow_rank, self.slow_s, self.lr = slow_rank, slow_s, lr
        self.metrics_rank, self.metrics_cap, self.metrics = metrics_rank, metrics_cap, None
        self.net = torch.nn.Sequential(torch.nn.Linear(width, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
        self.leak_rank, self.leak_step, self.cache = leak_rank, leak_step, []

    def training_step(self, batch, idx):
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        if self.metrics is not None:
            self.metrics.add(self.global_step, ((self.net(x) - y) ** 2).detach().squeeze(1))
        if self.global_rank == self.leak_rank and self.global_step >= self.leak_step:
            self.cache.append(torch.ones(64 * 2**20 // 4))  # features kept "for the next epoch", never freed
            log.info("rank %d feature cache: %d MiB", self.global_rank, 64 * len(self.cache))
        self.log("train_loss", loss, prog_bar=True)
        if self.global_step % 2 == 0:
            log.info("rank %d epoch %d step %d loss %.4f", self.global_rank, self.current_epoch, self.global_step,
                     loss.item())
        return loss

    def setup(self, stage: str) -> None:
        self.metrics = None
        if self.global_rank == self.metrics_rank:
            from job import MetricsBuffer
            self.metrics = MetricsBuffer(f"metrics-rank{self.global_rank}.jsonl", self.metrics_cap)

    def on_train_epoch_end(self) -> None:
        if self.global_rank == self.slow_rank and self.current_epoch == 0:
            log.info("rank %d exporting embeddings for epoch %d", self.global_rank, self.current_epoch)
            time.sleep(self.slow_s)

    def validation_step(self, batch, idx):
        x, y = batch
        self.log("val_loss", torch.nn.functional.mse_loss(self.net(x), y), sync_dist=True, prog_bar=True)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.lr)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--devices", type=int, default=2)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--records", type=int, default=1536)
    p.add_argument("--leak-rank", type=int, default=-1)
    p.add_argument("--leak-step", type=int, default=0)
    p.add_argument("--val-every", type=int, default=16)
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-seconds", type=float, default=0)
    p.add_argument("--pg-timeout", type=float, default=1800.0)
    p.add_argument("--log-feature", action="store_true")
    p.add_argument("--zero-count", type=int, default=-1)
    p.add_argument("--early-stop", type=int, default=0)
    p.add_argument("--metrics-rank", type=int, default=-1)
    p.add_argument("--metrics-cap", type=int, default=64)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--bad-record", type=int, default=-1)
    a = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    g = torch.Generator().manual_seed(0)
    x = torch.randn(a.records, 16, generator=g)
    y = x.sum(1, keepdim=True)
    if a.log_feature:
        counts = torch.randint(1, 1000, (a.records, 1), generator=g).float()
        if a.zero_count >= 0:
            counts[a.zero_count] = 0.0  # a record whose event count is 0 in the source table
        x = torch.cat([x[:, :15], torch.log(counts)], 1)
    records = list(zip(x, y))
    if a.bad_record >= 0:
        records[a.bad_record] = (x[a.bad_record], y[a.bad_record][:0])
    train = DataLoader(records, batch_size=32, shuffle=True)
    val = DataLoader(TensorDataset(x[:256], y[:256]), batch_size=64)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy=DDPStrategy(timeout=datetime.timedelta(seconds=a.pg_timeout)), max_epochs=a.epochs,
                        log_every_n_steps=5, val_check_interval=a.val_every, default_root_dir="runs",
                        callbacks=[ModelCheckpoint(monitor="val_loss", save_top_k=2), TQDMProgressBar(refresh_rate=4)]
                        + ([EarlyStopping(monitor="val_loss", patience=a.early_stop, min_delta=0.05)] if a.early_stop else []))
    trainer.fit(Regressor(16, a.leak_rank, a.leak_step, a.slow_rank, a.slow_seconds, a.lr, a.metrics_rank,
                          a.metrics_cap), train, val)
    log.info("rank %d done: best checkpoint %s", trainer.global_rank, trainer.checkpoint_callback.best_model_path)


if __name__ == "__main__":
    main()
