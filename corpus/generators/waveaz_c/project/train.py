"""Stockout predictor: an MLP over per-ward, per-drug daily usage features; 3 classes (ok, low, stocked out in
3 days). DDP over gloo, launched by torchrun from the doit task ``train``. Every rank reads the pickled features,
takes its DistributedSampler shard; rank 0 writes checkpoints to --ckpt-dir."""
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

log = logging.getLogger("stockout.train")


class StockoutNet(nn.Module):
    def __init__(self, n_features: int, n_classes: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_features, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.head = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--ckpt-dir", required=True)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--micro-batch", type=int, default=32)
    ap.add_argument("--grad-accum", type=int, default=2)
    ap.add_argument("--global-batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--oversample", type=int, default=0, help="copies of each sample with jittered usage")
    ap.add_argument("--class-weights", action="store_true", help="inverse-frequency class weights")
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

    with open(a.train, "rb") as f:
        tr = pickle.load(f)
    with open(a.val, "rb") as f:
        va = pickle.load(f)
    x, y = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])
    if a.oversample:
        xs, ys = [x.double()], [y]
        for k in range(a.oversample):
            xs.append(x.double() * (1 + 0.02 * torch.randn(x.shape, dtype=torch.float64)))
            ys.append(y)
            if k % 200 == 0:
                log.info("oversampling: %d of %d copies", k, a.oversample)
        x, y = torch.cat(xs).float(), torch.cat(ys)
    ds = TensorDataset(x, y)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(ds, batch_size=a.micro_batch, sampler=sampler, num_workers=a.loader_workers, drop_last=True)
    weight = None
    if a.class_weights:
        counts = torch.bincount(y[list(iter(sampler))]).double()
        dist.all_reduce(counts)
        weight = (counts.sum() / (len(counts) * counts.clamp(min=1))).float()
        if rank == 0:
            log.info("class weights: %s", [round(w, 2) for w in weight.tolist()])
    model = DDP(StockoutNet(x.shape[1], tr["n_classes"]))
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

    xv, yv = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    for epoch in range(start, a.epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, yb) in enumerate(loader, 1):
            loss = F.cross_entropy(model(xb), yb, weight=weight) / a.grad_accum
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
            acc = (model(xv).argmax(1) == yv).float().mean().item()
        if rank == 0:
            log.info("epoch %d done: train loss %.4f val acc %.3f (%.1f s)", epoch, mean[0] / mean[1], acc,
                     time.time() - t0)
            st = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch}
            torch.save(st, os.path.join(a.ckpt_dir, f"epoch-{epoch}.pt"))
            torch.save(st, last)
            log.info("saved checkpoint %s/epoch-%d.pt", a.ckpt_dir, epoch)
        dist.barrier()
    if rank == 0:
        with open(os.path.join(a.ckpt_dir, "summary.json"), "w") as f:
            json.dump({"epochs": a.epochs, "val_accuracy": round(acc, 4)}, f)
        log.info("finished %d epochs, val acc %.3f", a.epochs, acc)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
