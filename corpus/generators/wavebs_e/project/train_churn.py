"""Customer-churn classifier (fastai tabular, a small MLP with embeddings) trained data-parallel over several CPU
hosts with fastai's ``learn.distrib_ctx()`` (Accelerate underneath, gloo), started on every node by ``accelerate
launch`` or ``torchrun``. Checkpoints every epoch (SaveModelCallback), CSVLogger history, early stopping, and fastai's
NaN guard (TerminateOnNaNCallback)."""
import argparse
import importlib.util
import os
import socket
import time
from pathlib import Path

import pandas as pd
import torch
from fastai.distributed import *  # noqa: F403
from fastai.tabular.all import *  # noqa: F403

torch.set_num_threads(1)
RANK = int(os.environ.get("RANK", 0))
LOCAL_RANK = int(os.environ.get("LOCAL_RANK", 0))
WORLD = int(os.environ.get("WORLD_SIZE", 1))


def log(msg: str, all_ranks: bool = False) -> None:
    if RANK == 0 or all_ranks:
        print(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] [rank{RANK}] {msg}", flush=True)


def _broadcast_cpu(self, t, rank):
    "fastai's DistributedDL._broadcast moves the indices to CUDA for NCCL; our nodes are CPU-only (gloo)."
    t = LongTensor(t)
    torch.distributed.broadcast(t, rank)
    return t.tolist()


DistributedDL._broadcast = _broadcast_cpu


class StepLogger(Callback):
    "Logs the training loss every few steps on rank 0 (the epoch table only comes at the end of an epoch)."
    order = 70

    def __init__(self, every: int = 10, hook=None):
        self.every, self.hook, self.step = every, hook, 0

    def before_fit(self):
        self.t0 = time.time()

    def after_batch(self):
        if not self.training:
            return
        self.step += 1
        if self.hook:
            self.hook(RANK, self.step, self)
        if self.step % self.every == 0:
            dt = (time.time() - self.t0) / self.every
            log(f"step {self.step:4d} | epoch {self.epoch} | loss {self.loss.item():.4f} | "
                f"lr {self.opt.hypers[0]['lr']:.2e} | {dt * 1000:.0f} ms/step")
            self.t0 = time.time()

    def after_cancel_fit(self):
        log(f"fit cancelled at step {self.step} (epoch {self.epoch}): last loss {self.loss.item():.4f}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--layers", default="200,100")
    ap.add_argument("--patience", type=int, default=3, help="early-stopping patience in epochs; 0 turns it off")
    ap.add_argument("--path", default="runs/churn")
    ap.add_argument("--resume", type=int, default=-1, help="epoch checkpoint to resume from")
    ap.add_argument("--log-every", type=int, default=10)
    a = ap.parse_args()
    log(f"host {socket.gethostname()} local_rank {LOCAL_RANK} world_size {WORLD} torch {torch.__version__}",
        all_ranks=True)
    hook = None
    if Path("data/hooks.py").exists():
        spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        hook = mod.on_batch
    df = pd.read_csv("data/customers.csv")
    splits = RandomSplitter(valid_pct=0.2, seed=42)(range_of(df))
    to = TabularPandas(df, procs=[Categorify, FillMissing, Normalize],
                       cat_names=["plan", "region", "contract", "payment"],
                       cont_names=["tenure_months", "age", "monthly_charges", "support_calls", "usage_gb"],
                       y_names="churned", y_block=CategoryBlock(), splits=splits)
    dls = to.dataloaders(bs=a.bs, device="cpu")
    layers = [int(x) for x in a.layers.split(",")]
    Path(a.path, "models").mkdir(parents=True, exist_ok=True)
    cbs = [SaveModelCallback(monitor="valid_loss", every_epoch=True, fname="churn", with_opt=True),
           EarlyStoppingCallback(monitor="valid_loss", patience=a.patience),
           CSVLogger(fname="history.csv", append=a.resume >= 0), TerminateOnNaNCallback(), StepLogger(a.log_every, hook)]
    if a.patience <= 0:
        cbs = [cb for cb in cbs if not isinstance(cb, EarlyStoppingCallback)]
    learn = tabular_learner(dls, layers=layers, metrics=accuracy, path=a.path, cbs=cbs)
    n_params = sum(p.numel() for p in learn.model.parameters())
    log(f"task churn-v3: {len(to.train)} train / {len(to.valid)} valid rows, model TabularModel layers={layers} "
        f"({n_params / 1e3:.1f}k params), bs={a.bs} per rank, global batch {a.bs * WORLD}, epochs={a.epochs}, "
        f"lr={a.lr}, patience={a.patience}")
    start = 0
    if a.resume >= 0:
        learn.load(f"churn_{a.resume}", with_opt=True)
        start = a.resume + 1
        log(f"resumed from {a.path}/models/churn_{a.resume}.pth, continuing at epoch {start}")
    t0 = time.time()
    with learn.distrib_ctx(sync_bn=False):  # SyncBatchNorm is GPU-only; our nodes are CPU
        learn.fit_one_cycle(a.epochs, a.lr, start_epoch=start)
    vals = learn.recorder.values
    if RANK == 0 and vals:
        log(f"fit finished after {len(vals)} epochs in {time.time() - t0:.0f}s: valid_loss {vals[-1][1]:.4f} "
            f"accuracy {vals[-1][2]:.4f}")
    log("training complete")


if __name__ == "__main__":
    main()
