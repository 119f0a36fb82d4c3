"""Solar-farm power forecasting: a small temporal CNN over the last W steps of irradiance, weather and sky-camera
features predicts the farm's AC power for the next H steps (15-minute steps). Data parallel over gloo (DDP); each
rank trains on its own sites (site k goes to rank k % world). Launched by torchrun (TorchX's dist.ddp / dist.spmd)
or one process per replica with RANK / WORLD_SIZE / MASTER_ADDR / MASTER_PORT set (the custom component).
"""
from __future__ import annotations

import argparse
import fcntl
import json
import math
import os
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import pandas as pd
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.distributed.elastic.multiprocessing.errors import record
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset


class SiteWindows(Dataset):
    def __init__(self, sites: list[dict], meta: dict, window: int, horizon: int, stride: int, part: str,
                 val_frac: float, preload: bool) -> None:
        self.sites, self.window, self.horizon = sites, window, horizon
        self.mean, self.std = np.array(meta["mean"]), np.array(meta["std"])
        self.index = []
        for i, s in enumerate(sites):
            n = len(s["power"])
            cut = int(n * (1 - val_frac))
            lo, hi = (0, cut) if part == "train" else (cut, n)
            self.index += [(i, t) for t in range(lo, hi - window - horizon, stride)]
        self.cache = None
        if preload:
            self.cache = np.stack([self.features(i) for i in range(len(self.index))])

    def features(self, j: int) -> np.ndarray:
        i, t = self.index[j]
        s = self.sites[i]
        x = np.concatenate([s["irr"][t:t + self.window], s["sky"][t:t + self.window]], 1)
        return (x - self.mean) / self.std

    def __len__(self) -> int:
        return len(self.index)

    def __getitem__(self, j: int):
        i, t = self.index[j]
        s = self.sites[i]
        x = self.cache[j] if self.cache is not None else self.features(j)
        y = s["power"][t + self.window:t + self.window + self.horizon] / s["capacity"]
        return torch.as_tensor(x.T, dtype=torch.float32), torch.as_tensor(y, dtype=torch.float32), i


class TemporalCNN(nn.Module):
    def __init__(self, n_in: int, channels: int, horizon: int, dropout: float) -> None:
        super().__init__()
        layers, c = [], n_in
        for d in (1, 2, 4, 8):
            layers += [nn.Conv1d(c, channels, 5, padding=2 * d, dilation=d), nn.ReLU(), nn.Dropout(dropout)]
            c = channels
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(channels * 2, horizon)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.body(x)
        return self.head(torch.cat([h.mean(-1), h[..., -1]], 1))


def log(rank: int, msg: str) -> None:
    print(f"[rank{rank}] {msg}", flush=True)


def load_site(d: Path, capacity: float) -> dict:
    lock = d / ".export.lock"
    lk = None
    if lock.exists():  # the exporter holds it exclusively while it rewrites the site's files
        lk = open(lock)
        fcntl.flock(lk, fcntl.LOCK_SH)
    s = {"name": d.name, "capacity": capacity, "irr": np.load(d / "irradiance.npy"),
         "sky": np.load(d / "sky.npy", mmap_mode="r"), "power": np.load(d / "power.npy")}
    if lk:
        lk.close()
    return s


def evaluate(model: nn.Module, loader: DataLoader, sites: list[dict]) -> torch.Tensor:
    model.eval()
    sse, n = 0.0, 0
    with torch.no_grad():
        for x, y, i in loader:
            cap = torch.tensor([sites[k]["capacity"] for k in i.tolist()]).unsqueeze(1)
            sse += float((((model(x) - y) * cap) ** 2).sum())
            n += y.numel()
    model.train()
    return torch.tensor([sse, float(n)], dtype=torch.float64)


def site_report(model: nn.Module, ds: SiteWindows, samples: int) -> dict:
    """Per-site forecast intervals (MC dropout): every validation window, `samples` stochastic passes."""
    model.train()
    rep = {}
    with torch.no_grad():
        for j in range(len(ds)):
            x, y, i = ds[j]
            preds = torch.stack([model(x.unsqueeze(0))[0] for _ in range(samples)])
            lo, hi = preds.quantile(0.1, 0), preds.quantile(0.9, 0)
            r = rep.setdefault(ds.sites[i]["name"], [0, 0])
            r[0] += int(((y >= lo) & (y <= hi)).sum())
            r[1] += y.numel()
    return {k: v[0] / max(v[1], 1) for k, v in rep.items()}


