"""Diffusion-style denoiser (a small conv U-Net predicting the added noise) on synthetic 32x32 shapes, Lightning DDP."""
import argparse
import math
import os

import lightning as L
import torch
import torch.nn as nn
import torch.nn.functional as F
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader, Dataset


class Shapes(Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        yy, xx = torch.meshgrid(torch.arange(32.), torch.arange(32.), indexing="ij")
        imgs = []
        for _ in range(n):
            cx, cy, r = (torch.rand(3, generator=g) * torch.tensor([20, 20, 8]) + torch.tensor([6, 6, 3])).tolist()
            img = ((xx - cx) ** 2 + (yy - cy) ** 2 < r * r).float()
            if torch.rand(1, generator=g) < 0.5:
                img = torch.maximum(img, ((xx - cy).abs() < r) & ((yy - cx).abs() < r / 2)).float()
            imgs.append(img * 2 - 1)
        self.x = torch.stack(imgs)[:, None]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i]


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.GroupNorm(4, o), nn.SiLU(), nn.Conv2d(o, o, 3, padding=1), nn.SiLU())


class Denoiser(L.LightningModule):
    def __init__(self, lr=2e-3, timesteps=200, ch=32):
        super().__init__()
        self.save_hyperparameters()
        self.temb = nn.Sequential(nn.Linear(1, ch), nn.SiLU(), nn.Linear(ch, ch))
        self.d1, self.d2 = block(1, ch), block(ch, 2 * ch)
        self.mid = block(2 * ch, 2 * ch)
        self.u1 = block(4 * ch, ch)
        self.out = nn.Conv2d(2 * ch, 1, 1)
        betas = torch.linspace(1e-4, 0.02, timesteps)
        self.register_buffer("abar", torch.cumprod(1 - betas, 0))

    def forward(self, x, t):
        h1 = self.d1(x) + self.temb(t[:, None].float() / self.hparams.timesteps)[..., None, None]
        h2 = self.d2(F.avg_pool2d(h1, 2))
        m = self.mid(h2)
        u = F.interpolate(self.u1(torch.cat([m, h2], 1)), scale_factor=2)
        return self.out(torch.cat([u, h1], 1))

    def _loss(self, x0):
        t = torch.randint(0, self.hparams.timesteps, (x0.shape[0],), device=x0.device)
        a = self.abar[t][:, None, None, None]
        noise = torch.randn_like(x0)
        xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
        return F.mse_loss(self(xt, t), noise)

    def training_step(self, batch, idx):
        loss = self._loss(batch)
        self.log("train_loss", loss, prog_bar=True)
        if self.global_step % 10 == 0 and self.global_rank == 0 and idx % 10 == 0:
            print(f"step {self.global_step} epoch {self.current_epoch} train_loss {loss.item():.4f}", flush=True)
        return loss

    def validation_step(self, batch, idx):
        self.log("val_loss", self._loss(batch), sync_dist=True)

    def on_validation_epoch_end(self):
        if self.global_rank == 0:
            print(f"epoch {self.current_epoch} val_loss {self.trainer.callback_metrics['val_loss'].item():.4f}", flush=True)

    def configure_optimizers(self):
        opt = torch.optim.AdamW(self.parameters(), lr=self.hparams.lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.trainer.estimated_stepping_batches)
        return {"optimizer": opt, "lr_scheduler": {"scheduler": sched, "interval": "step"}}


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--n", type=int, default=1536)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--every-n-steps", type=int, default=0)
    ap.add_argument("--keep-all", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    L.seed_everything(7)
    cbs = [LearningRateMonitor("step"),
           ModelCheckpoint(dirpath=a.ckpt_dir, filename="ddpm-{epoch}-{step}", monitor=None if a.keep_all else "val_loss",
                           save_top_k=-1 if a.keep_all else 1, every_n_train_steps=a.every_n_steps or None,
                           save_last=True)]
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs, callbacks=cbs,
                        log_every_n_steps=5, enable_progress_bar=False, default_root_dir=".")
    model = Denoiser()
    trainer.fit(model, DataLoader(Shapes(a.n, 0), batch_size=a.batch, shuffle=True),
                DataLoader(Shapes(256, 1), batch_size=64))
    if trainer.global_rank == 0:
        print(f"best checkpoint: {cbs[1].best_model_path or cbs[1].last_model_path}", flush=True)
