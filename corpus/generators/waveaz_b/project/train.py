"""Per-cow daily milk-yield predictor for the co-op's herd-management dashboard.

PyTorch Ignite: idist.Parallel spawns the processes itself (backend gloo, nproc_per_node), create_supervised_trainer /
create_supervised_evaluator, metrics reduced across ranks by Ignite, Checkpoint + DiskSaver, TerminateOnNan.

    python train.py --nproc-per-node 2 --master-port 29750
"""
import argparse
import functools
import math
import os
import sys
import time
from datetime import timedelta

import numpy as np
import pandas as pd
import torch
import torch.nn as nn

import ignite.distributed as idist
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.handlers import Checkpoint, DiskSaver, EarlyStopping, TerminateOnNan, global_step_from_engine
from ignite.metrics import Loss, MeanAbsoluteError, RootMeanSquaredError
from ignite.utils import manual_seed, setup_logger

FEATURES = ["lactation_day", "parity", "dmi_kg", "concentrate_kg", "conductivity_ms_cm", "milk_temp_c",
            "activity_steps", "milking_duration_s"]


def get_args(argv=None):
    p = argparse.ArgumentParser("milk-yield")
    p.add_argument("--data", default="data/parlour_daily.csv")
    p.add_argument("--pedigree", default="data/pedigree.csv")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=128, help="global batch")
    p.add_argument("--micro-batch", type=int, default=64, help="per-process batch")
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--optimizer", default="adamw")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--step-delay", type=float, default=0.0)
    p.add_argument("--num-workers", type=int, default=0)
    p.add_argument("--augment-copies", type=int, default=0, help="jittered copies of each record")
    p.add_argument("--herd-weights", action="store_true", help="weight the loss by inverse herd size")
    p.add_argument("--patience", type=int, default=0, help="early stopping on val RMSE (0: off)")
    p.add_argument("--min-delta", type=float, default=0.0)
    p.add_argument("--output-dir", default="checkpoints")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--backend", default="gloo")
    p.add_argument("--nproc-per-node", type=int, default=2)
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node-rank", type=int, default=0)
    p.add_argument("--master-addr", default="127.0.0.1")
    p.add_argument("--master-port", type=int, default=29500)
    p.add_argument("--pg-timeout", type=int, default=1800, help="process-group timeout, seconds")
    p.add_argument("--seed", type=int, default=17)
    return p.parse_args(argv)


def load_records(cfg, logger):
    df = pd.read_csv(cfg.data, dtype={"conductivity_ms_cm": str})
    bad = df["conductivity_ms_cm"].isna()
    for _, r in df[bad].iterrows():
        logger.error(f"parlour record {r['cow_id']} {r['date']}: conductivity sensor reported nothing, dropped")
    df = df[~bad].copy()
    df["conductivity_ms_cm"] = df["conductivity_ms_cm"].astype(float)
    ped = pd.read_csv(cfg.pedigree, dtype=str).fillna("")
    dam_of = dict(zip(ped["cow_id"], ped["dam_id"]))

    @functools.lru_cache(maxsize=None)
    def generations(cow):  # recorded generations of the dam line (the breeding team's proxy for genetic data)
        dam = dam_of.get(cow, "")
        return 0 if not dam else 1 + generations(dam)

    sys.setrecursionlimit(1_000_000)
    df["dam_generations"] = [generations(c) for c in df["cow_id"]]
    x = df[FEATURES + ["dam_generations"]].to_numpy(np.float64)
    # concentrate fed per minute in the parlour
    x = np.concatenate([x, (df["concentrate_kg"] / (df["milking_duration_s"] / 60.0)).to_numpy()[:, None]], 1)
    y = df["yield_kg"].to_numpy(np.float64)
    if cfg.augment_copies:
        rng = np.random.default_rng(cfg.seed)
        x = np.concatenate([x] + [x * rng.normal(1, 0.01, x.shape) for _ in range(cfg.augment_copies)])
        y = np.concatenate([y] * (cfg.augment_copies + 1))
        logger.info(f"augmented to {len(y)} records")
    return df, x, y


def herd_weights(df, rank, world):
    # inverse herd size from this process's share of the records, summed over processes
    codes = df["herd"].str[1:].astype(int).to_numpy()[rank::world]
    counts = torch.bincount(torch.as_tensor(codes)).double()
    counts = idist.all_reduce(counts)
    return (counts.sum() / counts.clamp(min=1)).float()


