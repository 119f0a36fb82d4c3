"""Next-song recommender for the listening-sessions export: a small DLRM-style model (user / history / candidate
track / artist embedding bags + MLP), data parallel over gloo, sparse embedding gradients (SparseAdam) and Adam for
the dense part. Launched with torchrun."""
import argparse
import ctypes
import datetime
import json
import logging
import math
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset, DistributedSampler

RANK = int(os.environ.get("RANK", "0"))
WORLD = int(os.environ.get("WORLD_SIZE", "1"))


class RankFilter(logging.Filter):
    def filter(self, record):
        record.rank = RANK
        return True


h = logging.StreamHandler(sys.stdout)
h.addFilter(RankFilter())
h.setFormatter(logging.Formatter("%(asctime)s [rank%(rank)s] %(levelname)s %(name)s: %(message)s"))
logging.basicConfig(level=logging.INFO, handlers=[h])
log = logging.getLogger("recsys.train")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="config.json")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--lr", type=float, default=None, help="dense lr (overrides the config)")
    p.add_argument("--emb-dim", type=int, default=None)
    p.add_argument("--embedding-backend", choices=["auto", "torch", "torchrec"], default="torch")
    p.add_argument("--fast-collate", action="store_true")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--timeout", type=int, default=300)
    p.add_argument("--step-delay", type=float, default=0.0)
    p.add_argument("--num-workers", type=int, default=None)
    return p.parse_args()


class Sessions(Dataset):
    """Rows are parsed on access (the export is large in production)."""

    def __init__(self, path):
        with open(path) as f:
            self.header = f.readline().strip().split(",")
            self.lines = f.read().splitlines()

    def __len__(self):
        return len(self.lines)

    def __getitem__(self, i):
        rec = dict(zip(self.header, self.lines[i].split(",")))
        hist = [int(t) for t in rec["history"].split()]
        return int(rec["user_id"]), hist, int(rec["candidate_track"]), float(rec["listened"])


def collate(batch):
    users = torch.tensor([b[0] for b in batch])
    lengths = [len(b[1]) for b in batch]
    offsets = torch.tensor([0] + lengths[:-1]).cumsum(0)
    hist = torch.tensor([t for b in batch for t in b[1]], dtype=torch.long)
    seed = torch.tensor([b[1][0] if b[1] else 0 for b in batch])
    cand = torch.tensor([b[2] for b in batch])
    y = torch.tensor([b[3] for b in batch])
    return users, hist, offsets, seed, cand, y


def fast_collate(batch):
    """Packs the histories into one int64 buffer and reads the seed tracks straight from it."""
    users = torch.tensor([b[0] for b in batch])
    lengths = np.array([len(b[1]) for b in batch], dtype=np.int64)
    flat = np.fromiter((t for b in batch for t in b[1]), dtype=np.int64, count=int(lengths.sum()))
    starts = np.where(lengths > 0, np.concatenate([[0], np.cumsum(lengths)[:-1]]), -1).astype(np.uint32)
    base = flat.ctypes.data
    seed = torch.tensor([ctypes.c_int64.from_address(base + int(s) * 8).value for s in starts])
    offsets = torch.from_numpy(np.concatenate([[0], np.cumsum(lengths)[:-1]]))
    cand = torch.tensor([b[2] for b in batch])
    y = torch.tensor([b[3] for b in batch])
    return users, torch.from_numpy(flat), offsets, seed, cand, y


def torchrec_tables(cat, dim):
    from torchrec.modules.embedding_configs import EmbeddingBagConfig
    from torchrec.modules.embedding_modules import EmbeddingBagCollection
    return EmbeddingBagCollection(tables=[
        EmbeddingBagConfig(name="t_user", embedding_dim=dim, num_embeddings=cat["num_users"], feature_names=["user"]),
        EmbeddingBagConfig(name="t_track", embedding_dim=dim, num_embeddings=cat["num_tracks"],
                           feature_names=["history", "candidate"]),
    ])


class Recommender(nn.Module):
    def __init__(self, cat, dim, mlp):
        super().__init__()
        self.user = nn.EmbeddingBag(cat["num_users"], dim, mode="sum", sparse=True)
        self.track = nn.EmbeddingBag(cat["num_tracks"], dim, mode="mean", sparse=True)
        self.artist = nn.EmbeddingBag(cat["num_artists"], dim, mode="sum", sparse=True)
        self.register_buffer("artist_of", torch.tensor(cat["artist_of"]))
        layers, d = [], 4 * dim
        for w in mlp:
            layers += [nn.Linear(d, w), nn.ReLU()]
            d = w
        self.mlp = nn.Sequential(*layers, nn.Linear(d, 1))

    def forward(self, users, hist, offsets, seed, cand):
        ar = torch.arange(len(users))
        u = self.user(users.unsqueeze(1))
        h = self.track(hist, offsets)
        c = self.track(cand.unsqueeze(1))
        a = self.artist(self.artist_of[cand].unsqueeze(1)) + self.artist(self.artist_of[seed].unsqueeze(1))
        del ar
        return self.mlp(torch.cat([u, h, c, a], 1)).squeeze(1)


