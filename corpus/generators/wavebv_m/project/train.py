"""Multi-node DDP fit of a small NeuralForecast model on generated monthly demand series.

Launched per node with ``python -m torch.distributed.run``; Lightning (inside NeuralForecast) picks up the torchrun
environment. Trainer settings go through the model's trainer kwargs.
"""
import argparse
import importlib.util
import os
import socket
from datetime import timedelta

import numpy as np
import pandas as pd
import pytorch_lightning as pl
from pytorch_lightning.callbacks import ModelCheckpoint
from pytorch_lightning.strategies import DDPStrategy

from neuralforecast import NeuralForecast
from neuralforecast.losses.pytorch import MAE
from neuralforecast.models import LSTM, NHITS

ap = argparse.ArgumentParser()
ap.add_argument("--model", default="nhits", choices=["nhits", "lstm"])
ap.add_argument("--series", type=int, default=240)
ap.add_argument("--max-steps", type=int, default=200)
ap.add_argument("--val-check-steps", type=int, default=50)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--batch-size", type=int, default=16)
ap.add_argument("--workers", type=int, default=0)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--save-dir", default="")
ap.add_argument("--load-dir", default="")
ap.add_argument("--progress", action="store_true")
ap.add_argument("--pg-timeout", type=int, default=0)
ap.add_argument("--devices", type=int, default=int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
ap.add_argument("--num-nodes", type=int,
                default=int(os.environ.get("WORLD_SIZE", "1")) // int(os.environ.get("LOCAL_WORLD_SIZE", "1")))
args = ap.parse_args()

rank = int(os.environ.get("RANK", "0"))
if rank == 0:
    print(f"[train] host {socket.gethostname()} world_size {os.environ.get('WORLD_SIZE')} "
          f"nodes {args.num_nodes} devices {args.devices} model {args.model}", flush=True)


def demand_series(n, length=144, seed=7):
    """Monthly series: trend + yearly season + noise, one level per product."""
    rng = np.random.default_rng(seed)
    ds = pd.date_range("2012-01-31", periods=length, freq="ME")
    t = np.arange(length)
    frames = []
    for i in range(n):
        level = rng.uniform(50, 500)
        y = level * (1 + 0.004 * t) + level * 0.2 * np.sin(2 * np.pi * (t + rng.integers(12)) / 12)
        y = y + rng.normal(0, level * 0.05, length)
        frames.append(pd.DataFrame({"unique_id": f"sku-{i:04d}", "ds": ds, "y": y.astype("float32")}))
    return pd.concat(frames, ignore_index=True)


class LossPrinter(pl.Callback):
    """The team's step log: train loss every 10 steps, validation loss after each check (rank 0 only)."""

    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        step = trainer.global_step
        if trainer.is_global_zero and step % 10 == 0:
            loss = outputs["loss"].item() if isinstance(outputs, dict) else float(outputs)
            print(f"[train] step {step} train_loss {loss:.4f}", flush=True)

    def on_validation_end(self, trainer, pl_module):
        if trainer.is_global_zero and not trainer.sanity_checking:
            v = trainer.callback_metrics.get("valid_loss")
            print(f"[train] step {trainer.global_step} valid_loss {float(v) if v is not None else float('nan'):.4f}",
                  flush=True)


callbacks = [LossPrinter(), ModelCheckpoint(dirpath=args.ckpt_dir, filename="{step}", every_n_train_steps=50,
                                            monitor="train_loss", mode="min", save_top_k=-1, verbose=True)]
if os.path.exists("train_hooks.py"):  # optional team hook (a Lightning callback), absent unless dropped in
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
    callbacks.append(hooks.Hook())

strategy = DDPStrategy(timeout=timedelta(seconds=args.pg_timeout)) if args.pg_timeout else "ddp"
trainer_kwargs = dict(accelerator="cpu", devices=args.devices, num_nodes=args.num_nodes, strategy=strategy,
                      enable_checkpointing=True, callbacks=callbacks, enable_progress_bar=args.progress,
                      enable_model_summary=True, log_every_n_steps=10, default_root_dir="lightning_logs_root")
common = dict(h=12, input_size=36, max_steps=args.max_steps, val_check_steps=args.val_check_steps,
              learning_rate=args.lr, batch_size=args.batch_size, windows_batch_size=64, loss=MAE(),
              scaler_type="standard", random_seed=1,
              dataloader_kwargs={"num_workers": args.workers} if args.workers else None, **trainer_kwargs)
if args.model == "nhits":
    model = NHITS(mlp_units=3 * [[64, 64]], n_pool_kernel_size=[2, 2, 1], n_freq_downsample=[4, 2, 1], **common)
else:
    model = LSTM(encoder_hidden_size=32, decoder_hidden_size=32, encoder_n_layers=1, **common)

df = demand_series(args.series)
if args.load_dir:
    nf = NeuralForecast.load(args.load_dir)
    nf.models[0].trainer_kwargs.update(trainer_kwargs)
    nf.models[0].max_steps = args.max_steps
    nf.models[0].trainer_kwargs["max_steps"] = args.max_steps
    if rank == 0:
        print(f"[train] resuming {type(nf.models[0]).__name__} from {args.load_dir}", flush=True)
else:
    nf = NeuralForecast(models=[model], freq="ME")
nf.fit(df=df, val_size=12)
if args.save_dir and rank == 0:
    nf.save(path=args.save_dir, overwrite=True)
    print(f"[train] saved model to {args.save_dir}", flush=True)
if rank == 0:
    print("[train] done", flush=True)
