"""Book-return volume forecaster: an MLP over a branch's recent returns, loans falling due and opening hours,
predicting log1p(returns) for the day. DDP over gloo on CPU, started by torchrun from the notebook's train cell.
Every rank reads work/train.npz, takes its DistributedSampler shard; rank 0 writes checkpoints to --ckpt-dir."""
import argparse
import datetime
import json
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class ReturnsNet(nn.Module):
    def __init__(self, n_features: int, n_branches: int) -> None:
        super().__init__()
        self.branch = nn.Embedding(n_branches, 8)
        self.body = nn.Sequential(nn.Linear(n_features + 8, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
        self.head = nn.Linear(32, 1)

    def forward(self, x, b):
        return self.head(self.body(torch.cat([x, self.branch(b)], 1))).squeeze(1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--ckpt-dir", required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=2)
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--oversample", type=int, default=0, help="copies of each sample with jittered history")
    ap.add_argument("--branch-weights", action="store_true", help="weight the loss by inverse branch frequency")
    a = ap.parse_args()

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)
    if rank == 0:
        print(f"[rank0] world size {world}, args: {vars(a)}", flush=True)
    if a.global_batch != a.micro_batch * a.grad_accum * world:
        raise ValueError(f"global batch {a.global_batch} != micro batch {a.micro_batch} x grad accum "
                         f"{a.grad_accum} x world size {world}")

    d = np.load(a.train)
    x, b, y = torch.from_numpy(d["x"]), torch.from_numpy(d["branch"]), torch.from_numpy(d["y"])
    n_branches = int(d["n_branches"])
    if a.oversample:
        xs, bs, ys = [x.double()], [b], [y]
        for k in range(a.oversample):
            xs.append(x.double() * (1 + 0.05 * torch.randn(x.shape, dtype=torch.float64)))
            bs.append(b)
            ys.append(y)
            if k % 200 == 0:
                print(f"[rank{rank}] oversampling: {k} of {a.oversample} copies", flush=True)
        x, b, y = torch.cat(xs).float(), torch.cat(bs), torch.cat(ys)
    ds = TensorDataset(x, b, y)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(ds, batch_size=a.micro_batch, sampler=sampler, num_workers=a.loader_workers, drop_last=True)
    weight = None
    if a.branch_weights:
        counts = torch.bincount(b[list(iter(sampler))]).double()
        dist.all_reduce(counts)
        weight = (counts.sum() / (len(counts) * counts.clamp(min=1))).float()
        if rank == 0:
            print(f"[rank0] branch weights: {[round(w, 2) for w in weight.tolist()]}", flush=True)
    model = DDP(ReturnsNet(x.shape[1], n_branches))
    if a.optimizer == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    elif a.optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    else:
        raise ValueError(f"unknown optimizer {a.optimizer!r}")

    os.makedirs(a.ckpt_dir, exist_ok=True)
    start = 1
    last = os.path.join(a.ckpt_dir, "last.pt")
    if a.resume and os.path.exists(last):
        st = torch.load(last, map_location="cpu")
        model.module.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"[rank{rank}] resumed from {last} (epoch {st['epoch']})", flush=True)

    xv, bv, yv = (torch.from_numpy(d[k]) for k in ("val_x", "val_branch", "val_y"))
    for epoch in range(start, a.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, bb, yb) in enumerate(loader, 1):
            err = (model(xb, bb) - yb) ** 2
            loss = (err * weight[bb] if weight is not None else err).mean() / a.grad_accum
            loss.backward()
            if i % a.grad_accum == 0:
                opt.step()
                opt.zero_grad()
            tot += loss.item() * a.grad_accum
            n += 1
            if i % a.log_every == 0:
                print(f"[rank{rank}] epoch {epoch} step {i}/{len(loader)} loss {loss.item() * a.grad_accum:.4f}",
                      flush=True)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
            if a.step_delay:
                time.sleep(a.step_delay)
        mean = torch.tensor([tot, n], dtype=torch.float64)
        dist.all_reduce(mean)
        model.eval()
        with torch.no_grad():
            vloss = F.mse_loss(model(xv, bv), yv).item()
        if rank == 0:
            print(f"[rank0] epoch {epoch} done: train loss {mean[0] / mean[1]:.4f} val loss {vloss:.4f} "
                  f"({time.time() - t0:.1f} s)", flush=True)
            st = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                  "n_features": x.shape[1], "n_branches": n_branches}
            torch.save(st, os.path.join(a.ckpt_dir, f"epoch-{epoch}.pt"))
            torch.save(st, last)
            print(f"[rank0] saved checkpoint {a.ckpt_dir}/epoch-{epoch}.pt", flush=True)
        dist.barrier()
    if rank == 0:
        with open(os.path.join(a.ckpt_dir, "summary.json"), "w") as f:
            json.dump({"epochs": a.epochs, "val_loss": round(vloss, 4)}, f)
        print(f"[rank0] finished {a.epochs} epochs, val loss {vloss:.4f}", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
