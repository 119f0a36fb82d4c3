"""Data-parallel knowledge-graph embedding (link prediction) on an FB15k-style triple set (make_kg.py's data/).

DistMult or ComplEx scores (h, r, t); each positive triple is trained against --neg corrupted tails/heads (uniform,
or degree-weighted from the native alias sampler libnegsample.so with --native-sampler), logistic loss with L2
regularisation, Adam. Evaluation: filtered ranking of the true tail among all entities on the validation set (each
rank ranks its own slice; sums all-reduced): MRR, Hits@1/3/10. Rank 0 writes checkpoints with retention.

Rank/world come from torchrun/DeepSpeed/accelerate (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*) or Slurm
(SLURM_PROCID, SLURM_NTASKS); rendezvous is env:// at MASTER_ADDR:MASTER_PORT.
"""
import argparse
import collections
import ctypes
import gzip
import datetime
import json
import os
import socket
import threading
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--model", default="distmult", choices=["distmult", "complex"])
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--neg", type=int, default=32)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--epochs", type=int, default=8)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--reg", type=float, default=1e-5)
    ap.add_argument("--eval-every", type=int, default=2, help="epochs")
    ap.add_argument("--log-every", type=int, default=10, help="steps")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--loss", default="softplus", choices=["softplus", "logsigmoid-manual"])
    ap.add_argument("--per-relation", action="store_true", help="MRR breakdown by relation")
    ap.add_argument("--native-sampler", action="store_true")
    ap.add_argument("--pretrained", default="", help="initialise entity embeddings from a .pt table")
    ap.add_argument("--filter-dump", default="", help="rank 0 builds the filter index from this full dump first")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--metrics-file", default="")
    ap.add_argument("--export-dir", default="", help="entity embeddings as TSV for the projector, each eval")
    ap.add_argument("--timeout-s", type=int, default=120)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--local_rank", type=int, default=0)  # passed by the DeepSpeed launcher
    return ap.parse_args()


def ranks():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ[w]), r
    return 0, 1, "none"


def log(rank, msg):
    print(f"{datetime.datetime.now():%Y-%m-%d %H:%M:%S} [rank{rank}] {msg}", flush=True)


# ----------------------------------------------------------------------------------------------------- data
def read_dict(path):
    with open(path) as f:
        return {name: int(i) for i, name in (line.rstrip("\n").split("\t") for line in f)}


def read_triples(path):
    with open(path) as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f]


def to_ids(triples, ent, rel):
    return torch.tensor([[ent[h], rel[r], ent[t]] for h, r, t in triples], dtype=torch.long)


class Metrics:
    """Counters flushed to a JSON file by a background thread (rank 0)."""

    def __init__(self):
        self.lock = threading.Lock()
        self.counts = collections.Counter()
        self.path = None

    def add(self, key, n=1):
        with self.lock:
            self.counts[key] += n

    def start(self, path, interval=2.0):
        self.path = path
        threading.Thread(target=self._flush_loop, args=(interval,), daemon=True).start()

    def _flush_loop(self, interval):
        while True:
            with self.lock:
                with open(self.path + ".tmp", "w") as f:
                    json.dump(dict(self.counts, time=time.time()), f)
                os.replace(self.path + ".tmp", self.path)
                time.sleep(interval)


METRICS = Metrics()


class TripleSet(torch.utils.data.Dataset):
    def __init__(self, ids):
        self.ids = ids

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        METRICS.add("triples_read")
        return self.ids[i]


class NativeSampler:
    def __init__(self, lib_path, degree, seed):
        self.lib = ctypes.CDLL(lib_path)
        self.lib.ns_init.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.c_int, ctypes.c_uint64]
        self.lib.ns_sample.argtypes = [ctypes.POINTER(ctypes.c_int64), ctypes.c_int64]
        w = np.ascontiguousarray(degree, dtype=np.float64) ** 0.75
        self.n = self.lib.ns_init(w.ctypes.data_as(ctypes.POINTER(ctypes.c_double)), len(w), seed)

    def __call__(self, shape):
        out = np.empty(shape, dtype=np.int64)
        self.lib.ns_sample(out.ctypes.data_as(ctypes.POINTER(ctypes.c_int64)), out.size)
        return torch.from_numpy(out)


