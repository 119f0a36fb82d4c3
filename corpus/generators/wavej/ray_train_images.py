"""Ray Train (``TorchTrainer``, gloo on CPU) image classifier over compressed image records (``imagedata.py``).

The script starts Ray itself (``ray.init`` with ``--num-cpus``; the single-node "container" set-up) unless
``RAY_ADDRESS`` is set, then trains a small CNN with ``--workers`` Ray Train workers; each worker reads its shard
through a ``torch.utils.data.DataLoader`` with ``--loader-workers`` worker processes (batches come back through
shared memory), logs every ``--log-every`` batches and reports per-epoch metrics with a checkpoint.
"""
from __future__ import annotations

import argparse
import os
import tempfile
import time

import ray
import ray.train
import ray.train.torch
import torch
from ray.train import RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer
from torch import nn
from torch.utils.data import DataLoader, Subset

from imagedata import ImageRecords, make_data


def train_loop(cfg: dict) -> None:
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    ds = ImageRecords(cfg["data"], cfg["size"], False, crop=cfg["crop"])
    shard = Subset(ds, range(rank, len(ds), world))
    loader = DataLoader(shard, batch_size=cfg["batch"], shuffle=True, num_workers=cfg["loader_workers"],
                        persistent_workers=cfg["loader_workers"] > 0)
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(32, 10))
    model = ray.train.torch.prepare_model(model)
    opt = torch.optim.AdamW(model.parameters(), lr=cfg["lr"])
    print(f"[rank {rank}] {len(shard)} records, batch {cfg['batch']} of 3x{cfg['crop']}x{cfg['crop']}, "
          f"{cfg['loader_workers']} loader workers", flush=True)
    t0 = time.time()
    for epoch in range(cfg["epochs"]):
        tot, correct, n = 0.0, 0, 0
        for i, (x, y) in enumerate(loader):
            out = model(x)
            loss = nn.functional.cross_entropy(out, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item() * len(y)
            correct += int((out.argmax(1) == y).sum())
            n += len(y)
            if i % cfg["log_every"] == 0:
                print(f"[rank {rank}] epoch {epoch} batch {i}/{len(loader)} loss {loss.item():.4f} "
                      f"{time.time() - t0:.1f} s", flush=True)
        metrics = {"epoch": epoch, "loss": tot / n, "acc": correct / n}
        with tempfile.TemporaryDirectory() as d:
            if rank == 0:
                torch.save(model.state_dict(), os.path.join(d, "model.pt"))
            ray.train.report(metrics, checkpoint=ray.train.Checkpoint.from_directory(d) if rank == 0 else None)
        print(f"[rank {rank}] epoch {epoch} done: {metrics}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/images.bin")
    ap.add_argument("--records", type=int, default=1200)
    ap.add_argument("--size", type=int, default=256)
    ap.add_argument("--crop", type=int, default=128)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--loader-workers", type=int, default=2)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--num-cpus", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--log-every", type=int, default=2)
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    if not os.path.exists(a.data):
        os.makedirs(os.path.dirname(a.data) or ".", exist_ok=True)
        make_data(a.data, a.records, a.size)
        print(f"wrote {a.records} records to {a.data}")
    if os.environ.get("RAY_ADDRESS"):
        ray.init()
    else:
        ray.init(num_cpus=a.num_cpus, include_dashboard=False,
                 runtime_env={"working_dir": ".", "excludes": ["data/", "ray_results/"]})
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"data": os.path.abspath(a.data), "size": a.size, "crop": a.crop, "batch": a.batch,
                           "loader_workers": a.loader_workers, "epochs": a.epochs, "lr": a.lr,
                           "log_every": a.log_every},
        torch_config=TorchConfig(backend="gloo"),
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False, resources_per_worker={"CPU": 0.5}),
        run_config=RunConfig(name="image-cnn", storage_path=a.storage),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}")
    print(f"checkpoint: {result.checkpoint}")


if __name__ == "__main__":
    main()
