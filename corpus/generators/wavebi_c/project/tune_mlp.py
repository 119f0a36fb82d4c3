"""Hyper-parameter search for the churn MLP with Ray Tune (ASHA), one trial per CPU on the local Ray cluster."""
import argparse
import ctypes
import logging
import math
import mmap
import os
import struct
import sys
import tempfile
import time

import numpy as np
import ray
import torch
import torch.nn as nn
from ray import tune
from ray.tune.schedulers import ASHAScheduler

log = logging.getLogger("churn_tune")


def load_csv(path):
    rows, labels = [], []
    with open(path) as f:
        header = f.readline().strip().split(",")
        for line in f:
            parts = line.strip().split(",")
            rows.append([float(v) for v in parts[:-1]])
            labels.append(int(parts[-1]))
    return np.asarray(rows, dtype=np.float32), np.asarray(labels, dtype=np.int64), len(header) - 1


def load_packed(path):
    """Zero-copy read of the packed file through its header offsets."""
    with open(path, "rb") as f:
        mm = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    n, d, off = struct.unpack("<qqq", mm[:24])
    raw = (ctypes.c_char * len(mm)).from_buffer_copy(mm)
    addr = ctypes.addressof(raw)
    x = np.frombuffer(ctypes.string_at(addr + off, n * d * 4), dtype=np.float32).reshape(n, d)
    y = np.frombuffer(ctypes.string_at(addr + off + n * d * 4, n * 8), dtype=np.int64)
    return x.copy(), y.copy(), d


def load_split(data_dir, split, loader):
    if loader == "packed":
        return load_packed(os.path.join(data_dir, f"{split}.bin"))
    return load_csv(os.path.join(data_dir, f"{split}.csv"))


class MLP(nn.Module):
    def __init__(self, d_in, hidden, layers, dropout):
        super().__init__()
        mods, d = [], d_in
        for _ in range(layers):
            mods += [nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(dropout)]
            d = hidden
        mods.append(nn.Linear(d, 2))
        self.net = nn.Sequential(*mods)

    def forward(self, x):
        return self.net(x)


def auc(scores, labels):
    pos, neg = scores[labels == 1], scores[labels == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    return float((pos[:, None] > neg[None, :]).mean())


def train_churn(config):
    torch.manual_seed(config["seed"])
    torch.set_num_threads(1)
    xtr, ytr, d = load_split(config["data_dir"], "train", config["loader"])
    xva, yva, _ = load_split(config["data_dir"], "val", config["loader"])
    if config.get("val_segment"):
        keep = xva[:, 0] > config["val_segment"]
        xva, yva = xva[keep], yva[keep]
    xtr, ytr, xva, yva = map(torch.from_numpy, (xtr, ytr, xva, yva))
    model = MLP(d, config["hidden"], config["layers"], config["dropout"])
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9, weight_decay=config["wd"])
    lossf = nn.CrossEntropyLoss()
    start = 0
    ckpt = tune.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as cdir:
            state = torch.load(os.path.join(cdir, "state.pt"))
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start = state["epoch"] + 1
        print(f"restored trial state from checkpoint, continuing at epoch {start}")
    bs = config["batch_size"]
    for epoch in range(start, config["max_epochs"]):
        model.train()
        perm = torch.randperm(len(xtr))
        total, seen = 0.0, 0
        for i in range(0, len(xtr), bs):
            idx = perm[i:i + bs]
            loss = lossf(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            seen += len(idx)
        train_loss = total / seen
        if not math.isfinite(train_loss):
            raise FloatingPointError(f"train loss is {train_loss} at epoch {epoch} (lr={config['lr']:.4g})")
        model.eval()
        with torch.no_grad():
            logits = model(xva)
            val_loss = lossf(logits, yva).item()
            acc = (logits.argmax(1) == yva).float().mean().item()
            score = torch.softmax(logits, 1)[:, 1].numpy()
        metrics = {"epoch": epoch, "train_loss": train_loss, "val_loss": val_loss, "val_acc": acc,
                   "val_auc": auc(score, yva.numpy())}
        if (epoch + 1) % config["ckpt_every"] == 0:
            with tempfile.TemporaryDirectory() as cdir:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                           os.path.join(cdir, "state.pt"))
                tune.report(metrics, checkpoint=tune.Checkpoint.from_directory(cdir))
        else:
            tune.report(metrics)
        time.sleep(config["epoch_pause"])


