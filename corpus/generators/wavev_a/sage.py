"""GraphSAGE (mean aggregator) node classification with neighbour sampling, data-parallel over gloo.

Loads a citation graph written by make_graph.py (features.npy, labels.npy, edges.npy, splits.npz), builds a CSR
adjacency, and trains a 2-layer GraphSAGE on mini-batches of seed nodes: for each batch the sampler draws `fanout`
neighbours per node per hop (with replacement) and builds two bipartite blocks; the mean aggregator averages sampled
neighbour states. Training seeds are split across ranks in contiguous chunks. After each epoch: full-graph layer-wise
inference (sparse CSR adjacency), accuracy on each rank's slice of the validation nodes, all-reduced; rank 0 keeps
the last two checkpoints and can export the node embeddings. Runs under torchrun, mpirun, srun, the DeepSpeed
launcher (--deepspeed) or accelerate launch (--accelerate)."""
import argparse
import datetime
import faulthandler
import json
import math
import os
import socket
import sys
import time
from collections import deque

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--fanout", default="10,5")
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--lr", type=float, default=0.005)
ap.add_argument("--dropout", type=float, default=0.3)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--save-emb", default="", help="directory for the final node embeddings (rank 0)")
ap.add_argument("--degree-onehot", action="store_true", help="append one-hot node degree (up to max degree) features")
ap.add_argument("--sign-hops", type=int, default=0, help="precompute SIGN propagated features A^k X, k=1..K")
ap.add_argument("--sampler", default="fast", choices=["fast", "exact"],
                help="fast: vectorised, with replacement; exact: distinct neighbours per node (without replacement)")
ap.add_argument("--centrality", action="store_true", help="rank 0 adds closeness-centrality features (BFS)")
ap.add_argument("--dense-eval", action="store_true", help="exact evaluation with a dense normalised adjacency")
ap.add_argument("--num-workers", type=int, default=0, help="sampler DataLoader workers (features in shared memory)")
ap.add_argument("--timeout-s", type=float, default=1800)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--dispatch-batches", default="", help="passed to Accelerator(dispatch_batches=...) when set")
ap.add_argument("--seed", type=int, default=0)
ap.add_argument("--local_rank", type=int, default=-1)
a = ap.parse_args()

env = os.environ
rank = int(env.get("RANK", env.get("OMPI_COMM_WORLD_RANK", env.get("SLURM_PROCID", 0))))
world = int(env.get("WORLD_SIZE", env.get("OMPI_COMM_WORLD_SIZE", env.get("SLURM_NTASKS", 1))))
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
    import accelerate
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    log(f"accelerate {accelerate.__version__}", all_ranks=True)
    kw = {}
    if a.dispatch_batches:
        kw["dispatch_batches"] = a.dispatch_batches.lower() == "true"
    accelerator = Accelerator(kwargs_handlers=[InitProcessGroupKwargs(timeout=timeout)], **kw)
elif a.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
else:
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
log(f"process group ready: backend {dist.get_backend()} world {dist.get_world_size()}", all_ranks=True)

# ---------------------------------------------------------------- graph
meta = json.load(open(os.path.join(a.data, "meta.json")))
x_np = np.load(os.path.join(a.data, "features.npy"))
labels_np = np.load(os.path.join(a.data, "labels.npy"))
edges = np.load(os.path.join(a.data, "edges.npy"))
splits = np.load(os.path.join(a.data, "splits.npz"))
N, C = x_np.shape[0], meta["classes"]
log(f"loaded {a.data}: features {x_np.shape[0]} x {x_np.shape[1]}, {len(edges):,} edges (node ids "
    f"{edges.min()}..{edges.max()}), {C} classes; train/val/test {len(splits['train'])}/{len(splits['val'])}/"
    f"{len(splits['test'])}")
src = np.concatenate([edges[:, 0], edges[:, 1]])
dst = np.concatenate([edges[:, 1], edges[:, 0]])
order = np.argsort(src, kind="stable")
indices = dst[order]
indptr = np.searchsorted(src[order], np.arange(N + 1))
deg_np = np.diff(indptr)
log(f"CSR adjacency: {len(indices):,} directed edges, degree mean {deg_np.mean():.2f} max {deg_np.max()} "
    f"min {deg_np.min()}, {int((deg_np == 0).sum())} nodes without neighbours")

x = torch.from_numpy(x_np)
if a.degree_onehot:
    maxd = int(deg_np[np.array_split(splits["train"], world)[rank]].max())  # largest degree among this rank's seeds
    onehot = F.one_hot(torch.from_numpy(np.minimum(deg_np, maxd)), maxd + 1).float()
    x = torch.cat([x, onehot], 1)
    log(f"degree features: one-hot up to degree {maxd}, input dim {x.shape[1]}", all_ranks=True)


def csr_adj():
    ei = torch.from_numpy(np.stack([src, dst]))
    A = torch.sparse_coo_tensor(ei, torch.ones(ei.shape[1]), (N, N)).coalesce().to_sparse_csr()
    return A


