#!/usr/bin/env python
"""Click-through-rate model with a parameter server over torch.distributed.rpc.

Rank 0 is the parameter server ("ps"): it owns the embedding tables (users, items, contexts; Adagrad rows updated
from pushed sparse gradients) and the dense tower (an MLP behind an RRef, trained by every trainer's
DistributedOptimizer with distributed autograd). It drives the epochs: each epoch it asks every trainer to run over
its shard (rpc_async), then scores the validation set (AUC, log-loss) and saves the embedding tables.
Ranks 1.. are trainers ("trainer1", ...): each step they fetch the rows of their batch from the server, run the
tower remotely inside a distributed autograd context, step the tower's optimizer and push the rows' gradients.

Launch with torchrun (RANK/WORLD_SIZE/MASTER_* from the launcher), with --spawn N (torch.multiprocessing.spawn), or
start every role yourself with MASTER_ADDR/MASTER_PORT/RANK/WORLD_SIZE set (run_roles.sh).
"""
import argparse
import json
import math
import os
import sys
import threading
import time

import numpy as np
import torch
import torch.distributed.autograd as dist_autograd
import torch.distributed.rpc as rpc
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.optim import DistributedOptimizer
from torch.distributed.rpc import RRef

FIELDS = ("user", "item", "ctx")


