"""Crane move-time regressor: an MLP over per-move features (crane, bay/row/tier, weight, twin lift, shift, wind),
predicting the move time in seconds. DDP over gloo, launched by torchrun from the Makefile's train recipe. Every rank
reads work/features.pkl and takes its DistributedSampler shard; rank 0 writes checkpoints to --ckpt-dir."""
import argparse
import datetime
import json
import logging
import os
import pickle
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset

log = logging.getLogger("cranes.train")


class MoveTimeNet(nn.Module):
    def __init__(self, n_features: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_features, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, 1)

    def forward(self, x):
        return self.head(self.body(x)).squeeze(-1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", required=True)
    ap.add_argument("--ckpt-dir", required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=2)
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--log-every", type=int, default=40)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--oversample", type=int, default=0, help="copies of each move with jittered features")
    ap.add_argument("--crane-weights", action="store_true", help="weight each move by its crane's inverse frequency")
    a = ap.parse_args()

    rank = int(os.environ.get("RANK", "0"))
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s [rank{rank}] %(levelname)s %(name)s: %(message)s")
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)
    if rank == 0:
        log.info("world size %d, args: %s", world, vars(a))
    if a.global_batch != a.micro_batch * a.grad_accum * world:
        raise ValueError(f"global batch {a.global_batch} != micro batch {a.micro_batch} x grad accum "
                         f"{a.grad_accum} x world size {world}")

    with open(a.features, "rb") as f:
        d = pickle.load(f)
    x, y, crane = torch.from_numpy(d["x"]), torch.from_numpy(d["y"]), torch.from_numpy(d["crane"])
    mu, sd = y.mean(), y.std()
    if a.oversample:
        xs, ys, cs = [x.double()], [y], [crane]
        for k in range(a.oversample):
            xs.append(x.double() * (1 + 0.02 * torch.randn(x.shape, dtype=torch.float64)))
            ys.append(y)
            cs.append(crane)
            if k % 100 == 0:
                log.info("oversampling: %d of %d copies", k, a.oversample)
        x, y, crane = torch.cat(xs).float(), torch.cat(ys), torch.cat(cs)
    ds = TensorDataset(x, (y - mu) / sd, crane)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(ds, batch_size=a.micro_batch, sampler=sampler, num_workers=a.loader_workers, drop_last=True)
    weight = None
    if a.crane_weights:
        counts = torch.bincount(crane[list(iter(sampler))]).double()
        dist.all_reduce(counts)
        weight = (counts.sum() / (len(counts) * counts.clamp(min=1))).float()
        if rank == 0:
            log.info("crane weights: %s", [round(w, 2) for w in weight.tolist()])
    model = DDP(MoveTimeNet(x.shape[1]))
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
        log.info("resumed from %s (epoch %d)", last, st["epoch"])

    xv, yv = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])
    for epoch in range(start, a.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, yb, cb) in enumerate(loader, 1):
            err = F.mse_loss(model(xb), yb, reduction="none")
            loss = (err * weight[cb] if weight is not None else err).mean() / a.grad_accum
            loss.backward()
            if i % a.grad_accum == 0:
                opt.step()
                opt.zero_grad()
            tot += loss.item() * a.grad_accum
            n += 1
            if i % a.log_every == 0:
                log.info("epoch %d step %d loss %.4f", epoch, i, loss.item() * a.grad_accum)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
            if a.step_delay:
                time.sleep(a.step_delay)
        mean = torch.tensor([tot, n], dtype=torch.float64)
        dist.all_reduce(mean)
        model.eval()
        with torch.no_grad():
            mae = ((model(xv) * sd + mu) - yv).abs().mean().item()
        if rank == 0:
            log.info("epoch %d done: train loss %.4f val MAE %.1f s (%.1f s)", epoch, mean[0] / mean[1], mae,
                     time.time() - t0)
            st = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                  "y_mean": mu.item(), "y_std": sd.item(), "n_features": x.shape[1]}
            torch.save(st, os.path.join(a.ckpt_dir, f"epoch-{epoch}.pt"))
            torch.save(st, last)
            log.info("saved checkpoint %s/epoch-%d.pt", a.ckpt_dir, epoch)
        dist.barrier()
    if rank == 0:
        log.info("finished %d epochs, val MAE %.1f s", a.epochs, mae)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
