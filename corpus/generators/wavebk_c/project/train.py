"""Data-parallel training of a small MLP classifier on CPU with mpi4py: every rank computes gradients on its shard,
the gradients are averaged with one MPI Allreduce per step (Horovod style), rank 0 logs and checkpoints.

    mpirun -np N python -m mpi4py train.py --config configs/base.json [overrides]
"""
import argparse
import ctypes
import glob
import json
import logging
import math
import os
import socket
import struct
import sys
import time
import urllib.request

import numpy as np
import torch
from mpi4py import MPI

comm = MPI.COMM_WORLD
rank, world = comm.Get_rank(), comm.Get_size()
logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                    format=f"%(asctime)s %(levelname)s [rank {rank}] %(name)s: %(message)s")
log = logging.getLogger("train")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--lr", type=float)
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--global-batch-size", type=int)
    ap.add_argument("--hidden-size", type=int)
    ap.add_argument("--layers", type=int)
    ap.add_argument("--ckpt-dir")
    ap.add_argument("--ckpt-every", type=int)
    ap.add_argument("--keep-last", type=int)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--metrics-url")
    ap.add_argument("--log-every", type=int)
    a = ap.parse_args()
    with open(a.config) as f:
        cfg = json.load(f)
    for k, v in vars(a).items():
        if k not in ("config", "resume") and v is not None:
            cfg[k.replace("-", "_")] = v
    cfg["resume"] = a.resume
    return cfg


class PackedShard:
    """Reads records from a packed float32 shard through the fastpack native helper."""

    def __init__(self, path, lib="./libfastpack.so"):
        with open(path, "rb") as f:
            self.buf = f.read()
        magic, self.rows, self.dim, _ = struct.unpack_from("<4sIII", self.buf, 0)
        if magic != b"FPK1":
            raise ValueError(f"{path}: not a packed shard")
        self.offsets = np.frombuffer(self.buf, dtype=np.int64, count=self.rows, offset=16)
        self.cbuf = ctypes.create_string_buffer(self.buf, len(self.buf))
        self.lib = ctypes.CDLL(lib)
        self.lib.fp_gather.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_void_p]

    def gather(self, idx, dim):
        idx = np.ascontiguousarray(idx, dtype=np.int64)
        out = np.empty((len(idx), dim), dtype=np.float32)
        self.lib.fp_gather(ctypes.addressof(self.cbuf), self.offsets.ctypes.data, idx.ctypes.data, len(idx), dim,
                           out.ctypes.data)
        return out


def build(cfg, classes):
    layers, d = [], cfg["in_features"]
    for _ in range(cfg["layers"]):
        layers += [torch.nn.Linear(d, cfg["hidden_size"]), torch.nn.ReLU()]
        d = cfg["hidden_size"]
    layers.append(torch.nn.Linear(d, classes))
    return torch.nn.Sequential(*layers)


def allreduce_grads(model):
    grads = [p.grad for p in model.parameters()]
    flat = torch.cat([g.reshape(-1) for g in grads]).numpy()
    comm.Allreduce(MPI.IN_PLACE, flat, op=MPI.SUM)
    flat /= world
    i = 0
    for g in grads:
        n = g.numel()
        g.copy_(torch.from_numpy(flat[i:i + n]).view_as(g))
        i += n


def push_metrics(url, payload):
    try:
        req = urllib.request.Request(url, data=json.dumps(payload).encode(), headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req, timeout=2).read()
    except Exception:
        log.exception("metrics push to %s failed; keeping %d points buffered, will retry", url, 1)


def save(cfg, model, opt, step, epoch):
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    path = os.path.join(cfg["ckpt_dir"], f"step_{step:06d}.pt")
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step, "epoch": epoch}, path)
    old = sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "step_*.pt")))[:-cfg["keep_last"]]
    for p in old:
        os.remove(p)
    log.info("saved checkpoint %s (%.1f MB)", path, os.path.getsize(path) / 2**20)


