"""Freight-rail arrival-delay model: the nightly retraining job (Dagster ops).

extract_movements -> attach_network -> build_features -> train_model (torchrun --nproc-per-node 2 on
train_delay.py, DDP over gloo, waited on as a subprocess) -> evaluate_model.

    dagster job execute -f defs.py -j rail_delay_training [--config-json '{"ops": {"train_model": {"config": {...}}}}']
"""
import csv
import functools
import json
import os
import pickle
import subprocess
import sys
import time

import numpy as np
from dagster import Config, Failure, In, Nothing, OpExecutionContext, RetryPolicy, job, op

PROJECT = os.path.dirname(os.path.abspath(__file__))
CLASSES = ["OT", "D30", "D120", "D360", "XL"]
FEATS = ["distance_km", "cars", "gross_tons", "crew_hours_left", "yard_dwell_min", "temp_c", "wind_kph", "slow_orders"]
TRAIN_RETRIES = int(os.environ.get("RAIL_TRAIN_RETRIES", "1"))


def _p(*parts: str) -> str:
    return os.path.join(PROJECT, *parts)


@op
def extract_movements(context: OpExecutionContext) -> int:
    kept, bad = [], 0
    with open(_p("incoming", "movements.csv"), newline="") as f:
        for r in csv.DictReader(f):
            if not r["departed_at"][:4].isdigit() or r["departed_at"].startswith("0000"):
                context.log.error(f"movement {r['train_id']}: unreadable departure time {r['departed_at']!r}, dropped")
                bad += 1
                continue
            kept.append({"train_id": r["train_id"], "yard": r["origin_yard"], "corridor": r["corridor"],
                         "delay": r["delay_class"], **{k: float(r[k]) for k in FEATS}})
    os.makedirs(_p("data"), exist_ok=True)
    with open(_p("data", "movements.pkl"), "wb") as f:
        pickle.dump(kept, f)
    context.log.info(f"kept {len(kept)} movements ({bad} dropped)")
    return len(kept)


@op
def attach_network(context: OpExecutionContext, n_movements: int) -> dict:
    with open(_p("incoming", "network.csv"), newline="") as f:
        parent = {r["node"]: r["parent"] for r in csv.DictReader(f)}
    sys.setrecursionlimit(1_000_000)  # long subdivision chains on branch lines

    @functools.lru_cache(maxsize=None)
    def region(node: str) -> str:
        p = parent.get(node, "NETWORK")
        if p == "NETWORK":
            return node
        return region(p)

    with open(_p("data", "movements.pkl"), "rb") as f:
        movements = pickle.load(f)
    regions: dict = {}
    for m in movements:
        m["region"] = region(m["yard"])
        regions[m["region"]] = regions.get(m["region"], 0) + 1
    with open(_p("data", "movements.pkl"), "wb") as f:
        pickle.dump(movements, f)
    context.log.info(f"movements per region: {regions}")
    return regions


@op
def build_features(context: OpExecutionContext, regions: dict) -> dict:
    with open(_p("data", "movements.pkl"), "rb") as f:
        movements = pickle.load(f)
    classes = CLASSES + sorted({m["delay"] for m in movements} - set(CLASSES))  # known order, new codes appended
    raw = np.array([[m[k] for k in FEATS] for m in movements], dtype=np.float64)
    logs = np.log1p(raw[:, [0, 1, 2, 4, 6]])
    dwell_per_crew_hour = raw[:, 4] / raw[:, 3]  # minutes of yard dwell per hour of crew time left
    other = np.stack([raw[:, 3] / 12.0, raw[:, 5] / 30.0, raw[:, 7], np.log1p(dwell_per_crew_hour)], axis=1)
    x = np.concatenate([logs, other], axis=1).astype(np.float32)
    y = np.array([classes.index(m["delay"]) for m in movements], dtype=np.int64)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    x = (x - mu) / sd
    rng = np.random.default_rng(5)
    idx = rng.permutation(len(x))
    n_val = len(x) // 5
    va, tr = idx[:n_val], idx[n_val:]
    for name, ii in (("train", tr), ("val", va)):
        with open(_p("data", f"{name}.pkl"), "wb") as f:
            pickle.dump({"x": x[ii], "y": y[ii], "n_classes": len(CLASSES)}, f)
    context.log.info(f"features: {len(tr)} train / {len(va)} val rows, {x.shape[1]} features, classes {classes}")
    return {"train": len(tr), "val": len(va)}


class TrainConfig(Config):
    master_port: int = 29500
    nnodes: int = 1
    epochs: int = 3
    micro_batch: int = 32
    grad_accum: int = 2
    global_batch: int = 128
    lr: float = 3e-3
    optimizer: str = "adamw"
    loader_workers: int = 0
    step_delay: float = 0.0
    pg_timeout: int = 300
    augment_copies: int = 0
    log_every: int = 10
    resume: bool = False
    class_weights: bool = False
    timeout_s: int = 1800


@op(ins={"features": In(dict)}, retry_policy=RetryPolicy(max_retries=TRAIN_RETRIES, delay=10))
def train_model(context: OpExecutionContext, config: TrainConfig, features: dict) -> Nothing:
    cmd = ["torchrun", "--nnodes", str(config.nnodes), "--nproc-per-node", "2", "--node-rank", "0",
           "--master-addr", "127.0.0.1", "--master-port", str(config.master_port), "--rdzv-conf", "timeout=60",
           "train_delay.py", "--train", "data/train.pkl", "--val", "data/val.pkl", "--ckpt-dir", "checkpoints",
           "--epochs", str(config.epochs), "--micro-batch", str(config.micro_batch),
           "--grad-accum", str(config.grad_accum), "--global-batch", str(config.global_batch), "--lr", str(config.lr),
           "--optimizer", config.optimizer, "--loader-workers", str(config.loader_workers),
           "--step-delay", str(config.step_delay), "--pg-timeout", str(config.pg_timeout),
           "--augment-copies", str(config.augment_copies), "--log-every", str(config.log_every)]
    if config.resume:
        cmd.append("--resume")
    if config.class_weights:
        cmd.append("--class-weights")
    context.log.info(f"launching: {' '.join(cmd)} (attempt {context.retry_number + 1})")
    t0 = time.time()
    proc = subprocess.Popen(cmd, cwd=PROJECT)
    try:
        rc = proc.wait(timeout=config.timeout_s)
    except subprocess.TimeoutExpired:
        context.log.error(f"torchrun still running after {config.timeout_s} s, terminating it")
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        raise Failure(description=f"training did not finish within timeout_s={config.timeout_s}",
                      metadata={"elapsed_s": round(time.time() - t0, 1)})
    if rc != 0:
        raise Failure(description=f"torchrun exited with code {rc}",
                      metadata={"exit_code": rc, "elapsed_s": round(time.time() - t0, 1)})
    context.log.info(f"training finished in {time.time() - t0:.1f} s")


class EvalConfig(Config):
    min_val_accuracy: float = 0.6


@op(ins={"start": In(Nothing)})
def evaluate_model(context: OpExecutionContext, config: EvalConfig) -> dict:
    with open(_p("checkpoints", "summary.json")) as f:
        summary = json.load(f)
    context.log.info(f"model summary: {summary}")
    if summary["val_accuracy"] < config.min_val_accuracy:
        raise Failure(description=f"val accuracy {summary['val_accuracy']} below gate {config.min_val_accuracy}")
    context.log.info("model passed the accuracy gate, ready to publish")
    return summary


@job
def rail_delay_training():
    evaluate_model(start=train_model(build_features(attach_network(extract_movements()))))
