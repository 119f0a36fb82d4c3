"""Class-incremental training of a small MLP on a synthetic 10-class data set with Avalanche, distributed over
torchrun ranks through avalanche.distributed.DistributedHelper (gloo on CPU), with a checkpoint after every
experience (avalanche.checkpointing.save_checkpoint / maybe_load_checkpoint), in the layout of Avalanche's
examples/distributed_training.py and examples/checkpointing.py. Written for this corpus wave."""
import argparse
import importlib
import os
import sys
import time

import torch
from torch.nn import CrossEntropyLoss
from torch.optim import SGD
from torch.utils.data import TensorDataset

from avalanche.benchmarks import nc_benchmark
from avalanche.checkpointing import maybe_load_checkpoint, save_checkpoint
from avalanche.distributed import DistributedHelper
from avalanche.evaluation.metrics import accuracy_metrics, loss_metrics
from avalanche.logging import TextLogger
from avalanche.models import SimpleMLP
from avalanche.training import EWC, LwF, Naive, Replay
from avalanche.training.determinism.rng_manager import RNGManager
from avalanche.training.plugins import EvaluationPlugin


def synthetic(n_classes, per_class, dim, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(n_classes, dim, generator=g) * 2.0
    xs, ys = [], []
    for c in range(n_classes):
        xs.append(centers[c] + torch.randn(per_class, dim, generator=g))
        ys.append(torch.full((per_class,), c, dtype=torch.long))
    x, y = torch.cat(xs), torch.cat(ys)
    ds = TensorDataset(x, y)
    ds.targets = y.tolist()
    return ds


def main(a):
    print("Starting experiment", a.exp_name, flush=True)
    if a.pg_timeout:
        # the team's short collective timeout (gloo's default is 30 minutes); init_distributed takes no timeout
        import datetime
        import torch.distributed.distributed_c10d as c10d
        c10d.default_pg_timeout = datetime.timedelta(seconds=a.pg_timeout)
    DistributedHelper.init_distributed(random_seed=4321, use_cuda=False)
    rank, world = DistributedHelper.rank, DistributedHelper.world_size
    device = DistributedHelper.make_device()
    print(f"Current process rank: {rank}/{world}, will use device: {device}", flush=True)

    train_ds = synthetic(a.classes, a.per_class, a.dim, 7)
    test_ds = synthetic(a.classes, a.per_class // 4, a.dim, 8)
    benchmark = nc_benchmark(train_ds, test_ds, n_experiences=a.n_exp, task_labels=False, seed=1234,
                             fixed_class_order=list(range(a.classes)) if a.fixed_order else None)

    model = SimpleMLP(num_classes=a.classes, input_size=a.dim, hidden_size=a.hidden, hidden_layers=2)
    # gradients averaged across ranks with DDP (Avalanche's helper; a no-op when not distributed)
    model = DistributedHelper.wrap_model(model)
    optimizer = SGD(model.parameters(), lr=a.lr, momentum=0.9)
    loggers = [TextLogger(sys.stdout)] if DistributedHelper.is_main_process else []
    evaluator = EvaluationPlugin(accuracy_metrics(epoch=True, experience=True, stream=True),
                                 loss_metrics(epoch=True, experience=True, stream=True), loggers=loggers)
    plugins = []
    if os.path.exists("train_hooks.py"):
        plugins.append(importlib.import_module("train_hooks").TeamPlugin())
    mb = a.global_mb // world
    common = dict(train_mb_size=mb, train_epochs=a.epochs, eval_mb_size=mb, device=device, evaluator=evaluator,
                  plugins=plugins)
    if a.strategy == "naive":
        strategy = Naive(model=model, optimizer=optimizer, criterion=CrossEntropyLoss(), **common)
    elif a.strategy == "replay":
        strategy = Replay(model=model, optimizer=optimizer, criterion=CrossEntropyLoss(), mem_size=a.mem, **common)
    elif a.strategy == "ewc":
        strategy = EWC(model=model, optimizer=optimizer, criterion=CrossEntropyLoss(), ewc_lambda=a.ewc_lambda,
                       **common)
    else:
        strategy = LwF(model=model, optimizer=optimizer, criterion=CrossEntropyLoss(), alpha=1.0, temperature=2.0,
                       **common)

    os.makedirs(a.ckpt_dir, exist_ok=True)
    fname = os.path.join(a.ckpt_dir, "checkpoint.pkl")
    strategy, initial_exp = maybe_load_checkpoint(strategy, fname, map_location=device)
    if initial_exp > 0:
        print(f"Checkpoint found: resuming from experience {initial_exp}", flush=True)
    start = time.time()
    for exp in benchmark.train_stream[initial_exp:a.stop_after]:
        print(f"Start of experience {exp.current_experience}, classes {exp.classes_in_this_experience}", flush=True)
        strategy.train(exp, num_workers=a.workers)
        print("Training completed", flush=True)
        strategy.eval(benchmark.test_stream[: exp.current_experience + 1], num_workers=a.workers)
        if DistributedHelper.is_main_process:
            # the SGD object does not pickle with dill under torch 2.13 (a PyCapsule inside); Avalanche resets the
            # optimizer state at every experience anyway, so it is left out of the checkpoint
            save_checkpoint(strategy, fname, exclude=["optimizer"])
            print(f"Checkpoint saved to {fname}", flush=True)
        DistributedHelper.barrier()
    print(f"Training+eval took {time.time() - start:.1f} s", flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--exp-name", default="synth10-ci")
    p.add_argument("--strategy", default="replay", choices=["naive", "replay", "ewc", "lwf"])
    p.add_argument("--classes", type=int, default=10)
    p.add_argument("--per-class", type=int, default=3000)
    p.add_argument("--dim", type=int, default=32)
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--n-exp", type=int, default=5)
    p.add_argument("--fixed-order", action="store_true")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--global-mb", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--mem", type=int, default=1000)
    p.add_argument("--ewc-lambda", type=float, default=0.4)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--stop-after", type=int, default=None)
    p.add_argument("--pg-timeout", type=int, default=0)
    main(p.parse_args())