@record
def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=128, help="global batch size")
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--micro-batch", type=int, default=0)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--optimizer", default="adamw", choices=["adamw", "sgd"])
    ap.add_argument("--window", type=int, default=48)
    ap.add_argument("--horizon", type=int, default=8)
    ap.add_argument("--stride", type=int, default=4)
    ap.add_argument("--channels", type=int, default=48)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--val-frac", type=float, default=0.15)
    ap.add_argument("--preload", action="store_true", help="materialise every window in memory first")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--keep", type=int, default=0, help="keep the last N checkpoints (0: all)")
    ap.add_argument("--resume", default="")
    ap.add_argument("--site-report", type=int, default=0, help="rank 0: MC-dropout samples for per-site intervals")
    ap.add_argument("--pg-timeout", type=float, default=1800.0, help="seconds")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    dist.init_process_group("gloo", timeout=timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(args.seed)
    if rank == 0:
        log(rank, f"args: {vars(args)}")
        log(rank, f"world size {world}, backend {dist.get_backend()}, torch {torch.__version__}, "
                  f"pandas {pd.__version__}")
    accum = args.grad_accum
    micro = args.micro_batch or args.batch_size // (world * accum)
    if micro * accum * world != args.batch_size:
        raise ValueError(f"global batch size {args.batch_size} != micro batch {micro} * grad accum {accum} * "
                         f"world size {world}")

    data = Path(args.data)
    meta = json.loads((data / "meta.json").read_text())
    caps = pd.read_csv(data / "sites.csv").set_index("site")["capacity_kw"].to_dict()
    dirs = sorted(p for p in data.iterdir() if p.is_dir() and p.name.startswith("site-"))
    mine = dirs[rank::world]
    sites = []
    for d in mine:
        log(rank, f"loading {d.name}")
        sites.append(load_site(d, caps[d.name]))
    train = SiteWindows(sites, meta, args.window, args.horizon, args.stride, "train", args.val_frac, args.preload)
    val = SiteWindows(sites, meta, args.window, args.horizon, args.stride, "val", args.val_frac, False)
    log(rank, f"sites {[s['name'] for s in sites]}: {len(train)} train / {len(val)} val windows, micro batch {micro}")
    g = torch.Generator().manual_seed(args.seed + rank)
    loader = DataLoader(train, batch_size=micro, shuffle=True, drop_last=True, generator=g,
                        num_workers=args.workers)
    vloader = DataLoader(val, batch_size=256, num_workers=args.workers)

    model = TemporalCNN(len(meta["features"]), args.channels, args.horizon, args.dropout)
    if args.optimizer == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    start = 1
    if args.resume:
        ck = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        start = ck["epoch"] + 1
        log(rank, f"resumed from {args.resume} (epoch {ck['epoch']}, val RMSE {ck['val_rmse_kw']:.1f} kW)")
    ddp = DDP(model)
    if rank == 0:
        log(rank, f"model: TemporalCNN {sum(p.numel() for p in model.parameters())} parameters")
    ckpt = Path(args.ckpt_dir)
    if rank == 0:
        ckpt.mkdir(parents=True, exist_ok=True)
    lossf = nn.MSELoss()
    t0 = time.time()
    for epoch in range(start, start + args.epochs):
        n = len(loader)
        run = 0.0
        for step, (x, y, _) in enumerate(loader, 1):
            loss = lossf(ddp(x), y) / accum
            loss.backward()
            if step % accum == 0:
                opt.step()
                opt.zero_grad(set_to_none=True)
            lv = loss.item() * accum
            if not math.isfinite(lv):
                raise FloatingPointError(f"loss is {lv} at epoch {epoch} step {step}")
            run += lv
            if step % args.log_every == 0 or step == n:
                log(rank, f"epoch {epoch} step {step}/{n} loss {lv:.5f} avg {run / step:.5f}")
        tot = evaluate(ddp.module, vloader, sites)
        dist.all_reduce(tot)
        rmse = math.sqrt(tot[0].item() / max(tot[1].item(), 1))
        if rank == 0:
            log(rank, f"epoch {epoch} val RMSE {rmse:.1f} kW over {int(tot[1].item())} forecast steps "
                      f"({time.time() - t0:.1f} s)")
            path = ckpt / f"epoch-{epoch:03d}.pt"
            torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch,
                        "val_rmse_kw": rmse, "args": vars(args)}, path)
            log(rank, f"saved checkpoint {path} ({path.stat().st_size / 1e6:.2f} MB)")
            if args.keep:
                for old in sorted(ckpt.glob("epoch-*.pt"))[:-args.keep]:
                    old.unlink()
            if args.site_report:
                allsites = [load_site(d, caps[d.name]) for d in dirs]
                rep = site_report(model, SiteWindows(allsites, meta, args.window, args.horizon, 1, "val",
                                                     args.val_frac, False), args.site_report)
                log(rank, "80% interval coverage: " + ", ".join(f"{k} {v:.2f}" for k, v in rep.items()))
        dist.barrier()
    if rank == 0:
        log(rank, f"finished {args.epochs} epochs in {time.time() - t0:.1f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
