"""Next-day milk-yield forecaster for the Vechtdal dairy cooperative (Keras 3 on the PyTorch backend).

Per-cow daily collar / parlour sensor records -> tomorrow's milk yield (kg). Multi-process data parallel the way
Keras's guide "Multi-GPU distributed training with PyTorch" does it: one process per worker started with
torch.multiprocessing.start_processes, the Keras model wrapped in torch DistributedDataParallel, a DistributedSampler,
a PyTorch training loop with a Keras loss and a Keras optimizer. CPU here, so gloo.

    python train.py --nprocs 2 --master-port 29650 [--epochs 3] [--resume] [--pg-timeout 60] [--step-delay 0.1]
"""
import os

os.environ["KERAS_BACKEND"] = "torch"

import argparse
import csv
import datetime
import functools
import json
import logging
import math
import signal
import sys
import time

import keras
import numpy as np
import torch
import torch.distributed as dist

log = logging.getLogger("milkfc")


def parse_args():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--nprocs", type=int, default=2, help="worker processes on this machine")
    ap.add_argument("--nnodes", type=int, default=1)
    ap.add_argument("--node-rank", type=int, default=0)
    ap.add_argument("--master-addr", default=os.environ.get("MASTER_ADDR", "localhost"))
    ap.add_argument("--master-port", type=int, default=int(os.environ.get("MASTER_PORT", "29650")))
    ap.add_argument("--config", default="config/train.json")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--workers", type=int, default=0, help="DataLoader worker processes per rank")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--pg-timeout", type=float, default=300, help="process group timeout (s)")
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--cache-copies", type=int, default=0, help="jittered copies of the train set kept in memory")
    ap.add_argument("--pen-balance", action="store_true", help="weight the loss by pen size (herd-wide counts)")
    ap.add_argument("--init-model", default="", help="start from last season's .keras model")
    ap.add_argument("--save-best", action="store_true", help="also keep checkpoints/best.keras")
    ap.add_argument("--export", default="", help="export the final model here (rank 0)")
    return ap.parse_args()


