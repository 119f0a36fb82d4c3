"""Next point-of-interest recommender: a GRU over a user's recent check-ins (venue + hour-of-day + session-start
embeddings) predicting the next venue, trained data-parallel with PyTorch Ignite (ignite.distributed, gloo).

Launch: `python poi_rec.py --nproc 2` (ignite spawns the processes), `--nnodes/--node-rank/--master-addr/--master-port`
for several nodes, or under `torchrun` (ignite reads its environment).
"""
import argparse
import ctypes
import json
import math
import os
import queue
import signal
import sys
import threading
from datetime import timedelta
from pathlib import Path

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, IterableDataset, TensorDataset

import ignite
import ignite.distributed as idist
from ignite.engine import Events, create_supervised_evaluator, create_supervised_trainer
from ignite.handlers import Checkpoint, DiskSaver, EarlyStopping, TerminateOnNan, Timer, global_step_from_engine
from ignite.metrics import Loss, Metric, TopKCategoricalAccuracy
from ignite.metrics.metric import reinit__is_reduced, sync_all_reduce
from ignite.utils import manual_seed, setup_logger

BBOX = (52.40, 52.70, 13.20, 13.60)  # lat min/max, lon min/max of the city grid


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--nproc", type=int, default=None, help="processes to spawn on this node (else: torchrun env)")
    ap.add_argument("--nnodes", type=int, default=None)
    ap.add_argument("--node-rank", type=int, default=None)
    ap.add_argument("--master-addr", default=None)
    ap.add_argument("--master-port", type=int, default=None)
    ap.add_argument("--dist-timeout", type=int, default=0, help="seconds (0: torch default)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=64, help="per process")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--scale-lr", action="store_true", help="linear scaling rule: lr * global batch / 64")
    ap.add_argument("--seq-len", type=int, default=12)
    ap.add_argument("--emb", type=int, default=48)
    ap.add_argument("--hidden", type=int, default=96)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=25)
    ap.add_argument("--patience", type=int, default=0, help="early stopping on validation MRR (0: off)")
    ap.add_argument("--best-by", default="mrr", help="validation metric for the best checkpoints")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", action="store_true", help="continue from the latest checkpoint in --ckpt-dir")
    ap.add_argument("--sessionize", choices=["python", "native"], default="python")
    ap.add_argument("--max-gap-hours", type=float, default=3.0)
    ap.add_argument("--transition-prior", choices=["none", "global", "hourly"], default="none")
    ap.add_argument("--geo-prior", type=float, default=0.0, help="weight of a distance-kernel bias on the logits")
    ap.add_argument("--logq-correction", action="store_true",
                    help="subtract log venue popularity from the logits (popularity-bias correction)")
    ap.add_argument("--prefetch-shards", action="store_true", help="read training parts in a background thread")
    ap.add_argument("--export-recs", default="", help="write top-10 recommendations per user and hour here")
    ap.add_argument("--save-on-sigterm", action="store_true")
    ap.add_argument("--seed", type=int, default=11)
    return ap.parse_args()


# ---------------------------------------------------------------------------------------------------------------- data
def read_pois(data):
    rows = [l.rstrip("\n").split("\t") for l in open(Path(data) / "pois.tsv")][1:]
    lat = torch.tensor([float(r[3]) for r in rows], dtype=torch.float64)
    lon = torch.tensor([float(r[4]) for r in rows], dtype=torch.float64)
    return len(rows), lat, lon


def geo_kernel(lat, lon, bandwidth_km=1.5):
    """Haversine distance between every pair of venues and a Gaussian kernel over it."""
    la, lo = torch.deg2rad(lat), torch.deg2rad(lon)
    dla = la[:, None] - la[None, :]
    dlo = lo[:, None] - lo[None, :]
    h = torch.sin(dla / 2) ** 2 + torch.cos(la)[:, None] * torch.cos(la)[None, :] * torch.sin(dlo / 2) ** 2
    dist = 2 * 6371.0 * torch.asin(torch.sqrt(h.clamp(0, 1)))
    return dist, torch.exp(-(dist / bandwidth_km) ** 2)


_lib = None


def sessions_native(ts, max_gap):
    global _lib
    if _lib is None:
        _lib = ctypes.CDLL(str(Path(__file__).with_name("libsessionize.so")))
        _lib.sessionize.argtypes = [ctypes.POINTER(ctypes.c_longlong), ctypes.c_int, ctypes.c_longlong,
                                    ctypes.POINTER(ctypes.c_int)]
    arr = (ctypes.c_longlong * max(len(ts), 1))(*ts)
    out = (ctypes.c_int * max(len(ts), 1))()
    _lib.sessionize(arr, len(ts), max_gap, out)
    return list(out)[: len(ts)]