if a.sign_hops:
    log(f"precomputing SIGN features: {a.sign_hops} hops of mean propagation over the full graph", all_ranks=True)
    A = csr_adj()
    d = torch.from_numpy(deg_np).float().clamp(min=1).unsqueeze(1)
    feats, h = [x], x
    for k in range(a.sign_hops):
        h = (A @ h) / d
        feats.append(h)
        log(f"  hop {k + 1}: |h| {h.norm(dim=1).mean():.3f}", all_ranks=True)
    x = torch.cat(feats, 1)
if a.centrality:
    obj = [None]
    if rank == 0:
        log(f"computing closeness centrality for {N} nodes (BFS from every node)")
        t0 = time.time()
        cc = np.zeros(N, dtype=np.float32)
        for s in range(N):
            seen = np.full(N, -1, dtype=np.int64)
            seen[s] = 0
            q = deque([s])
            while q:
                u = q.popleft()
                for v in indices[indptr[u]:indptr[u + 1]]:
                    if seen[v] < 0:
                        seen[v] = seen[u] + 1
                        q.append(v)
            r = seen[seen > 0]
            cc[s] = len(r) / r.sum() if len(r) else 0.0
            if (s + 1) % 1000 == 0:
                log(f"  closeness: {s + 1}/{N} nodes, {time.time() - t0:.0f} s")
        obj = [cc]
    dist.broadcast_object_list(obj, src=0)
    x = torch.cat([x, torch.from_numpy(obj[0]).unsqueeze(1)], 1)
    log("closeness feature received", all_ranks=True)

y = torch.from_numpy(labels_np).long()
train = splits["train"]
mine = np.array_split(train, world)[rank]
fanouts = [int(f) for f in a.fanout.split(",")]
steps = (len(train) // world) // a.batch_size
log(f"seeds: {len(mine)} train nodes on this rank (ids {mine.min()}..{mine.max()}), {steps} steps/epoch, "
    f"batch {a.batch_size}, fanout {fanouts}", all_ranks=True)


def sample_distinct(v, f):
    """Up to f distinct neighbours of v (all of them when v has fewer than f)."""
    lo_, d = indptr[v], indptr[v + 1] - indptr[v]
    want = min(f, d)
    chosen = set()
    while len(chosen) < want:
        chosen.add(int(indices[lo_ + rng.integers(d)]))
    return sorted(chosen)


def sample_blocks(seeds):
    """Two bipartite blocks, outermost first: (n_dst, src_local, dst_local), and the input node ids."""
    blocks, nodes = [], seeds
    for f in reversed(fanouts):
        d = deg_np[nodes]
        if a.sampler == "exact":
            picked = [sample_distinct(v, f) for v in nodes]
            nbr = np.array([u for p in picked for u in p], dtype=np.int64)
            dst_local = np.repeat(np.arange(len(nodes)), [len(p) for p in picked])
            allv = np.concatenate([nodes, nbr])
            _, first = np.unique(allv, return_index=True)
            src_nodes = allv[np.sort(first)]
            srt = np.argsort(src_nodes)
            src_local = srt[np.searchsorted(src_nodes[srt], nbr)]
            blocks.insert(0, (len(nodes), torch.from_numpy(src_local), torch.from_numpy(dst_local)))
            nodes = src_nodes
            continue
        off = (rng.random((len(nodes), f)) * d[:, None]).astype(np.int64)
        ok = np.repeat(d > 0, f)
        nbr = indices[(indptr[nodes][:, None] + off).ravel()[ok]] if ok.any() else np.zeros(0, np.int64)
        dst_local = np.repeat(np.arange(len(nodes)), f)[ok]
        allv = np.concatenate([nodes, nbr])
        _, first = np.unique(allv, return_index=True)
        src_nodes = allv[np.sort(first)]
        srt = np.argsort(src_nodes)
        src_local = srt[np.searchsorted(src_nodes[srt], nbr)]
        blocks.insert(0, (len(nodes), torch.from_numpy(src_local), torch.from_numpy(dst_local)))
        nodes = src_nodes
    return blocks, nodes


class SAGE(nn.Module):
    def __init__(self, din, dh, dout):
        super().__init__()
        self.self1, self.neigh1 = nn.Linear(din, dh), nn.Linear(din, dh, bias=False)
        self.self2, self.neigh2 = nn.Linear(dh, dout), nn.Linear(dh, dout, bias=False)

    @staticmethod
    def mean(h, n_dst, s, d):
        agg = torch.zeros(n_dst, h.shape[1]).index_add_(0, d, h[s])
        return agg / torch.bincount(d, minlength=n_dst).unsqueeze(1)

    def layer(self, i, h_src, n_dst, s, d):
        lin_s, lin_n = (self.self1, self.neigh1) if i == 0 else (self.self2, self.neigh2)
        return lin_s(h_src[:n_dst]) + lin_n(self.mean(h_src, n_dst, s, d))

    def forward(self, h, blocks):
        for i, (n_dst, s, d) in enumerate(blocks):
            h = self.layer(i, h, n_dst, s, d)
            if i == 0:
                h = F.dropout(F.relu(h), a.dropout, self.training)
        return h


model = SAGE(x.shape[1], a.hidden, C)
nparams = sum(p.numel() for p in model.parameters())
log(f"model: 2-layer GraphSAGE-mean {x.shape[1]}->{a.hidden}->{C}, {nparams:,} parameters")
opt = torch.optim.Adam(model.parameters(), lr=a.lr, weight_decay=5e-4)
if a.deepspeed:
    cfg = json.load(open(a.ds_config))
    cfg["train_micro_batch_size_per_gpu"] = a.batch_size
    net, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=cfg)
