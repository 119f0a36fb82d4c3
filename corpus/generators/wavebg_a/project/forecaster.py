"""Household load forecaster: a small GRU over one day of half-hourly meter readings, predicting the next half-hour."""
import csv
import json
import logging
import os
import time
from pathlib import Path

import lightning.pytorch as pl
import numpy as np
import torch
from lightning.pytorch.callbacks import Callback
from lightning.pytorch.utilities import rank_zero_info
from torch import nn
from torch.utils.data import DataLoader, Dataset

log = logging.getLogger("forecaster")


def _rank() -> int:
    return int(os.environ.get("RANK", os.environ.get("LOCAL_RANK", "0")))


class MeterWindows(Dataset):
    def __init__(self, data_dir: Path, split: str, tariffs: dict):
        self.windows = np.load(data_dir / f"{split}_windows.npy", mmap_mode="r")
        self.target = np.load(data_dir / f"{split}_target.npy", mmap_mode="r")
        with open(data_dir / f"{split}_meta.csv", newline="") as f:
            self.meta = list(csv.DictReader(f))
        self.tariffs = tariffs

    def __len__(self):
        return len(self.target)

    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.windows[i]))
        tariff = self.tariffs[self.meta[i]["tariff"]]
        return x, torch.tensor(tariff), torch.tensor(float(self.target[i]))


class MeterData(pl.LightningDataModule):
    def __init__(self, data_dir: str = "data", batch_size: int = 32, num_workers: int = 0,
                 weather_retries: int = 5, weather_retry_wait: float = 5.0):
        super().__init__()
        self.data_dir = Path(data_dir)
        self.batch_size = batch_size
        self.num_workers = num_workers
        self.weather_retries = weather_retries
        self.weather_retry_wait = weather_retry_wait

    def _weather(self):
        path = self.data_dir / "weather_stations.json"
        for attempt in range(1, self.weather_retries + 1):
            try:
                return json.loads(path.read_text())
            except FileNotFoundError as e:
                log.error("[rank %d] weather station file not available (attempt %d/%d): %s; retrying in %.0f s",
                          _rank(), attempt, self.weather_retries, e, self.weather_retry_wait)
                time.sleep(self.weather_retry_wait)
        raise RuntimeError(f"weather station file {path} still missing after {self.weather_retries} attempts")

    def setup(self, stage: str):
        tariffs = json.loads((self.data_dir / "tariffs.json").read_text())
        station = self._weather()
        self.train_ds = MeterWindows(self.data_dir, "train", tariffs)
        self.valid_ds = MeterWindows(self.data_dir, "valid", tariffs)
        log.info("[rank %d] %d training / %d validation windows, %d tariffs, temperature from %s", _rank(),
                 len(self.train_ds), len(self.valid_ds), len(tariffs), station["station"])

    def train_dataloader(self):
        return DataLoader(self.train_ds, batch_size=self.batch_size, shuffle=True, num_workers=self.num_workers,
                          persistent_workers=self.num_workers > 0)

    def val_dataloader(self):
        return DataLoader(self.valid_ds, batch_size=self.batch_size, num_workers=self.num_workers,
                          persistent_workers=self.num_workers > 0)


class LoadForecaster(pl.LightningModule):
    def __init__(self, hidden_size: int = 64, num_layers: int = 1, head_size: int = 64, n_tariffs: int = 8,
                 lr: float = 1e-3, weight_decay: float = 1e-4, peak_report: bool = False,
                 peak_kwh: float = 0.5):
        super().__init__()
        self.save_hyperparameters()
        self.gru = nn.GRU(2, hidden_size, num_layers=num_layers, batch_first=True)
        self.tariff = nn.Embedding(n_tariffs, 4)
        self.head = nn.Sequential(nn.Linear(hidden_size + 4, head_size), nn.ReLU(), nn.Linear(head_size, 1))

    def forward(self, x, tariff):
        _, h = self.gru(x)
        return self.head(torch.cat([h[-1], self.tariff(tariff)], dim=1)).squeeze(1)

    def training_step(self, batch, batch_idx):
        x, tariff, y = batch
        loss = nn.functional.mse_loss(self(x, tariff), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, batch_idx):
        x, tariff, y = batch
        pred = self(x, tariff)
        self.log("val_loss", nn.functional.mse_loss(pred, y), sync_dist=True)
        self.log("val_mae", (pred - y).abs().mean(), sync_dist=True)
        self.log("val_mape", ((pred - y).abs() / y).mean(), sync_dist=True)
        if self.hparams.peak_report:
            self._peak_errs.append((pred - y).abs()[y > self.hparams.peak_kwh])

    def on_validation_epoch_start(self):
        self._peak_errs = []

    def on_validation_epoch_end(self):
        if not self.hparams.peak_report or self.trainer.sanity_checking:
            return
        errs = self.all_gather(torch.cat(self._peak_errs))  # every rank's peak-hour errors
        if self.trainer.is_global_zero:
            errs = errs.flatten()
            rank_zero_info(f"peak half-hours (> {self.hparams.peak_kwh} kWh): n={errs.numel()} "
                           f"p95 abs error={float(errs.quantile(0.95)):.4f}")

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=self.hparams.weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=max(1, self.trainer.max_epochs))
        return {"optimizer": opt, "lr_scheduler": sched}


class StepPrinter(Callback):
    """One console line every `every` steps and one per validation (rank 0), since the progress bar is off."""

    def __init__(self, every: int = 10):
        self.every = every

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if (batch_idx + 1) % self.every == 0:
            rank_zero_info(f"epoch {trainer.current_epoch} step {batch_idx + 1}/{trainer.num_training_batches} "
                           f"train_loss={float(outputs['loss']):.4f}")

    def on_validation_epoch_end(self, trainer, pl_module):
        if trainer.sanity_checking:
            return
        m = trainer.callback_metrics
        rank_zero_info(f"epoch {trainer.current_epoch} validation: " +
                       " ".join(f"{k}={float(m[k]):.4f}" for k in ("val_loss", "val_mae", "val_mape") if k in m))