def training(local_rank, cfg):
    rank, world = idist.get_rank(), idist.get_world_size()
    logger = setup_logger(name="milk-yield", distributed_rank=rank)
    manual_seed(cfg.seed + rank)
    if cfg.batch_size != cfg.micro_batch * cfg.grad_accum * world:
        raise ValueError(f"global batch {cfg.batch_size} != micro-batch {cfg.micro_batch} x grad-accum "
                         f"{cfg.grad_accum} x world size {world}")
    df, x, y = load_records(cfg, logger)
    n_val = len(y) // 5
    mu, sd = x[n_val:].mean(0), x[n_val:].std(0) + 1e-6
    xt = torch.tensor((x - mu) / sd, dtype=torch.float32)
    yt = torch.tensor(y, dtype=torch.float32)[:, None]
    train_ds = torch.utils.data.TensorDataset(xt[n_val:], yt[n_val:])
    val_ds = torch.utils.data.TensorDataset(xt[:n_val], yt[:n_val])
    logger.info(f"{len(train_ds)} training / {len(val_ds)} validation records, world size {world}")
    train_loader = idist.auto_dataloader(train_ds, batch_size=cfg.batch_size // cfg.grad_accum,
                                         num_workers=cfg.num_workers, shuffle=True, drop_last=True)
    val_loader = idist.auto_dataloader(val_ds, batch_size=2 * cfg.batch_size, num_workers=cfg.num_workers,
                                       shuffle=False)

    model = nn.Sequential(nn.Linear(xt.shape[1], cfg.hidden), nn.ReLU(), nn.Linear(cfg.hidden, cfg.hidden), nn.ReLU(),
                          nn.Linear(cfg.hidden, 1))
    model = idist.auto_model(model)
    opts = {"adamw": torch.optim.AdamW, "adam": torch.optim.Adam, "sgd": torch.optim.SGD}
    if cfg.optimizer not in opts:
        raise ValueError(f"unknown optimizer {cfg.optimizer!r}, expected one of {sorted(opts)}")
    optimizer = idist.auto_optim(opts[cfg.optimizer](model.parameters(), lr=cfg.lr))
    if cfg.herd_weights:
        w = herd_weights(df, rank, world)
        logger.info(f"herd weights {[round(v, 2) for v in w.tolist()]}")
    loss_fn = nn.MSELoss()

    trainer = create_supervised_trainer(model, optimizer, loss_fn, gradient_accumulation_steps=cfg.grad_accum)
    trainer.logger = setup_logger("trainer", distributed_rank=rank)
    trainer.add_event_handler(Events.ITERATION_COMPLETED, TerminateOnNan())
    metrics = {"mae": MeanAbsoluteError(), "rmse": RootMeanSquaredError(), "mse": Loss(loss_fn)}
    evaluator = create_supervised_evaluator(model, metrics=metrics)
    evaluator.logger = setup_logger("evaluator", distributed_rank=rank)

    @trainer.on(Events.ITERATION_COMPLETED(every=cfg.log_every))
    def log_training_loss(engine):
        e = engine.state
        logger.info(f"Epoch[{e.epoch}] Iteration[{e.iteration}/{e.epoch_length * e.max_epochs}] "
                    f"Loss: {e.output:.4f}")

    if cfg.step_delay:
        @trainer.on(Events.ITERATION_COMPLETED)
        def slow_parlour_link(engine):  # stands in for a larger model on the shared box
            time.sleep(cfg.step_delay)

    @trainer.on(Events.EPOCH_COMPLETED)
    def run_validation(engine):
        evaluator.run(val_loader)
        m = evaluator.state.metrics
        logger.info(f"Validation Results - Epoch[{engine.state.epoch}] Avg MAE: {m['mae']:.3f} kg  "
                    f"RMSE: {m['rmse']:.3f} kg  MSE: {m['mse']:.3f}")

    to_save = {"model": model, "optimizer": optimizer, "trainer": trainer}
    saver = DiskSaver(cfg.output_dir, require_empty=not cfg.resume)
    ckpt = Checkpoint(to_save, saver, filename_prefix="milk", n_saved=2,
                      global_step_transform=global_step_from_engine(trainer))
    trainer.add_event_handler(Events.EPOCH_COMPLETED, ckpt)
    if cfg.patience:
        stopper = EarlyStopping(patience=cfg.patience, min_delta=cfg.min_delta,
                                score_function=lambda e: -e.state.metrics["rmse"], trainer=trainer)
        evaluator.add_event_handler(Events.COMPLETED, stopper)

    if cfg.resume:
        files = sorted((f for f in os.listdir(cfg.output_dir) if f.endswith(".pt")),
                       key=lambda f: os.path.getmtime(os.path.join(cfg.output_dir, f)))
        if files:
            path = os.path.join(cfg.output_dir, files[-1])
            Checkpoint.load_objects(to_load=to_save, checkpoint=torch.load(path, map_location="cpu"))
            logger.info(f"resumed from {path} (epoch {trainer.state.epoch})")

    trainer.run(train_loader, max_epochs=cfg.epochs)
    m = evaluator.state.metrics
    if m:
        logger.info(f"training finished after {trainer.state.epoch} epochs, val MAE {m['mae']:.3f} kg, "
                    f"RMSE {m['rmse']:.3f} kg")


def main():
    cfg = get_args()
    with idist.Parallel(backend=cfg.backend, nproc_per_node=cfg.nproc_per_node, nnodes=cfg.nnodes,
                        node_rank=cfg.node_rank, master_addr=cfg.master_addr, master_port=cfg.master_port,
                        timeout=timedelta(seconds=cfg.pg_timeout)) as parallel:
        parallel.run(training, cfg)


if __name__ == "__main__":
    main()
