"""Day-ahead feeder-load forecaster (24 h window -> next hour), PyTorch Lightning DDP across nodes on CPU."""
import argparse
import csv
import importlib.util
import math
import os
from datetime import timedelta

import lightning as L
import torch
import torch.nn as nn
from lightning.pytorch.callbacks import ModelCheckpoint
from lightning.pytorch.strategies import DDPStrategy
from torch.utils.data import DataLoader, TensorDataset

ap = argparse.ArgumentParser()
ap.add_argument("--nodes", type=int, default=2)
ap.add_argument("--devices", type=int, default=2)
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--pg-timeout", type=int, default=1800)
ap.add_argument("--resume", action="store_true")
args = ap.parse_args()

rows = list(csv.DictReader(open("data/load.csv")))
series = {}
for r in rows:
    series.setdefault(int(r["feeder"]), []).append((float(r["temp_c"]), float(r["load_mw"])))
xs, ys = [], []
for s in series.values():
    for t in range(24, len(s) - 1, 3):
        xs.append([v for pair in s[t - 24:t] for v in pair])
        ys.append([s[t][1]])
x, y = torch.tensor(xs), torch.tensor(ys)
n_val = len(x) // 10
train_ds, val_ds = TensorDataset(x[n_val:], y[n_val:]), TensorDataset(x[:n_val], y[:n_val])

hooks = None
if os.path.exists("data/hooks.py"):
    spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)


class Forecaster(L.LightningModule):
    def __init__(self, hidden, lr):
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(nn.Linear(48, hidden), nn.GELU(), nn.Linear(hidden, hidden), nn.GELU(),
                                 nn.Linear(hidden, 1))

    def training_step(self, batch, i):
        xb, yb = batch
        loss = nn.functional.mse_loss(self.net(xb), yb)
        if hooks:
            hooks.on_step(self.global_step, self.global_rank)
        if not math.isfinite(loss.item()):
            raise RuntimeError(f"loss became {loss.item()} at global step {self.global_step}")
        self.log("train_mse", loss, prog_bar=False, sync_dist=True)
        if self.global_step % 40 == 0 and self.global_rank == 0:
            print(f"epoch {self.current_epoch} step {self.global_step} train_mse {loss.item():.4f}", flush=True)
        return loss

    def validation_step(self, batch, i):
        xb, yb = batch
        self.log("val_mae", (self.net(xb) - yb).abs().mean(), sync_dist=True)

    def on_validation_epoch_end(self):
        if self.global_rank == 0:
            print(f"epoch {self.current_epoch} val_mae {self.trainer.callback_metrics['val_mae']:.4f}", flush=True)

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=self.hparams.lr)


L.seed_everything(7)
model = Forecaster(args.hidden, args.lr)
ckpt = ModelCheckpoint(dirpath="checkpoints", filename="load-{epoch:02d}-{val_mae:.4f}", monitor="val_mae",
                       save_top_k=2, save_last=True)
trainer = L.Trainer(accelerator="cpu", devices=args.devices, num_nodes=args.nodes,
                    strategy=DDPStrategy(process_group_backend="gloo", timeout=timedelta(seconds=args.pg_timeout)),
                    max_epochs=args.epochs, callbacks=[ckpt], enable_progress_bar=False, log_every_n_steps=20,
                    logger=L.pytorch.loggers.CSVLogger("logs", name="forecaster"))
trainer.fit(model, DataLoader(train_ds, batch_size=64, shuffle=True), DataLoader(val_ds, batch_size=256),
            ckpt_path="last" if args.resume else None)
if trainer.global_rank == 0:
    print(f"training finished: best val_mae {ckpt.best_model_score:.4f} at {ckpt.best_model_path}", flush=True)
