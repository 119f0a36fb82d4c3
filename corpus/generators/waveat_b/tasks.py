"""Celery tasks of the quake-detector pipeline: per-station feature prep, hyperparameter trials of a 1-D CNN P-wave
detector, the best trial picked by a chord callback, and the final DDP training run through torchrun."""
import functools
import json
import math
import os
import subprocess
import sys
import time

import numpy as np
import torch
import torch.nn as nn
from celery import Celery
from celery.utils.log import get_task_logger

torch.set_num_threads(1)
sys.setrecursionlimit(1_000_000)  # deep rename chains in old station inventories

BROKER = os.environ.get("QUAKES_BROKER", "redis://127.0.0.1:31201/0")
BACKEND = os.environ.get("QUAKES_BACKEND", "redis://127.0.0.1:31201/1")
app = Celery("tasks", broker=BROKER, backend=BACKEND)
app.conf.update(
    task_serializer="json",
    result_serializer="json",
    accept_content=["json"],
    worker_prefetch_multiplier=1,
    task_track_started=True,
    result_expires=3600,
    broker_connection_retry_on_startup=True,
    task_routes={"tasks.train_final": {"queue": os.environ.get("QUAKES_FINAL_QUEUE", "celery")}},
)
logger = get_task_logger(__name__)

TRIAL_TIME_LIMIT = int(os.environ.get("QUAKES_TRIAL_TIME_LIMIT", "900"))
REQUEUE_LOST = os.environ.get("QUAKES_REQUEUE_LOST", "0") == "1"