elif a.accelerate:
    net, opt = accelerator.prepare(model, opt)
else:
    net = nn.parallel.DistributedDataParallel(model)


class Batches(torch.utils.data.Dataset):
    def __init__(self, perm):
        self.perm = perm

    def __len__(self):
        return steps

    def __getitem__(self, i):
        seeds = self.perm[i * a.batch_size:(i + 1) * a.batch_size]
        blocks, nodes = sample_blocks(seeds)
        return x[torch.from_numpy(nodes)], blocks, y[torch.from_numpy(seeds)]


if a.num_workers:
    log(f"sharing the feature matrix ({x.numel() * 4 / 2**20:.1f} MiB) with {a.num_workers} sampler workers",
        all_ranks=True)
    x.share_memory_()


@torch.no_grad()
def full_inference():
    model.eval()
    if a.dense_eval:
        log(f"exact evaluation: dense {N} x {N} row-normalised adjacency ({N * N * 8 / 2**30:.2f} GiB float64)",
            all_ranks=True)
        Ad = np.zeros((N, N))
        Ad[src, dst] = 1.0
        Ad = Ad / np.maximum(Ad.sum(1, keepdims=True), 1.0)
        A = torch.from_numpy(Ad).float()
        mean = lambda h: A @ h  # noqa: E731
    else:
        A = csr_adj()
        d = torch.from_numpy(deg_np).float().unsqueeze(1)
        mean = lambda h: (A @ h) / d  # noqa: E731
    h = F.relu(model.self1(x) + model.neigh1(mean(x)))
    out = model.self2(h) + model.neigh2(mean(h))
    model.train()
    return h, out


def evaluate(epoch, split="val"):
    _, out = full_inference()
    ids = torch.from_numpy(splits[split][rank::world])
    t = torch.tensor([(out[ids].argmax(1) == y[ids]).sum().item(), len(ids)], dtype=torch.float64)
    dist.all_reduce(t)
    log(f"eval epoch {epoch}: {split} accuracy {t[0] / t[1]:.4f} ({int(t[1])} nodes)")
    return t[0] / t[1]


os.makedirs(a.ckpt_dir, exist_ok=True)
log(f"training: {a.epochs} epochs x {steps} steps", all_ranks=True)
gstep, t_start = 0, time.time()
for epoch in range(1, a.epochs + 1):
    perm = rng.permutation(mine)
    loader = torch.utils.data.DataLoader(Batches(perm), batch_size=None, num_workers=a.num_workers)
    t0, tot, seen_nodes = time.time(), 0.0, 0
    for s, (xb, blocks, yb) in enumerate(loader):
        logits = net(xb, blocks)
        loss = F.cross_entropy(logits, yb)
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
        tot += loss.item()
        seen_nodes += xb.shape[0]
        if not math.isfinite(loss.item()):
            log(f"loss is {loss.item()} at epoch {epoch} step {s + 1} (global step {gstep})", all_ranks=True)
            raise SystemExit(f"rank {rank}: non-finite loss {loss.item()}, stopping")
        if (s + 1) % a.log_every == 0:
            acc = (logits.argmax(1) == yb).float().mean().item()
            log(f"epoch {epoch} step {s + 1}/{steps} loss {tot / (s + 1):.4f} batch acc {acc:.3f} "
                f"sampled nodes/s {seen_nodes * world / (time.time() - t0):,.0f}")
        if a.step_sleep:
            time.sleep(a.step_sleep)
    log(f"epoch {epoch} done in {time.time() - t0:.1f} s, mean loss {tot / max(steps, 1):.4f}", all_ranks=True)
    evaluate(epoch)
    if rank == 0:
        path = os.path.join(a.ckpt_dir, f"sage-epoch{epoch:03d}.pt")
        torch.save({"epoch": epoch, "model": model.state_dict()}, path)
        for old in sorted(os.listdir(a.ckpt_dir))[:-2]:
            os.unlink(os.path.join(a.ckpt_dir, old))
        log(f"saved checkpoint {path}")
evaluate(a.epochs, "test")
if rank == 0 and a.save_emb:
    h, _ = full_inference()
    os.makedirs(a.save_emb, exist_ok=True)
    path = os.path.join(a.save_emb, "node_emb.tsv")  # for the embedding projector
    np.savetxt(path, h.numpy(), fmt="%.6f", delimiter="\t")
    log(f"wrote {h.shape[0]} x {h.shape[1]} node embeddings to {path} ({os.path.getsize(path)} bytes)")
dist.barrier()
log(f"done: {a.epochs} epochs, {gstep} steps in {time.time() - t_start:.1f} s")
dist.destroy_process_group()
