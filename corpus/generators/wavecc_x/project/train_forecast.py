"""Demand-forecast training job: a Darts torch forecasting model (N-BEATS by default, or an RNN/TFT) on synthetic
store-demand series, trained with Darts' own fit() under PyTorch Lightning DDP over gloo on CPU, launched by torchrun
on several hosts. The team's optional hooks module (train_hooks.py, if present) gets a callback per training batch."""
import argparse
import importlib.util
import logging
import math
import os

import numpy as np
import pandas as pd
import pytorch_lightning as pl
import torch
from darts import TimeSeries
from darts.models import NBEATSModel, RNNModel, TFTModel
from pytorch_lightning.callbacks import Callback, EarlyStopping
from pytorch_lightning.strategies import DDPStrategy

p = argparse.ArgumentParser()
p.add_argument("--model", default="nbeats", choices=["nbeats", "rnn", "tft"])
p.add_argument("--model-name", default="demand-nbeats")
p.add_argument("--work-dir", default="darts_logs")
p.add_argument("--epochs", type=int, default=10)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--in-len", type=int, default=24)
p.add_argument("--out-len", type=int, default=12)
p.add_argument("--n-series", type=int, default=24)
p.add_argument("--length", type=int, default=240)
p.add_argument("--workers", type=int, default=0)
p.add_argument("--resume", action="store_true")
p.add_argument("--stop-on-nan", action="store_true")
p.add_argument("--pg-timeout", type=int, default=0)
p.add_argument("--no-val", action="store_true")
p.add_argument("--log-every", type=int, default=10)
a = p.parse_args()

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train_forecast")
rank = int(os.environ.get("RANK", "0"))
world = int(os.environ.get("WORLD_SIZE", "1"))
local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
nnodes = max(1, world // local_world)


def make_series(n, length, seed=11):
    rng = np.random.default_rng(seed)
    idx = pd.date_range("2024-01-01", periods=length, freq="D")
    out = []
    for i in range(n):
        t = np.arange(length)
        y = (10 + 0.02 * i * t + 3 * np.sin(2 * np.pi * t / 7 + i) + 1.5 * np.sin(2 * np.pi * t / 30)
             + rng.normal(0, 0.4, length))
        out.append(TimeSeries.from_times_and_values(idx, y.astype(np.float32)))
    return out


series = make_series(a.n_series, a.length)
train = [s[:-36] for s in series]
val = [s[-(36 + a.in_len):] for s in series] if not a.no_val else None


class StepLog(Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        step = trainer.global_step
        if hooks is not None:
            hooks.on_step(rank, step, pl_module)
        if rank == 0 and step % a.log_every == 0:
            loss = trainer.callback_metrics.get("train_loss")
            loss = float(loss) if loss is not None else float("nan")
            log.info("epoch %d step %d train_loss %.5f", trainer.current_epoch, step, loss)

    def on_validation_batch_end(self, trainer, pl_module, outputs, batch, batch_idx, dataloader_idx=0):
        if hooks is not None and hasattr(hooks, "on_val_batch"):
            hooks.on_val_batch(rank, trainer.current_epoch, batch_idx, batch, pl_module)

    def on_train_epoch_end(self, trainer, pl_module):
        DONE.update(epoch=trainer.current_epoch, step=trainer.global_step)
        m = {k: round(float(v), 5) for k, v in trainer.callback_metrics.items()}
        log.info("rank %d (%s) finished epoch %d global_step %d metrics %s", rank, os.uname().nodename,
                 trainer.current_epoch, trainer.global_step, m)


hooks = None
DONE = {"epoch": -1, "step": 0}
if os.path.exists("train_hooks.py"):
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

callbacks = [StepLog()]
if a.stop_on_nan:
    callbacks.append(EarlyStopping(monitor="train_loss", patience=1000, check_finite=True, verbose=True))

ddp = {"process_group_backend": "gloo"}
if a.pg_timeout:
    import datetime
    ddp["timeout"] = datetime.timedelta(seconds=a.pg_timeout)
trainer_kwargs = {"devices": local_world, "num_nodes": nnodes,
                  "strategy": DDPStrategy(**ddp), "enable_progress_bar": False, "callbacks": callbacks}

common = dict(input_chunk_length=a.in_len, output_chunk_length=a.out_len, batch_size=a.batch_size, n_epochs=a.epochs,
              optimizer_kwargs={"lr": a.lr}, random_state=42, model_name=a.model_name, work_dir=a.work_dir,
              save_checkpoints=True, force_reset=not a.resume, pl_trainer_kwargs=trainer_kwargs)
log.info("rank %d/%d on %s: model=%s series=%d x %d in=%d out=%d batch=%d epochs=%d", rank, world,
         os.uname().nodename, a.model, len(train), len(train[0]), a.in_len, a.out_len, a.batch_size, a.epochs)

if a.resume:
    model = NBEATSModel.load_from_checkpoint(a.model_name, work_dir=a.work_dir, best=False)
    model.trainer_params = dict(model.trainer_params, **trainer_kwargs)
    log.info("resumed %s from its last checkpoint (epochs trained: %d)", a.model_name, model.epochs_trained)
    model.fit(train, val_series=val, epochs=a.epochs, trainer=None, dataloader_kwargs={"num_workers": a.workers})
elif a.model == "nbeats":
    model = NBEATSModel(num_stacks=4, num_blocks=1, num_layers=2, layer_widths=64, generic_architecture=True, **common)
    model.fit(train, val_series=val, dataloader_kwargs={"num_workers": a.workers})
elif a.model == "rnn":
    model = RNNModel(model="LSTM", hidden_dim=32, n_rnn_layers=1, training_length=a.in_len + a.out_len,
                     **{k: v for k, v in common.items() if k != "output_chunk_length"})
    model.fit(train, val_series=val, dataloader_kwargs={"num_workers": a.workers})
else:
    model = TFTModel(hidden_size=16, lstm_layers=1, num_attention_heads=2, add_relative_index=True, **common)
    model.fit(train, val_series=val, dataloader_kwargs={"num_workers": a.workers})

final = model.trainer.callback_metrics.get("train_loss") if model.trainer is not None else None
if a.stop_on_nan and final is not None and not math.isfinite(float(final)):
    raise RuntimeError(f"training loss is {float(final)} after epoch {DONE['epoch']}; refusing to publish "
                       f"{a.model_name}")
if rank == 0:
    fc = model.predict(n=a.out_len, series=train[:4], trainer=pl.Trainer(accelerator="cpu", devices=1, logger=False,
                                                                           enable_progress_bar=False))
    err = float(np.mean([np.abs(f.values() - s[-36:-36 + a.out_len].values()).mean() for f, s in zip(fc, series[:4])]))
    log.info("train done: epochs=%d global_step=%d holdout MAE %.4f", DONE["epoch"] + 1, DONE["step"], err)
    model.save(f"{a.work_dir}/{a.model_name}-final.pt")
    log.info("saved %s/%s-final.pt", a.work_dir, a.model_name)
if torch.distributed.is_initialized():
    torch.distributed.barrier()
    torch.distributed.destroy_process_group()