def main():
    cfg = parse()
    torch.manual_seed(cfg["seed"])
    t0 = time.time()
    log.info("host %s pid %d: rank %d of %d, MPI %s, torch %s", socket.gethostname(), os.getpid(), rank, world,
             ".".join(map(str, MPI.Get_version())), torch.__version__)
    if rank == 0:
        log.info("%s", MPI.Get_library_version().rstrip("\x00").splitlines()[0])
        log.info("config: %s", json.dumps(cfg, sort_keys=True))
    gbs = cfg["global_batch_size"]
    if gbs % world != 0:
        raise ValueError(f"global_batch_size {gbs} is not divisible by the number of ranks {world}")
    mbs = gbs // world

    shard = PackedShard(cfg["data"])
    with open(cfg["labels"]) as f:
        labels_all = [int(v) for v in f.read().split()]
    mine = np.arange(rank, shard.rows, world)
    labels = torch.tensor([labels_all[i] for i in mine])
    classes = cfg["num_classes"]
    if classes == "auto":
        classes = int(labels.max()) + 1
    n_val = len(mine) // 8
    val_idx, tr_idx = mine[:n_val], mine[n_val:]
    log.info("shard: %d train / %d val records of dim %d, %d classes, micro batch %d", len(tr_idx), n_val,
             cfg["in_features"], classes, mbs)

    model = build(cfg, classes)
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log.info("model: %d layers, hidden %d, %.2fM params", cfg["layers"], cfg["hidden_size"], nparams / 1e6)
    start_step, start_epoch = 0, 0
    if cfg["resume"]:
        ckpts = sorted(glob.glob(os.path.join(cfg["ckpt_dir"], "step_*.pt")))
        if ckpts:
            state = torch.load(ckpts[-1], weights_only=True)
            model.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            start_step, start_epoch = state["step"], state["epoch"]
            log.info("resumed from %s (step %d, epoch %d)", ckpts[-1], start_step, start_epoch)
        else:
            log.warning("--resume given but no checkpoint in %s; starting from scratch", cfg["ckpt_dir"])
    # broadcast the initial weights from rank 0
    for p in model.parameters():
        buf = p.data.numpy()
        comm.Bcast(buf, root=0)
    comm.Barrier()

    steps_per_epoch = len(tr_idx) // mbs
    total = steps_per_epoch * cfg["epochs"]
    lab_pos = {int(i): k for k, i in enumerate(mine)}
    step = start_step
    lossf = torch.nn.CrossEntropyLoss()
    for epoch in range(start_epoch, cfg["epochs"]):
        rng = np.random.default_rng(cfg["seed"] + epoch * 1000 + rank)
        order = rng.permutation(tr_idx)
        first = step - epoch * steps_per_epoch
        for k in range(first, steps_per_epoch):
            idx = order[k * mbs:(k + 1) * mbs]
            x = torch.from_numpy(shard.gather(idx, cfg["in_features"]))
            y = labels[[lab_pos[int(i)] for i in idx]]
            opt.zero_grad()
            loss = lossf(model(x), y)
            loss.backward()
            allreduce_grads(model)
            opt.step()
            step += 1
            lval = comm.allreduce(loss.item(), op=MPI.SUM) / world
            if step % cfg["log_every"] == 0:
                print(f"[rank {rank}] epoch {epoch} step {step}/{total} local_loss {loss.item():.4f}", flush=True)
                if rank == 0:
                    log.info("step %d/%d loss %.4f lr %.2e elapsed %.1fs", step, total, lval, cfg["lr"],
                             time.time() - t0)
            if not math.isfinite(lval):
                log.error("loss is %s at step %d (epoch %d); stopping", lval, step, epoch)
                raise FloatingPointError(f"non-finite loss {lval} at step {step}")
            if rank == 0 and step % cfg["ckpt_every"] == 0:
                save(cfg, model, opt, step, epoch)
            if rank == 0 and cfg.get("metrics_url") and step % cfg["ckpt_every"] == 0:
                push_metrics(cfg["metrics_url"], {"step": step, "loss": lval})
            time.sleep(cfg["step_sleep"])
        # validation
        with torch.no_grad():
            xv = torch.from_numpy(shard.gather(val_idx, cfg["in_features"]))
            yv = labels[[lab_pos[int(i)] for i in val_idx]]
            pred = model(xv).argmax(1)
            correct = comm.allreduce(int((pred == yv).sum()), op=MPI.SUM)
            count = comm.allreduce(len(yv), op=MPI.SUM)
            recalls = []
            for c in range(classes):
                m = yv == c
                recalls.append(float((pred[m] == c).float().mean()) if m.any() else float("nan"))
        if rank == 0:
            log.info("epoch %d done: val_acc %.4f per_class_recall %s", epoch, correct / count,
                     " ".join(f"{r:.2f}" for r in recalls))
    if rank == 0:
        save(cfg, model, opt, step, cfg["epochs"] - 1)
        log.info("training finished: %d steps in %.1fs", step, time.time() - t0)
    print(f"[rank {rank}] done", flush=True)


if __name__ == "__main__":
    main()
