"""DLRM-style click-through-rate recommender trained with table-wise sharded embedding tables.

Each rank owns the embedding tables t with t % world == rank (model parallel); the dense bottom/top MLPs are data
parallel (DDP, or accelerate's prepare, or a DeepSpeed engine). Per step: the ranks all-gather their batches'
categorical ids, look up their own tables for every rank's samples and send the pooled vectors back with an
all_to_all; the dot-product feature interaction and the top MLP then run on the rank's own samples.
"""
import argparse
import datetime
import faulthandler
import fcntl
import glob
import json
import math
import os
import socket
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, HTTPServer

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dnn
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--emb-dim", type=int, default=16)
ap.add_argument("--table-rows", type=int, default=4096, help="hash buckets per table (0: one row per raw id)")
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--emb-lr", type=float, default=0.05)
ap.add_argument("--dense-transform", choices=("log1p", "none"), default="log1p")
ap.add_argument("--eval-every", type=int, default=100)
ap.add_argument("--save-every", type=int, default=150)
ap.add_argument("--save-dir", default="ckpt")
ap.add_argument("--export-dir", default="", help="write each rank's tables (raw float32) for the serving index at the end")
ap.add_argument("--timeout-s", type=int, default=1800)
ap.add_argument("--metrics-port", type=int, default=0, help="rank 0 serves /metrics on this port")
ap.add_argument("--cache", action="store_true", help="build/use a per-shard id cache under data/.cache (file lock)")
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--local_rank", type=int, default=-1)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--grad-accum", type=int, default=0, help="override the DeepSpeed config's gradient_accumulation_steps")
ap.add_argument("--keep-partial", action="store_true", help="train on each epoch's last, partial batch too")
ap.add_argument("--skip-bad-rows", action="store_true", help="drop rows that do not parse (with a warning)")
args = ap.parse_args()


def env_rank():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
                 ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ.get("WORLD_SIZE") or os.environ[w])
    return 0, 1


accelerator = None
timeout = datetime.timedelta(seconds=args.timeout_s)
if args.accelerate:
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    accelerator = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=timeout)])
    rank, world = accelerator.process_index, accelerator.num_processes
elif args.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
else:
    rank, world = env_rank()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    print(f"[rank{rank}] init_process_group(gloo) world {world} master "
          f"{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']} on {socket.gethostname()}", flush=True)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)
torch.manual_seed(1234)
os.makedirs("pids", exist_ok=True)
open(f"pids/rank{rank}.pid", "w").write(str(os.getpid()))


def log(msg, all_ranks=False):
    if all_ranks or rank == 0:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank{rank}] {msg}", flush=True)


log("config " + json.dumps({k: v for k, v in vars(args).items() if k != "local_rank"}))
meta = json.load(open(os.path.join(args.data, "meta.json")))
T, ND = meta["tables"], meta["dense"]
mine = [t for t in range(T) if t % world == rank]
log(f"world {world}, {T} tables sharded table-wise, dim {args.emb_dim}; rank {rank} owns tables {mine}", True)


def read_tsv(path):
    rows, bad = [], []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            p = line.rstrip("\n").split("\t")
            try:
                rows.append([int(p[0])] + [int(x) for x in p[1:1 + ND]] + [int(x, 16) for x in p[1 + ND:]])
            except ValueError as e:
                if not args.skip_bad_rows:
                    raise
                bad.append((n, e))
    if bad:
        log(f"WARNING: skipped {len(bad)} malformed row(s) in {os.path.basename(path)}; first: line {bad[0][0]}: "
            f"ValueError: {bad[0][1]}", True)
    return np.asarray(rows, dtype=np.int64)


def load_shard(path):
    if path.endswith(".bin"):
        return np.memmap(path, dtype=np.int64, mode="r").reshape(-1, 1 + ND + T)
    if args.cache:
        os.makedirs(os.path.join(args.data, ".cache"), exist_ok=True)
        cpath = os.path.join(args.data, ".cache", os.path.basename(path) + ".npy")
        with open(os.path.join(args.data, ".cache", "lock"), "w") as lk:
            fcntl.flock(lk, fcntl.LOCK_EX)
            if not os.path.exists(cpath):
                np.save(cpath, read_tsv(path))
            fcntl.flock(lk, fcntl.LOCK_UN)
        return np.load(cpath)
    return read_tsv(path)


ext = meta["format"]
shards = sorted(glob.glob(os.path.join(args.data, f"day-*.{ext}")))
my_shards = shards[rank::world]
log(f"shards {[os.path.basename(s) for s in my_shards]}", True)
parts = [load_shard(s) for s in my_shards]
n_rows = sum(len(p) for p in parts)
log(f"{n_rows} training rows", True)
eval_rows = load_shard(os.path.join(args.data, f"eval.{ext}"))
eval_rows = eval_rows[rank::world]


