"""One Optuna trial as a 2-process DDP training (gloo, CPU) under torchrun: each rank trains on its share of the
stations' windows, gradients are averaged by DDP, validation MAE is all-reduced; rank 0 writes the per-epoch MAEs to
--out (JSON) and the model to --save."""
from __future__ import annotations

import argparse
import datetime
import json
import os
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

from aqdata import FEATURES, build, load_stations, windows

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--hidden", type=int, default=32)
ap.add_argument("--layers", type=int, default=1)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--window", type=int, default=24)
ap.add_argument("--batch-size", type=int, default=128, help="global batch size")
ap.add_argument("--accum", type=int, default=1)
ap.add_argument("--max-steps", type=int, default=40, help="0: the whole shard every epoch")
ap.add_argument("--world-size", type=int, default=0)
ap.add_argument("--dist-timeout", type=int, default=60)
ap.add_argument("--out", required=True)
ap.add_argument("--save", required=True)
a = ap.parse_args()

torch.set_num_threads(1)
rank = int(os.environ["RANK"])
world = a.world_size or int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=a.dist_timeout))
micro = a.batch_size // (world * a.accum)
assert micro * world * a.accum == a.batch_size, (
    f"global batch size {a.batch_size} != micro batch {micro} * grad accum {a.accum} * world size {world}")
if rank == 0:
    print(f"[rank 0] world {world}, global batch {a.batch_size} = {micro} x {a.accum} accum x {world} ranks", flush=True)
stations = load_stations(a.data)
mine = {k: v for i, (k, v) in enumerate(sorted(stations.items())) if i % world == rank}
tx, ty, vx, vy = windows(mine, a.window)
torch.manual_seed(0)
model = DDP(build("gru", len(FEATURES), a.window, a.hidden, a.layers, 0.0))
opt = torch.optim.Adam(model.parameters(), lr=a.lr)
ymean, ystd = 40.0, 20.0
maes = []
t0 = time.time()
for epoch in range(1, a.epochs + 1):
    model.train()
    g = torch.Generator().manual_seed(epoch)
    perm = torch.randperm(len(tx), generator=g)
    steps = len(tx) // (micro * a.accum)
    if a.max_steps:
        steps = min(a.max_steps, steps)
    for step in range(steps):
        for k in range(a.accum):
            j = (step * a.accum + k) * micro
            i = perm[j:j + micro]
            loss = nn.functional.mse_loss(model(tx[i]), (ty[i] - ymean) / ystd) / a.accum
            loss.backward()
        opt.step()
        opt.zero_grad()
        if rank == 0 and (step + 1) % 20 == 0:
            print(f"[rank 0] epoch {epoch} step {step + 1}/{steps} loss {loss.item() * a.accum:.4f}", flush=True)
    model.eval()
    with torch.no_grad():
        pred = model.module(vx) * ystd + ymean
        err = torch.tensor([float((pred - vy).abs().sum()), float(len(vy))])
    dist.all_reduce(err)
    maes.append(float(err[0] / err[1]))
    if rank == 0:
        print(f"[rank 0] epoch {epoch} val MAE {maes[-1]:.3f} ug/m3 ({time.time() - t0:.1f} s)", flush=True)
if rank == 0:
    torch.save(model.module.state_dict(), a.save)
    with open(a.out, "w") as f:
        json.dump({"val_mae": maes}, f)
    print(f"[rank 0] saved {a.save}", flush=True)
dist.destroy_process_group()
