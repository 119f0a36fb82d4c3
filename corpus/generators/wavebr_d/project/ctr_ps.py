"""ctr-ps: click-through-rate model for the recommendations feed, trained with PyTorch's RPC framework.

Rank 0 is the parameter server ("ps"): it holds the sparse embedding tables (users, items, item categories) and
serves lookups over RPC (TensorPipe). Every other rank is a trainer ("trainerN"): it reads its click-log shards, looks
the sparse features up on the ps with rpc_sync inside a distributed-autograd context, runs the dense tower (wrapped in
DDP over a gloo group of the trainers), backpropagates with dist_autograd and steps a DistributedOptimizer that updates
both the ps tables and the local tower. trainer1 checkpoints both (the ps writes its tables itself, over RPC).
Start on every host with torchrun (MASTER_ADDR/MASTER_PORT from it)."""
from __future__ import annotations

import argparse
import importlib.util
import io
import json
import logging
import math
import os
import socket
import threading
import time
from pathlib import Path

import pandas as pd
import torch
import torch.distributed as dist
import torch.distributed.autograd as dist_autograd
import torch.distributed.rpc as rpc
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.optim import DistributedOptimizer
from torch.nn.parallel import DistributedDataParallel as DDP

log = logging.getLogger("ctr_ps")
META = json.loads(Path("data/meta.json").read_text())


# ---------------------------------------------------------------- parameter server side
class EmbeddingTables(nn.Module):
    def __init__(self, dim: int, user_rows: int = 0):
        super().__init__()
        self.users = nn.Embedding(user_rows or META["users"], dim)
        self.items = nn.Embedding(META["items"], dim)
        self.cats = nn.EmbeddingBag(META["categories"], dim, mode="mean")
        for e in (self.users, self.items, self.cats):
            nn.init.normal_(e.weight, std=0.05)

    def forward(self, users, items, cats, offsets):
        return torch.cat([self.users(users), self.items(items), self.cats(cats, offsets)], dim=1)


_TABLES: EmbeddingTables | None = None
_SERVED = [0, 0]  # lookups, rows
_LOCK = threading.Lock()


def ps_lookup(users, items, cats, offsets):
    with _LOCK:
        _SERVED[0] += 1
        _SERVED[1] += len(users)
    return _TABLES(users, items, cats, offsets)


def ps_param_rrefs():
    return [rpc.RRef(p) for p in _TABLES.parameters()]


def ps_save(ckpt_dir: str, step: int, keep: int) -> int:
    """Serialise the tables and write them atomically (tmp file, then rename); keep the newest ``keep``."""
    t0 = time.time()
    d = Path(ckpt_dir)
    d.mkdir(parents=True, exist_ok=True)
    buf = io.BytesIO()
    torch.save({"step": step, "tables": _TABLES.state_dict()}, buf)
    tmp = d / f".ps-tables-step{step:05d}.pt.tmp"
    with open(tmp, "wb") as f:
        f.write(buf.getbuffer())
    tmp.rename(d / f"ps-tables-step{step:05d}.pt")
    old = sorted(d.glob("ps-tables-step*.pt"))[:-keep]
    for p in old:
        p.unlink()
    log.info("wrote embedding tables to %s/ps-tables-step%05d.pt (%.1f MB, %.2f s)", ckpt_dir, step,
             buf.getbuffer().nbytes / 2**20, time.time() - t0)
    return buf.getbuffer().nbytes


def ps_stats():
    with _LOCK:
        return tuple(_SERVED)


