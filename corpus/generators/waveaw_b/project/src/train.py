"""train: corrosion-growth classifier (MLP over the ILI features, 5 growth classes), DDP over gloo, launched by
torchrun from the dvc stage 'train'. Hyper-parameters come from params.yaml's 'train' section; per-epoch checkpoints
go to models/ckpt (a persistent out, so a re-run can resume), the final weights to models/model.pt."""
import datetime
import json
import os
import pickle
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
import yaml
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler, TensorDataset


class GrowthNet(nn.Module):
    def __init__(self, n_features: int, hidden: int, n_classes: int) -> None:
        super().__init__()
        self.body = nn.Sequential(nn.Linear(n_features, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU())
        self.head = nn.Linear(hidden, n_classes)

    def forward(self, x):
        return self.head(self.body(x))


def main() -> None:
    p = yaml.safe_load(open("params.yaml"))["train"]
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=p["pg_timeout"]))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(p["seed"] + rank)
    if rank == 0:
        print(f"[rank0] world size {world}, train params: {p}", flush=True)
    if p["global_batch"] != p["micro_batch"] * p["grad_accum"] * world:
        raise ValueError(f"global batch {p['global_batch']} != micro batch {p['micro_batch']} x grad accum "
                         f"{p['grad_accum']} x world size {world}")
    with open("data/features/train.pkl", "rb") as f:
        tr = pickle.load(f)
    with open("data/features/val.pkl", "rb") as f:
        va = pickle.load(f)
    x, y = torch.from_numpy(tr["x"]), torch.from_numpy(tr["y"])
    if p["augment_copies"]:  # measurement-noise copies of the anomalies (pig sizing tolerance), built up front
        xs, ys = [x.double()], [y]
        for k in range(p["augment_copies"]):
            xs.append(x.double() + p["sizing_noise"] * torch.randn(x.shape, dtype=torch.float64))
            ys.append(y)
            if k % 2000 == 0:
                print(f"[rank{rank}] augmentation: built {k} of {p['augment_copies']} copies", flush=True)
        x, y = torch.cat(xs).float(), torch.cat(ys)
    ds = TensorDataset(x, y)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True, seed=p["seed"])
    loader = DataLoader(ds, batch_size=p["micro_batch"], sampler=sampler, num_workers=p["loader_workers"],
                        drop_last=True)
    weight = None
    if p["class_weights"]:  # growth-class counts over all shards -> inverse-frequency weights
        counts = torch.bincount(y[list(iter(sampler))]).double()
        dist.all_reduce(counts)
        weight = (counts.sum() / (len(counts) * counts.clamp(min=1))).float()
        if rank == 0:
            print(f"[rank0] class weights: {[round(w, 2) for w in weight.tolist()]}", flush=True)
    model = DDP(GrowthNet(x.shape[1], p["hidden"], p["num_classes"]))
    if p["optimizer"] == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=p["lr"], weight_decay=1e-4)
    else:
        opt = torch.optim.SGD(model.parameters(), lr=p["lr"], momentum=0.9)
    os.makedirs("models/ckpt", exist_ok=True)
    start = 1
    last = "models/ckpt/last.pt"
    if p["resume"] and os.path.exists(last):
        st = torch.load(last, map_location="cpu")
        model.module.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"[rank{rank}] resumed from {last} (epoch {st['epoch']})", flush=True)
    xv, yv = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    acc = float("nan")
    for epoch in range(start, p["epochs"] + 1):
        sampler.set_epoch(epoch)
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, yb) in enumerate(loader, 1):
            loss = F.cross_entropy(model(xb), yb, weight=weight) / p["grad_accum"]
            loss.backward()
            if i % p["grad_accum"] == 0:
                opt.step()
                opt.zero_grad()
            tot += loss.item() * p["grad_accum"]
            n += 1
            if i % p["log_every"] == 0:
                print(f"[rank{rank}] epoch {epoch} step {i} loss {loss.item() * p['grad_accum']:.4f}", flush=True)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
            if p["step_delay"]:
                time.sleep(p["step_delay"])
        mean = torch.tensor([tot, n], dtype=torch.float64)
        dist.all_reduce(mean)
        model.eval()
        with torch.no_grad():
            acc = (model(xv).argmax(1) == yv).float().mean().item()
        if rank == 0:
            print(f"[rank0] epoch {epoch} done: train loss {mean[0] / mean[1]:.4f} val acc {acc:.3f} "
                  f"({time.time() - t0:.1f} s)", flush=True)
            st = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch}
            torch.save(st, f"models/ckpt/epoch-{epoch}.pt")
            torch.save(st, last)
            print(f"[rank0] saved checkpoint models/ckpt/epoch-{epoch}.pt", flush=True)
        dist.barrier()
    if rank == 0:
        torch.save(model.module.state_dict(), "models/model.pt")
        print(f"[rank0] finished {p['epochs']} epochs, val acc {acc:.3f}, wrote models/model.pt", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
