"""Pharmacy stockout predictor pipeline: prepare -> train -> evaluate -> export.

    doit                      # everything that is out of date
    doit epochs=5 port=29500  # options as NAME=VALUE
    doit list / doit info train / doit forget train
"""
import json
import logging
import pickle

from doit import get_var
from doit.tools import config_changed

import features

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

DOIT_CONFIG = {"default_tasks": ["export"], "action_string_formatting": "new"}

CFG = {
    "epochs": int(get_var("epochs", "3")),
    "micro_batch": int(get_var("micro_batch", "32")),
    "optimizer": get_var("optimizer", "adamw"),
    "lr": float(get_var("lr", "0.003")),
    "step_delay": float(get_var("step_delay", "0.02")),
    "pg_timeout": int(get_var("pg_timeout", "300")),
    "loader_workers": int(get_var("loader_workers", "0")),
    "oversample": int(get_var("oversample", "0")),
    "class_weights": get_var("class_weights", "0") == "1",
    "log_every": int(get_var("log_every", "20")),
}
PORT = get_var("port", "29500")
NNODES = get_var("nnodes", "1")
MAX_RESTARTS = get_var("max_restarts", "0")
RDZV = get_var("rdzv", "static")  # c10d: torchrun's dynamic rendezvous on 127.0.0.1:PORT
RESUME = get_var("resume", "0") == "1"
EXPORT_FORMAT = get_var("export_format", "torchscript")
GATE = 0.6


def task_prepare():
    """features and train/val split from the cabinet export"""
    return {
        "file_dep": ["data/usage.csv", "data/substitutes.csv", "features.py"],
        "targets": ["work/train.pkl", "work/val.pkl"],
        "actions": ["mkdir -p work",
                    (features.build, ["data/usage.csv", "data/substitutes.csv", "work/train.pkl", "work/val.pkl"])],
        "clean": True,
    }


def train_cmd():
    c = CFG
    if RDZV == "c10d":
        where = f"--rdzv_backend c10d --rdzv_endpoint 127.0.0.1:{PORT} --rdzv_id stockout"
    else:
        where = f"--node_rank 0 --master_addr 127.0.0.1 --master_port {PORT}"
    cmd = (f"torchrun --nnodes {NNODES} --nproc_per_node 2 {where} "
           f"--max_restarts {MAX_RESTARTS} --rdzv_conf timeout=60 train.py "
           f"--train work/train.pkl --val work/val.pkl --ckpt-dir checkpoints --epochs {c['epochs']} "
           f"--micro-batch {c['micro_batch']} --optimizer {c['optimizer']} --lr {c['lr']} "
           f"--step-delay {c['step_delay']} --pg-timeout {c['pg_timeout']} --loader-workers {c['loader_workers']} "
           f"--oversample {c['oversample']} --log-every {c['log_every']}")
    if c["class_weights"]:
        cmd += " --class-weights"
    if RESUME:
        cmd += " --resume"
    return cmd


def task_train():
    """2-process DDP training (torchrun, gloo)"""
    return {
        "file_dep": ["work/train.pkl", "work/val.pkl", "train.py"],
        "targets": ["checkpoints/last.pt", "checkpoints/summary.json"],
        "actions": [train_cmd()],
        "uptodate": [config_changed(CFG)],
        "verbosity": 2,
    }


def evaluate(targets):
    import torch

    from train import StockoutNet

    with open("work/val.pkl", "rb") as f:
        va = pickle.load(f)
    st = torch.load("checkpoints/last.pt", map_location="cpu")
    model = StockoutNet(va["x"].shape[1], va["n_classes"])
    model.load_state_dict(st["model"])
    model.eval()
    x, y = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    with torch.no_grad():
        pred = model(x).argmax(1)
    acc = (pred == y).float().mean().item()
    recall = {k: round(((pred == k) & (y == k)).sum().item() / max((y == k).sum().item(), 1), 3) for k in range(3)}
    report = {"val_accuracy": round(acc, 4), "recall": recall, "epoch": st["epoch"]}
    with open(targets[0], "w") as f:
        json.dump(report, f, indent=1)
    logging.getLogger("stockout.evaluate").info("val accuracy %.3f (gate %.2f), recall per class %s",
                                                acc, GATE, recall)
    return acc >= GATE


def task_evaluate():
    """accuracy gate on the validation split"""
    return {
        "file_dep": ["checkpoints/last.pt", "work/val.pkl"],
        "targets": ["reports/eval.json"],
        "actions": ["mkdir -p reports", (evaluate,)],
    }


def export(targets):
    import torch

    from train import StockoutNet

    st = torch.load("checkpoints/last.pt", map_location="cpu")
    model = StockoutNet(6, 3)
    model.load_state_dict(st["model"])
    model.eval()
    example = torch.zeros(1, 6)
    if EXPORT_FORMAT == "onnx":
        torch.onnx.export(model, (example,), targets[0], input_names=["features"], output_names=["logits"])
    else:
        torch.jit.trace(model, example).save(targets[0])
    logging.getLogger("stockout.export").info("exported %s (%s) for the ward dashboard", targets[0], EXPORT_FORMAT)


def task_export():
    """model for the ward dashboard"""
    return {
        "file_dep": ["checkpoints/last.pt", "reports/eval.json"],
        "targets": [f"export/stockout.{'onnx' if EXPORT_FORMAT == 'onnx' else 'pt'}"],
        "actions": ["mkdir -p export", (export,)],
        "verbosity": 2,
    }