def main():
    args = parse_args()
    cfg = json.load(open(args.config))
    if args.lr is not None:
        cfg["lr_dense"] = args.lr
    if args.emb_dim is not None:
        cfg["emb_dim"] = args.emb_dim
    if args.num_workers is not None:
        cfg["num_workers"] = args.num_workers
    log.info("starting rank %d/%d pid %d torch %s", RANK, WORLD, os.getpid(), torch.__version__)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.timeout))
    log.info("process group ready (backend %s, world size %d)", dist.get_backend(), dist.get_world_size())

    per_rank, rem = divmod(cfg["global_batch_size"], WORLD * cfg["grad_accum"])
    if rem:
        raise ValueError(f"global_batch_size {cfg['global_batch_size']} is not divisible by world_size * grad_accum "
                         f"= {WORLD} * {cfg['grad_accum']}")
    log.info("batch: global %d = %d per rank x %d ranks x %d accumulation steps", cfg["global_batch_size"],
             per_rank, WORLD, cfg["grad_accum"])

    cat = json.load(open(os.path.join(args.data_dir, "catalog.json")))
    log.info("catalog: %d users, %d tracks, %d artists", cat["num_users"], cat["num_tracks"], cat["num_artists"])
    if args.embedding_backend in ("auto", "torchrec"):
        try:
            ebc = torchrec_tables(cat, cfg["emb_dim"])
            log.info("torchrec EmbeddingBagCollection with %d tables", len(ebc.embedding_bag_configs()))
        except Exception:
            if args.embedding_backend == "torchrec":
                raise
            log.exception("torchrec embedding backend unavailable, falling back to torch.nn.EmbeddingBag")
    model = Recommender(cat, cfg["emb_dim"], cfg["mlp"])
    n_sparse = sum(p.numel() for m in (model.user, model.track, model.artist) for p in m.parameters())
    log.info("model: %d embedding parameters, %d dense parameters", n_sparse,
             sum(p.numel() for p in model.mlp.parameters()))
    ddp = DDP(model)
    sparse_params = [p for m in (model.user, model.track, model.artist) for p in m.parameters()]
    opt_sparse = torch.optim.SparseAdam(sparse_params, lr=cfg["lr_sparse"])
    opt_dense = torch.optim.Adam(model.mlp.parameters(), lr=cfg["lr_dense"])

    start_epoch = 0
    ck = os.path.join(args.ckpt_dir, "last.pt")
    if args.resume and os.path.exists(ck):
        state = torch.load(ck, map_location="cpu")
        model.load_state_dict(state["model"])
        opt_sparse.load_state_dict(state["opt_sparse"])
        opt_dense.load_state_dict(state["opt_dense"])
        start_epoch = state["epoch"]
        log.info("resumed from %s (epoch %d done)", ck, start_epoch)
    elif args.resume:
        log.warning("--resume given but no checkpoint at %s; starting from scratch", ck)

    train = Sessions(os.path.join(args.data_dir, "sessions_train.csv"))
    valid = Sessions(os.path.join(args.data_dir, "sessions_valid.csv"))
    sampler = DistributedSampler(train, shuffle=True, seed=0)
    coll = fast_collate if args.fast_collate else collate
    dl = DataLoader(train, batch_size=per_rank, sampler=sampler, collate_fn=coll, num_workers=cfg["num_workers"])
    vdl = DataLoader(valid, batch_size=per_rank, sampler=DistributedSampler(valid, shuffle=False), collate_fn=collate)
    log.info("train sessions %d, valid sessions %d, %d steps per epoch", len(train), len(valid), len(dl))

    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        ddp.train()
        t0 = time.time()
        for step, (users, hist, offsets, seed, cand, y) in enumerate(dl, 1):
            logits = ddp(users, hist, offsets, seed, cand)
            loss = F.binary_cross_entropy_with_logits(logits, y)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch + 1} step {step}")
            opt_sparse.zero_grad()
            opt_dense.zero_grad()
            loss.backward()
            opt_sparse.step()
            opt_dense.step()
            if step % cfg["log_every"] == 0:
                log.info("epoch %d/%d step %d/%d loss %.4f (%.1f samples/s)", epoch + 1, args.epochs, step, len(dl),
                         loss.item(), step * per_rank / (time.time() - t0))
            time.sleep(args.step_delay)

        ddp.eval()
        stats = torch.zeros(3)
        skip_pos = torch.zeros(2)
        with torch.no_grad():
            for users, hist, offsets, seed, cand, y in vdl:
                p = torch.sigmoid(ddp(users, hist, offsets, seed, cand))
                stats += torch.tensor([F.binary_cross_entropy(p, y, reduction="sum").item(),
                                       ((p > 0.5).float() == y).sum().item(), len(y)])
                cold = users < 0  # users with no profile yet (none in this export)
                skip_pos += torch.tensor([p[cold].sum().item(), cold.sum().item()])
        dist.all_reduce(stats)
        dist.all_reduce(skip_pos)
        cold_rate = (skip_pos[0] / skip_pos[1]).item()
        log.info("epoch %d valid logloss %.4f accuracy %.4f cold-start listen rate %s", epoch + 1,
                 stats[0] / stats[2], stats[1] / stats[2], cold_rate)
        if math.isnan(cold_rate):
            log.warning("cold-start listen rate is nan (no cold-start users in the validation set)")
        if RANK == 0:
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt_sparse": opt_sparse.state_dict(),
                        "opt_dense": opt_dense.state_dict(), "epoch": epoch + 1}, ck + ".tmp")
            os.replace(ck + ".tmp", ck)
            log.info("saved checkpoint %s (epoch %d)", ck, epoch + 1)
        dist.barrier()
    log.info("training finished")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
