"""Hyperparameter search for the store demand-forecasting MLP (Ray Tune, ASHA).

    python tune_demand.py --data data/sales.csv --num-samples 4 --epochs 4
    python tune_demand.py ... --workers 2          # each trial is a 2-worker TorchTrainer (gloo)
    python tune_demand.py ... --resume             # Tuner.restore the experiment in --storage
"""
import argparse
import functools
import os
import sys
import tempfile
import time
from datetime import timedelta

import numpy as np
import ray
import torch
import torch.distributed as dist
from ray import tune
from ray.tune.schedulers import ASHAScheduler
from torch.utils.data import DataLoader

from forecast import FEATURES, DemandMLP, load_sales

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/sales.csv")
ap.add_argument("--num-samples", type=int, default=4)
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--batch-size", type=int, default=64, help="global batch size (split over train workers)")
ap.add_argument("--workers", type=int, default=0, help="0: train inside the trial; N: a TorchTrainer per trial")
ap.add_argument("--step-delay", type=float, default=0.05)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--max-failures", type=int, default=0)
ap.add_argument("--max-concurrent", type=int, default=2)
ap.add_argument("--cpus-per-trial", type=float, default=1)
ap.add_argument("--pg-timeout", type=int, default=1800, help="gloo process-group timeout (s) for --workers")
ap.add_argument("--storage", default=os.path.abspath("ray_results"))
ap.add_argument("--name", default="demand_mlp_asha")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--features", default=",".join(FEATURES))
ap.add_argument("--calendar", default="", help="'holidays': add public-holiday flags (needs the holidays package)")
ap.add_argument("--hidden", default="32,64,128")
ap.add_argument("--lag-depth", type=int, default=0, help="add a smoothed lag feature built over this many days")
ap.add_argument("--loader-workers", type=int, default=0)
args = ap.parse_args()


def features():
    feats = args.features.split(",")
    if args.calendar == "holidays":
        import holidays  # noqa: F401  (public-holiday calendar per store country)
        feats.append("is_holiday")
    return feats


def smoothed_lags(values, depth):
    """Exponentially smoothed lag: s_d = 0.8 * roll(s_(d-1)) + 0.2 * x (the analyst's memoised recursive definition)."""
    @functools.lru_cache(maxsize=None)
    def s(d):
        if d == 0:
            return values
        return 0.8 * np.roll(s(d - 1), 1) + 0.2 * values
    return s(depth)


def load_data(path):
    train_ds, valid_ds = load_sales(path, features())
    if args.lag_depth:
        sys.setrecursionlimit(10 * args.lag_depth + 1000)
        x = train_ds.tensors[0]
        lag = smoothed_lags(x[:, 1].numpy(), args.lag_depth)
        train_ds.tensors = (torch.cat([x, torch.from_numpy(lag)[:, None]], 1), train_ds.tensors[1])
    return train_ds, valid_ds


def run_epochs(config, model, train_loader, valid_loader, start_epoch, rank, report):
    opt = torch.optim.AdamW(model.parameters(), lr=config["lr"], weight_decay=config["wd"])
    loss_fn = torch.nn.MSELoss()
    tag = tune.get_context().get_trial_name() if rank is None else f"rank {rank}"
    for epoch in range(start_epoch, args.epochs):
        if hasattr(train_loader, "sampler") and hasattr(train_loader.sampler, "set_epoch"):
            train_loader.sampler.set_epoch(epoch)
        model.train()
        n = len(train_loader)
        for step, (x, y) in enumerate(train_loader, 1):
            loss = loss_fn(model(x), y)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"Loss is {loss.item()} at epoch {epoch + 1} step {step}")
            opt.zero_grad()
            loss.backward()
            opt.step()
            time.sleep(args.step_delay)
            if step % args.log_every == 0 and rank in (None, 0):
                print(f"[{tag}] epoch {epoch + 1}/{args.epochs} step {step}/{n} loss {loss.item():.4f}", flush=True)
        model.eval()
        with torch.no_grad():
            err = torch.zeros(2)
            for x, y in valid_loader:
                p = model(x)
                err += torch.tensor([(p - y).abs().sum().item(), y.abs().sum().item()])
            if rank is not None:
                dist.all_reduce(err)
        wape = (err[0] / err[1]).item()
        if rank in (None, 0):
            print(f"[{tag}] epoch {epoch + 1} valid WAPE {wape:.4f}", flush=True)
        report(epoch, wape, model)


