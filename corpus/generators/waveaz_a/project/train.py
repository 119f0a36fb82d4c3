"""Per-stop, per-hour boardings forecaster for the regional bus company's timetable planning team.

An MLP over calendar, weather and last week's boardings (log1p target, MSE), plus a learned embedding per route and
per hub. Trained with Hugging Face Accelerate: launched by `accelerate launch` (see launch.sh / accelerate_config.yaml),
`Accelerator.prepare` shards the data (Accelerate's own DataLoader sharding), per-epoch validation gathered from every
process, checkpoints with `accelerator.save_state` (ProjectConfiguration, automatic naming, 3 kept), `--resume` loads
the latest one with `accelerator.load_state`."""
import argparse
import csv
import functools
import datetime
import math
import os
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import InitProcessGroupKwargs, ProjectConfiguration, set_seed

import logging

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                    level=logging.INFO)
logger = get_logger("boardings")

FEATURES = ["hour", "weekday", "school_term", "rain_mm", "temp_c", "boardings_prev_week"]

# feeder chains can be long in the rural network (stop -> stop -> ... -> hub)
sys.setrecursionlimit(1_000_000)


FEEDS = {}  # stop -> the stop its feeder service connects to (a hub maps to itself)


@functools.lru_cache(maxsize=None)
def hub_of(stop):
    nxt = FEEDS[stop]
    return stop if nxt == stop else hub_of(nxt)


class Boardings(Dataset):
    def __init__(self, x, route, hub, y, cache_copies=0):
        self.x, self.route, self.hub, self.y = x, route, hub, y
        # the jittered copies of the training set (augmentation cache), built once and kept in memory
        self.cache = [x + np.random.normal(0, 0.01, x.shape).astype(np.float32) for _ in range(cache_copies)]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.route[i], self.hub[i], self.y[i]


class Forecaster(nn.Module):
    def __init__(self, n_features, n_routes, n_hubs, hidden):
        super().__init__()
        self.route = nn.Embedding(n_routes, 8)
        self.hub = nn.Embedding(n_hubs, 4)
        self.fc1 = nn.Linear(n_features + 12, hidden)
        self.fc2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, 1)

    def forward(self, x, route, hub):
        h = torch.cat([x, self.route(route), self.hub(hub)], dim=1)
        h = F.relu(self.fc1(h))
        h = F.relu(self.fc2(h))
        return self.out(h).squeeze(1)