def sessions_python(ts, max_gap):
    return [1 if i == 0 or ts[i] - ts[i - 1] > max_gap else 0 for i in range(len(ts))]


def read_part(path):
    users = {}
    with open(path) as f:
        next(f)
        for line in f:
            u, ts, p, la, lo = line.rstrip("\n").split("\t")
            users.setdefault(int(u), []).append((int(ts), int(p), float(la), float(lo)))
    return users


def part_windows(users, args, n_poi):
    """Sliding windows over each user's check-ins inside the city area; the last check-in of a user is held out."""
    gap = int(args.max_gap_hours * 3600)
    L = args.seq_len
    tr, va = [], []
    for u, rows in users.items():
        rows = [r for r in rows if BBOX[0] <= r[2] <= BBOX[1] and BBOX[2] <= r[3] <= BBOX[3]]
        ts = [r[0] for r in rows]
        new = sessions_native(ts, gap) if args.sessionize == "native" else sessions_python(ts, gap)
        poi = [r[1] for r in rows]
        hour = [(t // 3600) % 24 for t in ts]
        for t in range(1, len(rows)):
            lo = max(0, t - L)
            pad = L - (t - lo)
            x = [n_poi] * pad + poi[lo:t]
            h = [0] * pad + hour[lo:t]
            s = [0] * pad + new[lo:t]
            item = (x, h, s, hour[t], poi[t])
            (va if t == len(rows) - 1 else tr).append(item)
    return tr, va


def to_tensors(items):
    x = torch.tensor([i[0] for i in items], dtype=torch.long)
    h = torch.tensor([i[1] for i in items], dtype=torch.long)
    s = torch.tensor([i[2] for i in items], dtype=torch.long)
    th = torch.tensor([i[3] for i in items], dtype=torch.long)
    y = torch.tensor([i[4] for i in items], dtype=torch.long)
    return torch.stack([x, h, s, th[:, None].expand_as(x)], dim=1), y


class PartStream(IterableDataset):
    """Training windows streamed part by part; a background thread reads the next part while one is consumed."""

    def __init__(self, files, args, n_poi):
        self.files, self.args, self.n_poi = files, args, n_poi
        self.q = queue.Queue(maxsize=1)
        threading.Thread(target=self._reader, daemon=True).start()

    def _reader(self):
        while True:
            for f in self.files:
                tr, _ = part_windows(read_part(f), self.args, self.n_poi)
                self.q.put(tr)

    def __iter__(self):
        while True:
            items = self.q.get()
            g = torch.Generator().manual_seed(len(items))
            for i in torch.randperm(len(items), generator=g).tolist():
                xs, y = to_tensors([items[i]])
                yield xs[0], y[0]


# --------------------------------------------------------------------------------------------------------------- model
class NextPOI(nn.Module):
    def __init__(self, n_poi, emb, hidden, prior=None, geo=None, geo_weight=0.0, log_pop=None):
        super().__init__()
        self.log_pop = log_pop
        self.n_poi = n_poi
        self.poi = nn.Embedding(n_poi + 1, emb, padding_idx=n_poi)
        self.hour = nn.Embedding(24, 16)
        self.new_session = nn.Embedding(2, 4)
        self.gru = nn.GRU(emb + 16 + 4, hidden, batch_first=True)
        self.target_hour = nn.Embedding(24, hidden)
        self.out = nn.Linear(hidden, n_poi)
        self.prior, self.geo, self.geo_weight = prior, geo, geo_weight

    def forward(self, xs):
        x, h, s, th = xs[:, 0], xs[:, 1], xs[:, 2], xs[:, 3, 0]
        z = torch.cat([self.poi(x), self.hour(h), self.new_session(s)], dim=-1)
        o, _ = self.gru(z)
        logits = self.out(torch.tanh(o[:, -1] + self.target_hour(th)))
        last = x[:, -1].clamp(max=self.n_poi - 1)
        if self.prior is not None:
            p = self.prior[th, last] if self.prior.dim() == 3 else self.prior[last]
            logits = logits + torch.log(p.float() + 1e-6)
        if self.geo is not None and self.geo_weight:
            logits = logits + self.geo_weight * self.geo[last].float()
        if self.log_pop is not None:
            logits = logits - self.log_pop
        return logits


class MRR(Metric):
    """Mean reciprocal rank of the true next venue, summed over this process and all-reduced across processes."""

    @reinit__is_reduced
    def reset(self):
        self._sum = torch.tensor(0.0, dtype=torch.float64)
        self._num = 0

    @reinit__is_reduced
    def update(self, output):
        y_pred, y = output[0].detach(), output[1].detach()
        true = y_pred.gather(1, y[:, None])
        rank = (y_pred > true).sum(dim=1) + 1
        self._sum += (1.0 / rank.double()).sum()
        self._num += y.shape[0]

    @sync_all_reduce("_sum", "_num")
    def compute(self):
        return self._sum.item() / max(self._num, 1)


# ---------------------------------------------------------------------------------------------------------- training
def training(local_rank, args, shared=None):
    rank, ws = idist.get_rank(), idist.get_world_size()
    log = setup_logger("poi-rec", distributed_rank=rank)
    manual_seed(args.seed + rank)
    if rank == 0:
        log.info(f"ignite {ignite.__version__}, torch {torch.__version__}, backend {idist.backend()}, "
                 f"world size {ws}")
        log.info("args: " + json.dumps(vars(args), sort_keys=True))
        ck = Path(args.ckpt_dir)
        if ck.is_dir() and any(ck.iterdir()) and not args.resume:
            ans = input(f"{ck} holds checkpoints of an earlier run; overwrite them? [y/N] ")
            if ans.strip().lower() != "y":
                raise SystemExit("not overwriting; pass --resume or another --ckpt-dir")
    n_poi, lat, lon = read_pois(args.data)
    files = sorted((Path(args.data) / "checkins").glob("part-*.tsv"))[rank::ws]
    users = {}
    for f in files:
        users.update(read_part(f))
    tr, va = part_windows(users, args, n_poi)
    print(f"[rank {rank}] parts {','.join(f.stem for f in files)}: {len(users)} users, {len(tr)} training windows, "
          f"{len(va)} held-out", flush=True)
    steps = len(tr) // args.batch_size
    epoch_length = int(idist.all_reduce(torch.tensor(steps), op="MIN").item())

    prior = None
    if args.transition_prior != "none":
        k = 24 if args.transition_prior == "hourly" else 1
        counts = torch.zeros(k, n_poi, n_poi, dtype=torch.float64)
        for x, _, _, th, y in tr:
            counts[th % k, x[-1], y] += 1
        counts = idist.all_reduce(counts)
        prior = (counts + 0.01) / (counts + 0.01).sum(dim=-1, keepdim=True)
        prior = prior if k > 1 else prior[0]
        log.info(f"transition prior {tuple(prior.shape)} from {int(counts.sum())} transitions")
    geo = None
    if args.geo_prior:
        geo = shared["geo_kernel"] if shared else geo_kernel(lat, lon)[1]

    log_pop = None
    if args.logq_correction:  # how often each venue is a target, over every process's training windows
        pop = torch.zeros(n_poi)
        for it in tr:
            pop[it[4]] += 1
        pop = idist.all_reduce(pop)
        log_pop = torch.log(pop / pop.sum())
        log.info(f"venue popularity from {int(pop.sum())} targets, {int((pop > 0).sum())} venues seen")

    if args.prefetch_shards:
        train_ds = PartStream(files, args, n_poi)
    else:
        train_ds = TensorDataset(*to_tensors(tr))
    val_ds = TensorDataset(*to_tensors(va))
    train_loader = idist.auto_dataloader(train_ds, batch_size=args.batch_size * ws, num_workers=args.workers * ws,
                                         shuffle=not args.prefetch_shards, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256)  # each process evaluates its own users; metrics are all-reduced

    model = idist.auto_model(NextPOI(n_poi, args.emb, args.hidden, prior, geo, args.geo_prior, log_pop))
    lr = args.lr * (args.batch_size * ws / 64 if args.scale_lr else 1.0)
    optimizer = idist.auto_optim(torch.optim.Adam(model.parameters(), lr=lr))
    criterion = nn.CrossEntropyLoss()
    trainer = create_supervised_trainer(model, optimizer, criterion)
    trainer.logger = setup_logger("trainer", distributed_rank=rank)
    metrics = {"recall@10": TopKCategoricalAccuracy(k=10), "mrr": MRR(), "nll": Loss(criterion)}
    evaluator = create_supervised_evaluator(model, metrics=metrics)
    evaluator.logger = setup_logger("evaluator", distributed_rank=rank, level=30)
    if rank == 0:
        log.info(f"{n_poi} venues, model {sum(p.numel() for p in model.parameters())} parameters, lr {lr:g}, "
                 f"global batch {args.batch_size * ws}, {epoch_length} steps per epoch")

    timer = Timer(average=True)
    timer.attach(trainer, start=Events.EPOCH_STARTED, resume=Events.ITERATION_STARTED,
                 pause=Events.ITERATION_COMPLETED, step=Events.ITERATION_COMPLETED)
    trainer.add_event_handler(Events.ITERATION_COMPLETED, TerminateOnNan())

    @trainer.on(Events.ITERATION_COMPLETED(every=args.log_every))
    def log_loss(engine):
        log.info(f"epoch {engine.state.epoch} iter {engine.state.iteration} loss {engine.state.output:.4f} "
                 f"({timer.value() * 1000:.0f} ms/step)")

    @trainer.on(Events.EPOCH_COMPLETED)
    def validate(engine):
        evaluator.run(val_loader)
        m = evaluator.state.metrics
        log.info(f"validation after epoch {engine.state.epoch}: recall@10 {m['recall@10']:.4f} mrr {m['mrr']:.4f} "
                 f"nll {m['nll']:.4f}")

    to_save = {"model": model, "optimizer": optimizer, "trainer": trainer}
    last = Checkpoint(to_save, DiskSaver(args.ckpt_dir, require_empty=False), n_saved=1, filename_prefix="last")
    trainer.add_event_handler(Events.EPOCH_COMPLETED | Events.TERMINATE, last)
    best = Checkpoint({"model": model}, DiskSaver(args.ckpt_dir, require_empty=False), n_saved=2,
                      filename_prefix="best", score_function=Checkpoint.get_default_score_fn(args.best_by),
                      score_name=args.best_by.replace("@", ""), global_step_transform=global_step_from_engine(trainer))
    evaluator.add_event_handler(Events.COMPLETED, best)
    if args.patience:
        evaluator.add_event_handler(Events.COMPLETED, EarlyStopping(
            patience=args.patience, score_function=lambda e: e.state.metrics["mrr"], trainer=trainer))

    stop = {"flag": 0}
    if args.save_on_sigterm:
        def on_term(signum, frame):
            print(f"[rank {rank}] caught SIGTERM, stopping at the next iteration", flush=True)
            stop["flag"] = 1
        signal.signal(signal.SIGTERM, on_term)

        @trainer.on(Events.ITERATION_COMPLETED)
        def agree_stop(engine):  # every process stops at the same iteration
            if idist.all_reduce(torch.tensor(stop["flag"]), op="MAX").item():
                engine.terminate()

    if args.resume:
        found = sorted(Path(args.ckpt_dir).glob("last_checkpoint_*.pt"), key=os.path.getmtime)
        if found:
            Checkpoint.load_objects(to_load=to_save, checkpoint=torch.load(found[-1], map_location="cpu"))
            log.info(f"resumed from {found[-1]} (epoch {trainer.state.epoch}, iteration {trainer.state.iteration})")
        else:
            log.info(f"no checkpoint in {args.ckpt_dir}, starting from scratch")

    trainer.run(train_loader, max_epochs=args.epochs, epoch_length=epoch_length)
    if stop["flag"]:
        log.warning(f"stopped by SIGTERM at epoch {trainer.state.epoch} iteration {trainer.state.iteration}; "
                    f"checkpoint {last.last_checkpoint}")
        sys.exit(128 + signal.SIGTERM)
    if rank == 0:
        log.info(f"best checkpoints: {[str(i.filename) for i in best._saved]}")
    if args.export_recs and rank == 0:
        export_recs(model, n_poi, va, args.export_recs, log)
    if rank == 0:
        log.info(f"done: {trainer.state.epoch} epochs, {trainer.state.iteration} iterations")


def export_recs(model, n_poi, va, path, log):
    net = model.module if hasattr(model, "module") else model
    net.eval()
    xs, _ = to_tensors(va)
    with open(path, "w") as f:
        f.write("user_row\thour\trecommendations\n")
        with torch.no_grad():
            for hr in range(24):
                xs[:, 3] = hr
                top = net(xs).topk(10, dim=1).indices
                for i, row in enumerate(top.tolist()):
                    f.write(f"{i}\t{hr}\t{','.join(map(str, row))}\n")
    log.info(f"recommendations for {len(va)} users x 24 hours written to {path}")


def main():
    args = parse()
    shared = None
    if args.nproc and args.geo_prior:  # computed once here and handed to the spawned processes
        _, lat, lon = read_pois(args.data)
        dist, kern = geo_kernel(lat, lon)
        shared = {"geo_dist": dist, "geo_kernel": kern}
        print(f"geo prior: {dist.shape[0]} x {dist.shape[1]} venue distances computed once, shared with the workers",
              flush=True)
    if args.nproc:
        kw = dict(nproc_per_node=args.nproc, nnodes=args.nnodes, node_rank=args.node_rank,
                  master_addr=args.master_addr, master_port=args.master_port)
        if args.dist_timeout:
            kw["timeout"] = timedelta(seconds=args.dist_timeout)
        with idist.Parallel(backend="gloo", **kw) as p:
            p.run(training, args, shared)
    elif args.dist_timeout:  # torchrun, with a process-group timeout of our own
        idist.initialize("gloo", timeout=timedelta(seconds=args.dist_timeout))
        with idist.Parallel(backend=None) as p:
            p.run(training, args)
        idist.finalize()
    else:
        with idist.Parallel(backend="gloo") as p:
            p.run(training, args)


if __name__ == "__main__":
    main()
