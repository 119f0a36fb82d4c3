"""Churn-risk regressor/classifier on synthetic tabular data with PyTorch Tabular (Lightning DDP over gloo on CPU),
launched by torchrun on several nodes. The team's optional hooks module (train_hooks.py, if present) gets a call per
training batch."""
import argparse
import datetime
import importlib.util
import logging
import math
import os

import numpy as np
import pandas as pd
import pytorch_lightning as pl
import torch
from pytorch_tabular import TabularModel
from pytorch_tabular.config import DataConfig, OptimizerConfig, TrainerConfig
from pytorch_tabular.models import CategoryEmbeddingModelConfig, GANDALFConfig

p = argparse.ArgumentParser()
p.add_argument("--model", default="mlp", choices=["mlp", "gandalf"])
p.add_argument("--rows", type=int, default=16000)
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--batch-size", type=int, default=64)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--layers", default="64-32")
p.add_argument("--ckpt-dir", default="saved_models")
p.add_argument("--save-dir", default="export/churn-model")
p.add_argument("--workers", type=int, default=0)
p.add_argument("--pg-timeout", type=int, default=0)
p.add_argument("--stop-on-nan", action="store_true")
p.add_argument("--resume", default="")
p.add_argument("--log-every", type=int, default=20)
p.add_argument("--task", default="classification")
p.add_argument("--extra-cat", default="")
p.add_argument("--accumulate", type=int, default=1)
p.add_argument("--sync-batchnorm", action="store_true")
a = p.parse_args()

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("train_tabular")
rank = int(os.environ.get("RANK", "0"))
world = int(os.environ.get("WORLD_SIZE", "1"))
local_world = int(os.environ.get("LOCAL_WORLD_SIZE", "1"))
nnodes = max(1, world // local_world)


def make_frame(n, seed):
    """Synthetic customer table: 6 numeric and 3 categorical features, churn label from a noisy logistic model."""
    g = np.random.default_rng(seed)
    df = pd.DataFrame({
        "tenure_months": g.integers(1, 72, n).astype(float),
        "monthly_spend": g.gamma(2.0, 30.0, n),
        "support_calls": g.poisson(1.5, n).astype(float),
        "days_since_login": g.exponential(10.0, n),
        "discount_pct": g.uniform(0, 30, n),
        "sessions_30d": g.poisson(12, n).astype(float),
        "plan": g.choice(["basic", "plus", "pro", "team"], n),
        "region": g.choice(["eu-west", "eu-north", "us-east", "us-west", "apac"], n),
        "channel": g.choice(["web", "ios", "android", "partner"], n),
    })
    z = (-0.04 * df.tenure_months + 0.01 * df.monthly_spend + 0.5 * df.support_calls + 0.06 * df.days_since_login
         - 0.05 * df.sessions_30d + (df.plan == "basic") * 0.8 + g.normal(0, 0.5, n))
    df["churn"] = (1 / (1 + np.exp(-z)) > 0.5).astype(int)
    return df


full = make_frame(a.rows, 20261205)
n_val = a.rows // 8
train, valid, test = full.iloc[: -2 * n_val], full.iloc[-2 * n_val: -n_val], full.iloc[-n_val:]
cats = ["plan", "region", "channel"] + ([a.extra_cat] if a.extra_cat else [])
nums = ["tenure_months", "monthly_spend", "support_calls", "days_since_login", "discount_pct", "sessions_30d"]
if rank == 0:
    log.info("data: train=%d valid=%d test=%d rows, %d numeric + %d categorical features, churn rate %.3f",
             len(train), len(valid), len(test), len(nums), len(cats), full.churn.mean())

if a.pg_timeout:  # Lightning keeps an already-initialised process group
    torch.distributed.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    log.info("rank %d: process group ready (gloo, timeout %ds)", rank, a.pg_timeout)

data_config = DataConfig(target=["churn"], continuous_cols=nums, categorical_cols=cats,
                         num_workers=a.workers, normalize_continuous_features=True)
trainer_config = TrainerConfig(
    accelerator="cpu", devices=local_world, max_epochs=a.epochs, batch_size=a.batch_size,
    checkpoints="valid_loss", checkpoints_path=a.ckpt_dir, checkpoints_every_n_epochs=1, checkpoints_save_top_k=2,
    load_best=False, progress_bar="none", early_stopping=None, seed=1234,
    trainer_kwargs={"strategy": "ddp", "num_nodes": nnodes, "log_every_n_steps": 10, "enable_progress_bar": False,
                    "accumulate_grad_batches": a.accumulate, "sync_batchnorm": a.sync_batchnorm})
optimizer_config = OptimizerConfig(optimizer="AdamW")
if a.model == "gandalf":
    model_config = GANDALFConfig(task=a.task, gflu_stages=3, learning_rate=a.lr, metrics=["accuracy"])
else:
    model_config = CategoryEmbeddingModelConfig(task=a.task, layers=a.layers, activation="ReLU", dropout=0.1,
                                                learning_rate=a.lr, metrics=["accuracy"])

hooks = None
if os.path.exists("train_hooks.py"):
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)


class StepLog(pl.Callback):
    """Every rank prints its loss every --log-every optimizer steps; rank 0 prints the validation metrics."""

    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        step = trainer.global_step
        loss = outputs["loss"].item() if isinstance(outputs, dict) else float(outputs)
        if a.stop_on_nan and not math.isfinite(loss):
            raise FloatingPointError(f"rank {rank}: non-finite train loss {loss} at step {step} (epoch "
                                     f"{trainer.current_epoch}, batch {batch_idx})")
        if step % a.log_every == 0 and (batch_idx + 1) % a.accumulate == 0:
            print(f"[rank {rank}] epoch {trainer.current_epoch} step {step} loss {loss:.4f}", flush=True)
        if hooks is not None:
            hooks.on_step(rank, step, module, batch)

    def on_validation_epoch_end(self, trainer, module):
        if rank == 0 and not trainer.sanity_checking:
            m = {k: round(float(v), 4) for k, v in trainer.callback_metrics.items() if k.startswith("valid")}
            print(f"[rank 0] epoch {trainer.current_epoch} validation {m}", flush=True)


tabular_model = TabularModel(data_config=data_config, model_config=model_config, optimizer_config=optimizer_config,
                             trainer_config=trainer_config, verbose=True)


class WarmStart(pl.Callback):
    """--resume CKPT: start from the weights of an earlier run's Lightning checkpoint."""

    def on_fit_start(self, trainer, module):
        state = torch.load(a.resume, map_location="cpu", weights_only=False)
        module.load_state_dict(state["state_dict"])
        if rank == 0:
            log.info("warm start from %s (epoch %s, global_step %s)", a.resume, state["epoch"], state["global_step"])


callbacks = [StepLog()] + ([WarmStart()] if a.resume else [])
tabular_model.fit(train=train, validation=valid, callbacks=callbacks)
result = tabular_model.evaluate(test, verbose=False)
if rank == 0:
    log.info("test metrics: %s", {k: round(v, 4) for k, v in result[0].items()})
    tabular_model.save_model(a.save_dir)
    log.info("model saved to %s: %s", a.save_dir, sorted(os.listdir(a.save_dir)))
else:  # save_model's Trainer.save_checkpoint holds a barrier: the other ranks join it (only rank 0 writes)
    tabular_model.trainer.save_checkpoint(os.path.join(a.save_dir, "model.ckpt"))
log.info("rank %d done", rank)
