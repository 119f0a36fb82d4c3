"""Transformer-oil DGA fault classifier: nightly training pipeline of the asset-health team.

extract_samples -> attach_assets -> build_features -> train_classifier (torchrun, DDP over gloo) -> evaluate_model
Run by hand as ``airflow dags test dga_fault_training <date> [-c '{...}']``."""
from __future__ import annotations

import csv
import functools
import json
import logging
import os
import pickle
import sys
from datetime import datetime, timedelta

import numpy as np
from airflow.models import Variable
from airflow.providers.standard.operators.bash import BashOperator
from airflow.sdk import DAG, task

log = logging.getLogger(__name__)
PROJECT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GASES = ["h2", "ch4", "c2h2", "c2h4", "c2h6", "co", "co2"]
FAULTS = ["N", "PD", "D1", "D2", "T1", "T2", "T3"]
TRAIN_TIMEOUT_S = int(Variable.get("dga_train_timeout_s", default_var=900))
TRAIN_RETRIES = int(Variable.get("dga_train_retries", default_var=1))


def _p(*parts: str) -> str:
    return os.path.join(PROJECT, *parts)


with DAG(
    dag_id="dga_fault_training",
    schedule="@daily",
    start_date=datetime(2026, 11, 1),
    catchup=False,
    default_args={"owner": "asset-health", "retries": 0},
    params={
        "epochs": 3, "micro_batch": 32, "grad_accum": 2, "global_batch": 128, "lr": 0.003, "optimizer": "adamw",
        "master_port": 31700, "nnodes": 1, "loader_workers": 0, "step_delay": 0.0, "pg_timeout": 300,
        "augment_copies": 0, "resume": False, "log_every": 10, "min_val_accuracy": 0.5, "class_weights": False,
    },
    tags=["dga", "training"],
) as dag:

    @task
    def extract_samples() -> int:
        src = _p("incoming", "dga_samples.csv")
        with open(src, newline="") as f:
            rows = list(csv.DictReader(f))
        log.info("read %d samples from %s", len(rows), "incoming/dga_samples.csv")
        kept, bad = [], 0
        for r in rows:
            try:
                datetime.fromisoformat(r["sampled_at"])
            except ValueError:
                bad += 1
                log.error("sample %s: unreadable timestamp %r, dropped", r["sample_id"], r["sampled_at"])
                continue
            kept.append({"transformer": r["transformer"], "monitor": r["monitor"], "fault": r["fault_code"],
                         **{g: float(r[g + "_ppm"]) for g in GASES}, "oil_temp": float(r["oil_temp_c"]),
                         "load": float(r["load_pct"])})
        os.makedirs(_p("data"), exist_ok=True)
        with open(_p("data", "samples.pkl"), "wb") as f:
            pickle.dump(kept, f)
        log.info("kept %d samples (%d dropped)", len(kept), bad)
        return len(kept)

    @task
    def attach_assets(n_samples: int) -> dict:
        with open(_p("incoming", "assets.csv"), newline="") as f:
            parent = {r["asset"]: r["parent"] for r in csv.DictReader(f)}
        sys.setrecursionlimit(1_000_000)  # deep asset hierarchies (feeder chains)

        @functools.lru_cache(maxsize=None)
        def region(asset: str) -> str:
            p = parent.get(asset, "GRID")
            if p == "GRID":
                return asset
            return region(p)

        with open(_p("data", "samples.pkl"), "rb") as f:
            samples = pickle.load(f)
        regions: dict[str, int] = {}
        for s in samples:
            s["region"] = region(s["transformer"])
            regions[s["region"]] = regions.get(s["region"], 0) + 1
        with open(_p("data", "samples.pkl"), "wb") as f:
            pickle.dump(samples, f)
        log.info("samples per region: %s", regions)
        return regions

    @task
    def build_features(regions: dict) -> dict:
        with open(_p("data", "samples.pkl"), "rb") as f:
            samples = pickle.load(f)
        classes = FAULTS + sorted({s["fault"] for s in samples} - set(FAULTS))  # known order, new codes appended
        gas = np.array([[s[g] for g in GASES] for s in samples], dtype=np.float64)
        logs = np.log(gas)
        ratios = np.stack([logs[:, 2] - logs[:, 3], logs[:, 1] - logs[:, 0], logs[:, 3] - logs[:, 4]], axis=1)
        other = np.array([[s["oil_temp"] / 100.0, s["load"] / 100.0] for s in samples])
        x = np.concatenate([logs, ratios, other], axis=1).astype(np.float32)
        y = np.array([classes.index(s["fault"]) for s in samples], dtype=np.int64)
        mu, sd = x.mean(0), x.std(0) + 1e-6
        x = (x - mu) / sd
        rng = np.random.default_rng(5)
        idx = rng.permutation(len(x))
        n_val = len(x) // 5
        va, tr = idx[:n_val], idx[n_val:]
        for name, ii in (("train", tr), ("val", va)):
            with open(_p("data", f"{name}.pkl"), "wb") as f:
                pickle.dump({"x": x[ii], "y": y[ii], "n_classes": len(FAULTS)}, f)
        log.info("features: %d train / %d val rows, %d features, classes %s", len(tr), len(va), x.shape[1], classes)
        return {"train": len(tr), "val": len(va)}

    train = BashOperator(
        task_id="train_classifier",
        cwd=PROJECT,
        retries=TRAIN_RETRIES,
        retry_delay=timedelta(seconds=10),
        execution_timeout=timedelta(seconds=TRAIN_TIMEOUT_S),
        bash_command=(
            "torchrun --nnodes {{ params.nnodes }} --nproc-per-node 2 --node-rank 0 "
            "--master-addr 127.0.0.1 --master-port {{ params.master_port }} --rdzv-conf timeout=60 "
            "train_dga.py --train data/train.pkl --val data/val.pkl --ckpt-dir checkpoints "
            "--epochs {{ params.epochs }} --micro-batch {{ params.micro_batch }} --grad-accum {{ params.grad_accum }} "
            "--global-batch {{ params.global_batch }} --lr {{ params.lr }} --optimizer {{ params.optimizer }} "
            "--loader-workers {{ params.loader_workers }} --step-delay {{ params.step_delay }} "
            "--pg-timeout {{ params.pg_timeout }} --augment-copies {{ params.augment_copies }} "
            "--log-every {{ params.log_every }}{{ ' --resume' if params.resume else '' }}{{ ' --class-weights' if params.class_weights else '' }}"
        ),
    )

    @task
    def evaluate_model(**context) -> dict:
        with open(_p("checkpoints", "summary.json")) as f:
            summary = json.load(f)
        log.info("model summary: %s", summary)
        if summary["val_accuracy"] < float(context["params"]["min_val_accuracy"]):
            raise ValueError(f"val accuracy {summary['val_accuracy']} below gate {context['params']['min_val_accuracy']}")
        log.info("model passed the accuracy gate, ready to publish")
        return summary

    build_features(attach_assets(extract_samples())) >> train >> evaluate_model()
