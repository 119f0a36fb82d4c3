"""The glyph VAE trained by the Hugging Face `Trainer` (one process per rank via torch.multiprocessing.spawn, DDP over
gloo on CPU). The model returns {'loss', 'logits'} (the loss is the negative ELBO with KL warm-up handled by a
callback); evaluation every --eval-steps. --psnr-metrics: a compute_metrics reporting reconstruction PSNR/MSE over
the evaluation set (predictions are the reconstructions, label_ids the input images)."""
import argparse
import os
import time

import numpy as np
import torch
import torch.multiprocessing as mp
import torch.nn as nn
from torch.utils.data import Dataset
from transformers import Trainer, TrainerCallback, TrainingArguments

import vae_core as vc


class Glyphs(Dataset):
    def __init__(self, x):
        self.x = x

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return {"pixel_values": self.x[i], "targets": self.x[i]}


class VAEForHF(nn.Module):
    def __init__(self, z):
        super().__init__()
        self.vae = vc.ConvVAE(z=z)
        self.beta = 0.0

    def forward(self, pixel_values, targets=None):
        logits, mu, logvar = self.vae(pixel_values)
        loss, rec, kl = vc.vae_loss(logits, pixel_values, mu, logvar, self.beta)
        return {"loss": loss, "logits": torch.sigmoid(logits)}


class KLWarmup(TrainerCallback):
    def __init__(self, model, warmup):
        self.model, self.warmup = model, warmup

    def on_step_begin(self, args, state, control, **kw):
        self.model.beta = vc.kl_beta(state.global_step, self.warmup)


def psnr_metrics(ev):
    rec, x = ev.predictions, ev.label_ids
    mse = float(((rec - x) ** 2).mean())
    return {"mse": mse, "psnr": float(10 * np.log10(1.0 / max(mse, 1e-12)))}


def worker(rank, a):
    torch.set_num_threads(1)
    os.environ.update(RANK=str(rank), LOCAL_RANK=str(rank), WORLD_SIZE=str(a.nprocs))
    x, _ = vc.make_glyphs(a.n_train, seed=1)
    xv, _ = vc.make_glyphs(a.n_eval, seed=2)
    if rank == 0:
        print(f"{vc.stamp()} data: {len(x)} train / {len(xv)} eval glyphs "
              f"({xv.numel() * 4 / 2**20:.0f} MiB eval tensor per rank)", flush=True)
    model = VAEForHF(a.z)
    args = TrainingArguments(output_dir="out", use_cpu=True, ddp_backend="gloo", per_device_train_batch_size=32,
                             per_device_eval_batch_size=256, num_train_epochs=a.epochs, learning_rate=2e-3,
                             lr_scheduler_type="cosine", warmup_steps=20, logging_steps=a.log_every,
                             eval_strategy="steps", eval_steps=a.eval_steps, save_strategy="steps",
                             save_steps=a.eval_steps, save_total_limit=2, report_to=[], disable_tqdm=True,
                             remove_unused_columns=False, dataloader_num_workers=0, seed=0,
                             label_names=["targets"] if a.psnr_metrics else None)
    trainer = Trainer(model=model, args=args, train_dataset=Glyphs(x), eval_dataset=Glyphs(xv),
                      compute_metrics=psnr_metrics if a.psnr_metrics else None,
                      callbacks=[KLWarmup(model, a.warmup)])
    t0 = time.time()
    trainer.train()
    metrics = trainer.evaluate()
    if rank == 0:
        print(f"{vc.stamp()} final eval: {metrics}", flush=True)
        with torch.no_grad():
            s = torch.sigmoid(model.vae.decode(torch.randn(16, a.z)))
        print(f"{vc.stamp()} prior samples: mean intensity {s.mean():.3f}; training took {time.time() - t0:.0f}s",
              flush=True)
    trainer.save_model("export/glyph-vae")
    if rank == 0:
        print(f"{vc.stamp()} exported to export/glyph-vae: {sorted(os.listdir('export/glyph-vae'))}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--n-train", type=int, default=3072)
    ap.add_argument("--n-eval", type=int, default=512)
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--z", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=60)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-steps", type=int, default=40)
    ap.add_argument("--psnr-metrics", action="store_true")
    a = ap.parse_args()
    print(f"{vc.stamp()} spawning {a.nprocs} Trainer processes (MASTER_PORT={os.environ.get('MASTER_PORT')})",
          flush=True)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print(f"{vc.stamp()} all ranks finished", flush=True)


if __name__ == "__main__":
    main()
