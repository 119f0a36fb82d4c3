"""Ray Train (``TorchTrainer``, gloo on CPU) regression job with bfloat16 autocast and gradient accumulation.

A house-price style tabular regression: an MLP over 24 standardised features, trained by ``--workers`` Ray Train
workers (``prepare_model`` wraps it in DDP) with SGD + momentum, ``torch.autocast("cpu", dtype=torch.bfloat16)`` for
the forward pass, ``--accum`` micro-batches per optimizer step (``no_sync`` on all but the last). The per-step loss is
reported to Ray Train and printed every ``--log-every`` optimizer steps; a non-finite loss stops the worker.

``--loss-scaling`` chooses how micro-batch losses are combined before ``backward``: ``mean`` divides each by
``--accum`` (the usual recipe), ``sum`` does not.
"""
from __future__ import annotations

import argparse
import contextlib
import math
import os
import tempfile
import time

import numpy as np
import ray
import ray.train
import ray.train.torch
import torch
from ray.train import RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer
from torch import nn


def make_data(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((n, 24)).astype(np.float32)
    w = rng.standard_normal(24).astype(np.float32)
    y = (x @ w + 0.5 * np.sin(3 * x[:, 0]) * x[:, 1] + 0.1 * rng.standard_normal(n)).astype(np.float32)
    return x, y[:, None]


def train_loop(cfg: dict) -> None:
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(0)
    x, y = make_data(cfg["rows"])
    x, y = torch.from_numpy(x[rank::world]), torch.from_numpy(y[rank::world])
    model = nn.Sequential(nn.Linear(24, 128), nn.GELU(), nn.Linear(128, 128), nn.GELU(), nn.Linear(128, 1))
    model = ray.train.torch.prepare_model(model)
    opt = torch.optim.SGD(model.parameters(), lr=cfg["lr"], momentum=0.9)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / cfg["warmup"]))
    mb, accum = cfg["micro_batch"], cfg["accum"]
    steps_per_epoch = len(x) // (mb * accum)
    print(f"[worker {rank}/{world}] pid {os.getpid()} shard {len(x)} rows, micro_batch {mb} x accum {accum}, "
          f"{steps_per_epoch} optimizer steps/epoch, lr {cfg['lr']} (warmup {cfg['warmup']}), loss_scaling {cfg['loss_scaling']}, "
          f"autocast bfloat16", flush=True)
    step, t0 = 0, time.time()
    for epoch in range(cfg["epochs"]):
        perm = torch.randperm(len(x), generator=torch.Generator().manual_seed(epoch))
        for s in range(steps_per_epoch):
            opt.zero_grad(set_to_none=True)
            total = 0.0
            for k in range(accum):
                idx = perm[(s * accum + k) * mb:(s * accum + k + 1) * mb]
                sync = contextlib.nullcontext() if k == accum - 1 else model.no_sync()
                with sync:
                    with torch.autocast("cpu", dtype=torch.bfloat16):
                        pred = model(x[idx])
                    loss = nn.functional.mse_loss(pred.float(), y[idx])
                    if cfg["loss_scaling"] == "mean":
                        loss = loss / accum
                    loss.backward()
                total += loss.item()
            gnorm = math.sqrt(sum(float(p.grad.pow(2).sum()) for p in model.parameters() if p.grad is not None))
            opt.step()
            sched.step()
            step += 1
            if step % cfg["log_every"] == 0:
                print(f"[worker {rank}] epoch {epoch} step {step} loss {total:.4f} grad_norm {gnorm:.3e} "
                      f"lr {sched.get_last_lr()[0]:.4f} "
                      f"{(time.time() - t0) / step:.3f} s/step", flush=True)
            if not math.isfinite(total):
                raise FloatingPointError(f"non-finite loss {total} at epoch {epoch} step {step} "
                                         f"(grad_norm {gnorm})")
        metrics = {"epoch": epoch, "step": step, "loss": total}
        with tempfile.TemporaryDirectory() as d:
            torch.save(model.state_dict(), os.path.join(d, "model.pt"))
            ray.train.report(metrics, checkpoint=ray.train.Checkpoint.from_directory(d) if rank == 0 else None)
        print(f"[worker {rank}] epoch {epoch} done, loss {total:.4f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rows", type=int, default=65536)
    ap.add_argument("--micro-batch", type=int, default=64)
    ap.add_argument("--accum", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.02)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--log-every", type=int, default=4)
    ap.add_argument("--loss-scaling", choices=("mean", "sum"), default="mean")
    ap.add_argument("--storage", default="/tmp/wavej-ray-results")
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"rows": a.rows, "micro_batch": a.micro_batch, "accum": a.accum, "lr": a.lr,
                           "epochs": a.epochs, "warmup": a.warmup, "log_every": a.log_every, "loss_scaling": a.loss_scaling},
        torch_config=TorchConfig(backend="gloo"),
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False, resources_per_worker={"CPU": 0.5}),
        run_config=RunConfig(name="price-regressor-bf16", storage_path=a.storage),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}")
    print(f"checkpoint: {result.checkpoint}")


if __name__ == "__main__":
    main()