def ddp_loop(config):
    """Per-worker loop of the data-parallel trial (Ray Train TorchTrainer, gloo)."""
    import ray.train
    import ray.train.torch
    ctx = ray.train.get_context()
    world, rank = ctx.get_world_size(), ctx.get_world_rank()
    gbs = config["global_batch_size"]
    per_worker = config["batch_size"]
    if per_worker * world != gbs:
        raise ValueError(f"global_batch_size ({gbs}) must equal batch_size ({per_worker}) x workers ({world})")
    torch.manual_seed(config["seed"])
    torch.set_num_threads(1)
    xtr, ytr, d = load_split(config["data_dir"], "train", config["loader"])
    xva, yva, _ = load_split(config["data_dir"], "val", config["loader"])
    xtr, ytr = torch.from_numpy(xtr[rank::world]), torch.from_numpy(ytr[rank::world])
    xva, yva = torch.from_numpy(xva), torch.from_numpy(yva)
    model = ray.train.torch.prepare_model(MLP(d, config["hidden"], config["layers"], config["dropout"]))
    opt = torch.optim.SGD(model.parameters(), lr=config["lr"], momentum=0.9, weight_decay=config["wd"])
    lossf = nn.CrossEntropyLoss()
    start = 0
    ckpt = ray.train.get_checkpoint()
    if ckpt:
        with ckpt.as_directory() as cdir:
            state = torch.load(os.path.join(cdir, "state.pt"))
        model.module.load_state_dict(state["model"])
        start = state["epoch"] + 1
    for epoch in range(start, config["max_epochs"]):
        model.train()
        g = torch.Generator().manual_seed(epoch)
        perm = torch.randperm(len(xtr), generator=g)
        total, seen = 0.0, 0
        for i in range(0, len(xtr) - per_worker + 1, per_worker):
            idx = perm[i:i + per_worker]
            loss = lossf(model(xtr[idx]), ytr[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item() * len(idx)
            seen += len(idx)
        model.eval()
        with torch.no_grad():
            logits = model(xva)
            val_loss = lossf(logits, yva).item()
            acc = (logits.argmax(1) == yva).float().mean().item()
        metrics = {"epoch": epoch, "train_loss": total / seen, "val_loss": val_loss, "val_acc": acc}
        if rank == 0 and (epoch + 1) % config["ckpt_every"] == 0:
            with tempfile.TemporaryDirectory() as cdir:
                torch.save({"model": model.module.state_dict(), "epoch": epoch}, os.path.join(cdir, "state.pt"))
                ray.train.report(metrics, checkpoint=ray.train.Checkpoint.from_directory(cdir))
        else:
            ray.train.report(metrics)
        time.sleep(config["epoch_pause"])


def train_ddp_trial(config):
    """Tune trial that drives a TorchTrainer with config['workers'] gloo workers."""
    import ray.train
    from ray.train.torch import TorchConfig, TorchTrainer
    from ray.tune.integration.ray_train import TuneReportCallback
    trainer = TorchTrainer(
        ddp_loop,
        train_loop_config=config,
        torch_config=TorchConfig(backend="gloo", timeout_s=config["dist_timeout"]),
        scaling_config=ray.train.ScalingConfig(num_workers=config["workers"], resources_per_worker={"CPU": 0.5}),
        run_config=ray.train.RunConfig(name=f"ddp-{tune.get_context().get_trial_id()}",
                                       storage_path=config["storage"], callbacks=[TuneReportCallback()]),
    )
    trainer.fit()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", default="auto")
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--storage-path", default="results")
    ap.add_argument("--name", default="churn-mlp")
    ap.add_argument("--num-samples", type=int, default=4)
    ap.add_argument("--max-epochs", type=int, default=12)
    ap.add_argument("--grace-period", type=int, default=3)
    ap.add_argument("--hidden", default="32,64")
    ap.add_argument("--layers", default="1,2")
    ap.add_argument("--lr-min", type=float, default=1e-3)
    ap.add_argument("--lr-max", type=float, default=1e-1)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--cpus-per-trial", type=float, default=1)
    ap.add_argument("--max-failures", type=int, default=0)
    ap.add_argument("--ckpt-every", type=int, default=2)
    ap.add_argument("--keep-checkpoints", type=int, default=2)
    ap.add_argument("--loader", choices=["csv", "packed"], default="csv")
    ap.add_argument("--search-alg", choices=["random", "optuna"], default="random")
    ap.add_argument("--val-segment", type=float, default=0.0)
    ap.add_argument("--epoch-pause", type=float, default=0.5)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=0, help="data-parallel workers per trial (TorchTrainer); 0 = none")
    ap.add_argument("--global-batch-size", type=int, default=0)
    ap.add_argument("--dist-timeout", type=int, default=1800)
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    ray.init(address=a.address)
    log.info("cluster resources: %s", ray.cluster_resources())
    storage = os.path.abspath(a.storage_path)
    space = {
        "data_dir": os.path.abspath(a.data_dir),
        "loader": a.loader,
        "lr": tune.loguniform(a.lr_min, a.lr_max),
        "wd": tune.choice([0.0, 1e-4]),
        "hidden": tune.choice([int(v) for v in a.hidden.split(",")]),
        "layers": tune.choice([int(v) for v in a.layers.split(",")]),
        "dropout": tune.uniform(0.0, 0.3),
        "batch_size": a.batch_size,
        "max_epochs": a.max_epochs,
        "ckpt_every": a.ckpt_every,
        "val_segment": a.val_segment,
        "epoch_pause": a.epoch_pause,
        "seed": a.seed,
    }
    search = None
    if a.search_alg == "optuna":
        from ray.tune.search.optuna import OptunaSearch
        search = OptunaSearch(metric="val_loss", mode="min")
    sched = ASHAScheduler(time_attr="training_iteration", max_t=a.max_epochs, grace_period=a.grace_period,
                          reduction_factor=2)
    if a.workers:
        space.update(workers=a.workers, global_batch_size=a.global_batch_size or a.batch_size * a.workers,
                     dist_timeout=a.dist_timeout, storage=storage)
        trainable = tune.with_resources(train_ddp_trial, {"cpu": 0.1})
    else:
        trainable = tune.with_resources(train_churn, {"cpu": a.cpus_per_trial})
    path = os.path.join(storage, a.name)
    if a.resume and tune.Tuner.can_restore(path):
        log.info("restoring experiment from %s", path)
        tuner = tune.Tuner.restore(path, trainable=trainable, resume_errored=True)
    else:
        tuner = tune.Tuner(
            trainable,
            param_space=space,
            tune_config=tune.TuneConfig(metric="val_loss", mode="min", scheduler=sched, search_alg=search,
                                        num_samples=a.num_samples,
                                        max_concurrent_trials=1 if a.workers else 2),
            run_config=tune.RunConfig(
                name=a.name, storage_path=storage,
                failure_config=tune.FailureConfig(max_failures=a.max_failures),
                checkpoint_config=tune.CheckpointConfig(num_to_keep=a.keep_checkpoints,
                                                        checkpoint_score_attribute="val_loss",
                                                        checkpoint_score_order="min"),
            ),
        )
    results = tuner.fit()
    if results.errors:
        log.error("%d of %d trials errored", len(results.errors), len(results))
        sys.exit(1)
    best = results.get_best_result()
    log.info("best trial config: lr=%.4g hidden=%d layers=%d dropout=%.3f", best.config["lr"], best.config["hidden"],
             best.config["layers"], best.config["dropout"])
    log.info("best val_loss=%.4f val_acc=%.4f (checkpoint %s)", best.metrics["val_loss"], best.metrics["val_acc"],
             best.checkpoint.path if best.checkpoint else None)


if __name__ == "__main__":
    main()
