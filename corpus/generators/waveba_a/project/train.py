"""Lift-queue wait-time predictor: per lift, per 15-minute slot, DeepSpeed data parallel (gloo on CPU)."""
import argparse
import csv
import functools
import math
import os
import sys
import time
from datetime import timedelta

import deepspeed
import torch
import torch.distributed as dist
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

FEATURES = ["slot", "riders_15m", "capacity_15m", "snow_cm", "temp_c", "wind_kmh", "open"]


def parse_args():
    p = argparse.ArgumentParser(description="lift-queue wait-time predictor")
    p.add_argument("--local_rank", type=int, default=-1, help="set by the deepspeed launcher")
    p.add_argument("--data", default="data/queues.csv")
    p.add_argument("--lifts", default="data/lifts.csv")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--resume", action="store_true", help="load the latest checkpoint from --ckpt-dir")
    p.add_argument("--pg-timeout", type=int, default=300, help="process group timeout (s)")
    p.add_argument("--step-delay", type=float, default=0.0, help="sleep per micro step (s)")
    p.add_argument("--loader-workers", type=int, default=0)
    p.add_argument("--cache-copies", type=int, default=1, help="keep N augmented copies of the train set in memory")
    p.add_argument("--lift-weights", action="store_true", help="weight the loss by each lift's share of rows")
    p = deepspeed.add_config_arguments(p)
    return p.parse_args()


def log(msg):
    rank = dist.get_rank() if dist.is_initialized() else int(os.environ.get("RANK", 0))
    print(f"[rank{rank}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


FEEDS = {}


@functools.lru_cache(maxsize=None)
def lift_root(lift):
    """The base-area lift a lift is reached from (lifts.csv: lift,fed_by)."""
    up = FEEDS.get(lift)
    if not up:
        return lift
    return lift_root(up)


def load(path, lifts_path):
    if os.path.exists(lifts_path):
        with open(lifts_path) as f:
            for row in csv.DictReader(f):
                FEEDS[row["lift"]] = row["fed_by"]
    sys.setrecursionlimit(1_000_000)
    names, rows, ys, lift_ids, dropped = {}, [], [], [], 0
    with open(path) as f:
        for i, row in enumerate(csv.DictReader(f)):
            try:
                x = [float(row[c]) for c in FEATURES]
            except ValueError as e:
                if dist.get_rank() == 0:
                    log(f"ERROR row {i + 2} ({row['lift']} slot {row['slot']}): {e}, dropped")
                dropped += 1
                continue
            root = lift_root(row["lift"])
            lid = names.setdefault(row["lift"], len(names))
            slot, riders, cap, snow, temp, wind, is_open = x
            util = riders / cap if cap else float("nan")
            rows.append([math.sin(2 * math.pi * slot / 32), math.cos(2 * math.pi * slot / 32), util, snow / 10,
                         temp / 10, wind / 50, is_open, float(root == row["lift"])])
            ys.append(float(row["wait_min"]))
            lift_ids.append(lid)
    x = torch.tensor(rows, dtype=torch.float32)
    y = torch.tensor(ys, dtype=torch.float32).unsqueeze(1)
    lid = torch.tensor(lift_ids)
    onehot = torch.nn.functional.one_hot(lid, num_classes=len(names)).float()
    return torch.cat([x, onehot], 1), y, lid, names, dropped


def main():
    args = parse_args()
    deepspeed.init_distributed(dist_backend="gloo", timeout=timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234)
    x, y, lid, names, dropped = load(args.data, args.lifts)
    n_val = len(x) // 5
    xt, yt, lt = x[n_val:], y[n_val:], lid[n_val:]
    xv, yv = x[:n_val], y[:n_val]
    if args.cache_copies > 1:
        log(f"caching {args.cache_copies} augmented copies of {len(xt)} rows")
        xt = torch.cat([xt + 0.01 * torch.randn_like(xt) for _ in range(args.cache_copies)])
        yt, lt = yt.repeat(args.cache_copies, 1), lt.repeat(args.cache_copies)
    log(f"{len(names)} lifts, {len(xt)} train rows, {len(xv)} val rows, {dropped} dropped")

    model = torch.nn.Sequential(torch.nn.Linear(x.shape[1], args.hidden), torch.nn.ReLU(),
                                torch.nn.Linear(args.hidden, args.hidden), torch.nn.ReLU(),
                                torch.nn.Linear(args.hidden, 1))
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    micro = engine.train_micro_batch_size_per_gpu()
    train_ds = TensorDataset(xt, yt, lt)
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=1234)
    loader = DataLoader(train_ds, batch_size=micro, sampler=sampler, num_workers=args.loader_workers,
                        drop_last=True)
    val_sampler = DistributedSampler(TensorDataset(xv, yv), num_replicas=world, rank=rank, shuffle=False)
    val_loader = DataLoader(TensorDataset(xv, yv), batch_size=256, sampler=val_sampler)

    weights = None
    if args.lift_weights:
        counts = torch.bincount(torch.tensor([int(lt[i]) for i in sampler]))
        dist.all_reduce(counts)
        weights = counts.sum() / (len(counts) * counts.float())
        log(f"lift weights {[round(float(w), 2) for w in weights]}")

    start_epoch = 1
    if args.resume:
        path, state = engine.load_checkpoint(args.ckpt_dir)
        if path is None:
            log(f"no checkpoint in {args.ckpt_dir}, starting from scratch")
        else:
            start_epoch = state["epoch"] + 1
            log(f"resumed from {path} (epoch {state['epoch']})")

    for epoch in range(start_epoch, args.epochs + 1):
        sampler.set_epoch(epoch)
        engine.train()
        for xb, yb, lb in loader:
            pred = engine(xb)
            err = (pred - yb) ** 2
            if weights is not None:
                err = err * weights[lb].unsqueeze(1)
            loss = err.mean()
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {engine.global_steps}")
            engine.backward(loss)
            engine.step()
            if engine.is_gradient_accumulation_boundary() and engine.global_steps % 10 == 0:
                log(f"epoch {epoch} step {engine.global_steps} loss {loss.item():.4f} "
                    f"lr {engine.get_lr()[0]:.6f}")
            if args.step_delay:
                time.sleep(args.step_delay)
        engine.eval()
        tot = torch.zeros(2)
        with torch.no_grad():
            for xb, yb in val_loader:
                tot += torch.tensor([(engine(xb) - yb).abs().sum().item(), len(xb)])
        dist.all_reduce(tot)
        mae = (tot[0] / tot[1]).item()
        log(f"epoch {epoch} val MAE {mae:.3f} min")
        engine.save_checkpoint(args.ckpt_dir, tag=f"epoch{epoch}", client_state={"epoch": epoch, "val_mae": mae})
        log(f"saved checkpoint {args.ckpt_dir}/epoch{epoch}")
    log(f"finished {args.epochs} epochs")
    dist.barrier()


if __name__ == "__main__":
    main()
