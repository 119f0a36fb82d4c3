"""Gearbox-fault detector for the operator's condition-monitoring team, as a Kubeflow pipeline (KFP v2):

    ingest (SCADA export) -> clean -> train (torchrun, DDP over gloo) -> evaluate

Developers run it locally with kfp's SubprocessRunner (run_pipeline.py) before submitting the compiled pipeline to
the cluster. The components are lightweight Python components; they share the project directory (``workdir``)."""
from kfp import dsl

KFP_BASE = "python:3.11"


@dsl.component(base_image=KFP_BASE)
def ingest(workdir: str, export: str) -> str:
    """Parse the SCADA export into the run's work area."""
    import csv
    import logging
    import os
    import pickle

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("gearbox.ingest")
    with open(os.path.join(workdir, export), newline="") as f:
        rows = list(csv.DictReader(f))
    log.info("ingested %d SCADA records from %s", len(rows), export)
    os.makedirs(os.path.join(workdir, "work"), exist_ok=True)
    out = os.path.join(workdir, "work", "raw.pkl")
    with open(out, "wb") as f:
        pickle.dump(rows, f)
    return out


@dsl.component(base_image=KFP_BASE)
def clean(workdir: str, raw: str, val_fraction: float) -> str:
    """Drop unreadable records, map every turbine to the head of its collector string, build features and the
    train/val split."""
    import datetime
    import functools
    import logging
    import os
    import pickle
    import sys

    import numpy as np

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("gearbox.clean")
    verdicts = {"healthy": 0, "wear": 1, "fault": 2}
    with open(raw, "rb") as f:
        rows = pickle.load(f)
    kept, dropped = [], 0
    for row in rows:
        try:
            datetime.datetime.fromisoformat(row["ts_utc"].replace("Z", "+00:00"))
        except ValueError:
            log.error("record %s from %s: unreadable timestamp %r, dropped", row["record_id"], row["turbine_id"],
                      row["ts_utc"])
            dropped += 1
            continue
        kept.append({
            "turbine": row["turbine_id"], "upstream": row["upstream_turbine"], "verdict": verdicts[row["verdict"]],
            "x": [float(row["wind_ms"]), float(row["rotor_rpm"]), float(row["power_kw"]), float(row["gear_oil_c"]),
                  float(row["gear_bearing_c"]), float(row["vib_rms_mm_s"])],
        })
    log.info("kept %d records (%d dropped)", len(kept), dropped)
    upstream = {r["turbine"]: r["upstream"] for r in kept}
    sys.setrecursionlimit(1_000_000)  # the big sites have long collector strings

    @functools.lru_cache(maxsize=None)
    def string_head(t: str) -> str:
        u = upstream.get(t, "")
        return string_head(u) if u else t

    heads = sorted({string_head(t) for t in upstream})
    log.info("%d turbines on %d collector strings", len(upstream), len(heads))
    raw_x = np.array([r["x"] for r in kept], dtype=np.float64)
    wind, rpm, power, oil, bear, vib = raw_x.T
    feats = np.stack([
        (wind - 9) / 3, (oil - 60) / 6, (bear - oil - 8) / 4, np.log(vib / 2.5),
        np.log(power / (rpm * 200.0)), (oil - 60) / 6 * np.log(vib / 2.5),
    ], axis=1).astype(np.float32)
    y = np.array([r["verdict"] for r in kept], dtype=np.int64)
    idx = np.random.default_rng(0).permutation(len(y))
    n_val = int(len(y) * val_fraction)
    fdir = os.path.join(workdir, "work", "features")
    os.makedirs(fdir, exist_ok=True)
    for name, part in (("val", idx[:n_val]), ("train", idx[n_val:])):
        with open(os.path.join(fdir, f"{name}.pkl"), "wb") as f:
            pickle.dump({"x": feats[part], "y": y[part], "n_classes": 3}, f)
    log.info("features: %d train / %d val, verdict counts %s", len(idx) - n_val, n_val,
             np.bincount(y, minlength=3).tolist())
    return fdir


