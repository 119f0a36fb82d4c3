"""Claims-risk FT-Transformer with the Lightning Trainer (strategy='ddp', CPU processes, gloo)."""
import argparse
import time

import lightning as L
import numpy as np
import torch
import torch.nn.functional as F
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

import tab_core as tc


class ClaimsModel(L.LightningModule):
    def __init__(self, cards, lr=3e-3):
        super().__init__()
        self.save_hyperparameters()
        self.model = tc.FTTransformer(len(tc.NUM_COLS), cards)
        self.scores, self.labels = [], []
        self.t0 = time.time()

    def training_step(self, batch, idx):
        xn, xc, y = batch
        loss = F.binary_cross_entropy_with_logits(self.model(xn, xc), y)
        self.log("train_loss", loss)
        if self.global_step % 10 == 0:
            print(f"[rank {self.global_rank}] epoch {self.current_epoch} step {self.global_step} "
                  f"loss {loss.item():.4f} ({time.time() - self.t0:.1f}s)", flush=True)
        return loss

    def validation_step(self, batch, idx):
        xn, xc, y = batch
        s = self.model(xn, xc)
        self.log("val_loss", F.binary_cross_entropy_with_logits(s, y), sync_dist=True)
        self.scores.append(s.detach())
        self.labels.append(y)

    def on_validation_epoch_end(self):
        s = self.all_gather(torch.cat(self.scores)).flatten()
        y = self.all_gather(torch.cat(self.labels)).flatten()
        self.scores, self.labels = [], []
        v = tc.auc(s.numpy(), y.numpy())
        self.log("val_auc", v, rank_zero_only=True)
        if self.global_rank == 0:
            print(f"epoch {self.current_epoch} val AUC {v:.4f}", flush=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr, weight_decay=1e-4)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.max_epochs)
        return [opt], [sched]


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--save-every-n-steps", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    L.seed_everything(0)
    enc, (num, cat, y), (vnum, vcat, vy) = tc.build()
    xn, xc = enc.transform(num, cat)
    vxn, vxc = enc.transform(vnum, vcat)
    train = DataLoader(TensorDataset(xn, xc, torch.from_numpy(y)), batch_size=a.batch, shuffle=True)
    val = DataLoader(TensorDataset(vxn, vxc, torch.from_numpy(vy)), batch_size=256)
    if a.save_every_n_steps:
        ckpt = ModelCheckpoint(dirpath=a.ckpt_dir, every_n_train_steps=a.save_every_n_steps, save_top_k=-1,
                               filename="ft-{epoch}-{step}")
    else:
        ckpt = ModelCheckpoint(dirpath=a.ckpt_dir, monitor="val_auc", mode="max", save_top_k=2)
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        callbacks=[ckpt, LearningRateMonitor()], log_every_n_steps=10, enable_progress_bar=False)
    trainer.fit(ClaimsModel(enc.cards()), train, val)
    if trainer.global_rank == 0:
        print(f"best checkpoint: {ckpt.best_model_path} val_auc {ckpt.best_model_score}", flush=True)
