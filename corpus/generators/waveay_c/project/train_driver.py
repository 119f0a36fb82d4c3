"""Delivery-delay predictor for the parcel network's ops-analytics team.

The driver cleans the depot scanners' export (pandas), then trains an MLP with Ray Train: a TorchTrainer with 2 CPU
workers (DDP over gloo), each worker builds the features itself, takes its DistributedSampler shard
(prepare_data_loader), prints a loss line every few steps, validates once per epoch and reports metrics with a
checkpoint (rank 0) through ray.train.report. Launched on the team's dev Ray cluster (`ray start --head ...`):

    python train_driver.py --ray-address 127.0.0.1:33401 [--epochs N ...]
"""
import argparse
import datetime
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
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

import ray
import ray.train
import ray.train.torch
from ray.train import Checkpoint, CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer

log = logging.getLogger("parcels.delay")
OUTCOMES = {"on_time": 0, "late_1d": 1, "late_2plus": 2}
NUMERIC = ["route_km", "weight_kg", "handovers", "weather_index"]


class DelayNet(nn.Module):
    def __init__(self, n_features: int, n_classes: int) -> None:
        super().__init__()
        self.fc1 = nn.Linear(n_features, 64)
        self.fc2 = nn.Linear(64, 64)
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))


def clean(src: str, dst: str) -> int:
    df = pd.read_csv(src)
    ts = pd.to_datetime(df["first_scan"], format="%Y-%m-%dT%H:%M:%S", errors="coerce")
    for i in np.flatnonzero(ts.isna().to_numpy()):
        log.error("parcel %s from depot %s: unreadable first scan time %r, dropped", df.parcel_id[i], df.depot[i],
                  df.first_scan[i])
    df = df[ts.notna()].copy()
    df["scan_hour"] = pd.to_datetime(df["first_scan"]).dt.hour
    df = df[["parcel_id", "depot", "last_hub", "scan_hour", *NUMERIC, "service", "outcome"]]
    df.to_csv(dst, index=False)
    return len(df)


def build_features(scans: str, handovers: str):
    """Per-parcel features: log distance/weight, handovers, weather, express flag, hour, gateway hub of the chain."""
    df = pd.read_csv(scans)
    prev = dict(pd.read_csv(handovers, keep_default_na=False).itertuples(index=False))

    @functools.lru_cache(maxsize=None)
    def gateway(hub: str) -> str:  # follow the handover chain back to the gateway hub
        p = prev.get(hub, "")
        return hub if not p else gateway(p)

    sys.setrecursionlimit(1_000_000)  # long handover chains on the international lanes
    gw = df["last_hub"].map(gateway)
    gw_code = gw.astype("category").cat.codes.to_numpy() / 60.0
    x = np.stack([np.log(df.route_km.to_numpy()), np.log(df.weight_kg.to_numpy()), df.handovers.to_numpy() / 5.0,
                  df.weather_index.to_numpy(), (df.service == "express").to_numpy(float),
                  df.scan_hour.to_numpy() / 24.0, gw_code], axis=1).astype(np.float32)
    y = np.array([OUTCOMES[o] for o in df.outcome], dtype=np.int64)
    n_val = len(df) // 5
    return (torch.from_numpy(x[n_val:]), torch.from_numpy(y[n_val:]), torch.from_numpy(x[:n_val]),
            torch.from_numpy(y[:n_val]))