@dsl.component(base_image=KFP_BASE)
def train(workdir: str, feats: str, epochs: int, master_port: int, nnodes: int, micro_batch: int, optimizer: str,
          lr: float, loader_workers: int, step_delay: float, pg_timeout: int, augment_copies: int,
          class_weights: bool, resume: bool, log_every: int, launch_timeout_s: int) -> str:
    """Launch DDP training with torchrun (2 processes on this node)."""
    import json
    import logging
    import os
    import subprocess

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("gearbox.train")
    cmd = ["torchrun", "--nnodes", str(nnodes), "--nproc-per-node", "2", "--node-rank", "0",
           "--master-addr", "127.0.0.1", "--master-port", str(master_port), "--rdzv-conf", "timeout=60",
           "train.py", "--train", f"{feats}/train.pkl", "--val", f"{feats}/val.pkl",
           "--ckpt-dir", "checkpoints", "--epochs", str(epochs), "--micro-batch", str(micro_batch),
           "--optimizer", optimizer, "--lr", str(lr), "--loader-workers", str(loader_workers),
           "--step-delay", str(step_delay), "--pg-timeout", str(pg_timeout),
           "--augment-copies", str(augment_copies), "--log-every", str(log_every)]
    if class_weights:
        cmd.append("--class-weights")
    if resume:
        cmd.append("--resume")
    log.info("launching: %s", " ".join(cmd))
    # on the cluster the pod's activeDeadlineSeconds applies; locally launch_timeout_s guards the launcher
    subprocess.run(cmd, check=True, cwd=workdir, timeout=launch_timeout_s or None)
    with open(os.path.join(workdir, "checkpoints", "summary.json")) as f:
        return f.read()


@dsl.component(base_image=KFP_BASE)
def evaluate(workdir: str, summary: str, min_accuracy: float) -> float:
    import json
    import logging
    import os

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("gearbox.evaluate")
    acc = json.loads(summary)["val_accuracy"]
    log.info("validation accuracy %.3f (gate %.2f)", acc, min_accuracy)
    if acc < min_accuracy:
        raise RuntimeError(f"val accuracy {acc:.3f} below the gate {min_accuracy}")
    os.makedirs(os.path.join(workdir, "reports"), exist_ok=True)
    with open(os.path.join(workdir, "reports", "gearbox_eval.json"), "w") as f:
        json.dump({"val_accuracy": acc, "gate": min_accuracy, "publish": True}, f)
    log.info("gearbox-fault detector passed the accuracy gate, ready to publish")
    return acc


@dsl.pipeline(name="gearbox-fault-detector", description="SCADA -> gearbox fault classifier (DDP)")
def gearbox_pipeline(workdir: str, export: str = "data/scada_10min.csv", val_fraction: float = 0.2, epochs: int = 3,
                     master_port: int = 29500, nnodes: int = 1, micro_batch: int = 32, optimizer: str = "adamw",
                     lr: float = 3e-3, loader_workers: int = 0, step_delay: float = 0.0, pg_timeout: int = 300,
                     augment_copies: int = 0, class_weights: bool = False, resume: bool = False,
                     log_every: int = 10, launch_timeout_s: int = 0, min_accuracy: float = 0.8) -> float:
    raw = ingest(workdir=workdir, export=export)
    cleaned = clean(workdir=workdir, raw=raw.output, val_fraction=val_fraction)
    summary = train(workdir=workdir, feats=cleaned.output, epochs=epochs, master_port=master_port, nnodes=nnodes,
                    micro_batch=micro_batch, optimizer=optimizer, lr=lr, loader_workers=loader_workers,
                    step_delay=step_delay, pg_timeout=pg_timeout, augment_copies=augment_copies,
                    class_weights=class_weights, resume=resume, log_every=log_every,
                    launch_timeout_s=launch_timeout_s)
    summary.set_caching_options(False)
    ev = evaluate(workdir=workdir, summary=summary.output, min_accuracy=min_accuracy)
    return ev.output
