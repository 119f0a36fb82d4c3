"""Power-curve / fault predictor for the wind farm's turbines: tabular MLP on 10-minute SCADA records,
torch DistributedDataParallel (gloo), launched with torchrun on the training hosts."""
import argparse
import csv
import math
import os
import socket
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

RATED_KW = {"GX-2.3": 2300.0, "GX-3.6": 3600.0, "NV-4.2": 4200.0}


def parse_args():
    p = argparse.ArgumentParser(description="turbine power-curve / fault predictor")
    p.add_argument("--data", default="data/scada.csv")
    p.add_argument("--fleet", default="data/fleet.csv")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--resume", action="store_true", help="continue from --ckpt-dir/latest.pt")
    p.add_argument("--pg-timeout", type=int, default=600, help="process group timeout (s)")
    p.add_argument("--step-delay", type=float, default=0.0, help="sleep per step (s)")
    p.add_argument("--log-every", type=int, default=20)
    p.add_argument("--cache-copies", type=int, default=1, help="keep N jittered copies of the train set in memory")
    p.add_argument("--turbine-weights", action="store_true", help="weight the loss by each turbine's share of rows")
    return p.parse_args()


HOST = socket.gethostname()


def log(msg):
    rank = dist.get_rank() if dist.is_initialized() else int(os.environ.get("RANK", 0))
    print(f"[{HOST} rank{rank}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


def load(path, fleet_path):
    with open(fleet_path) as f:
        model_of = {r["turbine"]: r["model"] for r in csv.DictReader(f)}
    names = {t: i for i, t in enumerate(model_of)}
    xs, ys, tids = [], [], []
    with open(path) as f:
        for i, r in enumerate(csv.DictReader(f)):
            try:
                v = float(r["wind_ms"])
            except ValueError as e:
                if int(os.environ.get("RANK", 0)) == 0:
                    log(f"ERROR record {i} ({r['turbine']} day {r['day']} slot {r['slot']}): {e}, dropped")
                continue
            d = math.radians(float(r["wind_dir"]))
            xs.append([v, v ** 2 / 100, math.sin(d), math.cos(d), float(r["air_density"]),
                       float(r["pitch_deg"]) / 10, float(r["rotor_rpm"]) / 10, float(r["nacelle_c"]) / 50])
            ys.append([float(r["power_kw"]), float(r["fault"])])
            tids.append(names[r["turbine"]])
    x = torch.tensor(xs)
    x[:, 4] = torch.log(x[:, 4])  # log air density
    return x, torch.tensor(ys), torch.tensor(tids), model_of


class PowerCurveNet(nn.Module):
    def __init__(self, n_in, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.power = nn.Linear(hidden, 1)
        self.fault = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.power(h).squeeze(-1), self.fault(h).squeeze(-1)


def main():
    args = parse_args()
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    log(f"process group up: world {world}, local rank {os.environ.get('LOCAL_RANK')}, "
        f"master {os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
    torch.manual_seed(args.seed)
    x, y, tid, model_of = load(args.data, args.fleet)
    turbines = list(model_of)
    n_val = len(x) // 10
    perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(1))
    tr, va = perm[n_val:], perm[:n_val]
    cache = [x[tr] + 0.01 * torch.randn_like(x[tr]) for _ in range(args.cache_copies)]
    train_ds = TensorDataset(cache[0], y[tr], tid[tr])
    val_ds = TensorDataset(x[va], y[va], tid[va])
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=args.seed)
    loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256,
                            sampler=DistributedSampler(val_ds, num_replicas=world, rank=rank, shuffle=False))
    log(f"{len(train_ds)} train / {len(val_ds)} val records, {len(loader)} steps per epoch, "
        f"{len(cache)} cached copies")

    weights = None
    if args.turbine_weights:
        mine = torch.bincount(tid[tr][list(iter(sampler))])
        dist.all_reduce(mine)
        weights = mine.sum() / (len(mine) * mine.clamp(min=1).float())

    model = DDP(PowerCurveNet(x.shape[1], args.hidden))
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
    start = 1
    latest = os.path.join(args.ckpt_dir, "latest.pt")
    if args.resume and os.path.exists(latest):
        ck = torch.load(latest, map_location="cpu")
        model.module.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start = ck["epoch"] + 1
        log(f"resumed from {latest} (epoch {ck['epoch']})")
    bce = nn.BCEWithLogitsLoss()
    for epoch in range(start, args.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        for step, (xb, yb, tb) in enumerate(loader, 1):
            rated = torch.tensor([RATED_KW[model_of[turbines[t]]] for t in tb.tolist()])
            p, f = model(xb)
            err = (p - yb[:, 0] / rated) ** 2
            if weights is not None:
                err = err * weights[tb]
            loss = err.mean() + 0.1 * bce(f, yb[:, 1])
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {step}")
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % args.log_every == 0:
                log(f"epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f}")
            if args.step_delay:
                time.sleep(args.step_delay)
        model.eval()
        tot = torch.zeros(2)
        with torch.no_grad():
            for xb, yb, tb in val_loader:
                rated = torch.tensor([RATED_KW[model_of[turbines[t]]] for t in tb.tolist()])
                p, _ = model(xb)
                tot += torch.tensor([((p * rated - yb[:, 0]).abs()).sum().item(), len(xb)])
        dist.all_reduce(tot)
        if rank == 0:
            log(f"epoch {epoch} validation MAE {tot[0] / tot[1]:.1f} kW")
            os.makedirs(args.ckpt_dir, exist_ok=True)
            state = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch}
            path = os.path.join(args.ckpt_dir, f"epoch{epoch}.pt")
            torch.save(state, path)
            torch.save(state, latest)
            log(f"saved {path}")
        dist.barrier()
    log(f"finished {args.epochs} epochs")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
