"""demand-ar-v3: a small TemporalFusionTransformer forecasting synthetic AR series (pytorch-forecasting's own
generate_ar_data) through TimeSeriesDataSet / to_dataloader, trained by Lightning DDP (gloo) on CPU."""
import argparse
import datetime
import importlib.util
import os
import socket

import lightning.pytorch as pl
import pandas as pd
import torch
from lightning.pytorch.callbacks import EarlyStopping, LearningRateMonitor, ModelCheckpoint
from lightning.pytorch.loggers import CSVLogger
from lightning.pytorch.strategies import DDPStrategy
from pytorch_forecasting import TemporalFusionTransformer, TimeSeriesDataSet
from pytorch_forecasting.data import GroupNormalizer
from pytorch_forecasting.data.examples import generate_ar_data
from pytorch_forecasting.metrics import QuantileLoss

p = argparse.ArgumentParser()
p.add_argument("--max-epochs", type=int, default=8)
p.add_argument("--lr", type=float, default=0.03)
p.add_argument("--batch-size", type=int, default=32)
p.add_argument("--series", type=int, default=24)
p.add_argument("--timesteps", type=int, default=120)
p.add_argument("--encoder-length", type=int, default=24)
p.add_argument("--prediction-length", type=int, default=8)
p.add_argument("--hidden-size", type=int, default=12)
p.add_argument("--num-workers", type=int, default=0)
p.add_argument("--out-dir", default="runs/demand-ar-v3")
p.add_argument("--resume", default="")
p.add_argument("--trust-checkpoint", action="store_true", help="resume with weights_only=False (our own checkpoints)")
p.add_argument("--pg-timeout", type=int, default=120)
p.add_argument("--gradient-clip", type=float, default=0.1)
p.add_argument("--patience", type=int, default=4)
a = p.parse_args()


class ProgressPrinter(pl.Callback):
    """rank 0 prints the step loss every 4 steps and the epoch's metrics (the progress bar is off in batch jobs)"""

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_rank == 0 and (trainer.global_step % 4 == 0):
            print(f"epoch {trainer.current_epoch} step {trainer.global_step}: train_loss_step="
                  f"{float(outputs['loss']):.4f}", flush=True)

    def on_validation_epoch_end(self, trainer, module):
        if trainer.global_rank == 0 and not trainer.sanity_checking:
            m = trainer.callback_metrics
            print(f"epoch {trainer.current_epoch} validation: " + ", ".join(
                f"{k}={float(v):.4f}" for k, v in sorted(m.items()) if k.startswith("val_")), flush=True)

pl.seed_everything(42, workers=True)
data = generate_ar_data(seasonality=10.0, timesteps=a.timesteps, n_series=a.series, seed=42)
data["series"] = "s" + data["series"].astype(str)
data["date"] = pd.Timestamp("2024-01-01") + pd.to_timedelta(data.time_idx, "D")
cutoff = data["time_idx"].max() - a.prediction_length

training = TimeSeriesDataSet(
    data[lambda x: x.time_idx <= cutoff],
    time_idx="time_idx",
    target="value",
    group_ids=["series"],
    static_categoricals=["series"],
    time_varying_known_reals=["time_idx"],
    time_varying_unknown_reals=["value"],
    max_encoder_length=a.encoder_length,
    max_prediction_length=a.prediction_length,
    target_normalizer=GroupNormalizer(groups=["series"]),
    add_relative_time_idx=True,
    add_target_scales=True,
)
validation = TimeSeriesDataSet.from_dataset(training, data, min_prediction_idx=cutoff + 1)
train_dl = training.to_dataloader(train=True, batch_size=a.batch_size, num_workers=a.num_workers)
val_dl = validation.to_dataloader(train=False, batch_size=a.batch_size * 4, num_workers=a.num_workers)

callbacks = [
    EarlyStopping(monitor="val_loss", min_delta=1e-4, patience=a.patience, mode="min", verbose=True),
    ModelCheckpoint(dirpath=os.path.join(a.out_dir, "checkpoints"), monitor="val_loss", save_top_k=2, save_last=True,
                    filename="tft-{epoch:02d}-{val_loss:.4f}", verbose=True),
    LearningRateMonitor(),
    ProgressPrinter(),
]
if importlib.util.find_spec("train_hooks"):  # the team's optional per-batch audit hook
    import train_hooks
    callbacks.append(train_hooks.Hook())

trainer = pl.Trainer(
    accelerator="cpu",
    devices=int(os.environ.get("LOCAL_WORLD_SIZE", 2)),
    num_nodes=int(os.environ.get("GROUP_WORLD_SIZE", 1)),
    strategy=DDPStrategy(process_group_backend="gloo", timeout=datetime.timedelta(seconds=a.pg_timeout)),
    max_epochs=a.max_epochs,
    gradient_clip_val=a.gradient_clip,
    limit_train_batches=12,
    log_every_n_steps=4,
    callbacks=callbacks,
    logger=CSVLogger(a.out_dir, name="logs"),
    enable_progress_bar=False,
)
tft = TemporalFusionTransformer.from_dataset(
    training,
    learning_rate=a.lr,
    hidden_size=a.hidden_size,
    attention_head_size=1,
    dropout=0.1,
    hidden_continuous_size=8,
    loss=QuantileLoss(),
    log_interval=4,
    reduce_on_plateau_patience=3,
)
if trainer.global_rank == 0:
    print(f"[{socket.gethostname()}] Number of parameters in network: {tft.size() / 1e3:.1f}k; "
          f"{len(training)} training samples, {len(validation)} validation samples", flush=True)
trainer.fit(tft, train_dataloaders=train_dl, val_dataloaders=val_dl, ckpt_path=a.resume or None,
            weights_only=False if a.trust_checkpoint else None)
if trainer.global_rank == 0:
    best = trainer.checkpoint_callback.best_model_path
    print(f"best checkpoint: {best} (val_loss {trainer.checkpoint_callback.best_model_score})", flush=True)
    model = TemporalFusionTransformer.load_from_checkpoint(best)
    print(f"reloaded {type(model).__name__} from the best checkpoint; training done", flush=True)