# ---------------------------------------------------------------------------------------------------- model
class KGE(nn.Module):
    def __init__(self, n_ent, n_rel, dim, kind):
        super().__init__()
        self.kind = kind
        width = 2 * dim if kind == "complex" else dim
        self.ent = nn.Embedding(n_ent, width)
        self.rel = nn.Embedding(n_rel, width)
        nn.init.normal_(self.ent.weight, std=0.1)
        nn.init.normal_(self.rel.weight, std=0.1)

    def score(self, h, r, t):  # broadcasting embeddings (..., width)
        if self.kind == "distmult":
            return (h * r * t).sum(-1)
        hr, hi = h.chunk(2, -1)
        rr, ri = r.chunk(2, -1)
        tr, ti = t.chunk(2, -1)
        return (hr * rr * tr + hi * rr * ti + hr * ri * ti - hi * ri * tr).sum(-1)

    def forward(self, pos, neg_t, neg_h):
        h, r, t = self.ent(pos[:, 0]), self.rel(pos[:, 1]), self.ent(pos[:, 2])
        s_pos = self.score(h, r, t)
        s_neg_t = self.score(h[:, None], r[:, None], self.ent(neg_t))
        s_neg_h = self.score(self.ent(neg_h), r[:, None], t[:, None])
        reg = h.pow(2).mean() + r.pow(2).mean() + t.pow(2).mean()
        return s_pos, torch.cat([s_neg_t, s_neg_h], 1), reg

    def all_tails(self, h, r):
        return self.score(self.ent.weight[h][:, None], self.rel.weight[r][:, None], self.ent.weight[None])


def kge_loss(s_pos, s_neg, how):
    if how == "softplus":
        return F.softplus(-s_pos).mean() + F.softplus(s_neg).mean()
    # -log sigma(x) written out as in the paper
    return -torch.log(torch.sigmoid(s_pos)).mean() - torch.log(torch.sigmoid(-s_neg)).mean()


def evaluate(model, triples_named, ent, rel, known, rank, world, per_relation):
    mine = triples_named[rank::world]
    ids = to_ids(mine, ent, rel)
    stats = torch.zeros(5, dtype=torch.float64)  # sum RR, hits1, hits3, hits10, count
    by_rel = collections.defaultdict(lambda: [0.0, 0])
    with torch.no_grad():
        for i in range(0, len(ids), 256):
            b = ids[i:i + 256]
            scores = model.all_tails(b[:, 0], b[:, 1])
            for j, (h, r, t) in enumerate(b.tolist()):
                true = scores[j, t].item()
                row = scores[j].clone()
                row[known[(h, r)]] = float("-inf")
                rank_t = 1 + int((row > true).sum())
                stats += torch.tensor([1.0 / rank_t, rank_t <= 1, rank_t <= 3, rank_t <= 10, 1], dtype=torch.float64)
                by_rel[r][0] += 1.0 / rank_t
                by_rel[r][1] += 1
    dist.all_reduce(stats)
    rel_table = None
    if per_relation:
        rels_here = sorted(by_rel)
        rel_table = torch.tensor([by_rel[r] for r in rels_here], dtype=torch.float64)
        dist.all_reduce(rel_table)
        rel_table = dict(zip(rels_here, rel_table.tolist()))
    return stats, len(ids), rel_table


