"""Wave G Ray Tune job (copied from wave F; ``--native-norm`` normalises each batch with libfastnorm.so through
ctypes, using feature statistics looked up by the trial's ``features`` version, and the grid runs over versions
``--features``; a version with no statistics passes None, a NULL pointer, to the C code; ``--ckpt-kb N`` reports a checkpoint of about N KiB every iteration and
``--storage DIR`` sets the run's storage path) on a local Ray cluster: ``Tuner`` over a function trainable (a tiny MLP regression per trial,
one ``tune.report`` per iteration) with a grid over the learning rate, ``logging`` lines from the trials.

``--cache-mb N``: every trial keeps N MiB of "replay buffer" per iteration (a real, growing allocation) until Ray's
memory monitor (``RAY_memory_usage_threshold``) kills it. ``--gpus-per-trial``: each trial asks for GPUs, which a
CPU-only cluster does not have. ``--optimizers sgd,adamw,lamb``: the grid also runs over optimizer names; the
trainable knows only some of them. Nothing here prints a message that stands in for Ray's.
"""
from __future__ import annotations

import argparse
import tempfile
import ctypes
import os
import logging
import time

import ray
import torch
from ray import tune

log = logging.getLogger("tune_job")


def trainable(config: dict) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    optimizers = {"sgd": torch.optim.SGD, "adamw": torch.optim.AdamW}
    opt = optimizers[config["optimizer"]](model.parameters(), lr=config["lr"])
    g = torch.Generator().manual_seed(1)
    buffer = []
    lib = None
    if config["native_lib"]:
        lib = ctypes.CDLL(config["native_lib"])
        lib.normalize.argtypes = [ctypes.c_void_p, ctypes.c_long, ctypes.c_long, ctypes.c_void_p]
        ref = torch.randn(512, 16, generator=torch.Generator().manual_seed(5))
        stats_by_version = {"v1": torch.cat([ref.mean(0), ref.std(0)]).contiguous()}  # v2 statistics never computed
        stats = stats_by_version.get(config["features"])
    for it in range(config["iters"]):
        x = torch.randn(64, 16, generator=g)
        if lib is not None:
            lib.normalize(x.data_ptr(), 64, 16, stats.data_ptr() if stats is not None else None)
        loss = torch.nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if config["cache_mb"]:
            buffer.append(torch.ones(config["cache_mb"] * 2**20 // 4))
        log.info("lr=%g iteration %d loss %.4f buffer %d MiB", config["lr"], it, loss.item(),
                 config["cache_mb"] * len(buffer))
        time.sleep(config["sleep"])
        if config["ckpt_kb"]:
            with tempfile.TemporaryDirectory() as d:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "iteration": it,
                            "replay": torch.randn(config["ckpt_kb"] * 256, generator=g)}, f"{d}/state.pt")
                tune.report({"loss": loss.item(), "iteration": it}, checkpoint=tune.Checkpoint.from_directory(d))
        else:
            tune.report({"loss": loss.item(), "iteration": it})


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--iters", type=int, default=20)
    p.add_argument("--trials", type=int, default=4)
    p.add_argument("--cache-mb", type=int, default=0)
    p.add_argument("--gpus-per-trial", type=float, default=0)
    p.add_argument("--sleep", type=float, default=0.2)
    p.add_argument("--optimizers", default="sgd")
    p.add_argument("--native-norm", action="store_true")
    p.add_argument("--ckpt-kb", type=int, default=0)
    p.add_argument("--storage", default="results")
    p.add_argument("--features", default="v1")
    a = p.parse_args()
    ray.init(num_cpus=2, include_dashboard=False)
    space = {"lr": tune.grid_search([0.001 * 3**i for i in range(a.trials)]), "iters": a.iters,
             "cache_mb": a.cache_mb, "sleep": a.sleep, "optimizer": tune.grid_search(a.optimizers.split(",")),
             "features": tune.grid_search(a.features.split(",")),
             "native_lib": os.path.abspath("libfastnorm.so") if a.native_norm else "", "ckpt_kb": a.ckpt_kb}
    resources = {"cpu": 1, "gpu": a.gpus_per_trial} if a.gpus_per_trial else {"cpu": 1}
    tuner = tune.Tuner(tune.with_resources(trainable, resources), param_space=space,
                       tune_config=tune.TuneConfig(metric="loss", mode="min"),
                       run_config=tune.RunConfig(name="lr_sweep", storage_path=os.path.abspath(a.storage)))
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best lr {best.config['lr']} loss {best.metrics['loss']:.4f}; errors: {len(results.errors)}", flush=True)


if __name__ == "__main__":
    main()
