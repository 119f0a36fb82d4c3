"""The glyph VAE as a LightningModule (strategy ddp on CPU, gloo): KL warm-up, validation ELBO, ModelCheckpoint on
val/elbo, LR monitor. --sample-dir DIR: rank 0 writes reconstructions and prior samples of each validation epoch to
DIR (for the report). --active-units: log the number of active latent units (computed on rank 0, which holds the
full validation batch used for it)."""
import argparse
import os
import time

import lightning as L
import torch
from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint
from torch.utils.data import DataLoader, TensorDataset

import vae_core as vc


class VAEModule(L.LightningModule):
    def __init__(self, a):
        super().__init__()
        self.save_hyperparameters(vars(a))
        self.a = a
        self.vae = vc.ConvVAE(z=a.z)
        self.fixed = vc.make_glyphs(64, seed=3)[0]

    def training_step(self, batch, i):
        x, _ = batch
        logits, mu, logvar = self.vae(x)
        beta = vc.kl_beta(self.global_step, self.a.warmup)
        loss, rec, kl = vc.vae_loss(logits, x, mu, logvar, beta)
        self.log_dict({"train/loss": loss, "train/rec": rec, "train/kl": kl, "beta": beta}, prog_bar=True)
        if self.global_rank == 0 and self.global_step % 20 == 0:
            print(f"{vc.stamp()} epoch {self.current_epoch} step {self.global_step} loss {loss.item():.3f} "
                  f"rec {rec.item():.3f} kl {kl.item():.3f} beta {beta:.2f}", flush=True)
        return loss

    def validation_step(self, batch, i):
        x, _ = batch
        logits, mu, logvar = self.vae(x)
        loss, rec, kl = vc.vae_loss(logits, x, mu, logvar)
        self.log_dict({"val/elbo": -loss, "val/rec": rec, "val/kl": kl}, sync_dist=True, batch_size=len(x))

    def on_validation_epoch_end(self):
        if self.trainer.sanity_checking:
            return
        if self.a.active_units and self.global_rank == 0:
            au = vc.active_units(self.vae, self.fixed)
            self.log("val/active_units", float(au), sync_dist=True)
        if self.global_rank == 0:
            m = self.trainer.callback_metrics
            print(f"{vc.stamp()} epoch {self.current_epoch}: val/elbo {m['val/elbo']:.2f} rec {m['val/rec']:.2f} "
                  f"kl {m['val/kl']:.2f}", flush=True)
            if self.a.sample_dir:
                os.makedirs(self.a.sample_dir, exist_ok=True)
                with torch.no_grad():
                    rec = torch.sigmoid(self.vae(self.fixed)[0])
                    prior = torch.sigmoid(self.vae.decode(torch.randn(256, self.a.z)))
                path = os.path.join(self.a.sample_dir, f"samples-epoch{self.current_epoch:02d}.pt")
                torch.save({"inputs": self.fixed, "recon": rec, "prior": prior}, path)
                print(f"{vc.stamp()} wrote {path} ({os.path.getsize(path) / 1024:.0f} KiB)", flush=True)

    def configure_optimizers(self):
        opt = torch.optim.Adam(self.vae.parameters(), lr=self.a.lr)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=self.a.epochs)
        return {"optimizer": opt, "lr_scheduler": sched}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--n-train", type=int, default=3072)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--z", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--sample-dir", default="")
    ap.add_argument("--active-units", action="store_true")
    a = ap.parse_args()
    torch.set_num_threads(1)
    L.seed_everything(0)
    x, y = vc.make_glyphs(a.n_train, seed=1)
    xv, yv = vc.make_glyphs(512, seed=2)
    train = DataLoader(TensorDataset(x, y), batch_size=a.bs, shuffle=True)
    val = DataLoader(TensorDataset(xv, yv), batch_size=128)
    ckpt = ModelCheckpoint(dirpath="checkpoints", monitor="val/elbo", mode="max", save_top_k=2, save_last=True,
                           filename="vae-{epoch:02d}")
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        log_every_n_steps=10, callbacks=[ckpt, LearningRateMonitor("epoch")],
                        enable_progress_bar=False, default_root_dir=".")
    t0 = time.time()
    trainer.fit(VAEModule(a), train, val)
    if trainer.global_rank == 0:
        print(f"{vc.stamp()} best checkpoint {ckpt.best_model_path} (val/elbo {ckpt.best_model_score:.2f}); "
              f"fit took {time.time() - t0:.0f}s", flush=True)


if __name__ == "__main__":
    main()
