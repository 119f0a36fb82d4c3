"""train entry point: parcel ETA regressor (MLP over scan features + depot/region embeddings), DDP over gloo,
launched by torchrun from the MLproject's train command. Rank 0 logs params/metrics to the MLflow run that
`mlflow run` created (MLFLOW_RUN_ID) and logs the model at the end."""
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


class EtaNet(nn.Module):
    def __init__(self, n_feat: int, n_depots: int, n_regions: int) -> None:
        super().__init__()
        self.depot = nn.Embedding(n_depots, 16)
        self.region = nn.Embedding(n_regions, 4)
        self.mlp = nn.Sequential(nn.Linear(n_feat + 20, 256), nn.ReLU(), nn.Linear(256, 256), nn.ReLU(),
                                 nn.Linear(256, 1))

    def forward(self, x, d, r):
        return self.mlp(torch.cat([x, self.depot(d), self.region(r)], 1)).squeeze(1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", required=True)
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--micro-batch", type=float, default=64)
    ap.add_argument("--grad-accum", type=float, default=2)
    ap.add_argument("--global-batch", type=float, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--pg-timeout", type=float, default=300)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--loader-workers", type=float, default=0)
    ap.add_argument("--augment-copies", type=float, default=0)
    ap.add_argument("--log-every", type=float, default=10)
    ap.add_argument("--resume", type=float, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    a = ap.parse_args()
    epochs, mb, ga, gb = int(a.epochs), int(a.micro_batch), int(a.grad_accum), int(a.global_batch)
    log_every = int(a.log_every)

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(1234 + rank)
    run = None
    if rank == 0:
        import mlflow
        import mlflow.pytorch
        mlflow.pytorch.autolog()
        run = mlflow.start_run()
        print(f"[rank0] world size {world}, mlflow run {run.info.run_id}, args: {vars(a)}", flush=True)
        mlflow.log_params({"world_size": world, "optimizer": "adamw", "model": "EtaNet"})
    if gb != mb * ga * world:
        raise ValueError(f"global batch {gb} != micro batch {mb} x grad accum {ga} x world size {world}")

    tr = np.load(os.path.join(a.data_dir, "train.npz"))
    va = np.load(os.path.join(a.data_dir, "val.npz"))
    with open(os.path.join(a.data_dir, "meta.json")) as f:
        meta = json.load(f)
    x, d, r = torch.from_numpy(tr["x"]), torch.from_numpy(tr["depot"]), torch.from_numpy(tr["region"])
    y = (torch.from_numpy(tr["y"]) - meta["eta_mean"]) / meta["eta_std"]
    if a.augment_copies:  # jittered copies of the training rows (weight/distance noise), built up front
        xs, ds, rs, ys = [x], [d], [r], [y]
        for k in range(int(a.augment_copies)):
            xs.append((x + 0.02 * torch.randn_like(x)).double())
            ds.append(d)
            rs.append(r)
            ys.append(y)
            if k % 50 == 0:
                print(f"[rank{rank}] augmentation: built {k} of {int(a.augment_copies)} copies", flush=True)
        x, d, r, y = torch.cat([t.float() for t in xs]), torch.cat(ds), torch.cat(rs), torch.cat(ys)
    ds_ = TensorDataset(x, d, r, y)
    sampler = DistributedSampler(ds_, num_replicas=world, rank=rank, shuffle=True, seed=7)
    loader = DataLoader(ds_, batch_size=mb, sampler=sampler, num_workers=int(a.loader_workers), drop_last=True)
    model = DDP(EtaNet(x.shape[1], meta["n_depots"], meta["n_regions"]))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)

    os.makedirs(a.ckpt_dir, exist_ok=True)
    start = 1
    last = os.path.join(a.ckpt_dir, "last.pt")
    if a.resume and os.path.exists(last):
        st = torch.load(last, map_location="cpu")
        model.module.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"[rank{rank}] resumed from {last} (epoch {st['epoch']})", flush=True)

    xv, dv, rv = torch.from_numpy(va["x"]), torch.from_numpy(va["depot"]), torch.from_numpy(va["region"])
    yv = torch.from_numpy(va["y"])
    mae = float("nan")
    for epoch in range(start, epochs + 1):
        sampler.set_epoch(epoch)
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, db, rb, yb) in enumerate(loader, 1):
            loss = F.mse_loss(model(xb, db, rb), yb) / ga
            loss.backward()
            if i % ga == 0:
                opt.step()
                opt.zero_grad()
            tot += loss.item() * ga
            n += 1
            if i % log_every == 0:
                print(f"[rank{rank}] epoch {epoch} step {i} loss {loss.item() * ga:.4f}", flush=True)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
            if a.step_delay:
                time.sleep(a.step_delay)
        mean = torch.tensor([tot, n], dtype=torch.float64)
        dist.all_reduce(mean)
        model.eval()
        with torch.no_grad():
            pred = model(xv, dv, rv) * meta["eta_std"] + meta["eta_mean"]
            mae = (pred - yv).abs().mean().item()
        if rank == 0:
            tl = (mean[0] / mean[1]).item()
            print(f"[rank0] epoch {epoch} done: train loss {tl:.4f} val MAE {mae:.2f} min "
                  f"({time.time() - t0:.1f} s)", flush=True)
            mlflow.log_metrics({"train_loss": tl, "val_mae_min": mae}, step=epoch)
            st = {"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch}
            torch.save(st, os.path.join(a.ckpt_dir, f"epoch-{epoch}.pt"))
            torch.save(st, last)
            print(f"[rank0] saved checkpoint {a.ckpt_dir}/epoch-{epoch}.pt", flush=True)
        dist.barrier()
    if rank == 0:
        with open(os.path.join(a.ckpt_dir, "summary.json"), "w") as f:
            json.dump({"epochs": epochs, "val_mae_min": round(mae, 3)}, f)
        mlflow.pytorch.log_model(model.module, name="model",
                                 serialization_format="pickle")
        print(f"[rank0] logged model to run {run.info.run_id}", flush=True)
        mlflow.end_run()
        print(f"[rank0] finished {epochs} epochs, val MAE {mae:.2f} min", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
