"""Lightning (DDP on CPU processes) image-classification job over compressed image records (``imagedata.py``).

``--make-data N`` writes N records to ``--data`` and exits. The last ``--val-records`` records are held out; after
each validation epoch every rank computes its one-vs-rest macro AUROC with scikit-learn (imported there, where it is
needed). With ``--decode-cache`` every process memoises the decoded images it has seen; DataLoader workers are
persistent, so each worker keeps its own cache.
"""
from __future__ import annotations

import argparse
import logging
import os
import time

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, Subset

from imagedata import ImageRecords, make_data

log = logging.getLogger("train_images")


class Classifier(L.LightningModule):
    def __init__(self, lr: float) -> None:
        super().__init__()
        self.save_hyperparameters()
        self.net = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
        self.t0 = time.time()
        self.val_probs, self.val_labels = [], []

    def training_step(self, batch, idx):
        x, y = batch
        loss = nn.functional.cross_entropy(self.net(x), y)
        acc = (self.net(x).argmax(1) == y).float().mean()
        self.log("train_loss", loss, prog_bar=True, sync_dist=False)
        if idx % 5 == 0:
            rss = int(open("/proc/self/statm").read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
            log.info("rank %d epoch %d batch %d loss %.4f acc %.3f rss %.0f MiB %.1f s", self.global_rank,
                     self.current_epoch, idx, loss.item(), acc.item(), rss, time.time() - self.t0)
        return loss

    def validation_step(self, batch, idx):
        x, y = batch
        logits = self.net(x)
        self.log("val_loss", nn.functional.cross_entropy(logits, y), sync_dist=True)
        self.val_probs.append(torch.softmax(logits, 1))
        self.val_labels.append(y)

    def on_validation_epoch_end(self):
        from sklearn.metrics import roc_auc_score

        probs, labels = torch.cat(self.val_probs).numpy(), torch.cat(self.val_labels).numpy()
        self.val_probs, self.val_labels = [], []
        present = sorted(set(labels.tolist()))
        auroc = roc_auc_score(labels, probs[:, present] / probs[:, present].sum(1, keepdims=True),
                              multi_class="ovr", labels=present) if len(present) > 2 else float("nan")
        self.log("val_auroc", float(auroc), sync_dist=True)
        log.info("rank %d epoch %d validation: %d records, macro AUROC %.4f", self.global_rank, self.current_epoch,
                 len(labels), auroc)

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/images.bin")
    ap.add_argument("--make-data", type=int, default=0, help="write N records to --data and exit")
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--val-records", type=int, default=200)
    ap.add_argument("--decode-cache", action="store_true")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if a.make_data:
        make_data(a.data, a.make_data, a.size)
        print(f"wrote {a.make_data} records to {a.data} ({os.path.getsize(a.data) / 2**20:.1f} MiB)")
        return
    L.seed_everything(42)
    ds = ImageRecords(a.data, a.size, a.decode_cache)
    log.info("dataset %s: %d records of 3x%dx%d, decode cache %s", a.data, len(ds), a.size, a.size,
             "on" if a.decode_cache else "off")
    n_train = len(ds) - a.val_records
    loader = DataLoader(Subset(ds, range(n_train)), batch_size=a.batch, shuffle=True, num_workers=a.workers,
                        persistent_workers=a.workers > 0)
    val_loader = DataLoader(Subset(ds, range(n_train, len(ds))), batch_size=a.batch)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        log_every_n_steps=10, enable_checkpointing=True, default_root_dir="runs")
    trainer.fit(Classifier(a.lr), loader, val_loader)
    log.info("rank %d finished: %s", trainer.global_rank, {k: float(v) for k, v in trainer.callback_metrics.items()})


if __name__ == "__main__":
    main()
