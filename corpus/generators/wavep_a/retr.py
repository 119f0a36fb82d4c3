"""Contrastive dual-encoder passage retrieval (DPR-style), trained data parallel with cross-rank in-batch negatives.

Two towers (query and passage): token EmbeddingBag (mean) + 2-layer MLP, L2-normalised 64-d outputs. The loss is
InfoNCE over logit_scale * q . p for every passage of the global batch: each rank's passage embeddings are
all-gathered with torch.distributed.nn.functional.all_gather (gradients flow back through the gather), optionally
plus mined hard negatives. Evaluation encodes the corpus (each rank a slice, gathered), scores the dev queries and
reports recall@1/10/100 and MRR@10. Checkpoints (rank 0) with retention.
"""
import argparse
import datetime
import faulthandler
import json
import math
import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dnn
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--steps", type=int, default=400)
ap.add_argument("--batch", type=int, default=128)
ap.add_argument("--dim", type=int, default=64)
ap.add_argument("--lr", type=float, default=1e-2)
ap.add_argument("--temp", type=float, default=0.05, help="initial temperature (logit scale 1/temp)")
ap.add_argument("--learn-temp", action="store_true", help="learn the logit scale (log-parameterised)")
ap.add_argument("--temp-param", choices=("log", "direct"), default="log",
                help="learn log(1/temp) (CLIP-style) or the temperature itself")
ap.add_argument("--temp-lr-mult", type=float, default=1.0, help="lr multiplier of the logit scale's param group")
ap.add_argument("--eval-every", type=int, default=200)
ap.add_argument("--save-every", type=int, default=200)
ap.add_argument("--keep", type=int, default=2)
ap.add_argument("--save-dir", default="ckpt")
ap.add_argument("--log-every", type=int, default=20)
ap.add_argument("--timeout-s", type=int, default=1800)
ap.add_argument("--init-file", default="", help="init_method=file://<path> instead of env://")
ap.add_argument("--hard-negs", type=int, default=0, help="mined hard negatives per query (0: in-batch only)")
ap.add_argument("--mine-every", type=int, default=100)
ap.add_argument("--mine-on", choices=("all", "rank0"), default="all",
                help="all: each rank mines for its own queries; rank0: rank 0 mines for everyone and broadcasts")
ap.add_argument("--neg-cache", default="", help="write each refresh's mined negatives here (npy per rank)")
ap.add_argument("--dedup-batch", choices=("off", "drop", "mask"), default="off",
                help="in-batch duplicate positives: drop the repeats, or mask them as negatives")
ap.add_argument("--dedup-corpus", action="store_true", help="rank 0 drops duplicate passages (sort -u) before training")
ap.add_argument("--share-index", action="store_true", help="a background process per rank serves the passage index "
                "from shared memory (torch.multiprocessing) for mining")
ap.add_argument("--full-rank-metrics", action="store_true", help="eval ranks every passage (MRR over the full list)")
ap.add_argument("--query-syntax", action="store_true", help="dev queries may carry nested boolean operators")
ap.add_argument("--chunk-passages", type=int, default=0, help="also index overlapping windows of this many tokens")
ap.add_argument("--token-dtype", default="int64", help="dtype of the packed corpus token array")
ap.add_argument("--eval-only", default="", help="evaluate this checkpoint and exit")
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--local_rank", type=int, default=-1)
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
    if args.init_file:
        init = "file://" + os.path.abspath(args.init_file)
    else:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29500")
        init = f"env:// ({os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']})"
    print(f"[rank{rank}] init_process_group(gloo) world {world} init {init} on {socket.gethostname()}", flush=True)
    if args.init_file:
        dist.init_process_group("gloo", init_method="file://" + os.path.abspath(args.init_file), rank=rank,
                                world_size=world, timeout=timeout)
    else:
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)
torch.manual_seed(1234 + rank)
np_rng = np.random.default_rng(1234 + rank)


