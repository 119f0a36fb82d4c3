"""ZenML steps of the gearbox-fault pipeline (wind-farm condition-monitoring team)."""
import functools
import json
import logging
import os
import pickle
import subprocess
import sys
from typing import Annotated, Tuple

import numpy as np
import pandas as pd
from zenml import step

log = logging.getLogger(__name__)

FAULTS = ["healthy", "bearing_wear", "gear_tooth", "misalignment", "lubrication"]
FAULT_INDEX = {f: i for i, f in enumerate(FAULTS)}
NUMERIC = ["wind_speed_ms", "rotor_rpm", "power_kw", "oil_temp_c", "bearing_temp_c", "nacelle_temp_c", "vib_rms_mms",
           "vib_kurtosis", "vib_1x", "vib_gmf"]


@step
def load_readings(path: str = "data/scada_export.csv") -> Annotated[pd.DataFrame, "raw_readings"]:
    """The historian's nightly SCADA export."""
    df = pd.read_csv(path, dtype={"swapped_from": str}, keep_default_na=False)
    log.info("loaded %d SCADA records from %s (%d turbines)", len(df), path, df["turbine_id"].nunique())
    return df


@step
def clean_readings(raw: pd.DataFrame) -> Annotated[pd.DataFrame, "clean_readings"]:
    ts = pd.to_datetime(raw["timestamp"], errors="coerce", format="%Y-%m-%dT%H:%M:%S")
    bad = raw[ts.isna()]
    for rid, value in zip(bad["record_id"], bad["timestamp"]):
        log.error("record %s: unparseable timestamp %r, dropped", rid, value)
    df = raw[ts.notna()].copy()
    df[NUMERIC] = df[NUMERIC].astype(float)
    log.info("kept %d records (%d dropped)", len(df), len(bad))
    return df


@step
def build_features(df: pd.DataFrame, val_fraction: float = 0.2) -> Tuple[
        Annotated[str, "train_path"], Annotated[str, "val_path"]]:
    swapped = dict(zip(df["gearbox_serial"], df["swapped_from"].fillna("")))
    sys.setrecursionlimit(1_000_000)  # long refurbishment chains on the older sites

    @functools.lru_cache(maxsize=None)
    def original_position(serial: str) -> str:
        src = swapped.get(serial, "")
        if not src:
            return serial
        return original_position(src)

    origins = sorted({original_position(s) for s in df["gearbox_serial"]})
    log.info("%d gearboxes from %d original positions", len(swapped), len(origins))
    temp_rise_oil = (df["oil_temp_c"] - df["nacelle_temp_c"] - 35) / 3
    temp_rise_brg = (df["bearing_temp_c"] - df["nacelle_temp_c"] - 40) / 3
    feats = np.stack([
        temp_rise_oil, temp_rise_brg, np.log(df["vib_rms_mms"] / 2.0), (df["vib_kurtosis"] - 3) / 2,
        np.log(df["vib_1x"] / df["vib_gmf"]), np.log(df["vib_gmf"]), (df["power_kw"] - 1000) / 600,
        (df["rotor_rpm"] - 12) / 3,
    ], axis=1).astype(np.float32)
    y = np.array([FAULT_INDEX[f] for f in df["fault_code"]], dtype=np.int64)
    rng = np.random.default_rng(0)
    idx = rng.permutation(len(y))
    n_val = int(len(y) * val_fraction)
    os.makedirs("work/features", exist_ok=True)
    paths = {}
    for name, part in (("val", idx[:n_val]), ("train", idx[n_val:])):
        paths[name] = f"work/features/{name}.pkl"
        with open(paths[name], "wb") as f:
            pickle.dump({"x": feats[part], "y": y[part], "n_classes": len(FAULTS)}, f)
    log.info("features: %d train / %d val, %d features, class counts %s", len(idx) - n_val, n_val, feats.shape[1],
             np.bincount(y, minlength=len(FAULTS)).tolist())
    return paths["train"], paths["val"]


@step
def train_model(train_path: str, val_path: str, epochs: int = 3, master_port: int = 33100, nnodes: int = 1,
                micro_batch: int = 32, optimizer: str = "adamw", lr: float = 3e-3, loader_workers: int = 0,
                step_delay: float = 0.0, pg_timeout: int = 300, augment_copies: int = 0, class_weights: bool = False,
                resume: bool = False, log_every: int = 10, train_timeout_s: int = 0) -> Annotated[dict, "train_summary"]:
    cmd = ["torchrun", "--nnodes", str(nnodes), "--nproc-per-node", "2", "--node-rank", "0",
           "--master-addr", "127.0.0.1", "--master-port", str(master_port), "--rdzv-conf", "timeout=45",
           "train_gearbox.py", "--train", train_path, "--val", val_path, "--ckpt-dir", "checkpoints",
           "--epochs", str(epochs), "--micro-batch", str(micro_batch), "--optimizer", optimizer, "--lr", str(lr),
           "--loader-workers", str(loader_workers), "--step-delay", str(step_delay), "--pg-timeout", str(pg_timeout),
           "--augment-copies", str(augment_copies), "--log-every", str(log_every)]
    if class_weights:
        cmd.append("--class-weights")
    if resume:
        cmd.append("--resume")
    log.info("launching: %s", " ".join(cmd))
    subprocess.run(cmd, check=True, timeout=train_timeout_s or None)
    with open("checkpoints/summary.json") as f:
        return json.load(f)


@step
def evaluate(summary: dict, min_accuracy: float = 0.8) -> Annotated[dict, "eval_report"]:
    acc = summary["val_accuracy"]
    log.info("validation accuracy %.3f (gate %.2f)", acc, min_accuracy)
    if acc < min_accuracy:
        raise RuntimeError(f"val accuracy {acc:.3f} below the gate {min_accuracy}")
    os.makedirs("reports", exist_ok=True)
    report = {"val_accuracy": acc, "gate": min_accuracy, "publish": True}
    with open("reports/gearbox_fault_eval.json", "w") as f:
        json.dump(report, f)
    log.info("gearbox-fault model passed the accuracy gate, ready to publish")
    return report