def setup_logging(rank):
    logging.basicConfig(level=logging.INFO, stream=sys.stdout, force=True,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(message)s", datefmt="%H:%M:%S")


# ---------------------------------------------------------------- data
def load_register(path="data/cows.csv"):
    with open(path, newline="") as f:
        return {r["cow"]: r for r in csv.DictReader(f)}


def pedigree_depth(register):
    """Generations of recorded ancestry per cow (dam line), for the herd-book report."""
    sys.setrecursionlimit(1_000_000)  # some lines go back decades

    @functools.lru_cache(maxsize=None)
    def depth(cow):
        dam = register.get(cow, {}).get("dam", "")
        return 0 if not dam else 1 + depth(dam)

    return {cow: depth(cow) for cow in register}


def load_herd(path="data/herd.csv", rank=0):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    header = list(rows[0].keys())
    feats = [c for c in header if c not in ("cow", "day", "pen")]  # every sensor column the export has
    by_cow = {}
    for i, r in enumerate(rows):
        try:
            vals = [float(r[c]) for c in feats]
        except ValueError as e:
            if rank == 0:
                log.error("record %d (%s day %s): %s, dropped", i + 2, r["cow"], r["day"], e)
            continue
        by_cow.setdefault(r["cow"], []).append((int(r["day"]), int(r["pen"]), vals))
    x, y, pen = [], [], []
    for cow, recs in by_cow.items():
        recs.sort()
        for (d0, p0, v0), (d1, _, v1) in zip(recs, recs[1:]):
            if d1 == d0 + 1:
                x.append(v0)
                y.append(v1[-1])
                pen.append(p0)
    return np.asarray(x, np.float32), np.asarray(y, np.float32)[:, None], np.asarray(pen, np.int64), feats


def get_model(n_features, cfg):
    inputs = keras.Input(shape=(n_features,), name="sensors")
    x = inputs
    for units in cfg["hidden"]:
        x = keras.layers.Dense(units, activation="relu")(x)
        x = keras.layers.Dropout(cfg.get("dropout", 0.0))(x)
    outputs = keras.layers.Dense(1, name="milk_kg_next_day")(x)
    return keras.Model(inputs, outputs, name="milk_forecaster")


# ---------------------------------------------------------------- distributed
def setup_device(rank, world_size, args):
    os.environ["MASTER_ADDR"] = args.master_addr
    os.environ["MASTER_PORT"] = str(args.master_port)
    dist.init_process_group(backend="gloo", init_method="env://", world_size=world_size, rank=rank,
                            timeout=datetime.timedelta(seconds=args.pg_timeout))


def cleanup():
    dist.destroy_process_group()


def prepare_dataloader(dataset, rank, world_size, batch_size, workers, shuffle):
    sampler = torch.utils.data.distributed.DistributedSampler(dataset, num_replicas=world_size, rank=rank,
                                                              shuffle=shuffle, seed=17)
    loader = torch.utils.data.DataLoader(dataset, sampler=sampler, batch_size=batch_size, shuffle=False,
                                         num_workers=workers)
    return sampler, loader


def _stop_on_signal(signum, frame):
    log.warning("received %s, stopping", signal.Signals(signum).name)
    raise SystemExit(128 + signum)


def per_device_launch_fn(local_rank, args, cfg):
    rank = args.node_rank * args.nprocs + local_rank
    world_size = args.nnodes * args.nprocs
    setup_logging(rank)
    signal.signal(signal.SIGTERM, _stop_on_signal)
    signal.signal(signal.SIGHUP, _stop_on_signal)
    torch.set_num_threads(1)
    keras.utils.set_random_seed(1234)
    setup_device(rank, world_size, args)
    log.info("process group up: backend %s, world %d, keras %s (backend %s), torch %s", dist.get_backend(),
             world_size, keras.__version__, keras.config.backend(), torch.__version__)

    register = load_register()
    depth = pedigree_depth(register)
    if rank == 0:
        log.info("herd register: %d cows, deepest recorded dam line %d generations", len(register),
                 max(depth.values()))
    x, y, pen, feats = load_herd(rank=rank)
    n_val = len(x) // 10
    idx = np.random.default_rng(0).permutation(len(x))
    tr, va = idx[n_val:], idx[:n_val]
    mean, std = x[tr].mean(0), x[tr].std(0) + 1e-6
    xn = (x - mean) / std
    cache = []
    for i in range(args.cache_copies):  # augmentation: jittered copies, kept in memory for the epoch loop
        cache.append(xn[tr] + np.random.default_rng(i).normal(0, 0.01, xn[tr].shape))
    if args.cache_copies:
        log.info("cached %d jittered copies (%.0f MB)", len(cache), sum(c.nbytes for c in cache) / 2**20)
    train_ds = torch.utils.data.TensorDataset(torch.from_numpy(xn[tr]), torch.from_numpy(y[tr]),
                                              torch.from_numpy(pen[tr]))
    val_ds = torch.utils.data.TensorDataset(torch.from_numpy(xn[va]), torch.from_numpy(y[va]))
    sampler, loader = prepare_dataloader(train_ds, rank, world_size, args.batch_size, args.workers, True)
    _, val_loader = prepare_dataloader(val_ds, rank, world_size, args.batch_size, 0, False)

    pen_w = None
    if args.pen_balance:
        counts = torch.bincount(torch.from_numpy(pen[tr][list(sampler)]))
        dist.all_reduce(counts)  # herd-wide rows per pen
        pen_w = counts.sum() / (len(counts) * counts.clamp(min=1)).float()
        log.info("pen weights: %s", [round(float(v), 3) for v in pen_w])

    if args.init_model:
        model = keras.models.load_model(args.init_model)
        log.info("initialised from %s (%d inputs)", args.init_model, model.inputs[0].shape[-1])
    else:
        model = get_model(len(feats), cfg["model"])
    start_epoch = 0
    if args.resume and os.path.exists("checkpoints/state.json"):
        with open("checkpoints/state.json") as f:
            state = json.load(f)
        model.load_weights(state["weights"])
        start_epoch = state["epoch"]
        log.info("resumed from %s (epoch %d)", state["weights"], start_epoch)
    opt_cfg = dict(cfg["optimizer"])
    optimizer = getattr(keras.optimizers, opt_cfg.pop("class_name"))(**opt_cfg)
    loss_fn = keras.losses.MeanSquaredError(reduction=None if args.pen_balance else "sum_over_batch_size")
    mae = keras.metrics.MeanAbsoluteError()
    ddp_model = torch.nn.parallel.DistributedDataParallel(model)

    steps = len(loader)
    best = math.inf
    if start_epoch >= args.epochs:
        log.info("nothing to do: checkpoint is at epoch %d of %d", start_epoch, args.epochs)
    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        ddp_model.train()
        running, count = 0.0, 0
        for step, (xb, yb, pb) in enumerate(loader, 1):
            pred = ddp_model(xb)
            if pen_w is not None:
                loss = (loss_fn(yb, pred) * pen_w[pb]).mean()
            else:
                loss = loss_fn(yb, pred)
            model.zero_grad()
            loss.backward()
            trainable = [v for v in model.trainable_weights]
            grads = [v.value.grad for v in trainable]
            with torch.no_grad():
                optimizer.apply(grads, trainable)
            lv = float(loss.detach())
            if not math.isfinite(lv):
                raise FloatingPointError(f"loss is {lv} at epoch {epoch + 1} step {step}")
            running += lv
            count += 1
            if step % args.log_every == 0 or step == steps:
                print(f"[rank{rank}] {time.strftime('%H:%M:%S')} Epoch {epoch + 1}/{args.epochs} "
                      f"step {step}/{steps} - loss: {running / count:.4f}", flush=True)
            if args.step_delay:
                time.sleep(args.step_delay)
        # validation: Keras metric per rank, then summed over ranks
        ddp_model.eval()
        mae.reset_state()
        tot = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for xb, yb in val_loader:
                pred = model(xb)
                tot += torch.tensor([float((pred - yb).abs().sum()), len(yb)], dtype=torch.float64)
                mae.update_state(yb, pred)
        dist.all_reduce(tot)
        val_mae = float(tot[0] / tot[1])
        if rank == 0:
            log.info("Epoch %d/%d - loss: %.4f - val_mae: %.3f kg (rank0 keras MAE %.3f)", epoch + 1, args.epochs,
                     running / max(count, 1), val_mae, float(mae.result()))
            os.makedirs("checkpoints", exist_ok=True)
            path = cfg["checkpoint"]["path"].format(epoch=epoch + 1)
            model.save(path)
            with open("checkpoints/state.json", "w") as f:
                json.dump({"epoch": epoch + 1, "weights": path}, f)
            log.info("saved %s", path)
            if args.save_best and val_mae < best:
                best = val_mae
                ddp_model.save("checkpoints/best.keras")
        dist.barrier()
    if rank == 0 and args.export:
        model.save(args.export)
        log.info("exported %s", args.export)
    if rank == 0:
        log.info("finished %d epochs", args.epochs)
    cleanup()


def main():
    args = parse_args()
    setup_logging("-")
    signal.signal(signal.SIGTERM, _stop_on_signal)
    signal.signal(signal.SIGHUP, _stop_on_signal)
    with open(args.config) as f:
        cfg = json.load(f)
    log.info("starting %d worker processes (node %d of %d), master %s:%d", args.nprocs, args.node_rank, args.nnodes,
             args.master_addr, args.master_port)
    torch.multiprocessing.start_processes(per_device_launch_fn, args=(args, cfg), nprocs=args.nprocs, join=True,
                                          start_method="fork")


if __name__ == "__main__":
    main()