def parse(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--data", default="data")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=256, help="per trainer")
    p.add_argument("--dim", type=int, default=16, help="embedding width")
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--lr", type=float, default=0.05, help="dense tower SGD learning rate")
    p.add_argument("--emb-lr", type=float, default=0.05, help="embedding Adagrad learning rate")
    p.add_argument("--max-norm", type=float, default=0.0, help="renormalise pushed embedding rows to this norm")
    p.add_argument("--shared-weights", action="store_true",
                   help="serve tower requests on the live weights instead of a per-request copy (less memory)")
    p.add_argument("--table-scale", type=int, default=1, help="reserve this many times the vocab rows per table")
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--keep", type=int, default=0, help="embedding snapshots kept (0: all)")
    p.add_argument("--resume", default="", help="embedding snapshot to start from")
    p.add_argument("--rpc-timeout", type=float, default=60.0, help="seconds; 0 for none")
    p.add_argument("--rpc-threads", type=int, default=16)
    p.add_argument("--log-every", type=int, default=25)
    p.add_argument("--fast-auc", action="store_true", help="validation AUC with the C helper libfastauc.so")
    p.add_argument("--spawn", type=int, default=0, help="start N processes with torch.multiprocessing.spawn")
    p.add_argument("--port", type=int, default=0, help="MASTER_PORT for --spawn")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


# ----------------------------------------------------------------------------------------------- parameter server
class EmbeddingServer:
    def __init__(self, vocab, dim, lr, max_norm, scale, seed):
        g = torch.Generator().manual_seed(seed)
        self.tables = {f: torch.randn(vocab[f] * scale, dim, generator=g) * 0.05 for f in FIELDS}
        self.accum = {f: torch.full_like(t, 0.1) for f, t in self.tables.items()}
        self.lr, self.max_norm = lr, max_norm
        self.lock = threading.Lock()
        self.pushes = 0

    def rows(self):
        return sum(t.shape[0] for t in self.tables.values())

    def lookup(self, user, item, ctx):
        with self.lock:
            return torch.cat([self.tables[f][ids] for f, ids in zip(FIELDS, (user, item, ctx))], 1)

    def push(self, user, item, ctx, grad):
        d = grad.shape[1] // len(FIELDS)
        with self.lock:
            for k, (f, ids) in enumerate(zip(FIELDS, (user, item, ctx))):
                g = grad[:, k * d:(k + 1) * d]
                self.accum[f].index_add_(0, ids, g * g)
                self.tables[f].index_add_(0, ids, -self.lr * g / self.accum[f][ids].sqrt())
            self.pushes += 1
            if self.max_norm:
                self._renorm(user, item, ctx)

    def _renorm(self, user, item, ctx):
        with self.lock:
            for f, ids in zip(FIELDS, (user, item, ctx)):
                t = self.tables[f]
                t[ids] = torch.renorm(t[ids], 2, 0, self.max_norm)

    def state(self):
        with self.lock:
            return {f: t.clone() for f, t in self.tables.items()}

    def load(self, tables):
        with self.lock:
            for f in FIELDS:
                self.tables[f][: tables[f].shape[0]] = tables[f]


class DenseTower(nn.Module):
    def __init__(self, n_in, hidden, copy_weights=True):
        super().__init__()
        self.copy_weights = copy_weights
        self.net = nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Linear(hidden, hidden // 2), nn.ReLU(),
                                 nn.Linear(hidden // 2, 1))
        self.lock = threading.Lock()

    def forward(self, x):
        if not self.copy_weights:
            return self.net(x)
        # trainers step the tower while others are still in backward: each request works on its own copy of the
        # weights (the copies' gradients still flow into the parameters)
        with self.lock:
            params = {n: p.clone() for n, p in self.net.named_parameters()}
        return torch.func.functional_call(self.net, params, (x,))

    def param_rrefs(self):
        return [RRef(p) for p in self.parameters()]


def auc_logloss(y, p):
    order = np.argsort(p, kind="mergesort")
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y.sum()
    auc = (ranks[y == 1].sum() - pos * (pos + 1) / 2) / (pos * (len(y) - pos))
    pc = np.clip(p, 1e-7, 1 - 1e-7)
    return auc, float(-(y * np.log(pc) + (1 - y) * np.log(1 - pc)).mean())


def fast_auc(y, p):
    import ctypes
    lib = ctypes.CDLL(os.path.abspath("libfastauc.so"))
    lib.auc_by_buckets.restype = ctypes.c_double
    lib.auc_by_buckets.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_long]
    p32, y32 = np.ascontiguousarray(p, np.float32), np.ascontiguousarray(y, np.float32)
    return lib.auc_by_buckets(p32.ctypes.data, y32.ctypes.data, len(p32))


def evaluate(server, tower, val, fast=False):
    with torch.no_grad():
        rows = server.lookup(val["user"], val["item"], val["ctx"])
        p = torch.sigmoid(tower(torch.cat([rows, val["dense"]], 1)).squeeze(1)).numpy()
    auc, ll = auc_logloss(val["label"].numpy(), p)
    if fast:
        auc = fast_auc(val["label"].numpy(), p)
    return auc, ll


def run_ps(a, world):
    meta = json.load(open(os.path.join(a.data, "meta.json")))
    vocab = {"user": meta["users"], "item": meta["items"], "ctx": meta["contexts"]}
    trainers = [f"trainer{r}" for r in range(1, world)]
    if a.batch_size <= 0:
        raise ValueError(f"--batch-size must be positive, got {a.batch_size}")
    server = EmbeddingServer(vocab, a.dim, a.emb_lr, a.max_norm, a.table_scale, a.seed)
    tower = DenseTower(3 * a.dim + meta["dense"], a.hidden, copy_weights=not a.shared_weights)
    mb = sum(t.numel() * 4 for t in server.tables.values()) / 2 ** 20
    print(f"[ps] embedding tables: " + ", ".join(f"{f} {tuple(t.shape)}" for f, t in server.tables.items())
          + f" ({mb:.1f} MiB, Adagrad state {mb:.1f} MiB)", flush=True)
    print(f"[ps] dense tower: {sum(p.numel() for p in tower.parameters())} parameters; trainers: {', '.join(trainers)}",
          flush=True)
    if a.resume:
        snap = torch.load(a.resume)
        server.load(snap["tables"])
        tower.load_state_dict(snap["tower"])
        print(f"[ps] resumed from {a.resume} (epoch {snap['epoch']}, val auc {snap['val_auc']:.4f})", flush=True)
    v = np.load(os.path.join(a.data, "val.npz"))
    val = {k: torch.from_numpy(v[k]) for k in v.files}
    server_rref, tower_rref = RRef(server), RRef(tower)
    os.makedirs(a.ckpt_dir, exist_ok=True)
    saved = []
    t0 = time.time()
    for epoch in range(1, a.epochs + 1):
        te = time.time()
        futs = [rpc.rpc_async(t, train_epoch, args=(server_rref, tower_rref, epoch, vars(a)), timeout=0)
                for t in trainers]
        results = [f.wait() for f in futs]
        steps = sum(r["steps"] for r in results)
        loss = sum(r["loss"] * r["steps"] for r in results) / max(steps, 1)
        auc, ll = evaluate(server, tower, val, a.fast_auc)
        print(f"[ps] epoch {epoch}/{a.epochs}: {steps} steps, {server.pushes} pushes, train loss {loss:.4f}, "
              f"val auc {auc:.4f}, val logloss {ll:.4f} ({time.time() - te:.1f} s)", flush=True)
        if not math.isfinite(loss):
            print(f"[ps] train loss is {loss} after epoch {epoch}; not saving, stopping", flush=True)
            return 3
        path = os.path.join(a.ckpt_dir, f"embeddings-epoch{epoch:03d}.pt")
        torch.save({"epoch": epoch, "tables": server.state(), "tower": tower.state_dict(), "val_auc": float(auc),
                    "vocab": vocab}, path)
        saved.append(path)
        print(f"[ps] saved embedding tables to {path} ({os.path.getsize(path) / 2 ** 20:.1f} MiB)", flush=True)
        while a.keep and len(saved) > a.keep:
            os.remove(saved.pop(0))
    print(f"[ps] finished {a.epochs} epochs in {time.time() - t0:.1f} s", flush=True)
    return 0


# ------------------------------------------------------------------------------------------------------ trainers
_SHARD = {}
ARGS = None  # this process's own command line (a trainer reads its shard from its own --data)


def load_shard(data, rank, world):
    if not _SHARD:
        meta = json.load(open(os.path.join(data, "meta.json")))
        files = [os.path.join(data, f"shard-{s:02d}.npz") for s in range(meta["shards"]) if s % (world - 1) == rank - 1]
        parts = [np.load(f) for f in files]
        for k in ("user", "item", "ctx", "dense", "label"):
            _SHARD[k] = torch.from_numpy(np.concatenate([p[k] for p in parts]))
        print(f"[trainer{rank}] loaded {', '.join(os.path.basename(f) for f in files)}: {len(_SHARD['label'])} "
              f"impressions, click rate {_SHARD['label'].mean():.3f}", flush=True)
    return _SHARD


def train_epoch(server_rref, tower_rref, epoch, cfg):
    me = rpc.get_worker_info()
    rank, world = me.id, int(os.environ["WORLD_SIZE"])
    d = load_shard(ARGS.data if ARGS else cfg["data"], rank, world)
    opt = DistributedOptimizer(torch.optim.SGD, tower_rref.rpc_sync().param_rrefs(), lr=cfg["lr"])
    g = torch.Generator().manual_seed(cfg["seed"] * 1000 + epoch * 10 + rank)
    order = torch.randperm(len(d["label"]), generator=g)
    bs = cfg["batch_size"]
    steps = len(order) // bs
    total, pending, t0 = 0.0, [], time.time()
    for step in range(1, steps + 1):
        idx = order[(step - 1) * bs: step * bs]
        u, i, c = d["user"][idx], d["item"][idx], d["ctx"][idx]
        with dist_autograd.context() as ctx_id:
            rows = server_rref.rpc_sync().lookup(u, i, c).requires_grad_()
            logit = tower_rref.rpc_sync().forward(torch.cat([rows, d["dense"][idx]], 1)).squeeze(1)
            loss = F.binary_cross_entropy_with_logits(logit, d["label"][idx])
            dist_autograd.backward(ctx_id, [loss])
            grad = dist_autograd.get_gradients(ctx_id)[rows]
            opt.step(ctx_id)
        pending.append(server_rref.rpc_async().push(u, i, c, grad))
        if len(pending) > 4:
            pending.pop(0).wait()
        total += loss.item()
        if step % cfg["log_every"] == 0 or step == steps:
            print(f"[trainer{rank}] epoch {epoch} step {step}/{steps} loss {loss.item():.4f} "
                  f"({step * bs / (time.time() - t0):.0f} impressions/s)", flush=True)
    for f in pending:
        f.wait()
    return {"steps": steps, "loss": total / max(steps, 1)}


# ------------------------------------------------------------------------------------------------------ process
def worker(rank, world, a):
    name = "ps" if rank == 0 else f"trainer{rank}"
    opts = rpc.TensorPipeRpcBackendOptions(num_worker_threads=a.rpc_threads, rpc_timeout=a.rpc_timeout)
    print(f"[{name}] init_rpc rank {rank}/{world} via {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
          flush=True)
    rpc.init_rpc(name, rank=rank, world_size=world, rpc_backend_options=opts)
    print(f"[{name}] rpc ready: {', '.join(w.name for w in rpc._get_current_rpc_agent().get_worker_infos())}",
          flush=True)
    rc = 0
    if rank == 0:
        rc = run_ps(a, world)
    rpc.shutdown()
    print(f"[{name}] rpc shut down", flush=True)
    return rc


def _spawned(rank, world, a):
    global ARGS
    ARGS = a
    os.environ["RANK"], os.environ["WORLD_SIZE"] = str(rank), str(world)
    rc = worker(rank, world, a)
    if rc:
        sys.exit(rc)


def main():
    global ARGS
    a = ARGS = parse()
    torch.manual_seed(a.seed)
    if a.spawn:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ["MASTER_PORT"] = str(a.port or os.environ.get("MASTER_PORT", 29500))
        print("args: " + " ".join(f"{k}={v}" for k, v in vars(a).items()), flush=True)
        import torch.multiprocessing as mp
        mp.spawn(_spawned, args=(a.spawn, a), nprocs=a.spawn, join=True)
        return 0
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    if rank == 0:
        print("args: " + " ".join(f"{k}={v}" for k, v in vars(a).items()), flush=True)
    return worker(rank, world, a)


if __name__ == "__main__":
    sys.exit(main())