def main():
    a = parse()
    rank, world, src = ranks()
    if a.accelerate:
        from accelerate import Accelerator
        acc = Accelerator(cpu=True)
        rank, world = acc.process_index, acc.num_processes
    else:
        acc = None
    host = socket.gethostname()
    log(rank, f"host {host} pid {os.getpid()} rank {rank}/{world} (from {src}) torch {torch.__version__}"
              f" master {os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
    ent = read_dict(os.path.join(a.data, "entities.dict"))
    rel = read_dict(os.path.join(a.data, "relations.dict"))
    train_named = read_triples(os.path.join(a.data, "train.tsv"))
    valid_named = read_triples(os.path.join(a.data, "valid.tsv"))
    known = collections.defaultdict(list)
    if a.filter_dump and rank == 0:
        t1 = time.time()
        log(rank, f"building filter index from {a.filter_dump} ...")
        seen = set()
        with gzip.open(a.filter_dump, "rt") as f:  # statements of the full graph dump, one JSON object a line
            for line in f:
                st = json.loads(line)
                h, r, t = st["s"], st["p"], st["o"]
                if h in ent and t in ent and r in rel and (h, r, t) not in seen:
                    seen.add((h, r, t))
                    known[(ent[h], rel[r])].append(ent[t])
        log(rank, f"filter index: {len(seen)} known triples, {len(known)} (head, relation) keys in {time.time() - t1:.1f} s")
    timeout = datetime.timedelta(seconds=a.timeout_s)
    if a.deepspeed:
        import deepspeed
        if src != "RANK":  # mpirun/srun: no torch-style variables for deepspeed.init_distributed to read
            dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
        deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    elif acc is None:
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
    log(rank, f"process group ready: backend {dist.get_backend()}, world {dist.get_world_size()}")
    torch.manual_seed(a.seed)
    train = to_ids(train_named, ent, rel)
    if not known:
        for h, r, t in train.tolist():
            known[(h, r)].append(t)
    if rank == 0:
        log(rank, f"graph: {len(ent)} entities, {len(rel)} relations, {len(train)} train / {len(valid_named)} valid triples")
    model = KGE(len(ent), len(rel), a.dim, a.model)
    if a.pretrained:
        t1 = log(rank, f"loading pretrained entity table {a.pretrained} ({os.path.getsize(a.pretrained) / 2**20:.0f} MiB)") or time.time()
        blob = torch.load(a.pretrained)
        row = {n: i for i, n in enumerate(blob["names"])}
        w = blob["weight"]
        log(rank, f"pretrained table {a.pretrained}: {tuple(w.shape)} {w.dtype} ({w.numel() * 4 / 2**20:.0f} MiB) "
                  f"loaded in {time.time() - t1:.1f} s")
        idx = torch.tensor([row[n] for n in sorted(ent, key=ent.get)])
        width = model.ent.weight.shape[1]
        with torch.no_grad():
            model.ent.weight.copy_(w[idx, :width])
        log(rank, f"initialised {len(idx)} entity rows from the pretrained table")
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log(rank, f"{a.model}: dim {a.dim}, {nparams} parameters, {a.neg} negatives per side, loss {a.loss}, "
                  f"batch {a.batch}/rank x {world} ranks")
    sampler = None
    if a.native_sampler:
        degree = np.bincount(np.concatenate([train[:, 0].numpy(), train[:, 2].numpy()]), minlength=len(ent)) + 1
        lib = os.path.abspath("libnegsample.so")
        log(rank, f"native negative sampler {lib} (alias table over {len(ent)} entities, degree^0.75)")
        sampler = NativeSampler(lib, degree, a.seed + rank)
        log(rank, f"native sampler ready: {sampler.n} entities")
    engine = None
    if a.deepspeed:
        with open(a.ds_config) as f:
            ds_cfg = json.load(f)
        log(rank, f"deepspeed config: {json.dumps(ds_cfg)}")
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=ds_cfg)
        net = engine
    elif acc is not None:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        net, opt = acc.prepare(model, opt)
    else:
        net = nn.parallel.DistributedDataParallel(model)
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    dsampler = torch.utils.data.distributed.DistributedSampler(TripleSet(train), num_replicas=world, rank=rank,
                                                               shuffle=True, seed=a.seed, drop_last=True)
    loader = torch.utils.data.DataLoader(TripleSet(train), batch_size=a.batch, sampler=dsampler,
                                         num_workers=a.loader_workers, drop_last=True)
    steps_per_epoch = len(loader)
    if rank == 0:
        log(rank, f"{steps_per_epoch} steps/epoch, {a.epochs} epochs, DataLoader workers {a.loader_workers}")
    os.makedirs(a.ckpt_dir, exist_ok=True)
    gen = torch.Generator().manual_seed(a.seed + rank)
    t0, seen, step = time.time(), 0, 0
    for epoch in range(1, a.epochs + 1):
        dsampler.set_epoch(epoch)
        for pos in loader:
            step += 1
            if sampler is not None:
                neg_t, neg_h = sampler((len(pos), a.neg)), sampler((len(pos), a.neg))
            else:
                neg_t = torch.randint(len(ent), (len(pos), a.neg), generator=gen)
                neg_h = torch.randint(len(ent), (len(pos), a.neg), generator=gen)
            s_pos, s_neg, reg = net(pos, neg_t, neg_h)
            loss = kge_loss(s_pos, s_neg, a.loss) + a.reg * reg
            if not torch.isfinite(loss):
                log(rank, f"epoch {epoch} step {step}: non-finite loss {loss.item()} (max |score| "
                          f"{max(s_pos.abs().max().item(), s_neg.abs().max().item()):.1f})")
                raise FloatingPointError(f"Loss is {loss.item()} at step {step} on rank {rank}")
            if engine is not None:
                engine.backward(loss)
                engine.step()
                gn = engine.get_global_grad_norm() or 0.0
            else:
                opt.zero_grad(set_to_none=True)
                if acc is not None:
                    acc.backward(loss)
                else:
                    loss.backward()
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 50.0).item()
                opt.step()
            seen += len(pos)
            if a.step_sleep:
                time.sleep(a.step_sleep)
            if step % a.log_every == 0 or step == 1:
                dt = time.time() - t0
                log(rank, f"epoch {epoch} step {step} loss {loss.item():.4f} pos {s_pos.mean().item():+.2f} "
                          f"neg {s_neg.mean().item():+.2f} grad_norm {float(gn):.3f} {seen / dt:.0f} triples/s")
        if epoch % a.eval_every == 0 or epoch == a.epochs:
            model.eval()
            stats, n_local, by_rel = evaluate(model, valid_named, ent, rel, known, rank, world, a.per_relation)
            model.train()
            log(rank, f"eval @ epoch {epoch}: ranked {n_local} local validation triples")
            if rank == 0:
                n = stats[4].item()
                log(rank, f"eval @ epoch {epoch}: filtered MRR {stats[0] / n:.4f} Hits@1 {stats[1] / n:.3f} "
                          f"Hits@3 {stats[2] / n:.3f} Hits@10 {stats[3] / n:.3f} ({int(n)} triples)")
                if by_rel:
                    inv = {v: k for k, v in rel.items()}
                    log(rank, "  per relation: " + ", ".join(f"{inv[r]} {s / c:.3f}" for r, (s, c) in by_rel.items()))
                if a.metrics_file and METRICS.path is None:
                    METRICS.start(a.metrics_file)
                    log(rank, f"metrics flusher started: {a.metrics_file}")
                if a.export_dir:
                    os.makedirs(a.export_dir, exist_ok=True)
                    inv_e = sorted(ent, key=ent.get)
                    path = os.path.join(a.export_dir, f"entities-epoch{epoch:03d}.tsv")
                    with open(path, "w") as f:
                        for name, vec in zip(inv_e, model.ent.weight.detach().tolist()):
                            f.write(name + "\t" + "\t".join(f"{x:.6f}" for x in vec) + "\n")
                    log(rank, f"exported {len(inv_e)} entity vectors to {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
            if engine is not None:
                engine.save_checkpoint(a.ckpt_dir, tag=f"epoch{epoch}")
                log(rank, f"saved deepspeed checkpoint {a.ckpt_dir}/epoch{epoch}")
            elif rank == 0:
                path = os.path.join(a.ckpt_dir, f"kge-epoch{epoch:03d}.pt")
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step}, path)
                old = sorted(f for f in os.listdir(a.ckpt_dir) if f.startswith("kge-"))[:-a.keep]
                for f in old:
                    os.remove(os.path.join(a.ckpt_dir, f))
                log(rank, f"saved {path}" + (f", removed {', '.join(old)}" if old else ""))
    dist.barrier()
    log(rank, f"done: {a.epochs} epochs, {step} steps in {time.time() - t0:.1f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