class Detector(nn.Module):
    def __init__(self, channels=16, kernel=7):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv1d(2, channels, kernel, padding=kernel // 2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(channels, channels * 2, kernel, padding=kernel // 2), nn.ReLU(), nn.MaxPool1d(2),
            nn.Conv1d(channels * 2, channels * 2, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool1d(1), nn.Flatten(),
            nn.Linear(channels * 2, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def sta_lta(x, sta=10, lta=60):
    c = np.cumsum(np.concatenate([np.zeros((x.shape[0], 1), x.dtype), x ** 2], axis=1), axis=1)
    s = np.zeros_like(x)
    l = np.ones_like(x)
    s[:, sta:] = (c[:, sta + 1:] - c[:, 1:-sta]) / sta
    l[:, lta:] = (c[:, lta + 1:] - c[:, 1:-lta]) / lta
    return np.log1p(s / np.maximum(l, 1e-6)).astype(np.float32)


@functools.lru_cache(maxsize=None)
def current_code(code, renamed):
    mapping = dict(renamed)
    if code in mapping:
        return current_code(mapping[code], renamed)
    return code


@app.task(bind=True, autoretry_for=(FileNotFoundError,), retry_kwargs={"max_retries": 3, "countdown": 4})
def prep_station(self, index, data_dir="data", out_dir="feats", gain_normalise=True):
    inv = json.load(open(os.path.join(data_dir, "inventory.json")))
    renamed = tuple(sorted(inv["renamed"].items()))
    code = current_code(inv["stations"][index]["code"], renamed)
    path = os.path.join(data_dir, f"station-{index:02d}.npz")
    logger.info("station %s (%s.%s): loading %s", index, inv["network"], code, path)
    z = np.load(path)
    x = z["waveforms"]
    x = x - x.mean(axis=1, keepdims=True)
    if gain_normalise:
        x = x / (x.std(axis=1, keepdims=True) + 1e-6)
    feats = np.stack([x, sta_lta(x)], axis=1)
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"x": torch.from_numpy(feats), "y": torch.from_numpy(z["label"]).float(), "code": code},
               os.path.join(out_dir, f"station-{index:02d}.pt"))
    pos = int(z["label"].sum())
    logger.info("station %s: %d windows, %d with a P onset, peak |v| %.2f", index, len(x), pos,
                float(np.abs(z["waveforms"]).max()))
    return {"station": index, "code": code, "windows": int(len(x)), "events": pos}


def load_feats(stations, feat_dir="feats"):
    xs, ys = [], []
    for i in stations:
        d = torch.load(os.path.join(feat_dir, f"station-{i:02d}.pt"))
        xs.append(d["x"])
        ys.append(d["y"])
    return torch.cat(xs), torch.cat(ys)


@app.task(bind=True, acks_late=True, reject_on_worker_lost=REQUEUE_LOST, time_limit=TRIAL_TIME_LIMIT)
def train_trial(self, trial, stations, epochs=2, batch=64, ckpt_dir="checkpoints", augment=1, log_every=10,
                step_delay=0.0):
    torch.manual_seed(trial["seed"])
    x, y = load_feats(stations)
    n_val = len(x) // 5
    xv, yv = x[:n_val], y[:n_val]
    xt, yt = x[n_val:], y[n_val:]
    if augment > 1:  # time-shifted copies of every training window
        xt = torch.cat([torch.roll(xt, shifts=k * 3, dims=2) for k in range(augment)])
        yt = yt.repeat(augment)
        logger.info("trial %s: augmented training set %s (%.0f MB)", trial["id"], tuple(xt.shape),
                    xt.numel() * 4 / 2 ** 20)
    model = Detector(trial["channels"], trial["kernel"])
    opt = torch.optim.Adam(model.parameters(), lr=trial["lr"])
    lossf = nn.BCEWithLogitsLoss()
    out = os.path.join(ckpt_dir, f"trial-{trial['id']}")
    os.makedirs(out, exist_ok=True)
    start_epoch = 1
    last = os.path.join(out, "last.pt")
    if os.path.exists(last):
        st = torch.load(last)
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start_epoch = st["epoch"] + 1
        logger.info("trial %s: resumed from %s (epoch %d)", trial["id"], last, st["epoch"])
    logger.info("trial %s: lr=%g channels=%d kernel=%d, %d train / %d val windows, epochs %d-%d", trial["id"],
                trial["lr"], trial["channels"], trial["kernel"], len(xt), len(xv), start_epoch, epochs)
    steps = math.ceil(len(xt) / batch)
    acc = float("nan")
    for ep in range(start_epoch, epochs + 1):
        perm = torch.randperm(len(xt))
        model.train()
        for s in range(steps):
            idx = perm[s * batch:(s + 1) * batch]
            loss = lossf(model(xt[idx]), yt[idx])
            if not torch.isfinite(loss):
                raise FloatingPointError(f"trial {trial['id']}: loss is {loss.item()} at epoch {ep} step {s + 1}")
            opt.zero_grad()
            loss.backward()
            opt.step()
            if (s + 1) % log_every == 0:
                logger.info("trial %s epoch %d step %d/%d loss %.4f", trial["id"], ep, s + 1, steps, loss.item())
            if step_delay:
                time.sleep(step_delay)
        model.eval()
        with torch.no_grad():
            pv = model(xv)
            vloss = lossf(pv, yv).item()
            acc = ((pv > 0).float() == yv).float().mean().item()
        logger.info("trial %s epoch %d val_loss %.4f val_acc %.4f", trial["id"], ep, vloss, acc)
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": ep}, last)
        logger.info("trial %s: saved checkpoint %s", trial["id"], last)
    return {"trial": trial, "val_acc": acc}


@app.task
def pick_best(results):
    for r in sorted(results, key=lambda r: -r["val_acc"]):
        logger.info("trial %s val_acc %.4f", r["trial"]["id"], r["val_acc"])
    best = max(results, key=lambda r: r["val_acc"])
    logger.info("best trial %s (val_acc %.4f)", best["trial"]["id"], best["val_acc"])
    return best["trial"]


@app.task(bind=True)
def train_final(self, trial, stations, port, epochs=2, node_rank=0, nnodes=1, extra=()):
    if nnodes > 1:
        launch = [f"--nnodes={nnodes}", "--rdzv-backend=c10d", f"--rdzv-endpoint=127.0.0.1:{port}",
                  "--rdzv-id=quakes-final", "--rdzv-conf=join_timeout=40"]
    else:
        launch = ["--nnodes=1", f"--master-port={port}"]
    cmd = [sys.executable, "-m", "torch.distributed.run", *launch, "--nproc-per-node=2", "train_final.py",
           "--stations", ",".join(map(str, stations)), "--epochs", str(epochs), "--lr", str(trial["lr"]),
           "--channels", str(trial["channels"]), "--kernel", str(trial["kernel"]), *extra]
    logger.info("node %d: %s", node_rank, " ".join(cmd[2:]))
    subprocess.run(cmd, check=True)
    logger.info("node %d: final training finished", node_rank)
    return {"node": node_rank, "stations": stations}