def load(path, transfers):
    with open(transfers) as f:
        FEEDS.update({r["stop_id"]: r["feeds"] for r in csv.DictReader(f)})
    hubs = sorted({hub_of(s) for s in FEEDS})
    with open(path) as f:
        rows = list(csv.DictReader(f))
    kept, bad = [], 0
    for r in rows:
        if not r["route"]:
            bad += 1
            logger.error(f"stop {r['stop_id']} hour {r['hour']}: no route assigned (missing GPS fix), row dropped")
            continue
        kept.append(r)
    routes = sorted({r["route"] for r in kept})
    x = np.array([[float(r[c]) for c in FEATURES] for r in kept], dtype=np.float32)
    x[:, 5] = np.log1p(x[:, 5])
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    y = np.log1p(np.array([float(r["boardings"]) for r in kept], dtype=np.float32))
    route = np.array([routes.index(r["route"]) for r in kept], dtype=np.int64)
    hub = np.array([hubs.index(hub_of(r["stop_id"])) for r in kept], dtype=np.int64)
    return x, route, hub, y, routes, hubs


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/boardings_hourly.csv")
    ap.add_argument("--transfers", default="data/transfers.csv")
    ap.add_argument("--output-dir", default="runs/forecaster")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--per-device-batch", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=2)
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in --output-dir")
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=1800, help="process-group timeout, seconds")
    ap.add_argument("--cache-copies", type=int, default=0, help="jittered copies of the training set kept in memory")
    ap.add_argument("--route-weights", action="store_true", help="weight the loss by inverse route frequency")
    a = ap.parse_args()

    accelerator = Accelerator(
        cpu=not torch.cuda.is_available(),  # the training box has no GPU: gloo across the processes
        gradient_accumulation_steps=a.grad_accum,
        project_config=ProjectConfiguration(project_dir=a.output_dir, automatic_checkpoint_naming=True,
                                            total_limit=3),
        kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=a.pg_timeout))],
    )
    logger.info(accelerator.state, main_process_only=False)
    world = accelerator.num_processes
    if a.global_batch != a.per_device_batch * a.grad_accum * world:
        raise ValueError(f"global batch {a.global_batch} != per-device batch {a.per_device_batch} x grad accum "
                         f"{a.grad_accum} x num_processes {world}")
    set_seed(1234)

    x, route, hub, y, routes, hubs = load(a.data, a.transfers)
    n_val = len(y) // 5
    train_ds = Boardings(x[n_val:], route[n_val:], hub[n_val:], y[n_val:], cache_copies=a.cache_copies)
    if a.cache_copies:
        accelerator.print(f"augmentation cache: {a.cache_copies} copies of {len(train_ds)} rows")
    val_ds = Boardings(x[:n_val], route[:n_val], hub[:n_val], y[:n_val])
    accelerator.print(f"{len(train_ds)} training rows, {len(val_ds)} validation rows, {len(routes)} routes, "
                      f"{len(hubs)} hubs")

    model = Forecaster(x.shape[1], len(routes), len(hubs), a.hidden)
    optimizer = torch.optim.AdamW(model.parameters(), lr=a.lr)
    train_dl = DataLoader(train_ds, batch_size=a.per_device_batch, shuffle=True, num_workers=a.num_workers)
    val_dl = DataLoader(val_ds, batch_size=64, num_workers=a.num_workers)
    model, optimizer, train_dl, val_dl = accelerator.prepare(model, optimizer, train_dl, val_dl)

    start_epoch = 0
    ckpt_root = os.path.join(a.output_dir, "checkpoints")
    if a.resume and not (os.path.isdir(ckpt_root) and os.listdir(ckpt_root)):
        logger.warning(f"--resume: no checkpoint in {ckpt_root}, starting from scratch")
    elif a.resume:
        ckpts = sorted(os.listdir(ckpt_root), key=lambda d: int(d.split("_")[-1]))
        last = os.path.join(ckpt_root, ckpts[-1])
        accelerator.load_state(last)
        start_epoch = int(ckpts[-1].split("_")[-1]) + 1
        accelerator.project_configuration.iteration = start_epoch
        accelerator.print(f"resumed from {last}, starting at epoch {start_epoch + 1}")

    for epoch in range(start_epoch, a.epochs):
        model.train()
        for step, (xb, rb, hb, yb) in enumerate(train_dl, 1):
            with accelerator.accumulate(model):
                pred = model(xb, rb, hb)
                if a.route_weights:
                    # inverse frequency of each route in this process's batches
                    counts = torch.bincount(rb).float()
                    counts = accelerator.reduce(counts, reduction="sum")
                    w = (1.0 / counts.clamp(min=1))[rb]
                    loss = (w * (pred - yb) ** 2).sum() / w.sum()
                else:
                    loss = F.mse_loss(pred, yb)
                accelerator.backward(loss)
                optimizer.step()
                optimizer.zero_grad()
            if not math.isfinite(loss.item()):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch + 1} step {step}")
            if step % a.log_every == 0:
                logger.info(f"epoch {epoch + 1} step {step} loss {loss.item():.4f}", main_process_only=False)
            if a.step_delay:
                time.sleep(a.step_delay)
        model.eval()
        preds, targets = [], []
        for xb, rb, hb, yb in val_dl:
            with torch.no_grad():
                pred = model(xb, rb, hb)
            pred, yb = accelerator.gather_for_metrics((pred, yb))
            preds.append(pred)
            targets.append(yb)
        p, t = torch.expm1(torch.cat(preds)), torch.expm1(torch.cat(targets))
        mae = (p - t).abs().mean().item()
        logger.info(f"epoch {epoch + 1}: val MAE {mae:.2f} boardings/hour over {len(t)} stop-hours")
        accelerator.save_state()
        accelerator.wait_for_everyone()
    accelerator.print(f"finished {a.epochs} epochs, val MAE {mae:.2f}" if a.epochs > start_epoch else
                      f"nothing to do: checkpoint already at epoch {start_epoch} of {a.epochs}")
    accelerator.end_training()


if __name__ == "__main__":
    main()