def train_loop_per_worker(cfg: dict) -> None:
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(1234 + rank)
    if cfg["global_batch"] != cfg["micro_batch"] * cfg["grad_accum"] * world:
        raise ValueError(f"global batch {cfg['global_batch']} != micro batch {cfg['micro_batch']} x grad accum "
                         f"{cfg['grad_accum']} x world size {world}")
    x, y, xv, yv = build_features(cfg["scans"], cfg["handovers"])
    if cfg["augment_copies"]:  # jittered copies of the training parcels (weather/distance noise), built up front
        xs, ys = [x.double()], [y]
        for k in range(cfg["augment_copies"]):
            xs.append(x.double() + 0.05 * torch.randn(x.shape, dtype=torch.float64))
            ys.append(y)
            if k % 2000 == 0:
                print(f"augmentation: built {k} of {cfg['augment_copies']} copies", flush=True)
        x, y = torch.cat([t.float() for t in xs]), torch.cat(ys)
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["micro_batch"], shuffle=True, drop_last=True,
                        num_workers=cfg["loader_workers"])
    loader = ray.train.torch.prepare_data_loader(loader)  # DistributedSampler shard per worker
    weight = None
    if cfg["class_weights"]:  # outcome counts over all shards -> inverse-frequency weights
        counts = torch.bincount(y[list(iter(loader.sampler))]).double()
        dist.all_reduce(counts)
        weight = (counts.sum() / (len(counts) * counts.clamp(min=1))).float()
        print(f"class weights: {[round(w, 2) for w in weight.tolist()]}", flush=True)
    model = ray.train.torch.prepare_model(DelayNet(x.shape[1], len(OUTCOMES)))
    if cfg["optimizer"] == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=1e-4)
    elif cfg["optimizer"] == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    else:
        raise ValueError(f"unknown optimizer {cfg['optimizer']!r}")

    start = 1
    ckpt = ray.train.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as d:
            st = torch.load(os.path.join(d, "model.pt"), map_location="cpu")
        model.module.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"resumed from checkpoint (epoch {st['epoch']})", flush=True)

    for epoch in range(start, cfg["epochs"] + 1):
        if world > 1:
            loader.sampler.set_epoch(epoch)
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, yb) in enumerate(loader, 1):
            loss = F.cross_entropy(model(xb), yb, weight=weight) / cfg["grad_accum"]
            loss.backward()
            if i % cfg["grad_accum"] == 0:
                opt.step()
                opt.zero_grad()
            tot += loss.item() * cfg["grad_accum"]
            n += 1
            if i % cfg["log_every"] == 0:
                print(f"[rank{rank}] epoch {epoch} step {i} loss {loss.item() * cfg['grad_accum']:.4f}", flush=True)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
            if cfg["step_delay"]:
                time.sleep(cfg["step_delay"])
        mean = torch.tensor([tot, n], dtype=torch.float64)
        dist.all_reduce(mean)
        model.eval()
        with torch.no_grad():
            acc = (model(xv).argmax(1) == yv).float().mean().item()
        metrics = {"epoch": epoch, "train_loss": round(float(mean[0] / mean[1]), 4), "val_acc": round(acc, 4),
                   "epoch_s": round(time.time() - t0, 1)}
        with tempfile.TemporaryDirectory() as tmp:
            if rank == 0:
                torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                           os.path.join(tmp, "model.pt"))
                print(f"[rank0] epoch {epoch} done: train loss {metrics['train_loss']:.4f} val acc {acc:.3f}",
                      flush=True)
                ray.train.report(metrics, checkpoint=Checkpoint.from_directory(tmp))
            else:
                ray.train.report(metrics)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ray-address", default="auto")
    ap.add_argument("--scans", default="data/parcel_scans.csv")
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    ap.add_argument("--name", default="parcel-delay")
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=2)
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=1800, help="TorchConfig(timeout_s=...)")
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--augment-copies", type=int, default=0)
    ap.add_argument("--class-weights", action="store_true")
    ap.add_argument("--resume", action="store_true", help="continue the run --name (its latest checkpoint)")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    os.makedirs("work", exist_ok=True)
    n = clean(a.scans, os.path.abspath("work/scans_clean.csv"))
    log.info("cleaned export: %d parcels", n)

    ray.init(address=a.ray_address)
    cfg = {"scans": os.path.abspath("work/scans_clean.csv"), "handovers": os.path.abspath("data/hub_handovers.csv"),
           "epochs": a.epochs, "micro_batch": a.micro_batch, "grad_accum": a.grad_accum,
           "global_batch": a.global_batch, "lr": a.lr, "optimizer": a.optimizer, "log_every": a.log_every,
           "loader_workers": a.loader_workers, "step_delay": a.step_delay, "augment_copies": a.augment_copies,
           "class_weights": a.class_weights}
    if a.resume:  # same name + storage path: Ray Train restores the run's latest checkpoint
        log.info("resuming run %s from %s", a.name, a.storage)
    trainer = TorchTrainer(
        train_loop_per_worker, train_loop_config=cfg,
        scaling_config=ScalingConfig(num_workers=a.num_workers, use_gpu=False,
                                     resources_per_worker={"CPU": a.cpus_per_worker}),
        torch_config=TorchConfig(backend="gloo", timeout_s=a.pg_timeout),
        run_config=RunConfig(name=a.name, storage_path=a.storage,
                             failure_config=FailureConfig(max_failures=a.max_failures),
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    log.info("training finished: %s", result.metrics)
    log.info("best checkpoint: %s", result.checkpoint.path if result.checkpoint else None)
    if result.metrics.get("val_acc", 0) < 0.55:
        raise SystemExit(f"val accuracy {result.metrics.get('val_acc')} below the 0.55 gate, not publishing")
    log.info("delay model passed the accuracy gate, ready to publish")


if __name__ == "__main__":
    main()
