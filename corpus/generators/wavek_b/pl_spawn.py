"""Lightning ``Trainer`` with ``strategy="ddp_spawn"`` (torch.multiprocessing.spawn, gloo on CPU): news-topic
classification from a CSV of headlines.

``python pl_spawn.py --data data/headlines.csv --devices 2 --epochs 3``: a ``LightningDataModule`` reads the CSV
(``topic_id,headline``), splits train/val, tokenises with a word hash; a GRU classifier over ``--num-classes``
topics; ``ModelCheckpoint`` on ``val_acc``, ``LearningRateMonitor``, CSV logger. ``--make-data N`` writes the CSV
(``--extra-topic-rows K`` appends K rows of a topic id the taxonomy added later).
"""
from __future__ import annotations

import argparse
import csv
import os
import random

import lightning as L
import torch
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger
from torch import nn
from torch.utils.data import DataLoader, Dataset

TOPICS = {0: "markets stocks shares rally earnings investors bond yields",
          1: "election parliament minister vote campaign coalition senate",
          2: "match season striker coach league title injury final",
          3: "vaccine hospital patients study virus doctors trial",
          4: "startup launch chip software users app cloud model"}
COMMON = "after new says over amid first report as week could year".split()
VOCAB, LEN = 8192, 20


def make_data(path: str, n: int, extra: int, seed: int = 0) -> None:
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    rows = []
    for _ in range(n):
        t = rng.randrange(5)
        rows.append((t, " ".join(rng.sample(TOPICS[t].split(), 3) + rng.sample(COMMON, 3))))
    for _ in range(extra):  # topic 5 = "climate", added to the labelling tool later
        rows.append((5, " ".join(rng.sample("climate emissions heatwave carbon flood warming".split(), 3)
                                 + rng.sample(COMMON, 3))))
    rng.shuffle(rows)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["topic_id", "headline"])
        w.writerows(rows)


def encode(text: str) -> list[int]:
    ids = [sum(ord(c) * 131 ** k for k, c in enumerate(w)) % (VOCAB - 1) + 1 for w in text.split()][:LEN]
    return ids + [0] * (LEN - len(ids))


class Headlines(Dataset):
    def __init__(self, rows):
        self.rows = rows

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        t, text = self.rows[i]
        return torch.tensor(encode(text)), int(t)


class HeadlineData(L.LightningDataModule):
    def __init__(self, path: str, batch: int, workers: int) -> None:
        super().__init__()
        self.path, self.batch, self.workers = path, batch, workers

    def setup(self, stage: str) -> None:
        with open(self.path) as f:
            rows = [(int(r["topic_id"]), r["headline"]) for r in csv.DictReader(f)]
        n_val = len(rows) // 10
        self.train, self.val = Headlines(rows[n_val:]), Headlines(rows[:n_val])

    def train_dataloader(self):
        return DataLoader(self.train, batch_size=self.batch, shuffle=True, num_workers=self.workers)

    def val_dataloader(self):
        return DataLoader(self.val, batch_size=256, num_workers=self.workers)


class TopicGRU(L.LightningModule):
    def __init__(self, num_classes: int, lr: float) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.emb = nn.Embedding(VOCAB, 64, padding_idx=0)
        self.gru = nn.GRU(64, 96, batch_first=True, bidirectional=True)
        self.head = nn.Linear(192, num_classes)

    def forward(self, ids):
        h, _ = self.gru(self.emb(ids))
        return self.head(h.amax(1))

    def training_step(self, batch, _):
        ids, y = batch
        loss = nn.functional.cross_entropy(self(ids), y)
        self.log("train_loss", loss, prog_bar=True)
        return loss

    def validation_step(self, batch, _):
        ids, y = batch
        logits = self(ids)
        self.log("val_loss", nn.functional.cross_entropy(logits, y), sync_dist=True, prog_bar=True)
        self.log("val_acc", (logits.argmax(-1) == y).float().mean(), sync_dist=True, prog_bar=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.OneCycleLR(
            opt, max_lr=self.hparams.lr, total_steps=self.trainer.estimated_stepping_batches)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/headlines.csv")
    ap.add_argument("--make-data", type=int, default=0)
    ap.add_argument("--extra-topic-rows", type=int, default=0)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--num-classes", type=int, default=5)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--workers", type=int, default=1)
    a = ap.parse_args()
    if a.make_data:
        make_data(a.data, a.make_data, a.extra_topic_rows)
        return
    torch.set_num_threads(1)
    L.seed_everything(7)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp_spawn", max_epochs=a.epochs,
                        logger=CSVLogger("logs", name="headline-gru"), log_every_n_steps=10,
                        callbacks=[ModelCheckpoint(monitor="val_acc", mode="max", save_top_k=2),
                                   LearningRateMonitor("step")])
    trainer.fit(TopicGRU(a.num_classes, a.lr), datamodule=HeadlineData(a.data, a.batch, a.workers))
    print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path} "
          f"(val_acc {trainer.checkpoint_callback.best_model_score})")


if __name__ == "__main__":
    main()
