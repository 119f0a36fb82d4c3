"""CTR recommender trainer: a DLRM-style model (embedding tables for 8 categorical columns, a bottom MLP over 13
log-transformed dense counts, pairwise dot interactions, a top MLP; optional hashed cross features built by a small C
helper compiled at start-up), data-parallel on CPU over gloo.

Reads its rank from torchrun/deepspeed/accelerate (RANK, WORLD_SIZE, LOCAL_RANK), Open MPI (OMPI_COMM_WORLD_*) or
Slurm srun (SLURM_PROCID, SLURM_NTASKS); MASTER_ADDR/MASTER_PORT from the environment. Modes: plain DDP (default),
``--deepspeed-config FILE`` (deepspeed.initialize) or ``--accelerate`` (accelerate.Accelerator).

    python make_clicks.py --out data
    torchrun --nproc-per-node 2 ctr_train.py --data data --steps 300
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import faulthandler
import glob
import itertools
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def dist_env() -> tuple[int, int, int]:
    for r, w, l in (("RANK", "WORLD_SIZE", "LOCAL_RANK"),
                    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
                    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID")):
        if r in os.environ:
            if r == "SLURM_PROCID":  # the batch script exports the job's world size; srun gives the rank
                return int(os.environ[r]), int(os.environ.get("WORLD_SIZE", os.environ[w])), int(os.environ.get(l, 0))
            return int(os.environ[r]), int(os.environ[w]), int(os.environ.get(l, 0))
    return 0, 1, 0


def mlp(sizes: list[int], last_act: bool = True) -> nn.Sequential:
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or last_act:
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class DLRM(nn.Module):
    def __init__(self, table_sizes: list[int], dim: int, cross_buckets: int = 0) -> None:
        super().__init__()
        self.tables = nn.ModuleList(nn.EmbeddingBag(n, dim, mode="sum") for n in table_sizes)
        self.cross = nn.EmbeddingBag(cross_buckets, dim, mode="mean") if cross_buckets else None
        self.bottom = mlp([13, 256, 128, dim])
        nf = len(table_sizes) + 1 + (1 if cross_buckets else 0)
        self.top = mlp([nf * (nf - 1) // 2 + dim, 256, 128, 1], last_act=False)
        self.last_pooled = None

    def forward(self, dense, cats, cross=None):
        x = self.bottom(dense)
        embs = [t(cats[:, i:i + 1]) for i, t in enumerate(self.tables)]
        if self.cross is not None:
            embs.append(self.cross(cross))
        feats = torch.stack([x] + embs, dim=1)
        self.last_pooled = feats
        inter = torch.bmm(feats, feats.transpose(1, 2))
        iu = torch.triu_indices(feats.shape[1], feats.shape[1], offset=1)
        z = torch.cat([x, inter[:, iu[0], iu[1]]], dim=1)
        return self.top(z).squeeze(1)


def load_shards(files):
    d, c, y = [], [], []
    for f in files:
        z = np.load(f)
        d.append(z["dense"]), c.append(z["cats"]), y.append(z["label"])
    return (torch.from_numpy(np.concatenate(d)), torch.from_numpy(np.concatenate(c)),
            torch.from_numpy(np.concatenate(y)))


def build_cross_lib(log, rank):
    src = os.path.join(os.path.dirname(os.path.abspath(__file__)), "hashcross.c")
    so = os.path.join(os.path.dirname(src), f"build/libhashcross-rank{rank}.so")
    os.makedirs(os.path.dirname(so), exist_ok=True)
    cmd = ["cc", "-O2", "-shared", "-fPIC", "-o", so, src]
    log("building cross-feature helper: " + " ".join(cmd))
    subprocess.run(cmd, check=True)
    lib = ctypes.CDLL(so)
    lib.hash_cross.restype = ctypes.c_int64
    lib.hash_cross.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64, ctypes.c_int64, ctypes.c_void_p]
    return lib


def cross_ids(lib, cats: torch.Tensor, buckets: int) -> tuple[torch.Tensor, int]:
    cats = cats.contiguous()
    n, k = cats.shape
    out = torch.empty(n, k * (k - 1) // 2, dtype=torch.int64)
    coll = lib.hash_cross(cats.data_ptr(), n, k, buckets, out.data_ptr())
    return out, coll


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--dim", type=int, default=32)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--timeout-s", type=int, default=120)
    ap.add_argument("--cross-buckets", type=int, default=0)
    ap.add_argument("--tables-from-data", action="store_true",
                    help="size each embedding table from the largest id in this rank's shards (max id + 1)")
    ap.add_argument("--metrics-file", default="", help="append one JSON line per step (loss, lr, table stats)")
    ap.add_argument("--drift-monitor", action="store_true",
                    help="keep the pooled feature vectors of recent steps to report embedding drift at eval")
    ap.add_argument("--hot-index-passes", type=int, default=0,
                    help="rank 0 builds the hot feature-pair index over all train shards before training")
    ap.add_argument("--confirm-overwrite", action="store_true",
                    help="ask before writing into a checkpoint dir that holds another run's checkpoints")
    ap.add_argument("--nan-patience", type=int, default=3)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--deepspeed-config", default="")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--local_rank", type=int, default=0)
    args = ap.parse_args()

    faulthandler.enable()
    rank, world, local_rank = dist_env()
    torch.manual_seed(1234)
    torch.set_num_threads(1)
    host = socket.gethostname()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} | rank {rank}/{world} | {msg}", flush=True)

    state = {"step": 0}

    def on_term(signum, frame):
        log(f"caught {signal.Signals(signum).name} at step {state['step']}, saving {args.ckpt_dir}/last.pt before exit")
        if rank == 0:
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"step": state["step"]}, os.path.join(args.ckpt_dir, "last.pt"))
        sys.exit(143)

    signal.signal(signal.SIGTERM, on_term)
    log(f"host {host} pid {os.getpid()} local_rank {local_rank} master {os.environ.get('MASTER_ADDR')}:"
        f"{os.environ.get('MASTER_PORT')} torch {torch.__version__} numpy {np.__version__}")

    acc = None
    if args.accelerate:
        from accelerate import Accelerator, InitProcessGroupKwargs
        acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(
            backend="gloo", timeout=datetime.timedelta(seconds=args.timeout_s))])
        rank, world = acc.process_index, acc.num_processes
    elif args.deepspeed_config:
        import deepspeed
        os.environ.setdefault("RANK", str(rank))
        os.environ.setdefault("WORLD_SIZE", str(world))
        os.environ.setdefault("LOCAL_RANK", str(local_rank))
        deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=args.timeout_s))
    else:
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=args.timeout_s))
    log(f"process group ready: backend {dist.get_backend()}, world {dist.get_world_size()} "
        f"({time.time() - t0:.1f}s)")

    if args.confirm_overwrite and rank == 0:
        old = sorted(glob.glob(os.path.join(args.ckpt_dir, "step-*.pt")))
        if old:
            log(f"{args.ckpt_dir} already holds {len(old)} checkpoint(s) from another run (latest {old[-1]})")
            ans = input(f"overwrite checkpoints in {args.ckpt_dir}? [y/N] ")
            if ans.strip().lower() != "y":
                log("not overwriting; exiting")
                sys.exit(1)
    if args.confirm_overwrite:
        dist.barrier()

    meta = json.load(open(os.path.join(args.data, "meta.json")))
    train_files = sorted(glob.glob(os.path.join(args.data, "train-*.npz")))
    my_files = train_files[rank::world]
    dense, cats, label = load_shards(my_files)
    n = torch.tensor([len(label)])
    dist.all_reduce(n, op=dist.ReduceOp.MIN)
    dense, cats, label = dense[: int(n)], cats[: int(n)], label[: int(n)]
    vdense, vcats, vlabel = load_shards(sorted(glob.glob(os.path.join(args.data, "val-*.npz")))[rank::world] or
                                        sorted(glob.glob(os.path.join(args.data, "val-*.npz")))[:1])
    sizes = list(meta["table_sizes"])
    if args.tables_from_data:
        sizes = [int(cats[:, i].max()) + 1 for i in range(cats.shape[1])]
    log(f"{len(my_files)} train shards, {len(label)} rows (CTR {label.mean():.3f}), {len(vlabel)} val rows; "
        f"tables " + " ".join(f"{c}={s}" for c, s in zip(meta["categorical"], sizes)))

    lib = None
    if args.cross_buckets:
        lib = build_cross_lib(log, rank)
        _, coll = cross_ids(lib, cats[:2048], args.cross_buckets)
        log(f"cross features: {cats.shape[1] * (cats.shape[1] - 1) // 2} pairs into {args.cross_buckets} buckets, "
            f"{coll} collisions in the first 2048 rows")

    model = DLRM(sizes, args.dim, args.cross_buckets)
    nparams = sum(p.numel() for p in model.parameters())
    if acc is not None:
        opt = torch.optim.Adagrad(model.parameters(), lr=args.lr * 5)
        model, opt = acc.prepare(model, opt)
    elif args.deepspeed_config:
        import deepspeed
        model, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                                config=args.deepspeed_config)
    else:
        model = nn.parallel.DistributedDataParallel(model)
        opt = torch.optim.Adagrad(model.parameters(), lr=args.lr * 5)
    log(f"DLRM dim {args.dim}: {nparams / 1e6:.2f}M parameters ({sum(sizes)} embedding rows), "
        f"batch {args.batch}/rank x {world} ranks")

    if args.hot_index_passes and rank == 0:
        log(f"building hot feature-pair index over {len(train_files)} shards ({args.hot_index_passes} passes)")
        pairs = Counter()
        allc = load_shards(train_files)[1].numpy()
        rows = allc.tolist()
        for p in range(args.hot_index_passes):  # one pass per recency window: a row's pairs count once per window
            for row in rows[: len(rows) * (p + 1) // args.hot_index_passes]:
                pairs.update(itertools.combinations(row, 2))
            if (p + 1) % 10 == 0:
                log(f"hot index pass {p + 1}/{args.hot_index_passes}: {len(pairs)} pairs")
        log(f"hot index: {len(pairs)} distinct pairs, top {pairs.most_common(1)[0][1]} hits")

    def prep(d):
        return torch.log1p(d)

    os.makedirs(args.ckpt_dir, exist_ok=True)
    mf = open(args.metrics_file, "a") if args.metrics_file else None
    drift = []
    g = torch.Generator().manual_seed(rank)
    step, bad, tick, seen = 0, 0, time.time(), 0
    base = model.module if hasattr(model, "module") else model
    while step < args.steps:
        perm = torch.randperm(len(label), generator=g)
        for i in range(0, len(perm) - args.batch + 1, args.batch):
            idx = perm[i:i + args.batch]
            xd, xc, y = prep(dense[idx]), cats[idx], label[idx]
            cr = cross_ids(lib, xc, args.cross_buckets)[0] if lib else None
            logits = model(xd, xc, cr)
            loss = F.binary_cross_entropy_with_logits(logits, y)
            if args.drift_monitor:
                drift.append(base.last_pooled)
            if not torch.isfinite(loss):
                bad += 1
                log(f"step {step + 1}: non-finite loss {loss.item()} ({bad}/{args.nan_patience})")
                if bad >= args.nan_patience:
                    raise FloatingPointError(f"loss is {loss.item()} for {bad} consecutive steps at step {step + 1}")
            else:
                bad = 0
            if acc is not None:
                opt.zero_grad(set_to_none=True)
                acc.backward(loss)
                opt.step()
            elif args.deepspeed_config:
                model.backward(loss)
                model.step()
            else:
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
            step += 1
            state["step"] = step
            seen += len(y) * world
            if mf:
                rec = {"step": step, "rank": rank, "loss": loss.item(), "time": time.time(),
                       "tables": {c: {"rows_touched": int(xc[:, j].unique().numel()),
                                      "ids": xc[:, j].tolist()}
                                  for j, c in enumerate(meta["categorical"])}}
                mf.write(json.dumps(rec) + "\n")
                mf.flush()
            if step % args.log_every == 0 and rank == 0:
                rate = seen / (time.time() - tick)
                log(f"step {step}/{args.steps} loss {loss.item():.4f} ctr_pred {torch.sigmoid(logits).mean():.3f} "
                    f"{rate:.0f} rows/s")
                seen, tick = 0, time.time()
            if args.step_sleep:
                time.sleep(args.step_sleep)
            if step % args.eval_every == 0 or step == args.steps:
                evaluate(model, vdense, vcats, vlabel, prep, lib, args, rank, step, log, drift)
            if step % args.save_every == 0 or step == args.steps:
                if rank == 0:
                    path = os.path.join(args.ckpt_dir, f"step-{step:06d}.pt")
                    torch.save({"model": base.state_dict(), "step": step}, path)
                    log(f"saved {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
                dist.barrier()
            if step >= args.steps:
                break
    dist.barrier()
    log(f"done: {step} steps in {time.time() - t0:.0f}s")
    dist.destroy_process_group()


def evaluate(model, vd, vc, vy, prep, lib, args, rank, step, log, drift):
    model.eval()
    with torch.no_grad():
        cr = cross_ids(lib, vc, args.cross_buckets)[0] if lib else None
        logits = model(prep(vd), vc, cr)
        ll = F.binary_cross_entropy_with_logits(logits, vy, reduction="sum")
        acc = ((logits > 0).float() == vy).sum()
    t = torch.tensor([float(ll), float(acc), float(len(vy))], dtype=torch.float64)
    dist.all_reduce(t)
    if rank == 0:
        msg = f"eval step {step}: logloss {t[0] / t[2]:.4f} acc {t[1] / t[2]:.4f} ({int(t[2])} rows)"
        if args.drift_monitor and drift:
            msg += f"; pooled-feature drift {float((drift[-1].mean(0) - drift[0].mean(0)).norm()):.4f} over {len(drift)} steps"
        log(msg)
    model.train()


if __name__ == "__main__":
    main()
