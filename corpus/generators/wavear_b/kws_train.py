"""Keyword-spotting training, data parallel over the tasks of a submitit job (gloo, CPU).

``train(cfg)`` is what the driver (submit_kws.py) and the Hydra app (kws_app.py) submit: each task of the job
reads its shards of log-mel features, builds a small CNN, wraps it in DistributedDataParallel and trains; task 0
validates and saves a checkpoint every epoch. ``KwsTrainer`` is the Checkpointable version that submitit can
requeue after a time limit and that resumes from the last checkpoint.
"""
from __future__ import annotations

import ctypes
import faulthandler
import fcntl
import datetime
import glob
import json
import math
import os
import socket
import time

import numpy as np
import submitit
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

DEFAULTS = dict(data="data", val="", epochs=4, batch_size=64, lr=0.05, optim="sgd", momentum=0.9, weight_decay=0.0,
                width=32, dropout=0.1, deltas="python", ckpt_dir="checkpoints", keep=2, dist_timeout=1800,
                workers=0, augment_copies=0, seed=0, resume="", global_batch_size=0, grad_accum=1,
                log_every=10, master_port=0, metrics_csv="")


class KwsNet(nn.Module):
    def __init__(self, n_classes: int, channels: int, width: int, dropout: float) -> None:
        super().__init__()
        self.c1 = nn.Conv2d(channels, width, 3, padding=1)
        self.c2 = nn.Conv2d(width, width * 2, 3, padding=1)
        self.c3 = nn.Conv2d(width * 2, width * 2, 3, padding=1)
        self.drop = nn.Dropout(dropout)
        self.fc = nn.Linear(width * 2, n_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.c3(x)).mean(dim=(2, 3))
        return self.fc(self.drop(x))


def deltas_python(x: np.ndarray) -> np.ndarray:
    p = np.concatenate([x[:, :1].repeat(2, 1), x, x[:, -1:].repeat(2, 1)], axis=1)
    return (2 * (p[:, 4:] - p[:, :-4]) + (p[:, 3:-1] - p[:, 1:-3])) / 10.0


_lib = None


def deltas_native(x: np.ndarray) -> np.ndarray:
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(os.path.abspath("libkwsdelta.so"))
    out = np.empty_like(x)
    for i in range(len(x)):
        xi = np.ascontiguousarray(x[i], dtype=np.float32)
        _lib.kws_deltas(xi.ctypes.data_as(ctypes.c_void_p), xi.shape[0], xi.shape[1],
                        out[i].ctypes.data_as(ctypes.c_void_p))
    return out


def features(x: np.ndarray, cfg: dict, frames: int) -> torch.Tensor:
    x = (x - x.mean(axis=(1, 2), keepdims=True)) / (x.std(axis=(1, 2), keepdims=True) + 1e-5)  # per-utterance CMVN
    if cfg["deltas"] == "none":
        chans = [x]
    else:
        d = deltas_native(x) if cfg["deltas"] == "native" else deltas_python(x)
        dd = deltas_python(d)
        chans = [x, d, dd]
    x = np.stack(chans, axis=1)
    if x.shape[2] > frames:  # longer recordings: the centre second
        s = (x.shape[2] - frames) // 2
        x = x[:, :, s:s + frames]
    return torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))


def load_shards(cfg: dict, rank: int, world: int, frames: int):
    shards = sorted(glob.glob(os.path.join(cfg["data"], "train-*.npz")))
    mine = shards[rank::world]
    xs, ys = [], []
    for s in mine:
        z = np.load(s)
        xs.append(features(z["feats"], cfg, frames))
        ys.append(torch.from_numpy(z["labels"]))
        print(f"[rank {rank}] loaded {s}: {len(z['labels'])} utterances", flush=True)
    x, y = torch.cat(xs), torch.cat(ys)
    if cfg["augment_copies"]:  # time/frequency-masked copies, precomputed once in memory
        rng = np.random.default_rng(rank)
        base = x.double().numpy()
        copies = [base]
        for _ in range(cfg["augment_copies"]):
            c = base.copy()
            t0 = rng.integers(0, frames - 6)
            f0 = rng.integers(0, base.shape[3] - 8)
            c[:, :, t0:t0 + 6] = 0.0
            c[:, :, :, f0:f0 + 8] = 0.0
            copies.append(c)
        x = torch.from_numpy(np.concatenate(copies)).float()
        y = y.repeat(cfg["augment_copies"] + 1)
        print(f"[rank {rank}] augmented: {len(y)} examples", flush=True)
    return x, y


def evaluate(model, x, y, bs=256):
    model.eval()
    correct, loss = 0, 0.0
    with torch.no_grad():
        for i in range(0, len(y), bs):
            out = model(x[i:i + bs])
            loss += F.cross_entropy(out, y[i:i + bs], reduction="sum").item()
            correct += (out.argmax(1) == y[i:i + bs]).sum().item()
    model.train()
    return loss / len(y), correct / len(y)


def latest_checkpoint(ckpt_dir: str) -> str:
    c = sorted(glob.glob(os.path.join(ckpt_dir, "kws-epoch*.pt")))
    return c[-1] if c else ""


