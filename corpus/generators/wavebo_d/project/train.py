"""Two-tower click-through recommender trained with Ray Train's TorchTrainer (DDP over gloo) on a multi-node Ray
cluster. Checkpoints every epoch to shared storage; resumes from the latest checkpoint after a worker failure."""
import argparse
import importlib.util
import math
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import ray
import ray.train
import torch
import torch.nn as nn
from ray.train import Checkpoint, CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer, prepare_model

torch.set_num_threads(1)


class TwoTower(nn.Module):
    def __init__(self, dim: int) -> None:
        super().__init__()
        self.user = nn.Sequential(nn.Embedding(500, dim), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.item = nn.Sequential(nn.Embedding(800, dim), nn.Linear(dim, dim), nn.ReLU(), nn.Linear(dim, dim))

    def forward(self, u, i):
        return (self.user(u) * self.item(i)).sum(-1)


def _hook(root: str):
    path = Path(root) / "data" / "hooks.py"
    if not path.exists():
        return None
    spec = importlib.util.spec_from_file_location("hooks", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.on_step


def train_func(config: dict) -> None:
    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    root = config["root"]
    (Path(root) / "pids").mkdir(exist_ok=True)
    (Path(root) / "pids" / f"rank{rank}.pid").write_text(str(os.getpid()))
    data = np.load(Path(root) / "data" / "clicks.npz")
    idx = np.arange(rank, len(data["users"]), world)
    users = torch.tensor(data["users"][idx])
    items = torch.tensor(data["items"][idx])
    clicked = torch.tensor(data["clicked"][idx])
    model = prepare_model(TwoTower(config["dim"]))
    opt = torch.optim.Adam(model.parameters(), lr=config["lr"])
    loss_fn = nn.BCEWithLogitsLoss()
    start_epoch, step = 0, 0
    ckpt = ray.train.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as d:
            state = torch.load(Path(d) / "state.pt")
        model.module.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start_epoch, step = state["epoch"] + 1, state["step"]
        print(f"rank {rank}: resumed from epoch {state['epoch']} (step {step})")
    hook = _hook(root)
    bs = config["batch_size"]
    steps_per_epoch = len(idx) // bs
    for epoch in range(start_epoch, config["epochs"]):
        t0, total = time.time(), 0.0
        perm = torch.randperm(len(idx))
        for b in range(steps_per_epoch):
            sel = perm[b * bs:(b + 1) * bs]
            loss = loss_fn(model(users[sel], items[sel]), clicked[sel])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            total += loss.item()
            if hook:
                hook(rank, step, optimizer=opt, root=root)
            if step % 20 == 0:
                print(f"epoch {epoch} step {step} loss {loss.item():.4f}")
            if config["step_delay"]:
                time.sleep(config["step_delay"])
        metrics = {"epoch": epoch, "train_loss": total / steps_per_epoch, "epoch_time_s": round(time.time() - t0, 2)}
        with tempfile.TemporaryDirectory() as tmp:
            checkpoint = None
            if rank == 0:
                torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                            "step": step, "pad": torch.zeros(config["pad"])}, Path(tmp) / "state.pt")
                checkpoint = Checkpoint.from_directory(tmp)
            ray.train.report(metrics, checkpoint=checkpoint)
        if rank == 0:
            loss_txt = "nan" if math.isnan(metrics["train_loss"]) else f"{metrics['train_loss']:.4f}"
            print(f"epoch {epoch} done: train_loss={loss_txt} ({metrics['epoch_time_s']}s)")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--batch-size", type=int, default=128)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pad", type=int, default=0)
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--timeout-s", type=int, default=1800)
    ap.add_argument("--storage", default="results")
    a = ap.parse_args()
    ray.init(address="auto")
    root = os.getcwd()
    trainer = TorchTrainer(
        train_func,
        train_loop_config={"root": root, "dim": a.dim, "lr": a.lr, "epochs": a.epochs, "batch_size": a.batch_size,
                           "step_delay": a.step_delay, "pad": a.pad},
        torch_config=TorchConfig(backend="gloo", timeout_s=a.timeout_s),
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False,
                                     resources_per_worker={"CPU": a.cpus_per_worker}),
        run_config=RunConfig(name="ctr-two-tower", storage_path=str(Path(a.storage).resolve()),
                             failure_config=FailureConfig(max_failures=a.max_failures),
                             checkpoint_config=CheckpointConfig(num_to_keep=2)),
    )
    result = trainer.fit()
    print(f"Training finished: {result.metrics}")
    print(f"Best checkpoint: {result.checkpoint}")


if __name__ == "__main__":
    main()
