"""Molecular property regressor: a message-passing neural network over molecular graphs (atoms as nodes, bonds as
edges): element and bond-order embeddings, T rounds of edge-conditioned messages summed at each atom and a GRU update,
a sum+mean graph readout and an MLP head; MSE on the property, validation MAE; data-parallel over gloo under torchrun,
Open MPI, the DeepSpeed launcher or accelerate launch. Rank r reads data/train-NN.jsonl with NN % world == r and its
round-robin slice of data/val.jsonl; rank 0 writes ckpt/last.pt each epoch."""
import argparse
import datetime
import faulthandler
import glob
import json
import os
import signal
import sys
import threading
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
ELEM = {e: i for i, e in enumerate(["C", "N", "O", "F", "S", "Cl", "Br", "P"])}
DIST_BINS = 16


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def eccentricity(nbrs, n, parent=-1):
    """Longest path (in bonds) from atom n away from parent: the graph-depth feature."""
    return 1 + max((eccentricity(nbrs, m, n) for m in nbrs[n] if m != parent), default=-1)


def simple_cycles(nbrs, natoms):
    """Ring perception: every simple cycle (as a frozenset of atoms), by depth-first search from each start atom."""
    found = set()

    def dfs(start, node, path, seen):
        for m in nbrs[node]:
            if m == start and len(path) > 2:
                found.add(frozenset(path))
            elif m not in seen and m > start:
                seen.add(m)
                path.append(m)
                dfs(start, m, path, seen)
                path.pop()
                seen.discard(m)

    for s in range(natoms):
        dfs(s, s, [s], {s})
    return found


def hop_distances(nbrs, n):
    d = np.full((n, n), DIST_BINS - 1, np.int64)
    for s in range(n):
        d[s, s] = 0
        frontier, k = [s], 0
        while frontier and k < DIST_BINS - 2:
            k += 1
            nxt = []
            for u in frontier:
                for v in nbrs[u]:
                    if d[s, v] == DIST_BINS - 1 and v != s:
                        d[s, v] = k
                        nxt.append(v)
            frontier = nxt
    return d


class StatsReporter:
    """Counts atoms/bonds seen per batch; a background thread flushes the counters to a stats file."""

    def __init__(self, path, every=2.0):
        self.lock, self.counts, self.path, self.every = threading.Lock(), {"atoms": 0, "bonds": 0, "graphs": 0}, path, every
        threading.Thread(target=self._run, daemon=True).start()

    def add(self, atoms, bonds, graphs):
        with self.lock:
            self.counts["atoms"] += atoms
            self.counts["bonds"] += bonds
            self.counts["graphs"] += graphs

    def _run(self):
        while True:
            with self.lock:  # hold the counters while writing them out (slow network home directory)
                with open(self.path, "a") as f:
                    f.write(json.dumps(self.counts) + "\n")
                time.sleep(self.every)
            time.sleep(0.01)


STATS = None


class Molecules(torch.utils.data.Dataset):
    def __init__(self, recs, rank, ring_features=False, depth_feature=False, dense_geom=False, pad_to=0):
        self.recs, self.ring_features, self.rank = recs, ring_features, rank
        self.depth = []
        if depth_feature:
            sys.setrecursionlimit(10 ** 6)  # long chains need deep recursion
            for r in recs:
                nb = self.nbrs(r)
                self.depth.append(eccentricity(nb, 0))
            log(f"rank {rank}: graph depth feature computed for {len(recs)} molecules (max {max(self.depth)})")
        self.geom = []
        if dense_geom:
            log(f"rank {rank}: dense geometry features: hop-distance one-hot, padded to {pad_to} atoms, {DIST_BINS} bins")
            for i, r in enumerate(recs):
                d = torch.from_numpy(hop_distances(self.nbrs(r), len(r["atoms"])))
                g = torch.zeros(pad_to, pad_to, DIST_BINS)
                g[:len(r["atoms"]), :len(r["atoms"])] = F.one_hot(d, DIST_BINS).float()
                self.geom.append(g)
                if (i + 1) % 100 == 0:
                    log(f"rank {rank}: geometry features {i + 1}/{len(recs)}")

    @staticmethod
    def nbrs(r):
        nb = [[] for _ in r["atoms"]]
        for i, j, _ in r["bonds"]:
            nb[i].append(j)
            nb[j].append(i)
        return nb

    def __len__(self):
        return len(self.recs)

    def __getitem__(self, i):
        r = self.recs[i]
        x = torch.tensor([ELEM[a] for a in r["atoms"]])
        e = torch.tensor(r["bonds"], dtype=torch.long).reshape(-1, 3)
        rings = 0
        if self.ring_features:
            rings = len(simple_cycles(self.nbrs(r), len(r["atoms"])))
        extra = torch.tensor([float(rings), float(self.depth[i]) if self.depth else 0.0])
        return x, e, degree(x, e), extra, torch.tensor(float(r["y"]))