def trial_plain(config):
    torch.set_num_threads(1)
    train_ds, valid_ds = load_data(config["data"])
    model = DemandMLP(train_ds.tensors[0].shape[1], config["hidden"], config["layers"], config["dropout"])
    start = 0
    ckpt = tune.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as d:
            state = torch.load(os.path.join(d, "model.pt"))
            model.load_state_dict(state["model"])
            start = state["epoch"] + 1
        print(f"[{tune.get_context().get_trial_name()}] resumed from checkpoint at epoch {start}", flush=True)
    train_loader = DataLoader(train_ds, batch_size=config["batch_size"], shuffle=True,
                              num_workers=args.loader_workers)
    valid_loader = DataLoader(valid_ds, batch_size=256, num_workers=args.loader_workers)

    def report(epoch, wape, m):
        with tempfile.TemporaryDirectory() as d:
            torch.save({"model": m.state_dict(), "epoch": epoch}, os.path.join(d, "model.pt"))
            tune.report({"val_wape": wape, "epoch": epoch + 1}, checkpoint=tune.Checkpoint.from_directory(d))

    run_epochs(config, model, train_loader, valid_loader, start, None, report)


def train_loop_per_worker(config):
    import ray.train
    import ray.train.torch
    torch.set_num_threads(1)
    rank = ray.train.get_context().get_world_rank()
    world = ray.train.get_context().get_world_size()
    if config["batch_size"] % world:
        raise ValueError(f"global batch size {config['batch_size']} is not divisible by {world} train workers")
    train_ds, valid_ds = load_data(config["data"])
    model = DemandMLP(train_ds.tensors[0].shape[1], config["hidden"], config["layers"], config["dropout"])
    start = 0
    ckpt = ray.train.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as d:
            state = torch.load(os.path.join(d, "model.pt"))
            model.load_state_dict(state["model"])
            start = state["epoch"] + 1
    model = ray.train.torch.prepare_model(model)
    train_loader = ray.train.torch.prepare_data_loader(
        DataLoader(train_ds, batch_size=config["batch_size"] // world, shuffle=True))
    valid_loader = ray.train.torch.prepare_data_loader(DataLoader(valid_ds, batch_size=256))

    def report(epoch, wape, m):
        with tempfile.TemporaryDirectory() as d:
            ck = None
            if rank == 0:
                torch.save({"model": m.module.state_dict(), "epoch": epoch}, os.path.join(d, "model.pt"))
                ck = ray.train.Checkpoint.from_directory(d)
            ray.train.report({"val_wape": wape, "epoch": epoch + 1}, checkpoint=ck)

    run_epochs(config, model, train_loader, valid_loader, start, rank, report)


def trial_distributed(config):
    """One trial = one 2-worker TorchTrainer (Tune over Train); its reports are forwarded to Tune."""
    import ray.train
    from ray.train.torch import TorchConfig, TorchTrainer
    from ray.tune.integration.ray_train import TuneReportCallback
    trial = tune.get_context().get_trial_name()

    trainer = TorchTrainer(
        train_loop_per_worker,
        train_loop_config=config,
        scaling_config=ray.train.ScalingConfig(num_workers=args.workers, use_gpu=False),
        torch_config=TorchConfig(backend="gloo", timeout_s=args.pg_timeout),
        run_config=ray.train.RunConfig(name=trial, storage_path=os.path.join(args.storage, "train_runs"),
                                       callbacks=[TuneReportCallback()]),
    )
    trainer.fit()


def main():
    ray.init(num_cpus=int(os.environ.get("NUM_CPUS", "4")))
    hidden = [int(h) for h in args.hidden.split(",")]
    space = {
        "data": os.path.abspath(args.data),
        "lr": tune.loguniform(1e-4, 3e-2),
        "wd": tune.choice([0.0, 1e-4, 1e-2]),
        "hidden": tune.choice(hidden),
        "layers": tune.choice([2, 3]),
        "dropout": tune.uniform(0.0, 0.3),
        "batch_size": args.batch_size,
    }
    trainable = trial_plain if args.workers == 0 else trial_distributed
    trainable = tune.with_resources(trainable, {"cpu": args.cpus_per_trial})
    path = os.path.join(args.storage, args.name)
    if args.resume and tune.Tuner.can_restore(path):
        print(f"Restoring experiment from {path}", flush=True)
        tuner = tune.Tuner.restore(path, trainable=trainable, resume_errored=True)
    else:
        tuner = tune.Tuner(
            trainable,
            param_space=space,
            tune_config=tune.TuneConfig(metric="val_wape", mode="min", num_samples=args.num_samples,
                                        max_concurrent_trials=args.max_concurrent,
                                        scheduler=ASHAScheduler(max_t=args.epochs, grace_period=1,
                                                                reduction_factor=2, time_attr="epoch")),
            run_config=tune.RunConfig(name=args.name, storage_path=args.storage,
                                      failure_config=tune.FailureConfig(max_failures=args.max_failures),
                                      checkpoint_config=tune.CheckpointConfig(num_to_keep=2)),
        )
    results = tuner.fit()
    if results.errors:
        print(f"{len(results.errors)} of {len(results)} trials errored", flush=True)
    best = results.get_best_result()
    print(f"Best trial config: {best.config}", flush=True)
    print(f"Best trial final val_wape: {best.metrics['val_wape']:.4f}", flush=True)
    if results.errors:
        sys.exit(1)
    print("Tuning finished.", flush=True)


if __name__ == "__main__":
    main()
