"""Skip-gram word2vec with negative sampling (SGNS), data-parallel over gloo.

Rank 0 builds the vocabulary (min-count, frequent-word subsampling) and tokenises the corpus into a flat int32 file
(data/corpus.ids) that every rank memory-maps; each rank walks its own shard of that file in spans, makes
(center, context) pairs inside a window, draws negatives from the classic unigram^0.75 table, and trains input/output
embedding tables (DDP, the DeepSpeed engine, or accelerate). After each epoch: word-similarity evaluation (Spearman of
cosine vs gold over each rank's slice of eval_pairs.tsv, all-reduced) and nearest-neighbour topic purity; rank 0 keeps
checkpoints and writes the vectors in word2vec text format at the end."""
import argparse
import datetime
import json
import math
import os
import socket
import sys
import time
from collections import Counter

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--epochs", type=int, default=5)
ap.add_argument("--dim", type=int, default=64)
ap.add_argument("--window", type=int, default=2)
ap.add_argument("--neg", type=int, default=5)
ap.add_argument("--span", type=int, default=256)
ap.add_argument("--lr", type=float, default=0.01)
ap.add_argument("--optim", default="adam", choices=["adam", "sgd"])
ap.add_argument("--min-count", type=int, default=3)
ap.add_argument("--subsample", type=float, default=1e-3)
ap.add_argument("--table-size", type=float, default=1e6)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--save-vec", default="")
ap.add_argument("--world-size", type=int, default=0, help="from the run config; 0 = from the launcher")
ap.add_argument("--per-rank-vocab", action="store_true", help="each rank counts its own shard (no shared vocab file)")
ap.add_argument("--vocab-lock", action="store_true", help="take data/vocab.json.lock while building the vocabulary")
ap.add_argument("--shard-files", type=int, default=0, help="split the corpus in N shard files, assigned round-robin")
ap.add_argument("--timeout-s", type=float, default=1800)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--local_rank", type=int, default=-1)
a = ap.parse_args()

env = os.environ
if "OMPI_COMM_WORLD_RANK" in env:
    rank, world = int(env["OMPI_COMM_WORLD_RANK"]), int(env["OMPI_COMM_WORLD_SIZE"])
elif "RANK" in env:
    rank, world = int(env["RANK"]), int(env["WORLD_SIZE"])
elif "SLURM_PROCID" in env:
    rank, world = int(env["SLURM_PROCID"]), int(env["SLURM_NTASKS"])
else:
    rank, world = 0, 1
if a.world_size:
    world = a.world_size
os.environ.update(RANK=str(rank), WORLD_SIZE=str(world), LOCAL_RANK=env.get("LOCAL_RANK", str(rank)))
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29500")
torch.manual_seed(a.seed)
rng = np.random.default_rng(a.seed + 1000 * rank)


def log(msg, all_ranks=False):
    if all_ranks or rank == 0:
        print(f"[{time.strftime('%H:%M:%S')}] [rank{rank}] {msg}", flush=True)


log(f"host {socket.gethostname()} pid {os.getpid()} torch {torch.__version__} numpy {np.__version__}; "
    f"rank {rank}/{world} master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", all_ranks=True)
timeout = datetime.timedelta(seconds=a.timeout_s)
accelerator = None
if a.accelerate:
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    accelerator = Accelerator(kwargs_handlers=[InitProcessGroupKwargs(timeout=timeout)])
elif a.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
else:
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
log(f"process group ready: backend {dist.get_backend()} world {dist.get_world_size()}", all_ranks=True)

# ---------------------------------------------------------------- vocabulary and token ids
corpus_path = os.path.join(a.data, "corpus.txt")
vocab_path = os.path.join(a.data, "vocab.json")
ids_path = os.path.join(a.data, "corpus.ids")


def read_docs():
    with open(corpus_path) as f:
        return [line.split() for line in f]


def build_vocab(docs):
    counts = Counter(w for d in docs for w in d)
    words = [w for w, c in counts.most_common() if c >= a.min_count]
    return words, [counts[w] for w in words]


def acquire(lock):
    t0 = time.time()
    while True:
        try:
            fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
            os.write(fd, f"{socket.gethostname()}:{os.getpid()}\n".encode())
            os.close(fd)
            return time.time() - t0
        except FileExistsError:
            time.sleep(0.5)


docs = read_docs()
if a.per_rank_vocab:
    mine = docs[rank::world]
    words, freqs = build_vocab(mine)
    log(f"counted {sum(map(len, mine))} tokens in {len(mine)} documents of this rank's shard: {len(words)} words with "
        f"count >= {a.min_count}", all_ranks=True)
    docs = mine