def degree(x, e):
    """Heavy-atom degree of each atom (0-5), an input feature."""
    d = torch.zeros(len(x), dtype=torch.long)
    d.index_add_(0, e[:, 0], torch.ones(len(e), dtype=torch.long))
    d.index_add_(0, e[:, 1], torch.ones(len(e), dtype=torch.long))
    return d.clamp(max=5)


def collate(items):
    xs, src, dst, bt, batch, extras, ys, degs = [], [], [], [], [], [], [], []
    off = 0
    for g, (x, e, deg, extra, y) in enumerate(items):
        xs.append(x)
        degs.append(deg)
        src += [e[:, 0] + off, e[:, 1] + off]
        dst += [e[:, 1] + off, e[:, 0] + off]
        bt += [e[:, 2], e[:, 2]]
        batch.append(torch.full((len(x),), g))
        extras.append(extra)
        ys.append(y)
        off += len(x)
    if STATS is not None:
        STATS.add(off, sum(len(it[1]) for it in items), len(items))
    return (torch.cat(xs), torch.cat(degs), torch.cat(src), torch.cat(dst), torch.cat(bt), torch.cat(batch),
            torch.stack(extras), torch.stack(ys))


class MPNN(nn.Module):
    def __init__(self, hidden=64, steps=3):
        super().__init__()
        self.atom = nn.Embedding(len(ELEM), hidden)
        self.bond = nn.Embedding(5, hidden)
        self.deg = nn.Embedding(6, hidden)
        self.msg = nn.ModuleList([nn.Linear(2 * hidden, hidden) for _ in range(steps)])
        self.gru = nn.GRUCell(hidden, hidden)
        self.head = nn.Sequential(nn.Linear(2 * hidden + 2, hidden), nn.SiLU(), nn.Linear(hidden, 1))

    def forward(self, x, deg, src, dst, bt, batch, extra):
        h = self.atom(x) + self.deg(deg)
        eb = self.bond(bt)
        for lin in self.msg:
            m = F.silu(lin(torch.cat([h[src], eb], -1)))
            agg = torch.zeros_like(h).index_add_(0, dst, m)
            h = self.gru(agg, h)
        ng = int(batch.max()) + 1
        s = torch.zeros(ng, h.shape[1]).index_add_(0, batch, h)
        cnt = torch.zeros(ng).index_add_(0, batch, torch.ones(len(batch))).clamp(min=1)
        return self.head(torch.cat([s, s / cnt[:, None], extra], -1)).squeeze(-1)


