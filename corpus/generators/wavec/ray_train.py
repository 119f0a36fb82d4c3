"""Ray Train wave C job: ``TorchTrainer`` with a gloo worker group on a local Ray cluster (CPU), each worker training
a tiny MLP with hand-written gradient all_reduce and reporting its loss.

``--fault``: ``raise`` (worker ``--fault-rank`` hits a KeyError on a record at ``--fault-step``), ``mismatch`` (that
worker all_reduces a flattened gradient while its peers reduce per-parameter tensors, with
TORCH_DISTRIBUTED_DEBUG=DETAIL set by the generator), ``leak`` (that worker keeps 96 MiB per step: the host memory
limit bites), ``segv`` (that worker reads address 0 through ctypes), ``stall`` (that worker sleeps 90 s before its gradient
all_reduce: its peer's all_reduce hits the process-group timeout ``--pg-timeout`` given to ``TorchConfig``); ``--cpus-per-worker`` more than the cluster has
makes the worker group's placement group unschedulable; ``--ckpt-every`` reports a checkpoint (the model's
state_dict in a temporary directory) that Ray Train copies to ``--storage``.
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import os
import tempfile
import time

import ray
import torch
import torch.distributed as dist
from ray import train
from ray.train import Checkpoint, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer


def loop(cfg: dict) -> None:
    rank, world = train.get_context().get_world_rank(), train.get_context().get_world_size()
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    records = [{"x": torch.randn(8, 16)} for _ in range(cfg["steps"])]
    if rank == cfg["fault_rank"] and cfg["fault"] == "raise":
        records[cfg["fault_step"]] = {"features": torch.randn(8, 16)}  # a record written by an older exporter
    kept = []
    for step, rec in enumerate(records):
        mine = rank == cfg["fault_rank"] and step >= cfg["fault_step"]
        if mine and cfg["fault"] == "leak":
            kept.append(torch.ones(96 * 2**20 // 4))  # 96 MiB of cached activations per step, never released
        if mine and cfg["fault"] == "segv":
            ctypes.string_at(0)
        if mine and cfg["fault"] == "stall" and step == cfg["fault_step"]:
            print(f"worker rank {rank}: re-reading shard index from remote storage", flush=True)
            time.sleep(90)
        x = rec["x"]
        loss = torch.nn.functional.mse_loss(model(x), x[:, :1])
        opt.zero_grad()
        loss.backward()
        if cfg["fault"] == "mismatch" and rank == cfg["fault_rank"] and step == cfg["fault_step"]:
            flat = torch.cat([p.grad.flatten() for p in model.parameters()])
            dist.all_reduce(flat)
        else:
            for p in model.parameters():
                dist.all_reduce(p.grad)
        opt.step()
        print(f"{datetime.datetime.now():%H:%M:%S} worker rank {rank}/{world} step {step} loss {loss.item():.4f}", flush=True)
        if cfg["ckpt_every"] and (step + 1) % cfg["ckpt_every"] == 0:
            with tempfile.TemporaryDirectory() as d:
                torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "pad": torch.zeros(cfg["pad"])},
                           os.path.join(d, "state.pt"))
                train.report({"step": step, "loss": loss.item()}, checkpoint=Checkpoint.from_directory(d))
        else:
            train.report({"step": step, "loss": loss.item()})
        time.sleep(0.05)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--cpus-per-worker", type=float, default=0.5)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=8)
    p.add_argument("--storage", default="/tmp/wavec-ray-results")
    p.add_argument("--ckpt-every", type=int, default=0)
    p.add_argument("--pg-timeout", type=int, default=1800, help="process-group timeout, seconds")
    p.add_argument("--pad", type=int, default=0, help="extra float32 elements saved with each checkpoint")
    a = p.parse_args()
    ray.init(num_cpus=2, include_dashboard=False)
    trainer = TorchTrainer(
        loop, train_loop_config={"steps": a.steps, "fault": a.fault, "fault_rank": a.fault_rank, "fault_step": a.fault_step,
                           "ckpt_every": a.ckpt_every, "pad": a.pad},
        torch_config=TorchConfig(backend="gloo", timeout_s=a.pg_timeout),
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False, resources_per_worker={"CPU": a.cpus_per_worker}),
        run_config=RunConfig(name="wavec", storage_path=a.storage))
    result = trainer.fit()
    print("training finished:", result.metrics)


if __name__ == "__main__":
    main()