# ---------------------------------------------------------------- trainer side
class DenseTower(nn.Module):
    def __init__(self, emb_dim: int, hidden: int):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(3 * emb_dim + META["dense_features"], hidden), nn.ReLU(),
                                 nn.Linear(hidden, hidden // 2), nn.ReLU(), nn.Linear(hidden // 2, 1))

    def forward(self, x):
        return self.net(x).squeeze(1)


def load_transform():
    p = Path("data/transforms.py")
    if not p.exists():
        return None
    spec = importlib.util.spec_from_file_location("transforms", p)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    log.info("using the dense feature transform from %s", p)
    return mod.transform


class ClickShards:
    def __init__(self, idx: int, n_trainers: int, batch: int, seed: int):
        parts = list(range(idx, META["shards"], n_trainers))
        self.parts = parts
        cols = {k: [] for k in ("users", "items", "cats", "lens", "dense", "clicked")}
        for k in parts:
            s = torch.load(f"data/clicks-part-{k:02d}.pt")
            for c in cols:
                cols[c].append(s[c])
        self.c = {c: torch.cat(v) for c, v in cols.items()}
        self.starts = torch.cat([torch.zeros(1, dtype=torch.long), self.c["lens"].cumsum(0)[:-1]])
        n = len(self.c["users"])
        self.holdout = torch.arange(n - 1000, n)
        self.train = torch.arange(0, n - 1000)
        self.batch = batch
        self.g = torch.Generator().manual_seed(seed)
        empty = int((self.c["lens"] == 0).sum())
        if empty:
            log.warning("shards %s: %d impressions without categories (empty bags embed as zeros)", parts, empty)

    def rows(self, idx):
        lens = self.c["lens"][idx]
        cats = torch.cat([self.c["cats"][s:s + l] for s, l in zip(self.starts[idx].tolist(), lens.tolist())])
        offsets = torch.cat([torch.zeros(1, dtype=torch.long), lens.cumsum(0)[:-1]])
        return (self.c["users"][idx], self.c["items"][idx], cats, offsets, self.c["dense"][idx],
                self.c["clicked"][idx])

    def __iter__(self):
        while True:
            perm = self.train[torch.randperm(len(self.train), generator=self.g)]
            for i in range(0, len(perm) - self.batch + 1, self.batch):
                yield self.rows(perm[i:i + self.batch])


def evaluate(tower, data, metrics, group, transform):
    with torch.no_grad():
        u, it, c, off, dense, y = data.rows(data.holdout)
        if transform:
            dense = transform(dense)
        emb = rpc.rpc_sync("ps", ps_lookup, args=(u, it, c, off))
        logits = tower(torch.cat([emb, dense], 1))
        p = torch.sigmoid(logits)
        vals = [float(len(y))]
        for m in metrics:
            if m == "logloss":
                vals.append(float(F.binary_cross_entropy_with_logits(logits, y, reduction="sum")))
            elif m == "acc":
                vals.append(float(((p > 0.5).float() == y).sum()))
            elif m == "ctr":
                vals.append(float(p.sum()))
            elif m == "calibration":  # per decile of predicted CTR: impressions, predicted clicks, clicks
                b = (p * 10).long().clamp(max=9)
                for stat in (torch.ones_like(p), p, y):
                    vals.extend(torch.zeros(10, dtype=torch.float64).index_add_(0, b, stat.double()).tolist())
    t = torch.tensor(vals, dtype=torch.float64)
    dist.all_reduce(t, group=group)
    out, i = {}, 1
    for m in metrics:
        if m == "calibration":
            n, pred, clk = t[i:i + 10], t[i + 10:i + 20], t[i + 20:i + 30]
            out["calib_gap"] = float(((pred - clk).abs().sum() / t[0]).item())
            i += 30
        else:
            out[m] = t[i].item() / t[0].item()
            i += 1
    return out


def train(args, rank: int, world: int, trainers) -> None:
    n_tr = world - 1
    me = rank - 1
    data = ClickShards(me, n_tr, args.batch, seed=1000 + rank)
    log.info("trainer%d: shards %s, %d train / %d holdout impressions, batch %d", rank, data.parts,
             len(data.train), len(data.holdout), args.batch)
    torch.manual_seed(0)
    tower = DenseTower(args.emb_dim, args.hidden)
    ckpt = Path(args.ckpt_dir)
    start = 0
    if args.resume and (ckpt / "latest.json").exists():
        latest = json.loads((ckpt / "latest.json").read_text())
        start = latest["step"]
        tower.load_state_dict(torch.load(ckpt / latest["tower"]))
        log.info("trainer%d: resumed the dense tower from %s (step %d)", rank, ckpt / latest["tower"], start)
    model = DDP(tower, process_group=trainers)
    remote = rpc.rpc_sync("ps", ps_param_rrefs)
    params = remote + [rpc.RRef(p) for p in model.parameters()]
    opt_cls = {"adagrad": torch.optim.Adagrad, "sgd": torch.optim.SGD}[args.optim]
    opt = DistributedOptimizer(opt_cls, params, lr=args.lr)
    log.info("trainer%d: DistributedOptimizer(%s, lr=%g) over %d remote + %d local parameters", rank,
             opt_cls.__name__, args.lr, len(remote), len(params) - len(remote))
    transform = load_transform()
    metrics = args.eval_metrics.split(",")
    it = iter(data)
    t0, seen, run_loss, history = time.time(), 0, 0.0, []
    for step in range(start + 1, args.max_steps + 1):
        u, itm, c, off, dense, y = next(it)
        if transform:
            dense = transform(dense)
        with dist_autograd.context() as ctx:
            emb = rpc.rpc_sync("ps", ps_lookup, args=(u, itm, c, off))
            logits = model(torch.cat([emb, dense], 1))
            loss = F.binary_cross_entropy_with_logits(logits, y)
            if not torch.isfinite(loss):
                log.error("trainer%d: loss is %s at step %d (logits range %.3g..%.3g)", rank, loss.item(), step,
                          logits.min().item(), logits.max().item())
                raise FloatingPointError(f"Loss is {loss.item()} at step {step}; stopping: check the learning rate")
            dist_autograd.backward(ctx, [loss])
            opt.step(ctx)
        seen += len(y)
        run_loss += loss.item()
        if step % args.log_every == 0:
            dt = time.time() - t0
            log.info("trainer%d step %d/%d loss %.4f  %.0f impressions/s", rank, step, args.max_steps,
                     run_loss / args.log_every, seen / dt, )
            t0, seen, run_loss = time.time(), 0, 0.0
        if step % args.eval_every == 0:
            res = evaluate(model, data, metrics, trainers, transform)
            if rank == 1:
                log.info("eval @ step %d: %s", step, "  ".join(f"{k} {v:.4f}" for k, v in res.items()))
                history.append({"step": step, **res})
        if step % args.ckpt_every == 0 and rank == 1:
            size = rpc.rpc_sync("ps", ps_save, args=(args.ckpt_dir, step, args.keep))
            name = f"tower-step{step:05d}.pt"
            torch.save(tower.state_dict(), ckpt / name)
            (ckpt / "latest.json").write_text(json.dumps({"step": step, "tower": name,
                                                          "tables": f"ps-tables-step{step:05d}.pt"}))
            log.info("saved checkpoint %s/step-%d (ps tables %.1f MB + dense tower)", ckpt, step, size / 2**20)
    dist.barrier(group=trainers)
    if rank == 1:
        res = evaluate(model, data, metrics, trainers, transform)
        lookups, rows = rpc.rpc_sync("ps", ps_stats)
        log.info("training complete: %d steps, final %s; the ps served %d lookups (%d rows)", args.max_steps,
                 "  ".join(f"{k} {v:.4f}" for k, v in res.items()), lookups, rows)
        pd.DataFrame(history).to_csv(ckpt / "eval_history.csv", index=False)
    else:
        evaluate(model, data, metrics, trainers, transform)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--emb-dim", type=int, default=16)
    ap.add_argument("--user-rows", type=int, default=0, help="user table rows (0: one per user in the data)")
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--optim", default="adagrad", choices=("adagrad", "sgd"))
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--eval-metrics", default="logloss,acc")
    ap.add_argument("--ckpt-every", type=int, default=50)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--rpc-timeout", type=float, default=60)
    args = ap.parse_args()

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    name = "ps" if rank == 0 else f"trainer{rank}"
    host = socket.gethostname()
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s {host} {name} %(levelname)s %(name)s: %(message)s")
    log.info("%s (rank %d of %d) starting on %s, torch %s, master %s:%s", name, rank, world, host,
             torch.__version__, os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"])
    torch.set_num_threads(1)
    dist.init_process_group("gloo")
    trainers = dist.new_group(list(range(1, world)))
    opts = rpc.TensorPipeRpcBackendOptions(num_worker_threads=8, rpc_timeout=args.rpc_timeout)
    rpc.init_rpc(name, rank=rank, world_size=world, rpc_backend_options=opts)
    log.info("%s: RPC up (TensorPipe), %d workers: %s", name, world,
             ", ".join(w.name for w in sorted(rpc._get_current_rpc_agent().get_worker_infos(), key=lambda w: w.id)))
    if rank == 0:
        global _TABLES
        torch.manual_seed(0)
        _TABLES = EmbeddingTables(args.emb_dim, args.user_rows)
        ckpt = Path(args.ckpt_dir)
        if args.resume and (ckpt / "latest.json").exists():
            latest = json.loads((ckpt / "latest.json").read_text())
            sd = torch.load(ckpt / latest["tables"])
            _TABLES.load_state_dict(sd["tables"])
            log.info("ps: resumed embedding tables from %s (step %d)", ckpt / latest["tables"], sd["step"])
        n = sum(p.numel() for p in _TABLES.parameters())
        log.info("ps: serving embedding tables users %d x %d, items %d x %d, categories %d x %d (%.2f M parameters)",
                 _TABLES.users.num_embeddings, args.emb_dim, META["items"], args.emb_dim, META["categories"], args.emb_dim, n / 1e6)
    dist.barrier()  # the tables exist before any trainer asks for them
    if rank != 0:
        train(args, rank, world, trainers)
    log.info("%s: waiting for all workers in rpc.shutdown()", name)
    rpc.shutdown()
    if rank == 0:
        log.info("ps: served %d lookups (%d rows); shut down", *_SERVED)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