def log(msg, all_ranks=False):
    if all_ranks or rank == 0:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank{rank}] {msg}", flush=True)


log("config " + json.dumps({k: v for k, v in vars(args).items() if k != "local_rank"}))
meta = json.load(open(os.path.join(args.data, "meta.json")))
V, NP = meta["vocab"], meta["passages"]


def read_passages(path):
    toks = []
    with open(path) as f:
        for line in f:
            pid, text = line.rstrip("\n").split("\t")
            toks.append(torch.tensor([int(t) for t in text.split()], dtype=torch.long))
    return toks


def read_queries(path):
    qids, pos, toks = [], [], []
    with open(path) as f:
        for line in f:
            qid, pid, text = line.rstrip("\n").split("\t")
            qids.append(qid)
            pos.append(int(pid))
            toks.append(text)
    return qids, pos, toks


t0 = time.time()
passages = read_passages(os.path.join(args.data, "passages.tsv"))
log(f"corpus: {len(passages)} passages, vocab {V} ({time.time() - t0:.1f} s)")

if args.chunk_passages:
    # long-passage windows over the packed corpus (one flat token array), overlapping by half a window
    flat = np.concatenate([t.numpy() for t in passages]).astype(args.token_dtype)
    W, S = args.chunk_passages, args.chunk_passages // 2
    n_win = (len(flat) - W) // S + 1
    log(f"packed corpus: {len(flat)} tokens ({flat.dtype}, {flat.nbytes / 2**20:.1f} MiB); {n_win} windows of {W} "
        f"tokens, stride {S}")
    win = np.lib.stride_tricks.as_strided(flat, shape=(n_win, W), strides=(S * 8, 8))
    lens = (win > 0).sum(1)
    log(f"windows: mean {lens.mean():.1f} non-pad tokens, {int((lens < W).sum())} short", True)

