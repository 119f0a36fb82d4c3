"""LSTM load forecaster (synthetic multi-site electricity demand), DDP over gloo under torch.multiprocessing.spawn."""
import argparse
import json
import math
import os
import socket
import time
import urllib.request

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP


def make_series(sites, hours, seed=0):
    rng = np.random.default_rng(seed)
    t = np.arange(hours)
    base = rng.uniform(50, 150, size=(sites, 1))
    daily = np.sin(2 * np.pi * t / 24)[None] * rng.uniform(5, 20, size=(sites, 1))
    weekly = np.sin(2 * np.pi * t / 168)[None] * rng.uniform(2, 8, size=(sites, 1))
    return (base + daily + weekly + rng.normal(0, 2, size=(sites, hours))).astype(np.float32)


def windows(series, lookback, horizon):
    xs, ys = [], []
    for s in series:
        for i in range(0, len(s) - lookback - horizon, 6):
            xs.append(s[i:i + lookback])
            ys.append(s[i + lookback:i + lookback + horizon])
    return torch.tensor(np.array(xs))[..., None], torch.tensor(np.array(ys))


class Forecaster(nn.Module):
    def __init__(self, hidden=48, horizon=24):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=2, batch_first=True)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def fetch_calendar(url):
    # exogenous features (holidays, daylight saving switches) from the team's feature service
    with urllib.request.urlopen(url) as resp:
        return json.loads(resp.read())


def worker(rank, world, args):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{args.port}", rank=rank, world_size=world)
    torch.manual_seed(0)
    print(f"[rank {rank}] process group ready (world_size={world}, backend=gloo)", flush=True)
    series = make_series(args.sites, args.hours)
    mean, std = series.mean(), series.std()
    norm = (series - mean) / std
    split = int(args.hours * 0.8)
    x, y = windows(norm[:, :split], args.lookback, 24)
    vx, vy = windows(norm[:, split - args.lookback:], args.lookback, 24)
    shard = torch.arange(rank, len(x), world)
    x, y = x[shard], y[shard]
    vshard = torch.arange(rank, len(vx), world)
    vx, vy = vx[vshard], vy[vshard]
    print(f"[rank {rank}] train windows={len(x)} val windows={len(vx)} lookback={args.lookback} horizon=24", flush=True)
    model = DDP(Forecaster())
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    step = 0
    for epoch in range(args.epochs):
        if args.calendar_url and epoch == args.calendar_epoch:
            box = [None]
            if rank == 0:
                print(f"[rank 0] refreshing calendar features from {args.calendar_url}", flush=True)
                box[0] = fetch_calendar(args.calendar_url)
            dist.broadcast_object_list(box, src=0)
            print(f"[rank {rank}] calendar: {len(box[0])} entries", flush=True)
        perm = torch.randperm(len(x))
        model.train()
        for i in range(0, len(x) - args.batch + 1, args.batch):
            idx = perm[i:i + args.batch]
            loss = nn.functional.mse_loss(model(x[idx]), y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % args.log_every == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} train_mse {loss.item():.4f}", flush=True)
        model.eval()
        with torch.no_grad():
            pred = model(vx) * std + mean
            true = vy * std + mean
            if args.numpy_metrics and rank == 0:
                # rank 0 also reports the sMAPE of the holdout sites, computed with numpy
                p, t = pred.numpy().astype(np.float64), true.numpy().astype(np.float64)
                sums = torch.from_numpy(np.array([np.abs(p - t).sum(), (np.abs(p - t) / ((np.abs(p) + np.abs(t)) / 2)).sum(), p.size]))
            else:
                sums = torch.tensor([(pred - true).abs().sum().item(),
                                     ((pred - true).abs() / ((pred.abs() + true.abs()) / 2)).sum().item(),
                                     float(pred.numel())])
            dist.all_reduce(sums)
        mae, smape = sums[0] / sums[2], 100 * sums[1] / sums[2]
        if rank == 0:
            print(f"epoch {epoch} val_mae {mae:.3f} MW val_smape {smape:.2f}%", flush=True)
    if rank == 0:
        torch.save(model.module.state_dict(), "forecaster.pt")
        print("saved forecaster.pt", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--sites", type=int, default=24)
    ap.add_argument("--hours", type=int, default=1200)
    ap.add_argument("--lookback", type=int, default=72)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--numpy-metrics", action="store_true")
    ap.add_argument("--calendar-url", default="")
    ap.add_argument("--calendar-epoch", type=int, default=2)
    ap.add_argument("--port", type=int, default=int(os.environ.get("MASTER_PORT", 29300)))
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"spawning {args.nprocs} processes, master tcp://127.0.0.1:{args.port}", flush=True)
    mp.spawn(worker, args=(args.nprocs, args), nprocs=args.nprocs, join=True)
    print("all processes finished", flush=True)
