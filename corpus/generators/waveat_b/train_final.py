"""Final DDP training of the P-wave detector (torchrun, gloo on CPU): rank r trains on stations r, r+world, ...;
per-step loss, per-epoch validation accuracy (predictions all-gathered to rank 0), a checkpoint per epoch."""
import argparse
import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, TensorDataset

from tasks import Detector, load_feats

p = argparse.ArgumentParser()
p.add_argument("--stations", default="0,1,2,3")
p.add_argument("--epochs", type=int, default=2)
p.add_argument("--lr", type=float, default=1e-3)
p.add_argument("--channels", type=int, default=16)
p.add_argument("--kernel", type=int, default=7)
p.add_argument("--global-batch", type=int, default=128)
p.add_argument("--micro-batch", type=int, default=64)
p.add_argument("--grad-accum", type=int, default=1)
p.add_argument("--num-workers", type=int, default=1)
p.add_argument("--pg-timeout", type=float, default=300)
p.add_argument("--step-delay", type=float, default=0.0)
p.add_argument("--log-every", type=int, default=10)
p.add_argument("--ckpt-dir", default="checkpoints/final")
a = p.parse_args()

torch.set_num_threads(1)
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
print(f"[rank{rank}] args: {vars(a)}", flush=True)
if a.global_batch != a.micro_batch * a.grad_accum * world:
    raise ValueError(f"global batch {a.global_batch} != micro batch {a.micro_batch} * grad accum {a.grad_accum} "
                     f"* world size {world}")
stations = [int(s) for s in a.stations.split(",")][rank::world]
x, y = load_feats(stations)
n_val = len(x) // 5
xv, yv = x[:n_val], y[:n_val]
train = TensorDataset(x[n_val:], y[n_val:])
print(f"[rank{rank}] stations {stations}: {len(train)} train / {n_val} val windows", flush=True)
torch.manual_seed(0)
model = DDP(Detector(a.channels, a.kernel))
opt = torch.optim.Adam(model.parameters(), lr=a.lr)
lossf = nn.BCEWithLogitsLoss()
loader = DataLoader(train, batch_size=a.micro_batch, shuffle=True, num_workers=a.num_workers, drop_last=True)
os.makedirs(a.ckpt_dir, exist_ok=True)
for ep in range(1, a.epochs + 1):
    model.train()
    for s, (xb, yb) in enumerate(loader, 1):
        loss = lossf(model(xb), yb) / a.grad_accum
        loss.backward()
        if s % a.grad_accum == 0:
            opt.step()
            opt.zero_grad()
        if s % a.log_every == 0:
            print(f"[rank{rank}] epoch {ep} step {s}/{len(loader)} loss {loss.item() * a.grad_accum:.4f}", flush=True)
        if a.step_delay:
            time.sleep(a.step_delay)
    model.eval()
    with torch.no_grad():
        pred = (model.module(xv) > 0).float()
    parts = [torch.empty_like(pred) for _ in range(world)]
    dist.all_gather(parts, pred)
    ys = [torch.empty_like(yv) for _ in range(world)]
    dist.all_gather(ys, yv)
    if rank == 0:
        acc = (torch.cat(parts) == torch.cat(ys)).float().mean().item()
        print(f"[rank0] epoch {ep} val_acc {acc:.4f}", flush=True)
        path = os.path.join(a.ckpt_dir, f"epoch-{ep:03d}.pt")
        torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": ep}, path)
        print(f"[rank0] saved {path}", flush=True)
    dist.barrier()
print(f"[rank{rank}] finished {a.epochs} epochs", flush=True)
dist.destroy_process_group()
