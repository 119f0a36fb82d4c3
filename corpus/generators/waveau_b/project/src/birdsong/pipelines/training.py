"""Training: feature tables -> tensors -> DDP training (torchrun, gloo) -> validation metrics."""
import json
import logging
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from kedro.pipeline import Pipeline, node, pipeline

log = logging.getLogger(__name__)


def to_tensors(table: pd.DataFrame, species: pd.DataFrame, features: dict) -> dict:
    cols = [f"b{b:02d}_f{f:02d}" for b in range(features["n_bands"]) for f in range(features["n_frames"])]
    codes = sorted(table["species_code"].unique()) if "species_code" in table else []
    checklist = sorted(species.loc[species["common_name"].notna(), "code"])
    index = {c: i for i, c in enumerate(checklist)}
    # species seen in the export but not in the checklist go after the known ones
    for c in codes:
        if c not in index:
            index[c] = len(index)
    x = table[cols].to_numpy(dtype=np.float32).reshape(len(table), features["n_bands"], features["n_frames"])
    y = table["species_code"].map(index).to_numpy(dtype=np.int64)
    return {"x": x, "y": y, "n_classes": len(checklist), "species": checklist}


def rdzv_args(params: dict) -> list[str]:
    if params.get("rdzv_backend", "static") == "c10d":  # elastic rendezvous (needed for --max-restarts)
        return ["--rdzv-backend", "c10d", "--rdzv-endpoint", f"127.0.0.1:{params['master_port']}",
                "--rdzv-id", "birdsong", "--rdzv-conf", f"join_timeout={params['rdzv_timeout']}"]
    return ["--master-addr", "127.0.0.1", "--master-port", str(params["master_port"]),
            "--rdzv-conf", f"timeout={params['rdzv_timeout']}"]


def train_classifier(train_tensors: dict, val_tensors: dict, params: dict) -> dict:
    log.info("training on %d clips (%d classes), validating on %d", len(train_tensors["y"]),
             train_tensors["n_classes"], len(val_tensors["y"]))
    cmd = [os.path.join(os.path.dirname(sys.executable), "torchrun"),
           "--nnodes", str(params["nnodes"]), "--nproc-per-node", str(params["nproc_per_node"]),
           *rdzv_args(params), "--max-restarts", str(params["max_restarts"]),
           "scripts/train_birdsong.py",
           "--train", params["train_path"], "--val", params["val_path"], "--ckpt-dir", params["ckpt_dir"],
           "--epochs", str(params["epochs"]), "--micro-batch", str(params["micro_batch"]),
           "--grad-accum", str(params["grad_accum"]), "--global-batch", str(params["global_batch"]),
           "--lr", str(params["lr"]), "--optimizer", params["optimizer"], "--log-every", str(params["log_every"]),
           "--loader-workers", str(params["loader_workers"]), "--step-delay", str(params["step_delay"]),
           "--pg-timeout", str(params["pg_timeout"]), "--augment-copies", str(params["augment_copies"])]
    if params.get("class_weights"):
        cmd.append("--class-weights")
    if params["resume"]:
        cmd.append("--resume")
    attempts = int(params.get("attempts", 1))
    for attempt in range(1, attempts + 1):
        log.info("launching: %s", " ".join(cmd[1:]))
        rc = subprocess.run(cmd).returncode
        if rc == 0:
            break
        if attempt == attempts:
            raise RuntimeError(f"torchrun exited with code {rc}")
        log.warning("torchrun exited with code %d (attempt %d of %d); retrying in %d s", rc, attempt, attempts,
                    params.get("retry_wait", 10))
        time.sleep(params.get("retry_wait", 10))
    with open(os.path.join(params["ckpt_dir"], "summary.json")) as f:
        summary = json.load(f)
    log.info("training finished: %s", summary)
    return summary


def evaluate(val_tensors: dict, summary: dict, params: dict) -> dict:
    import torch

    sys.path.insert(0, "scripts")
    from train_birdsong import SongNet

    state = torch.load(os.path.join(params["ckpt_dir"], "last.pt"), map_location="cpu")
    model = SongNet(val_tensors["x"].shape[1], val_tensors["n_classes"])
    model.load_state_dict(state["model"])
    model.eval()
    with torch.no_grad():
        pred = model(torch.from_numpy(val_tensors["x"])).argmax(1).numpy()
    y = val_tensors["y"]
    acc = float((pred == y).mean())
    per = {s: float((pred[y == i] == i).mean()) for i, s in enumerate(val_tensors["species"]) if (y == i).any()}
    log.info("val accuracy %.3f over %d clips", acc, len(y))
    return {"val_accuracy": acc, "per_species_recall": per, "epochs": summary["epochs"]}


def create_pipeline(**kwargs) -> Pipeline:
    return pipeline([
        node(to_tensors, ["train_table", "species", "params:features"], "train_tensors", name="build_train_tensors"),
        node(to_tensors, ["val_table", "species", "params:features"], "val_tensors", name="build_val_tensors"),
        node(train_classifier, ["train_tensors", "val_tensors", "params:training"], "train_summary",
             name="train_classifier"),
        node(evaluate, ["val_tensors", "train_summary", "params:training"], "val_metrics", name="evaluate_model"),
    ])