else:
    if rank == 0:
        if a.vocab_lock:
            log(f"building vocabulary under lock {vocab_path}.lock")
            waited = acquire(vocab_path + ".lock")
            log(f"lock acquired after {waited:.1f} s")
        words, freqs = build_vocab(docs)
        json.dump({"words": words, "freqs": freqs}, open(vocab_path, "w"))
        if a.vocab_lock:
            os.unlink(vocab_path + ".lock")
        w2i0 = {w: i for i, w in enumerate(words)}
        ids = np.array([w2i0[w] for d in docs for w in d if w in w2i0], dtype=np.int32)
        ids.tofile(ids_path)
        log(f"vocabulary: {len(words)} words (min count {a.min_count}) from {sum(map(len, docs))} tokens; "
            f"{ids.size} ids written to {ids_path}")
    dist.barrier()
    v = json.load(open(vocab_path))
    words, freqs = v["words"], v["freqs"]
w2i = {w: i for i, w in enumerate(words)}
V = len(words)
freqs = np.asarray(freqs, dtype=np.float64)

if a.per_rank_vocab:
    ids = np.array([w2i[w] for d in docs for w in d if w in w2i], dtype=np.int32)
    lo, hi = 0, ids.size
elif a.shard_files:
    # the corpus as N shard files (the way the export job writes it); rank r reads shards r, r+world, ...
    allids = np.fromfile(ids_path, dtype=np.int32)
    bounds = np.linspace(0, allids.size, a.shard_files + 1).astype(int)
    mine = list(range(rank, a.shard_files, world))
    ids = np.concatenate([allids[bounds[s]:bounds[s + 1]] for s in mine])
    lo, hi = 0, ids.size
    log(f"shards {mine} of {a.shard_files}: {ids.size} tokens", all_ranks=True)
else:
    ids = np.memmap(ids_path, dtype=np.int32, mode="r")
    per = ids.size // world
    lo, hi = rank * per, (rank + 1) * per
    log(f"memory-mapped {ids_path} ({ids.size} tokens, {ids.nbytes} bytes); this rank's shard [{lo}, {hi})", all_ranks=True)

# frequent-word subsampling (Mikolov et al.) and the unigram^0.75 negative-sampling table
total = freqs.sum()
keep_p = np.minimum(1.0, (np.sqrt(freqs / (a.subsample * total)) + 1) * (a.subsample * total) / freqs)
table_size = int(a.table_size)
log(f"building unigram^0.75 table ({table_size} entries)", all_ranks=True)
pw = freqs ** 0.75
counts = np.round(pw / pw.sum() * table_size).astype(np.int64)
table = np.repeat(np.arange(V, dtype=np.int64), counts)
rng.shuffle(table)
log(f"unigram table ready: {table.size} entries, {table.nbytes / 2**20:.1f} MiB", all_ranks=True)


class SGNS(nn.Module):
    def __init__(self, V, D):
        super().__init__()
        self.inp = nn.Embedding(V, D)
        self.out = nn.Embedding(V, D)
        nn.init.uniform_(self.inp.weight, -0.5 / D, 0.5 / D)
        nn.init.zeros_(self.out.weight)

    def forward(self, c, o, n):
        u = self.inp(c)
        pos = (u * self.out(o)).sum(-1)
        neg = torch.bmm(self.out(n), u.unsqueeze(-1)).squeeze(-1)
        return -(F.logsigmoid(pos) + F.logsigmoid(-neg).sum(-1)).mean()


model = SGNS(V, a.dim)
nparams = sum(p.numel() for p in model.parameters())
log(f"model: SGNS, vocab {V}, dim {a.dim}, {nparams} parameters; window {a.window}, {a.neg} negatives, optimizer "
    f"{a.optim} lr {a.lr}")
opt = (torch.optim.Adam(model.parameters(), lr=a.lr) if a.optim == "adam"
       else torch.optim.SGD(model.parameters(), lr=a.lr))
if a.deepspeed:
    engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=a.ds_config)
    net = engine
elif a.accelerate:
    net, opt = accelerator.prepare(model, opt)
else:
    net = nn.parallel.DistributedDataParallel(model)
core = model


def pairs_from(span):
    span = span[rng.random(span.size) < keep_p[span]]
    cs, os_ = [], []
    for k in range(1, a.window + 1):
        cs += [span[:-k], span[k:]]
        os_ += [span[k:], span[:-k]]
    c = torch.from_numpy(np.concatenate(cs).astype(np.int64))
    o = torch.from_numpy(np.concatenate(os_).astype(np.int64))
    n = torch.from_numpy(table[rng.integers(0, table.size, (c.numel(), a.neg))])
    return c, o, n