def featurize(rows):
    rows = np.asarray(rows)
    y = torch.from_numpy(rows[:, 0].astype(np.float32))
    d = rows[:, 1:1 + ND].astype(np.float64)
    d = np.log1p(np.maximum(d, 0)) if args.dense_transform == "log1p" else d
    c = rows[:, 1 + ND:]
    if args.table_rows:
        c = c % args.table_rows
    return y, torch.from_numpy(d.astype(np.float32)), torch.from_numpy(c.astype(np.int64))


rows_per_table = args.table_rows or (2 ** 32)
tables = nn.ModuleList([nn.EmbeddingBag(rows_per_table, args.emb_dim, mode="sum") for _ in mine])
for e in tables:
    nn.init.uniform_(e.weight, -0.05, 0.05)
mb = sum(e.weight.numel() * 4 for e in tables) / 2 ** 20
log(f"embedding shard: {len(mine)} tables x {rows_per_table} rows x {args.emb_dim} = {mb:.1f} MiB", True)


class Dense(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.bottom = nn.Sequential(nn.Linear(ND, 64), nn.ReLU(), nn.Linear(64, d), nn.ReLU())
        n_int = (T + 1) * T // 2
        self.top = nn.Sequential(nn.Linear(d + n_int, 128), nn.ReLU(), nn.Linear(128, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, dense, pooled):  # pooled: [B, T, d]
        x = self.bottom(dense)
        z = torch.cat([x[:, None], pooled], 1)
        inter = torch.bmm(z, z.transpose(1, 2))
        i, j = torch.triu_indices(T + 1, T + 1, 1)
        return self.top(torch.cat([x, inter[:, i, j]], 1)).squeeze(1)


dense_model = Dense(args.emb_dim)
n_dense = sum(p.numel() for p in dense_model.parameters())
emb_opt = torch.optim.Adagrad(tables.parameters(), lr=args.emb_lr)
engine = None
if accelerator is not None:
    opt = torch.optim.Adam(dense_model.parameters(), lr=args.lr)
    dense_model, opt = accelerator.prepare(dense_model, opt)
elif args.deepspeed:
    import deepspeed
    opt = torch.optim.Adam(dense_model.parameters(), lr=args.lr)
    cfg = json.load(open(args.ds_config)) if args.ds_config else {
        "train_micro_batch_size_per_gpu": args.batch, "gradient_accumulation_steps": 1, "steps_per_print": 100}
    if args.grad_accum:
        cfg["gradient_accumulation_steps"] = args.grad_accum
    log(f"deepspeed config {json.dumps(cfg)}")
    engine, opt, _, _ = deepspeed.initialize(model=dense_model, optimizer=opt, config=cfg)
    dense_model = engine
else:
    dense_model = nn.parallel.DistributedDataParallel(dense_model)
    opt = torch.optim.Adam(dense_model.parameters(), lr=args.lr)
log(f"dense MLPs {n_dense} parameters (data parallel), optimizer Adam lr {args.lr}; embeddings Adagrad lr {args.emb_lr}")

if args.metrics_port and rank == 0:
    class Metrics(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"rec_step %d\n" % STATE["step"])

    STATE = {"step": 0}
    srv = HTTPServer(("0.0.0.0", args.metrics_port), Metrics)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    log(f"metrics exporter on :{args.metrics_port}/metrics")


def lookup(cats):
    """cats: this rank's [B, T] ids. Returns [B, T, d] pooled vectors (sharded tables, all_to_all)."""
    B = cats.shape[0]
    gathered = [torch.empty_like(cats) for _ in range(world)]
    dist.all_gather(gathered, cats)
    allc = torch.cat(gathered)  # [world*B, T]
    outs = [tables[k](allc[:, t:t + 1]) for k, t in enumerate(mine)]  # each [world*B, d]
    send = torch.stack(outs, 1) if outs else allc.new_zeros(world * B, 0, args.emb_dim).float()
    send = send.reshape(world, -1).reshape(-1)  # per destination rank: its B samples x my tables
    owned = [len([t for t in range(T) if t % world == r]) for r in range(world)]
    in_splits = [B * len(mine) * args.emb_dim] * world
    out_splits = [B * owned[r] * args.emb_dim for r in range(world)]
    recv = dnn.all_to_all_single(torch.empty(sum(out_splits)), send, out_splits, in_splits)
    pieces = recv.split(out_splits)
    pooled = torch.empty(B, T, args.emb_dim)
    cols = []
    for r in range(world):
        ts = [t for t in range(T) if t % world == r]
        cols.append((ts, pieces[r].reshape(B, len(ts), args.emb_dim)))
    order = [None] * T
    for ts, block in cols:
        for k, t in enumerate(ts):
            order[t] = block[:, k]
    return torch.stack(order, 1)


def auc(y, p):
    o = np.argsort(p)
    y = y[o]
    npos = y.sum()
    nneg = len(y) - npos
    ranks = np.arange(1, len(y) + 1)
    return float((ranks[y == 1].sum() - npos * (npos + 1) / 2) / max(npos * nneg, 1))


def evaluate(step):
    dense_model.eval()
    ys, ps, tot = [], [], 0.0
    n = len(eval_rows)
    nb = torch.tensor([math.ceil(n / args.batch)])
    dist.all_reduce(nb, op=dist.ReduceOp.MAX)
    with torch.no_grad():
        for b in range(int(nb)):
            chunk = eval_rows[b * args.batch:(b + 1) * args.batch]
            if len(chunk) < args.batch:  # keep every rank's all_to_all the same size: pad with row 0
                chunk = np.concatenate([chunk, np.repeat(eval_rows[:1], args.batch - len(chunk), 0)])
            y, d, c = featurize(chunk)
            p = dense_model(d, lookup(c))
            k = min(args.batch, max(n - b * args.batch, 0))
            ys.append(y[:k].numpy())
            ps.append(torch.sigmoid(p[:k]).numpy())
            tot += F.binary_cross_entropy_with_logits(p[:k], y[:k], reduction="sum").item()
    y, p = np.concatenate(ys), np.concatenate(ps)
    stats = torch.tensor([tot, len(y), y.sum(), p.sum()], dtype=torch.float64)
    dist.all_reduce(stats)
    log(f"eval step {step}: logloss {stats[0] / stats[1]:.4f} | AUC(rank0 slice) {auc(y, p):.4f} | "
        f"ctr {stats[2] / stats[1]:.4f} | mean pred {stats[3] / stats[1]:.4f} | {int(stats[1])} rows")
    dense_model.train()


def save(step):
    os.makedirs(args.save_dir, exist_ok=True)
    path = os.path.join(args.save_dir, f"step-{step:06d}-emb-rank{rank}.pt")
    torch.save({"step": step, "tables": mine, "state": tables.state_dict(), "opt": emb_opt.state_dict()}, path)
    if rank == 0:
        m = dense_model.module if hasattr(dense_model, "module") else dense_model
        torch.save({"step": step, "dense": m.state_dict(), "opt": opt.state_dict()},
                   os.path.join(args.save_dir, f"step-{step:06d}-dense.pt"))
    dist.barrier()
    log(f"saved checkpoint {args.save_dir}/step-{step:06d}-* ({world} embedding shards + dense)")


offsets = np.cumsum([0] + [len(p) for p in parts])


class Rows:  # the rank's shards as one table; memmapped shards are read batch by batch
    def __len__(self):
        return int(offsets[-1])

    def __getitem__(self, idx):
        k = np.searchsorted(offsets, idx, side="right") - 1
        return np.stack([parts[a][i - offsets[a]] for a, i in zip(k, idx)])


data = Rows()
rng = np.random.default_rng(rank)
steps_per_epoch = math.ceil(len(data) / args.batch) if args.keep_partial else len(data) // args.batch
log(f"training {args.steps} steps, batch {args.batch} per rank ({args.batch * world} global), "
    f"{steps_per_epoch} steps per epoch on rank 0's shards")
t0, seen, run_loss, epoch = time.time(), 0, 0.0, 0
perm = rng.permutation(len(data))
for step in range(1, args.steps + 1):
    i = (step - 1) % steps_per_epoch
    if i == 0 and step > 1:
        epoch += 1
        perm = rng.permutation(len(data))
        log(f"epoch {epoch} begins")
    y, d, c = featurize(data[np.sort(perm[i * args.batch:(i + 1) * args.batch])])
    logits = dense_model(d, lookup(c))
    loss = F.binary_cross_entropy_with_logits(logits, y)
    opt.zero_grad()
    emb_opt.zero_grad()
    if engine is not None:
        engine.backward(loss)
        engine.step()
    elif accelerator is not None:
        accelerator.backward(loss)
        opt.step()
    else:
        loss.backward()
        opt.step()
    emb_opt.step()
    if args.metrics_port and rank == 0:
        STATE["step"] = step
    run_loss += loss.item()
    seen += len(y) * world
    if args.step_sleep:
        time.sleep(args.step_sleep)
    if step % args.log_every == 0:
        dt = time.time() - t0
        log(f"step {step}/{args.steps} | epoch {epoch} | loss {run_loss / args.log_every:.4f} | "
            f"{seen / dt:.0f} samples/s | emb-lr {args.emb_lr} | lr {args.lr:.1e}")
        run_loss = 0.0
    if step % args.eval_every == 0:
        evaluate(step)
    if args.save_every and step % args.save_every == 0:
        save(step)
if args.export_dir:
    os.makedirs(args.export_dir, exist_ok=True)
    for k, t in enumerate(mine):
        with open(os.path.join(args.export_dir, f"table-C{t + 1}.f32"), "wb") as f: f.write(tables[k].weight.detach().numpy().tobytes())
        log(f"exported table C{t + 1} ({tables[k].weight.shape[0]} x {args.emb_dim}) to {args.export_dir}", True)
    dist.barrier()
log(f"done: {args.steps} steps in {time.time() - t0:.1f} s")
dist.destroy_process_group()