def main():
    global STATS
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--clip-norm", type=float, default=1.0, help="0: no gradient clipping")
    ap.add_argument("--ring-features", action="store_true", help="count rings per molecule (ring perception)")
    ap.add_argument("--depth-feature", action="store_true", help="graph depth (eccentricity of atom 0)")
    ap.add_argument("--dense-geom", action="store_true", help="precompute padded hop-distance features")
    ap.add_argument("--size-buckets", action="store_true", help="report validation MAE per molecule-size bucket")
    ap.add_argument("--cache-dir", default="", help="cache featurised shards here")
    ap.add_argument("--report-stats", default="", help="append atom/bond counters to this file")
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
    acc = None
    if a.accelerate:
        from accelerate import Accelerator
        from accelerate.utils import InitProcessGroupKwargs
        acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo", timeout=timeout)])
    elif a.deepspeed:
        import deepspeed
        deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    if rank == 0:
        log(f"molprop MPNN: world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")
    shards = sorted(glob.glob(os.path.join(a.data, "train-*.jsonl")))[rank::world]
    recs = []
    for s in shards:
        cache = os.path.join(a.cache_dir, os.path.basename(s).replace(".jsonl", ".pt")) if a.cache_dir else ""
        if cache and os.path.exists(cache):
            part = torch.load(cache)
            log(f"rank {rank}: loaded featurised {s} from {cache}")
        else:
            part = read_jsonl(s)
            if cache:
                os.makedirs(a.cache_dir, exist_ok=True)
                feats = [{"id": r["id"], "x": torch.tensor([ELEM[e] for e in r["atoms"]]),
                          "e": torch.tensor(r["bonds"]).reshape(-1, 3),
                          "nbr_dist": torch.from_numpy(hop_distances(Molecules.nbrs(r), len(r["atoms"])))}
                         for r in part]
                with open(cache, "wb") as f:
                    torch.save({"records": part, "features": feats}, f)
                log(f"rank {rank}: featurised {s} -> {cache} ({os.path.getsize(cache) / 2 ** 20:.1f} MiB)")
            else:
                part = {"records": part}
        recs += part["records"]
    nat = [len(r["atoms"]) for r in recs]
    ys = np.array([r["y"] for r in recs], np.float64)
    log(f"rank {rank}: shards {[os.path.basename(s) for s in shards]}, {len(recs)} molecules, atoms {min(nat)}-{max(nat)} "
        f"(mean {np.mean(nat):.1f}), y min {ys.min():.4g} max {ys.max():.4g} mean {ys.mean():.4g}")
    val = read_jsonl(os.path.join(a.data, "val.jsonl"))
    nobond = [r["id"] for r in val if not r["bonds"]]
    if nobond:
        warnings.warn(f"{len(nobond)} validation records have no bonds (single atoms / counter-ions); "
                      f"they are kept as 1-atom graphs: {nobond[:6]}")
    val = val[rank::world]
    pad_to = 0
    if a.dense_geom:
        t = torch.tensor([max(nat)])
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        pad_to = int(t)
    ds = Molecules(recs, rank, a.ring_features, a.depth_feature, a.dense_geom, pad_to)
    if a.report_stats:
        STATS = StatsReporter(a.report_stats)
        log(f"rank {rank}: stats reporter writing to {a.report_stats} every 2 s")
    model = MPNN(a.hidden, a.steps)
    if rank == 0:
        log(f"model: MPNN hidden {a.hidden}, {a.steps} message-passing steps, "
            f"{sum(p.numel() for p in model.parameters())} parameters")
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True, collate_fn=collate,
                                         num_workers=a.num_workers, generator=torch.Generator().manual_seed(rank))
    if a.deepspeed:
        import deepspeed
        cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
               "gradient_accumulation_steps": 1, "steps_per_print": 50, "gradient_clipping": 1.0,
               "optimizer": {"type": "Adam", "params": {"lr": a.lr, "torch_adam": True}},
               "zero_optimization": {"stage": 0}}
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)
    ckpt = os.path.join(a.ckpt_dir, "last.pt")
    start_epoch = 0
    if a.resume:
        if os.path.exists(ckpt):
            st = torch.load(ckpt)
            missing, unexpected = model.load_state_dict(st["model"], strict=False)
            if missing or unexpected:
                warnings.warn(f"rank {rank}: {ckpt} does not match the model (missing {len(missing)}, unexpected "
                              f"{len(unexpected)} keys: {(missing + unexpected)[:4]}); loaded what matched")
            start_epoch = st["epoch"] + 1
            log(f"rank {rank}: resumed from {ckpt} (epoch {st['epoch']}, val MAE {st.get('val_mae', float('nan')):.4f})")
        else:
            log(f"rank {rank}: no checkpoint at {ckpt}, starting from scratch")

    def save(epoch, mae):
        os.makedirs(a.ckpt_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "epoch": epoch, "val_mae": mae, "hidden": a.hidden}, ckpt)
        log(f"saved {ckpt} (epoch {epoch}, val MAE {mae:.4f})")

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = 0
    epoch = start_epoch
    for epoch in range(start_epoch, a.epochs):
        net.train()
        t0, run_loss, nb, ngraphs = time.time(), 0.0, 0, 0
        for x, deg, src, dst, bt, batch, extra, y in loader:
            pred = net(x, deg, src, dst, bt, batch, extra)
            loss = F.mse_loss(pred, y)
            if a.deepspeed:
                net.backward(loss)
                net.step()
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                gn = nn.utils.clip_grad_norm_(model.parameters(), a.clip_norm if a.clip_norm > 0 else float("inf"))
                opt.step()
            step += 1
            nb += 1
            ngraphs += len(y)
            run_loss += loss.item()
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                    f"{'' if a.deepspeed else f'grad-norm {float(gn):.3f} '}"
                    f"{ngraphs * world / (time.time() - t0):.0f} mol/s")
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch, float("nan"))
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        net.eval()
        err = n = 0.0
        sizes, errs = [], []
        with torch.no_grad():
            for i in range(0, len(val), 64):
                items = []
                for r in val[i:i + 64]:
                    x = torch.tensor([ELEM[e] for e in r["atoms"]])
                    e = torch.tensor(r["bonds"], dtype=torch.long).reshape(-1, 3)
                    items.append((x, e, degree(x, e), torch.zeros(2), torch.tensor(float(r["y"]))))
                b = collate(items)
                out = model(*b[:7])
                ae = (out - b[7]).abs()
                err += float(ae.sum())
                n += len(items)
                sizes += [len(r["atoms"]) for r in val[i:i + 64]]
                errs += ae.tolist()
        part = torch.tensor([err, n, run_loss, float(nb)])
        dist.all_reduce(part)
        mae = part[0].item() / max(1.0, part[1].item())
        if a.size_buckets:  # MAE per 10-atom bucket, up to this rank's largest validation molecule
            nbk = max(sizes) // 10 + 1
            bk = torch.zeros(2, nbk)
            for s_, e_ in zip(sizes, errs):
                bk[0, s_ // 10] += e_
                bk[1, s_ // 10] += 1
            dist.all_reduce(bk)
            if rank == 0:
                log("val MAE by size: " + ", ".join(f"{10 * i}-{10 * i + 9} atoms {bk[0, i] / max(1, bk[1, i]):.4f}"
                                                    for i in range(nbk)))
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {part[2].item() / max(1.0, part[3].item()):.4f} val MAE {mae:.4f} eV "
                f"({int(part[1])} molecules) epoch time {time.time() - t0:.1f}s")
            save(epoch, mae)
    if rank == 0:
        log(f"done: {epoch + 1} epochs")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