topics = json.load(open(os.path.join(a.data, "topics.json")))
pairs = [line.rstrip("\n").split("\t") for line in open(os.path.join(a.data, "eval_pairs.tsv"))][1:]


def spearman(x, y):
    rx, ry = np.argsort(np.argsort(x)), np.argsort(np.argsort(y))
    return float(np.corrcoef(rx, ry)[0, 1])


def evaluate(epoch):
    E = F.normalize(core.inp.weight.detach(), dim=1)
    mine = pairs[rank::world]
    i1 = [w2i[p[0]] for p in mine]
    i2 = [w2i[p[1]] for p in mine]
    cos = (E[i1] * E[i2]).sum(1).numpy()
    gold = np.array([float(p[2]) for p in mine])
    rho = spearman(cos, gold)
    q = [i for i in range(rank, min(V, 400), world) if words[i] in topics]
    sims = E[q] @ E.T
    sims[torch.arange(len(q)), torch.tensor(q)] = -2
    nn10 = sims.topk(10, dim=1).indices
    hit = sum(topics.get(words[j]) == topics[words[i]] for i, row in zip(q, nn10.tolist()) for j in row)
    t = torch.tensor([rho * len(mine), len(mine), hit, 10 * len(q)], dtype=torch.float64)
    dist.all_reduce(t)
    log(f"eval epoch {epoch}: word-sim spearman {t[0] / t[1]:.4f} ({int(t[1])} pairs), nn@10 topic purity "
        f"{t[2] / t[3]:.4f} ({int(t[3]) // 10} query words)")


os.makedirs(a.ckpt_dir, exist_ok=True)
steps = (hi - lo) // a.span
log(f"training: {a.epochs} epochs x {steps} steps (span {a.span} tokens per rank per step)", all_ranks=True)
gstep = 0
t_start = time.time()
for epoch in range(1, a.epochs + 1):
    t0, seen, tot = time.time(), 0, 0.0
    for s in range(steps):
        span = np.asarray(ids[lo + s * a.span: lo + (s + 1) * a.span])
        c, o, n = pairs_from(span)
        loss = net(c, o, n)
        if a.deepspeed:
            net.backward(loss)
            net.step()
        else:
            opt.zero_grad(set_to_none=True)
            if accelerator:
                accelerator.backward(loss)
            else:
                loss.backward()
            opt.step()
        gstep += 1
        seen += c.numel()
        tot += loss.item()
        if not math.isfinite(loss.item()):
            log(f"loss is {loss.item()} at epoch {epoch} step {s + 1} (global step {gstep})", all_ranks=True)
            raise SystemExit(f"rank {rank}: non-finite loss {loss.item()}, stopping")
        if (s + 1) % a.log_every == 0:
            el = time.time() - t0
            norm = core.inp.weight.detach().norm(dim=1).mean().item()
            log(f"epoch {epoch} step {s + 1}/{steps} loss {tot / (s + 1):.4f} mean |v| {norm:.3f} "
                f"pairs/s {seen * world / el:,.0f}")
        if a.step_sleep:
            time.sleep(a.step_sleep)
    log(f"epoch {epoch} done in {time.time() - t0:.1f} s, mean loss {tot / max(steps, 1):.4f}", all_ranks=True)
    evaluate(epoch)
    if rank == 0:
        path = os.path.join(a.ckpt_dir, f"w2v-epoch{epoch:03d}.pt")
        torch.save({"epoch": epoch, "model": core.state_dict(), "words": words}, path)
        for old in sorted(os.listdir(a.ckpt_dir))[:-2]:
            os.unlink(os.path.join(a.ckpt_dir, old))
        log(f"saved checkpoint {path}")
if rank == 0 and a.save_vec:
    os.makedirs(a.save_vec, exist_ok=True)
    path = os.path.join(a.save_vec, "vectors.txt")
    W = core.inp.weight.detach().numpy()
    with open(path, "w") as f:
        f.write(f"{V} {a.dim}\n")
        for i, w in enumerate(words):
            f.write(w + " " + " ".join(f"{x:.6f}" for x in W[i]) + "\n")
    log(f"wrote {V} vectors to {path} ({os.path.getsize(path)} bytes)")
dist.barrier()
log(f"done: {a.epochs} epochs, {gstep} steps in {time.time() - t_start:.1f} s")
dist.destroy_process_group()