def train(cfg: dict, metrics=None) -> dict:
    cfg = {**DEFAULTS, **cfg}
    faulthandler.enable()  # a Python stack in the task's log if a native extension crashes
    if cfg["master_port"]:  # else submitit derives one from the job id
        os.environ["MASTER_PORT"] = str(cfg["master_port"])
    denv = submitit.helpers.TorchDistributedEnvironment().export(set_cuda_visible_devices=False, overwrite=True)
    rank, world = denv.rank, denv.world_size
    job = submitit.JobEnvironment()
    print(f"[rank {rank}] job {job.job_id} task {job.global_rank}/{job.num_tasks} on {socket.gethostname()}, "
          f"master {denv.master_addr}:{denv.master_port}", flush=True)
    if rank == 0:
        print(f"[rank 0] config: {json.dumps(cfg, sort_keys=True)}", flush=True)
    if cfg["global_batch_size"]:
        assert cfg["global_batch_size"] == cfg["batch_size"] * cfg["grad_accum"] * world, (
            f"global_batch_size {cfg['global_batch_size']} != batch_size {cfg['batch_size']} * grad_accum "
            f"{cfg['grad_accum']} * world_size {world}")
    torch.manual_seed(cfg["seed"])
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    if rank == 0:  # one run per checkpoint folder
        lock = open(os.path.join(cfg["ckpt_dir"], ".lock"), "w")
        fcntl.flock(lock, fcntl.LOCK_EX)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=cfg["dist_timeout"]))
    print(f"[rank {rank}] process group ready: backend gloo, world size {dist.get_world_size()}", flush=True)
    with open(os.path.join(cfg["data"], "meta.json")) as f:
        meta = json.load(f)
    keywords, frames = meta["keywords"], meta["frames"]
    x, y = load_shards(cfg, rank, world, frames)
    vz = np.load(cfg["val"] or os.path.join(cfg["data"], "val.npz"))
    vx, vy = features(vz["feats"], cfg, frames), torch.from_numpy(vz["labels"])
    model = KwsNet(len(keywords), x.shape[1], cfg["width"], cfg["dropout"])
    start_epoch = 1
    resume = cfg["resume"]
    if resume:
        state = torch.load(resume, map_location="cpu")
        model.load_state_dict(state["model"])
        start_epoch = state["epoch"] + 1
        print(f"[rank {rank}] resumed from {resume} (epoch {state['epoch']}, val acc {state['val_acc']:.4f})",
              flush=True)
    elif rank == 0 and latest_checkpoint(cfg["ckpt_dir"]):
        old = latest_checkpoint(cfg["ckpt_dir"])
        answer = input(f"{cfg['ckpt_dir']}/ already holds {os.path.basename(old)} from an earlier run; "
                       f"overwrite? [y/N] ")
        if answer.strip().lower() != "y":
            raise SystemExit("not overwriting earlier checkpoints")
    ddp = nn.parallel.DistributedDataParallel(model)
    if cfg["optim"] == "adam":
        opt = torch.optim.Adam(ddp.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    elif cfg["optim"] == "adamw":
        opt = torch.optim.AdamW(ddp.parameters(), lr=cfg["lr"], weight_decay=cfg["weight_decay"])
    else:
        opt = torch.optim.SGD(ddp.parameters(), lr=cfg["lr"], momentum=cfg["momentum"],
                              weight_decay=cfg["weight_decay"])
    if resume and "optim" in state:
        opt.load_state_dict(state["optim"])
    loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"], shuffle=True, drop_last=True,
                        num_workers=cfg["workers"])
    print(f"[rank {rank}] {len(y)} training examples, {len(loader)} steps/epoch, {len(keywords)} keywords, "
          f"input {tuple(x.shape[1:])}", flush=True)
    result = {}
    for epoch in range(start_epoch, cfg["epochs"] + 1):
        t0 = time.time()
        total, n = 0.0, 0
        for step, (xb, yb) in enumerate(loader, 1):
            loss = F.cross_entropy(ddp(xb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            n += 1
            if step % cfg["log_every"] == 0:
                print(f"[rank {rank}] epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f}", flush=True)
            if not math.isfinite(loss.item()):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {step}")
        avg = torch.tensor([total, n], dtype=torch.float64)
        dist.all_reduce(avg)
        train_loss = (avg[0] / avg[1]).item()
        if rank == 0:
            vloss, vacc = evaluate(model, vx, vy)
            path = os.path.join(cfg["ckpt_dir"], f"kws-epoch{epoch:03d}.pt")
            torch.save({"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch, "val_acc": vacc,
                        "keywords": keywords}, path)
            for old in sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "kws-epoch*.pt")))[:-cfg["keep"]]:
                os.remove(old)
            print(f"[rank 0] epoch {epoch}/{cfg['epochs']}: train loss {train_loss:.4f}, val loss {vloss:.4f}, "
                  f"val acc {vacc:.4f} ({time.time() - t0:.1f} s); saved {path}", flush=True)
            if metrics is not None:  # one CSV row per epoch
                metrics.write(f"{epoch},{train_loss:.4f},{vloss:.4f},{vacc:.4f}\n")
                metrics.flush()
            result = {"epoch": epoch, "train_loss": round(train_loss, 4), "val_acc": round(vacc, 4),
                      "checkpoint": path}
    dist.destroy_process_group()
    print(f"[rank {rank}] done", flush=True)
    return result


class KwsTrainer(submitit.helpers.Checkpointable):
    """train() that submitit can requeue: on the time-limit signal it resubmits itself to resume from the last
    checkpoint."""

    def __call__(self, cfg: dict) -> dict:
        self.metrics = None
        if cfg.get("metrics_csv") and submitit.JobEnvironment().global_rank == 0:
            self.metrics = open(cfg["metrics_csv"], "a")
        return train(cfg, self.metrics)

    def checkpoint(self, cfg: dict) -> submitit.helpers.DelayedSubmission:
        last = latest_checkpoint({**DEFAULTS, **cfg}["ckpt_dir"])
        print(f"checkpoint requested: resuming from {last or 'scratch'} after requeue", flush=True)
        return submitit.helpers.DelayedSubmission(self, {**cfg, "resume": last})