if args.dedup_corpus:
    # drop exact duplicate passages: rank 0 runs sort -u over the corpus and broadcasts the kept ids
    keep = torch.zeros(len(passages), dtype=torch.uint8)
    if rank == 0:
        log(f"dedup: sort -u over {len(passages)} passages")
        p = subprocess.Popen(["sort", "-u", "-t", "\t", "-k2,2"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        with open(os.path.join(args.data, "passages.tsv"), "rb") as f:
            p.stdin.write(f.read())
        p.stdin.close()
        p.wait()
        out = p.stdout.read().decode()
        for line in out.splitlines():
            keep[int(line.split("\t")[0])] = 1
        log(f"dedup: kept {int(keep.sum())} of {len(passages)} passages")
    dist.broadcast(keep, 0)

shards = [s for s in range(meta["shards"]) if s % world == rank]
qids, qpos, qtext = [], [], []
for s in shards:
    a, b, c = read_queries(os.path.join(args.data, f"train-{s:02d}.tsv"))
    qids += a
    qpos += b
    qtext += c
qtoks = [torch.tensor([int(t) for t in q.split()], dtype=torch.long) for q in qtext]
log(f"train shards {shards}: {len(qids)} queries", True)
dev_ids, dev_pos, dev_text = read_queries(os.path.join(args.data, "dev.tsv"))


def parse_query(s):
    """Query syntax: tokens, and (op a b ...) groups with AND/OR, nested; returns the flat token list."""
    def parse(i):
        out = []
        while i < len(s):
            if s[i] == "(":
                sub, i = parse(i + 1)
                out += sub
            elif s[i] == ")":
                return out, i + 1
            elif s[i] in " AND OR":
                i += 1
            else:
                j = i
                while j < len(s) and s[j].isdigit():
                    j += 1
                out.append(int(s[i:j]))
                i = j
        return out, i
    return parse(0)[0]


if args.query_syntax:
    sys.setrecursionlimit(1_000_000)
    dev_toks = [torch.tensor(parse_query(q), dtype=torch.long) for q in dev_text]
else:
    dev_toks = [torch.tensor([int(t) for t in q.split()], dtype=torch.long) for q in dev_text]


class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.EmbeddingBag(V, 128, mode="mean")
        self.mlp = nn.Sequential(nn.Linear(128, 128), nn.GELU(), nn.Linear(128, args.dim))

    def forward(self, flat, offsets):
        return F.normalize(self.mlp(self.emb(flat, offsets)), dim=-1)


class DualEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.p = Tower(), Tower()
        init = math.log(1 / args.temp) if args.temp_param == "log" else args.temp
        self.log_scale = nn.Parameter(torch.tensor([init]), requires_grad=args.learn_temp)

    def forward(self, qb, pb):
        scale = self.log_scale.exp() if args.temp_param == "log" else 1.0 / self.log_scale
        return self.q(*qb), self.p(*pb), scale


def bag(seqs):
    offsets = torch.tensor([0] + [len(s) for s in seqs[:-1]]).cumsum(0)
    return torch.cat(seqs), offsets


model = DualEncoder()
n_params = sum(p.numel() for p in model.parameters())
groups = [{"params": [p for n, p in model.named_parameters() if n != "log_scale"], "lr": args.lr}]
if args.learn_temp:
    groups.append({"params": [model.log_scale], "lr": args.lr * args.temp_lr_mult})
opt = torch.optim.Adam(groups, lr=args.lr)
engine = None
if accelerator is not None:
    model, opt = accelerator.prepare(model, opt)
elif args.deepspeed:
    cfg = json.load(open(args.ds_config)) if args.ds_config else {
        "train_micro_batch_size_per_gpu": args.batch, "gradient_accumulation_steps": 1, "steps_per_print": 100,
        "gradient_clipping": 1.0}
    log(f"deepspeed config {json.dumps(cfg)}")
    engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=cfg)
    model = engine
else:
    model = nn.parallel.DistributedDataParallel(model)
core = model.module if hasattr(model, "module") else model
log(f"dual encoder: {n_params} parameters (2 towers), dim {args.dim}, temperature {args.temp} "
    f"({'learned' if args.learn_temp else 'fixed'}), world {world}, global batch {args.batch * world}, "
    f"in-batch negatives per query {args.batch * world - 1}" + (f" + {args.hard_negs} mined" if args.hard_negs else ""))


@torch.no_grad()
def encode_corpus():
    """Each rank encodes a contiguous slice of the corpus; the slices are all-gathered into the full index."""
    per = math.ceil(NP / world)
    lo, hi = rank * per, min(NP, (rank + 1) * per)
    embs = []
    for i in range(lo, hi, 2048):
        embs.append(core.p(*bag(passages[i:min(hi, i + 2048)])))
    mine = torch.cat(embs)
    pad = torch.zeros(per, args.dim)
    pad[: len(mine)] = mine
    out = [torch.empty_like(pad) for _ in range(world)]
    dist.all_gather(out, pad)
    return torch.cat(out)[:NP]


shm_server = None
if args.share_index:
    import torch.multiprocessing as tmp

    def index_server(index, conn):
        while True:
            q = conn.recv()
            if q is None:
                return
            conn.send(torch.topk(q @ index.T, 200, dim=1).indices)

    index0 = torch.zeros(NP, args.dim)
    ptoks = torch.zeros(NP, 48, dtype=torch.long)
    for i, t in enumerate(passages):
        ptoks[i, : len(t)] = t
    log(f"sharing the passage index ({NP} x {args.dim} float32) and token matrix ({NP} x 48 int64) with the mining "
        f"server (torch.multiprocessing, file_descriptor sharing)", True)
    ctx = tmp.get_context("spawn")
    parent, child = ctx.Pipe()
    index0.share_memory_()
    ptoks.share_memory_()
    shm_server = ctx.Process(target=index_server, args=(index0, child), daemon=True)
    shm_server.start()
    log(f"mining server pid {shm_server.pid} started", True)

neg_table = None


def mine():
    global neg_table
    t = time.time()
    index = encode_corpus()
    with torch.no_grad():
        if args.mine_on == "rank0":
            # rank 0 mines for every rank's queries (it has all shards' query texts after a gather) and broadcasts
            allq = [None] * world
            dist.all_gather_object(allq, (qtoks, qpos))
            tables = []
            log(f"hard-negative refresh at step {step}: rank 0 mines {args.hard_negs} per query for all "
                f"{sum(len(t) for t, _ in allq)} training queries over {NP} passages")
            if rank == 0:
                for toks, pos in allq:
                    negs = torch.zeros(len(toks), args.hard_negs, dtype=torch.long)
                    for i in range(len(toks)):
                        s = core.q(*bag([toks[i]])) @ index.T
                        order = torch.argsort(s[0], descending=True)
                        order = order[order != pos[i]]
                        negs[i] = order[: args.hard_negs]
                    tables.append(negs)
            obj = [tables]
            dist.broadcast_object_list(obj, 0)
            neg_table = obj[0][rank]
        else:
            negs = []
            for i in range(0, len(qtoks), 1024):
                s = core.q(*bag(qtoks[i:i + 1024])) @ index.T
                top = torch.topk(s, args.hard_negs + 1, dim=1).indices
                for j, row in enumerate(top):
                    row = row[row != qpos[i + j]][: args.hard_negs]
                    negs.append(row)
            neg_table = torch.stack(negs)
    log(f"mined {args.hard_negs} hard negatives for {len(neg_table)} queries ({args.mine_on}) in {time.time() - t:.1f} s",
        True)
    if args.neg_cache:
        os.makedirs(args.neg_cache, exist_ok=True)
        path = os.path.join(args.neg_cache, f"negs-step{step:06d}-rank{rank}.npy")
        np.save(path, np.concatenate([neg_table.numpy()[:, None, :]] * 8, axis=1))
        log(f"hard-negative cache: wrote {path} ({os.path.getsize(path) / 2**20:.1f} MiB)", True)


@torch.no_grad()
def evaluate(step):
    t = time.time()
    index = encode_corpus()
    per = math.ceil(len(dev_toks) / world)
    lo, hi = rank * per, min(len(dev_toks), (rank + 1) * per)
    q = core.q(*bag(dev_toks[lo:hi]))
    scores = q @ index.T
    pos = torch.tensor(dev_pos[lo:hi])
    if args.full_rank_metrics:
        order = torch.argsort(scores, dim=1, descending=True)
        rank_of = (order == pos[:, None]).float().argmax(1)
    else:
        top = torch.topk(scores, 100, dim=1).indices
        hit = top == pos[:, None]
        rank_of = torch.where(hit.any(1), hit.float().argmax(1), torch.full_like(pos, 100))
    m = torch.tensor([(rank_of < 1).sum(), (rank_of < 10).sum(), (rank_of < 100).sum(),
                      torch.where(rank_of < 10, 1.0 / (rank_of + 1).float(), 0.0).sum(), float(hi - lo)])
    dist.all_reduce(m)
    n = m[4].item()
    log(f"eval step {step}: dev {int(n)} queries x {NP} passages: recall@1 {m[0] / n:.4f} recall@10 {m[1] / n:.4f} "
        f"recall@100 {m[2] / n:.4f} MRR@10 {m[3] / n:.4f} ({time.time() - t:.1f} s)")


def save(step):
    if rank != 0:
        return
    os.makedirs(args.save_dir, exist_ok=True)
    path = os.path.join(args.save_dir, f"step-{step:06d}.pt")
    torch.save({"step": step, "model": core.state_dict(), "opt": opt.state_dict()}, path)
    log(f"saved checkpoint {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
    old = sorted(os.listdir(args.save_dir))[:-args.keep] if args.keep else []
    for o in old:
        os.remove(os.path.join(args.save_dir, o))
        log(f"removed old checkpoint {os.path.join(args.save_dir, o)}")


if args.eval_only:
    core.load_state_dict(torch.load(args.eval_only)["model"])
    log(f"loaded {args.eval_only}")
    evaluate(0)
    dist.destroy_process_group()
    sys.exit(0)

usr1 = {"hit": False}


def on_usr1(sig, frame):
    usr1["hit"] = True


signal.signal(signal.SIGUSR1, on_usr1)

step = 0
t_log = time.time()
n_seen = 0
n_masked = 0
log(f"training {args.steps} steps, eval every {args.eval_every}, checkpoint every {args.save_every}")
while step < args.steps:
    if args.hard_negs and step % args.mine_every == 0:
        mine()
    idx = np_rng.integers(0, len(qtoks), size=args.batch)
    pos = [qpos[i] for i in idx]
    if args.dedup_batch == "drop":
        seen, keep = set(), []
        for j, p in enumerate(pos):
            if p not in seen:
                seen.add(p)
                keep.append(j)
        if len(keep) < len(idx):
            log(f"step {step + 1}: dropped {len(idx) - len(keep)} duplicate positive(s) from the batch", True)
        idx = idx[keep]
        pos = [pos[j] for j in keep]
    qb = bag([qtoks[i] for i in idx])
    pids = list(pos)
    if args.hard_negs:
        for i in idx:
            pids += neg_table[i].tolist()
    pb = bag([passages[p] for p in pids])
    q, p, scale = model(qb, pb)
    B = len(idx)
    gathered = dnn.all_gather(p)
    allp = torch.cat(gathered)
    logits = scale * q @ allp.T
    offset = sum(len(g) for g in gathered[:rank])
    labels = torch.arange(B) + offset
    if args.dedup_batch == "mask":
        allpid = [None] * world
        dist.all_gather_object(allpid, pids)
        flat = torch.tensor(sum(allpid, []))
        fn = (flat[None, :] == torch.tensor(pos)[:, None])
        fn[torch.arange(B), labels] = False
        nfn = int(fn.sum())
        if nfn:
            logits = logits.masked_fill(fn, float("-inf"))
            n_masked += nfn
    loss = F.cross_entropy(logits, labels)
    acc = (logits.argmax(1) == labels).float().mean()
    if engine is not None:
        engine.backward(loss)
        engine.step()
    elif accelerator is not None:
        opt.zero_grad()
        accelerator.backward(loss)
        opt.step()
    else:
        opt.zero_grad()
        loss.backward()
        opt.step()
    step += 1
    n_seen += B * world
    if args.step_sleep:
        time.sleep(args.step_sleep)
    if step % args.log_every == 0:
        lt = torch.tensor([loss.item(), acc.item()])
        dist.all_reduce(lt)
        lt /= world
        dt = time.time() - t_log
        log(f"step {step}/{args.steps} loss {lt[0]:.4f} in-batch acc {lt[1]:.3f} logit_scale {scale.item():.2f} "
            f"lr {args.lr:.1e} {n_seen / dt:.0f} queries/s")
        t_log, n_seen = time.time(), 0
        if n_masked:
            log(f"WARNING: masked {n_masked} in-batch false negative(s) in the last {args.log_every} steps (a query's "
                f"positive passage also in the batch as another query's positive or a mined negative)", True)
            n_masked = 0
    if usr1["hit"]:
        usr1["hit"] = False
        log("caught SIGUSR1 (the scheduler's warning before the time limit): writing a checkpoint now", True)
        save(step)
    if step % args.eval_every == 0:
        evaluate(step)
    if step % args.save_every == 0:
        save(step)
dist.barrier()
log(f"done: {step} steps")
if shm_server is not None:
    parent.send(None)
dist.destroy_process_group()
