"""Crop-yield regressor: a GRU over 12 weeks of weather + soil and crop embeddings -> yield (t/ha).

DDP over gloo (launched by torchrun from the pipeline's training task); rank r trains on data/shard-<r>.npz,
validation RMSE on data/val.npz (predictions all-gathered to rank 0), checkpoints in checkpoints/.
"""
import argparse
import datetime
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset


class YieldNet(nn.Module):
    def __init__(self, n_soils: int, n_crops: int, hidden: int = 32) -> None:
        super().__init__()
        self.soil = nn.Embedding(n_soils, 4)
        self.crop = nn.Embedding(n_crops, 4)
        self.gru = nn.GRU(2, hidden, batch_first=True)
        self.head = nn.Sequential(nn.Linear(hidden + 8, 32), nn.ReLU(), nn.Linear(32, 1))

    def forward(self, wx, soil, crop):
        _, h = self.gru(wx)
        z = torch.cat([h[-1], self.soil(soil), self.crop(crop)], dim=1)
        return self.head(z).squeeze(1)


def load(path: str, daily: int = 0):
    d = np.load(path)
    wx = torch.from_numpy(d["weather"].astype(np.float32))
    wx = torch.stack([wx[..., 0] / 25.0, wx[..., 1] / 60.0], dim=-1)
    cache = None
    if daily:  # daily interpolated weather per field, kept in memory for the attention variant
        cache = [np.repeat(d["weather"], 7 * daily, axis=1).astype(np.float64) for _ in range(4)]
    return TensorDataset(wx, torch.from_numpy(d["soil"]), torch.from_numpy(d["crop"]),
                         torch.from_numpy(d["y"].astype(np.float32))), cache


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--micro-batch", type=int, default=64)
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--optimizer", default="sgd")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--daily-cache", type=int, default=0)
    ap.add_argument("--n-soils", type=int, default=8)
    ap.add_argument("--n-crops", type=int, default=3)
    a = ap.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    if rank == 0:
        print(f"[rank0] args: {vars(a)}", flush=True)
        print(f"[rank0] world size {world}, backend {dist.get_backend()}", flush=True)
    if a.global_batch != a.micro_batch * a.grad_accum * world:
        raise ValueError(f"global batch {a.global_batch} != micro batch {a.micro_batch} x grad accum {a.grad_accum} "
                         f"x world size {world}")
    train, cache = load(os.path.join(a.data, f"shard-{rank:02d}.npz"), a.daily_cache)
    val, _ = load(os.path.join(a.data, "val.npz"))
    print(f"[rank{rank}] loaded {len(train)} training fields, {len(val)} validation fields", flush=True)
    if cache is not None:
        print(f"[rank{rank}] daily weather cache: {sum(c.nbytes for c in cache) / 2**20:.0f} MiB", flush=True)
    loader = DataLoader(train, batch_size=a.micro_batch, shuffle=True, num_workers=a.loader_workers,
                        drop_last=True)
    model = DDP(YieldNet(a.n_soils, a.n_crops))
    opt = (torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9) if a.optimizer == "sgd"
           else torch.optim.Adam(model.parameters(), lr=a.lr))
    start_epoch, step = 1, 0
    os.makedirs(a.ckpt_dir, exist_ok=True)
    last = os.path.join(a.ckpt_dir, "last.pt")
    if a.resume and os.path.exists(last):
        ck = torch.load(last, map_location="cpu")
        model.module.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start_epoch, step = ck["epoch"] + 1, ck["step"]
        print(f"[rank{rank}] resumed from {last} (epoch {ck['epoch']}, step {step})", flush=True)
    for epoch in range(start_epoch, a.epochs + 1):
        t0 = time.time()
        model.train()
        for i, (wx, soil, crop, y) in enumerate(loader):
            pred = model(wx, soil, crop)
            loss = nn.functional.mse_loss(pred, y)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {step} on rank {rank}")
            (loss / a.grad_accum).backward()
            if (i + 1) % a.grad_accum == 0:
                opt.step()
                opt.zero_grad()
                step += 1
            if step % a.log_every == 0:
                print(f"[rank{rank}] epoch {epoch} step {step} loss {loss.item():.4f}", flush=True)
            if a.step_delay:
                time.sleep(a.step_delay)
        model.eval()
        with torch.no_grad():
            wx, soil, crop, y = val.tensors
            pred = model.module(wx, soil, crop)
        gathered = [torch.zeros_like(pred) for _ in range(world)]
        dist.all_gather(gathered, pred)
        if rank == 0:
            p = torch.stack(gathered).mean(0)
            rmse = torch.sqrt(((p - y) ** 2).mean()).item()
            print(f"[rank0] epoch {epoch} done in {time.time() - t0:.1f}s: val RMSE {rmse:.3f} t/ha", flush=True)
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step},
                       os.path.join(a.ckpt_dir, f"epoch-{epoch}.pt"))
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step},
                       last)
            print(f"[rank0] saved checkpoint {a.ckpt_dir}/epoch-{epoch}.pt", flush=True)
        dist.barrier()
    if rank == 0:
        print(f"[rank0] finished {a.epochs} epochs, {step} steps", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
