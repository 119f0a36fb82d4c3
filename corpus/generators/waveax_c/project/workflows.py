"""Milk-spoilage predictor for the cooperative's quality team, as a Flyte workflow:

    ingest (gateway CSV) -> clean -> features -> train (torchrun, DDP over gloo) -> evaluate

Run locally while developing:  pyflyte run workflows.py training_wf --epochs 3 --master-port 29500
On the cluster the same workflow runs with --remote; task retries/timeouts below are the ones the cluster applies.
"""
import csv
import datetime
import functools
import json
import logging
import os
import pickle
import subprocess
import sys

import numpy as np
from flytekit import task, workflow

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("dairy.spoilage")

GRADES = ["fresh", "watch", "spoiled"]
GRADE_INDEX = {g: i for i, g in enumerate(GRADES)}
CACHE = "2026.11"


@task(cache=True, cache_version=CACHE)
def ingest(export: str) -> str:
    """Copy the farm gateways' export into the run's work area as parsed rows."""
    with open(export, newline="") as f:
        rows = list(csv.DictReader(f))
    log.info("ingested %d tank readings from %s", len(rows), export)
    os.makedirs("work", exist_ok=True)
    out = "work/raw.pkl"
    with open(out, "wb") as f:
        pickle.dump(rows, f)
    return out


@task(cache=True, cache_version=CACHE)
def clean(raw: str) -> str:
    with open(raw, "rb") as f:
        rows = pickle.load(f)
    kept, dropped = [], 0
    for row in rows:
        try:
            datetime.datetime.fromisoformat(row["read_at"])
        except ValueError:
            log.error("reading %s from farm %s: unreadable timestamp %r, dropped", row["reading_id"], row["farm_id"],
                      row["read_at"])
            dropped += 1
            continue
        kept.append({
            "tank": row["tank_id"], "source": row["source_tank"], "grade": row["grade"],
            "x": [float(row["temp_c"]), float(row["ph"]), float(row["conductivity_ms"]),
                  float(row["hours_since_milking"]), float(row["agitator_rpm"])],
        })
    log.info("kept %d readings (%d dropped)", len(kept), dropped)
    out = "work/clean.pkl"
    with open(out, "wb") as f:
        pickle.dump(kept, f)
    return out


@task(cache=True, cache_version=CACHE)
def features(cleaned: str, val_fraction: float) -> str:
    with open(cleaned, "rb") as f:
        rows = pickle.load(f)
    source = {r["tank"]: r["source"] for r in rows}
    sys.setrecursionlimit(1_000_000)  # long tanker top-up chains in the bigger collection routes

    @functools.lru_cache(maxsize=None)
    def origin(tank: str) -> str:
        s = source.get(tank, "")
        if not s:
            return tank
        return origin(s)

    origins = sorted({origin(r["tank"]) for r in rows})
    log.info("%d tanks from %d origin tanks", len(source), len(origins))
    raw = np.array([r["x"] for r in rows], dtype=np.float64)
    temp, ph, cond, hours, rpm = raw.T
    feats = np.stack([
        (temp - 5.0) / 2.5, (ph - 6.5) / 0.2, np.log(cond / 5.0), np.log1p(hours) - 3.0,
        (rpm - 30) / 6, np.log(cond / 5.0) * (temp - 5.0) / 2.5,
    ], axis=1).astype(np.float32)
    y = np.array([GRADE_INDEX[r["grade"]] for r in rows], dtype=np.int64)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    n_val = int(len(y) * val_fraction)
    os.makedirs("work/features", exist_ok=True)
    for name, part in (("val", idx[:n_val]), ("train", idx[n_val:])):
        with open(f"work/features/{name}.pkl", "wb") as f:
            pickle.dump({"x": feats[part], "y": y[part], "n_classes": len(GRADES)}, f)
    log.info("features: %d train / %d val, %d features, grade counts %s", len(idx) - n_val, n_val, feats.shape[1],
             np.bincount(y, minlength=len(GRADES)).tolist())
    return "work/features"


@task(retries=2, timeout=datetime.timedelta(hours=2))
def train(feats: str, epochs: int, master_port: int, nnodes: int, micro_batch: int, optimizer: str, lr: float,
          loader_workers: int, step_delay: float, pg_timeout: int, augment_copies: int, class_weights: bool,
          resume: bool, log_every: int, launch_timeout_s: int) -> str:
    cmd = ["torchrun", "--nnodes", str(nnodes), "--nproc-per-node", "2", "--node-rank", "0",
           "--master-addr", "127.0.0.1", "--master-port", str(master_port), "--rdzv-conf", "timeout=60",
           "train_spoilage.py", "--train", f"{feats}/train.pkl", "--val", f"{feats}/val.pkl",
           "--ckpt-dir", "checkpoints", "--epochs", str(epochs), "--micro-batch", str(micro_batch),
           "--optimizer", optimizer, "--lr", str(lr), "--loader-workers", str(loader_workers),
           "--step-delay", str(step_delay), "--pg-timeout", str(pg_timeout),
           "--augment-copies", str(augment_copies), "--log-every", str(log_every)]
    if class_weights:
        cmd.append("--class-weights")
    if resume:
        cmd.append("--resume")
    log.info("launching: %s", " ".join(cmd))
    # local runs do not enforce the task timeout; launch_timeout_s guards the launcher on dev boxes
    subprocess.run(cmd, check=True, timeout=launch_timeout_s or None)
    with open("checkpoints/summary.json") as f:
        summary = json.load(f)
    return json.dumps(summary)


@task
def evaluate(summary: str, min_accuracy: float) -> float:
    acc = json.loads(summary)["val_accuracy"]
    log.info("validation accuracy %.3f (gate %.2f)", acc, min_accuracy)
    if acc < min_accuracy:
        raise RuntimeError(f"val accuracy {acc:.3f} below the gate {min_accuracy}")
    os.makedirs("reports", exist_ok=True)
    with open("reports/spoilage_eval.json", "w") as f:
        json.dump({"val_accuracy": acc, "gate": min_accuracy, "publish": True}, f)
    log.info("spoilage model passed the accuracy gate, ready to publish")
    return acc


@workflow
def training_wf(export: str = "data/tank_readings.csv", val_fraction: float = 0.2, epochs: int = 3,
                master_port: int = 29500, nnodes: int = 1, micro_batch: int = 32, optimizer: str = "adamw",
                lr: float = 3e-3, loader_workers: int = 0, step_delay: float = 0.0, pg_timeout: int = 300,
                augment_copies: int = 0, class_weights: bool = False, resume: bool = False, log_every: int = 10,
                launch_timeout_s: int = 0, min_accuracy: float = 0.8) -> float:
    raw = ingest(export=export)
    cleaned = clean(raw=raw)
    feats = features(cleaned=cleaned, val_fraction=val_fraction)
    summary = train(feats=feats, epochs=epochs, master_port=master_port, nnodes=nnodes, micro_batch=micro_batch,
                    optimizer=optimizer, lr=lr, loader_workers=loader_workers, step_delay=step_delay,
                    pg_timeout=pg_timeout, augment_copies=augment_copies, class_weights=class_weights,
                    resume=resume, log_every=log_every, launch_timeout_s=launch_timeout_s)
    return evaluate(summary=summary, min_accuracy=min_accuracy)
