"""Skylark Air ops analytics: arrival-delay regressor (minutes) from schedule + departure weather, trained with
Ray Train's TorchTrainer on the team's Ray cluster (one head node, one worker node).

    python train.py --address 10.78.0.1:6390 [--epochs 3] [--resume] [--max-failures 0] ...
"""
import argparse
import functools
import logging
import os
import sys
import tempfile
import time

import numpy as np
import pandas as pd
import torch
import torch.distributed as dist
import torch.nn as nn

import ray
import ray.train
import ray.train.torch
from ray.train import Checkpoint, CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer

NUMERIC = ["dep_hour", "day_of_week", "distance_mi", "temp_c", "wind_kt", "visibility_mi", "precip_in",
           "inbound_delay_min"]
log = logging.getLogger("delaynet")


def load_frame(data_dir, cache_copies=0):
    df = pd.read_csv(os.path.join(data_dir, "flights.csv"))
    hubs = dict(pd.read_csv(os.path.join(data_dir, "stations.csv")).values)
    bad = df.index[df["temp_c"] <= -999]
    for i in bad:  # METAR gaps come through as -9999; the ops team drops those flights
        log.error("flight %s %s %s->%s: temp_c %s is a METAR gap sentinel, dropped", df.at[i, "flight_no"],
                  df.at[i, "flight_date"], df.at[i, "origin"], df.at[i, "dest"], df.at[i, "temp_c"])
    df = df.drop(index=bad)
    feats = df[NUMERIC].astype("float32").copy()
    feats["upstream_delay"] = rotation_delay(df)
    feats["visibility_mi"] = np.log1p(feats["visibility_mi"])
    feats["distance_mi"] = feats["distance_mi"] / 1000.0
    feats["origin_hub"] = [hubs[s] for s in df["origin"]]
    feats["dest_hub"] = [hubs[s] for s in df["dest"]]
    x = feats.to_numpy(dtype="float32")
    y = df["arr_delay_min"].to_numpy(dtype="float32")
    cache = [x + np.random.default_rng(c).normal(0, 0.01, x.shape).astype("float32") for c in range(cache_copies)]
    return x, y, cache


def rotation_delay(df):
    """Delay carried down each aircraft's rotation: 70% of the previous leg's (inbound + carried) delay."""
    sys.setrecursionlimit(1_000_000)  # long rotations on the regional fleet
    order = df.sort_values(["tail_no", "flight_date", "dep_hour"]).index.to_numpy()
    tails = df["tail_no"].to_numpy()
    inbound = df["inbound_delay_min"].to_numpy(dtype="float64")
    prev = {}
    for a, b in zip(order[:-1], order[1:]):
        if tails[a] == tails[b]:
            prev[b] = a

    @functools.lru_cache(maxsize=None)
    def carried(i):
        if i not in prev:
            return 0.0
        j = prev[i]
        return 0.7 * (inbound[j] + carried(j))

    return np.array([carried(i) for i in df.index], dtype="float32")


