"""Distributed Optuna search for a PM2.5 forecaster (6 h ahead) over several monitoring stations.

Every worker process opens the same study (``create_study(load_if_exists=True)``) on one storage (``--storage
sqlite:///...`` or ``--journal FILE`` for a JournalStorage on a journal file) and runs ``study.optimize``. Each trial
trains a small GRU/MLP in-process (validation MAE reported per epoch, pruning) or, with ``--ddp``, runs a 2-process
DDP training under ``torchrun`` (ddp_trial.py). The best model so far is copied to ``--save-dir``/best.pt.
``--procs N`` starts N workers with multiprocessing instead of one.
"""
from __future__ import annotations

import argparse
import builtins
import json
import multiprocessing as mp
import os
import shutil
import socket
import subprocess
import sys
import time

import numpy as np
import optuna
import torch
from torch import nn

from aqdata import FEATURES, build, load_stations, windows

OPTIMIZERS = {"adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
              "sgd": lambda params, lr: torch.optim.SGD(params, lr=lr, momentum=0.9)}


def parse(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--study", default="pm25-forecast")
    ap.add_argument("--storage", default="")
    ap.add_argument("--journal", default="")
    ap.add_argument("--worker", type=int, default=0)
    ap.add_argument("--procs", type=int, default=0, help="start this many workers with multiprocessing")
    ap.add_argument("--data", default="data")
    ap.add_argument("--gap-fill", default="linear", choices=["linear", "native"])
    ap.add_argument("--context", default="station", choices=["station", "all-stations"])
    ap.add_argument("--n-trials", type=int, default=6)
    ap.add_argument("--n-jobs", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=None)
    ap.add_argument("--sampler", default="tpe", choices=["tpe", "cmaes", "random"])
    ap.add_argument("--pruner", default="median", choices=["median", "hyperband", "none"])
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--models", default="gru,mlp")
    ap.add_argument("--optimizers", default="adam,adamw")
    ap.add_argument("--windows", default="24,48")
    ap.add_argument("--batch-sizes", default="64,128")
    ap.add_argument("--target", default="standardized", choices=["standardized", "raw"],
                    help="regress standardized PM2.5 or ug/m3 directly")
    ap.add_argument("--lr-min", type=float, default=1e-4)
    ap.add_argument("--lr-max", type=float, default=1e-2)
    ap.add_argument("--max-steps", type=int, default=40, help="training steps per epoch")
    ap.add_argument("--catch", default="", help="exception names a trial may fail with, the study goes on")
    ap.add_argument("--save-dir", default="models")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ddp", action="store_true", help="each trial is a 2-process DDP run under torchrun")
    ap.add_argument("--master-port", type=int, default=29500)
    ap.add_argument("--accum", type=int, default=1)
    ap.add_argument("--world-size", type=int, default=0)
    return ap.parse_args(argv)


def storage_of(a):
    if a.journal:
        return optuna.storages.JournalStorage(optuna.storages.journal.JournalFileBackend(a.journal))
    return a.storage or None


def make_sampler(a, worker):
    seed = a.seed + worker
    if a.sampler == "cmaes":
        return optuna.samplers.CmaEsSampler(seed=seed, n_startup_trials=2)
    if a.sampler == "random":
        return optuna.samplers.RandomSampler(seed=seed)
    return optuna.samplers.TPESampler(seed=seed, n_startup_trials=3)


def make_pruner(a):
    if a.pruner == "hyperband":
        return optuna.pruners.HyperbandPruner(min_resource=1, max_resource=a.epochs, reduction_factor=2)
    if a.pruner == "median":
        return optuna.pruners.MedianPruner(n_startup_trials=2, n_warmup_steps=1)
    return optuna.pruners.NopPruner()


def objective_local(a, stations, tag):
    def objective(trial):
        p = {
            "model": trial.suggest_categorical("model", a.models.split(",")),
            "window": trial.suggest_categorical("window", [int(w) for w in a.windows.split(",")]),
            "hidden": trial.suggest_categorical("hidden", [16, 32, 64]),
            "layers": trial.suggest_int("layers", 1, 2),
            "dropout": trial.suggest_float("dropout", 0.0, 0.3),
            "lr": trial.suggest_float("lr", a.lr_min, a.lr_max, log=True),
            "optimizer": trial.suggest_categorical("optimizer", a.optimizers.split(",")),
            "batch_size": trial.suggest_categorical("batch_size", [int(b) for b in a.batch_sizes.split(",")]),
        }
        print(f"[{tag}] trial {trial.number}: {p}", flush=True)
        tx, ty, vx, vy = windows(stations, p["window"], a.context)
        print(f"[{tag}] trial {trial.number}: {len(tx)} train / {len(vx)} val windows of {tuple(tx.shape[1:])}",
              flush=True)
        torch.manual_seed(a.seed + trial.number)
        model = build(p["model"], tx.shape[-1], p["window"], p["hidden"], p["layers"], p["dropout"])
        opt = OPTIMIZERS[p["optimizer"]](model.parameters(), lr=p["lr"])
        ymean, ystd = (float(ty.mean()), float(ty.std())) if a.target == "standardized" else (0.0, 1.0)
        loss_fn = nn.MSELoss()
        best = float("inf")
        for epoch in range(1, a.epochs + 1):
            model.train()
            perm = torch.randperm(len(tx))
            steps = min(a.max_steps, len(tx) // p["batch_size"])
            for step in range(steps):
                i = perm[step * p["batch_size"]:(step + 1) * p["batch_size"]]
                loss = loss_fn(model(tx[i]), (ty[i] - ymean) / ystd)
                opt.zero_grad()
                loss.backward()
                opt.step()
                if (step + 1) % 20 == 0:
                    print(f"[{tag}] trial {trial.number} epoch {epoch} step {step + 1}/{steps} loss {loss.item():.4f}",
                          flush=True)
            model.eval()
            with torch.no_grad():
                pred = torch.cat([model(vx[j:j + 1024]) for j in range(0, len(vx), 1024)]) * ystd + ymean
                mae = float((pred - vy).abs().mean())
            print(f"[{tag}] trial {trial.number} epoch {epoch} val MAE {mae:.3f} ug/m3", flush=True)
            if mae < best:
                best = mae
                os.makedirs(a.save_dir, exist_ok=True)
                torch.save({"params": p, "state_dict": model.state_dict(), "val_mae": mae},
                           os.path.join(a.save_dir, f"trial-{trial.number}.pt"))
            trial.report(mae, epoch)
            if trial.should_prune():
                print(f"[{tag}] trial {trial.number} pruned at epoch {epoch}", flush=True)
                raise optuna.TrialPruned()
        return mae
    return objective


def objective_ddp(a, tag):
    def objective(trial):
        p = {
            "hidden": trial.suggest_categorical("hidden", [16, 32, 64]),
            "layers": trial.suggest_int("layers", 1, 2),
            "lr": trial.suggest_float("lr", a.lr_min, a.lr_max, log=True),
            "batch_size": trial.suggest_categorical("batch_size", [int(b) for b in a.batch_sizes.split(",")]),
        }
        print(f"[{tag}] trial {trial.number}: {p} (2-process DDP)", flush=True)
        out = os.path.join(a.save_dir, f"trial-{trial.number}.json")
        os.makedirs(a.save_dir, exist_ok=True)
        cmd = ["torchrun", "--nnodes", "1", "--nproc-per-node", "2", "--master-port", str(a.master_port),
               "ddp_trial.py", "--data", a.data, "--epochs", str(a.epochs), "--hidden", str(p["hidden"]),
               "--layers", str(p["layers"]), "--lr", str(p["lr"]), "--batch-size", str(p["batch_size"]),
               "--accum", str(a.accum), "--max-steps", str(a.max_steps), "--out", out,
               "--save", os.path.join(a.save_dir, f"trial-{trial.number}.pt")]
        if a.world_size:
            cmd += ["--world-size", str(a.world_size)]
        subprocess.run(cmd, check=True)
        with open(out) as f:
            r = json.load(f)
        for epoch, mae in enumerate(r["val_mae"], 1):
            trial.report(mae, epoch)
        return r["val_mae"][-1]
    return objective


def save_best(a, tag):
    def callback(study, trial):
        if trial.state != optuna.trial.TrialState.COMPLETE:
            return
        if study.best_trial.number == trial.number:
            src = os.path.join(a.save_dir, f"trial-{trial.number}.pt")
            if os.path.exists(src):
                shutil.copy(src, os.path.join(a.save_dir, "best.pt"))
                print(f"[{tag}] new best trial {trial.number} (val MAE {trial.value:.3f}), saved "
                      f"{a.save_dir}/best.pt", flush=True)
    return callback


def worker(a, worker_id):
    torch.set_num_threads(1)
    tag = f"w{worker_id} {socket.gethostname()}:{os.getpid()}"
    print(f"[{tag}] args: {vars(a)}", flush=True)
    stations = {} if a.ddp else load_stations(a.data, a.gap_fill)
    if stations:
        print(f"[{tag}] {len(stations)} stations, {sum(len(v) for v in stations.values())} station-hours", flush=True)
    study = optuna.create_study(study_name=a.study, storage=storage_of(a), direction="minimize",
                                sampler=make_sampler(a, worker_id), pruner=make_pruner(a), load_if_exists=True)
    catch = tuple(getattr(builtins, n) for n in a.catch.split(",") if n)
    t0 = time.time()
    study.optimize(objective_ddp(a, tag) if a.ddp else objective_local(a, stations, tag), n_trials=a.n_trials,
                   n_jobs=a.n_jobs, timeout=a.timeout, catch=catch, callbacks=[save_best(a, tag)])
    states = [t.state.name for t in study.get_trials(deepcopy=False)]
    print(f"[{tag}] done in {time.time() - t0:.0f} s; study has {len(states)} trials: "
          f"{ {s: states.count(s) for s in sorted(set(states))} }", flush=True)
    best = study.best_trial
    print(f"[{tag}] best trial {best.number}: val MAE {best.value:.3f} ug/m3 with {best.params}", flush=True)


def main():
    a = parse()
    if a.procs:
        ctx = mp.get_context("fork")
        procs = [ctx.Process(target=worker, args=(a, i), name=f"optuna-worker-{i}") for i in range(a.procs)]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
            print(f"{p.name} exited with code {p.exitcode}", flush=True)
        sys.exit(max(abs(p.exitcode or 0) for p in procs) and 1)
    worker(a, a.worker)


if __name__ == "__main__":
    main()