class DelayNet(nn.Module):
    def __init__(self, n_in, hidden):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def train_loop_per_worker(config):
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    x, y, cache = load_frame(config["data_dir"], config["cache_copies"])
    if cache:
        log.info("augmentation cache: %d jittered copies of %d rows", len(cache), len(x))
    mu, sd = x.mean(0), x.std(0) + 1e-6
    x = (x - mu) / sd
    n_val = len(x) // 10
    tensors = torch.from_numpy(x), torch.from_numpy(y)
    train_ds = torch.utils.data.TensorDataset(tensors[0][n_val:], tensors[1][n_val:])
    val_ds = torch.utils.data.TensorDataset(tensors[0][:n_val], tensors[1][:n_val])
    train_dl = ray.train.torch.prepare_data_loader(
        torch.utils.data.DataLoader(train_ds, batch_size=config["batch_size"], shuffle=True,
                                    num_workers=config["loader_workers"]))
    val_dl = ray.train.torch.prepare_data_loader(torch.utils.data.DataLoader(val_ds, batch_size=512))
    model = ray.train.torch.prepare_model(DelayNet(x.shape[1], config["hidden"]))
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"])
    start = 1
    ckpt = ray.train.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as d:
            state = torch.load(os.path.join(d, "model.pt"))
        model.module.load_state_dict(state["model"]) if hasattr(model, "module") else model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
        print(f"[rank {rank}] resumed from checkpoint at epoch {state['epoch']}")
    steps = len(train_dl)
    for epoch in range(start, config["epochs"] + 1):
        if world > 1:
            train_dl.sampler.set_epoch(epoch)
        model.train()
        for step, (xb, yb) in enumerate(train_dl, 1):
            loss = nn.functional.smooth_l1_loss(model(xb), yb, beta=5.0)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {step}")
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % 10 == 0 or step == steps:
                print(f"[rank {rank}] {time.strftime('%H:%M:%S')} epoch {epoch} step {step}/{steps} "
                      f"loss {loss.item():.4f}")
            time.sleep(config["step_delay"])
        model.eval()
        err = torch.zeros(2)
        with torch.no_grad():
            for xb, yb in val_dl:
                err += torch.tensor([(model(xb) - yb).abs().sum().item(), len(yb)])
        if world > 1:
            dist.all_reduce(err)
        metrics = {"epoch": epoch, "train_loss": loss.item(), "val_mae_min": (err[0] / err[1]).item()}
        with tempfile.TemporaryDirectory() as tmp:
            checkpoint = None
            if rank == 0:
                net = model.module if hasattr(model, "module") else model
                torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                           os.path.join(tmp, "model.pt"))
                checkpoint = Checkpoint.from_directory(tmp)
            ray.train.report(metrics, checkpoint=checkpoint)
        if rank == 0:
            print(f"[rank 0] epoch {epoch} val MAE {metrics['val_mae_min']:.2f} min")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", default="auto")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--cache-copies", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.05)
    ap.add_argument("--pg-timeout", type=int, default=1800, help="TorchConfig(timeout_s=...)")
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--storage", default=os.path.abspath("results"))
    ap.add_argument("--name", default="delaynet-sep")
    ap.add_argument("--resume", action="store_true",
                    help="rerun under the same --name and --storage: Ray Train restores the run's latest checkpoint")
    ap.add_argument("--resume-from", default="", help="start from this checkpoint directory (or 'latest' of --name)")
    a = ap.parse_args()
    ray.init(address=a.address)
    resume = None
    if a.resume:
        print(f"resuming run {a.name} from {a.storage}")
    if a.resume_from:
        path = a.resume_from
        if path == "latest":
            runs = os.path.join(a.storage, a.name)
            path = os.path.join(runs, sorted(d for d in os.listdir(runs) if d.startswith("checkpoint_2"))[-1])
        resume = Checkpoint(path)
        print(f"resuming from {resume.path}")
        a.name += "-resumed"
    trainer = TorchTrainer(
        train_loop_per_worker,
        train_loop_config={"data_dir": os.path.abspath("data"), "epochs": a.epochs, "batch_size": a.batch_size,
                           "lr": a.lr, "hidden": a.hidden, "loader_workers": a.loader_workers,
                           "cache_copies": a.cache_copies, "step_delay": a.step_delay},
        torch_config=TorchConfig(backend="gloo", timeout_s=a.pg_timeout),
        scaling_config=ScalingConfig(num_workers=a.num_workers, use_gpu=False,
                                     resources_per_worker={"CPU": a.cpus_per_worker}),
        run_config=RunConfig(name=a.name, storage_path=a.storage,
                             failure_config=FailureConfig(max_failures=a.max_failures),
                             checkpoint_config=CheckpointConfig(num_to_keep=2, checkpoint_score_attribute="val_mae_min",
                                                                checkpoint_score_order="min")),
        resume_from_checkpoint=resume,
    )
    result = trainer.fit()
    print(f"training finished: {result.metrics}")
    print(f"best checkpoint: {result.checkpoint}")


if __name__ == "__main__":
    main()
