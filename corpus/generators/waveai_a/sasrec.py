"""SASRec-style sequential recommender: item + positional embeddings, causal transformer blocks, next-item prediction
with sampled negatives (BCE, one negative per position; or sampled softmax over shared negatives). Trained
data-parallel over gloo under torchrun, Open MPI, the DeepSpeed launcher or accelerate launch. Rank r reads
data/items-NN.npy / offsets-NN.npy for NN % world == r. Validation: leave-one-out, the held-out item ranked among 100
sampled items, HR@10 and NDCG@10 all-reduced as sums; rank 0 writes ckpt/last.pt and ckpt/best.pt."""
import argparse
import ctypes
import datetime
import faulthandler
import glob
import json
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
faulthandler.register(signal.SIGUSR1, all_threads=True)


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class Sessions(torch.utils.data.Dataset):
    """Each user's last maxlen+1 items: inputs seq[:-1], next-item targets seq[1:] (left-padded with 0)."""

    def __init__(self, items, offsets, maxlen, dedup=False, hard_negs=0, weights=None):
        self.items = np.load(items, mmap_mode="r")
        self.off = np.load(offsets)
        self.maxlen, self.dedup, self.hard_negs = maxlen, dedup, hard_negs
        self.weights = weights

    def __len__(self):
        return len(self.off) - 1

    def __getitem__(self, u):
        seq = self.items[self.off[u]:self.off[u + 1]].tolist()
        if self.dedup:  # drop re-views: keep each item's first occurrence
            seen = []
            for it in seq:
                if it not in seen:
                    seen.append(it)
            seq = seen
        seq = seq[-(self.maxlen + 1):]
        x = torch.zeros(self.maxlen + 1, dtype=torch.long)
        x[-len(seq):] = torch.tensor(seq, dtype=torch.long)
        out = {"inp": x[:-1], "pos": x[1:]}
        if self.hard_negs:
            out["negs"] = torch.multinomial(self.weights, self.maxlen * self.hard_negs, replacement=True).view(
                self.maxlen, self.hard_negs)
        return out


class SASRec(nn.Module):
    def __init__(self, n_items, d=48, maxlen=30, blocks=2, heads=2, dropout=0.2):
        super().__init__()
        self.d = d
        self.item = nn.Embedding(n_items + 1, d, padding_idx=0)
        self.pos = nn.Embedding(maxlen, d)
        self.drop = nn.Dropout(dropout)
        layer = nn.TransformerEncoderLayer(d, heads, 2 * d, dropout, batch_first=True, norm_first=True)
        self.enc = nn.TransformerEncoder(layer, blocks)
        self.ln = nn.LayerNorm(d)
        self.register_buffer("causal", nn.Transformer.generate_square_subsequent_mask(maxlen), persistent=False)

    def forward(self, seq):
        x = self.item(seq) * math.sqrt(self.d) + self.pos.weight[None, : seq.shape[1]]
        x = self.drop(x) * (seq > 0).unsqueeze(-1)
        return self.ln(self.enc(x, mask=self.causal, is_causal=True))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--dim", type=int, default=48)
    ap.add_argument("--maxlen", type=int, default=30)
    ap.add_argument("--blocks", type=int, default=2)
    ap.add_argument("--loss", choices=("bce", "ssm"), default="bce", help="bce or sampled softmax")
    ap.add_argument("--negatives", type=int, default=128, help="shared negatives per batch (ssm)")
    ap.add_argument("--neg-sampler", choices=("uniform", "pop"), default="uniform")
    ap.add_argument("--neg-pool", choices=("global", "local"), default="global",
                    help="popularity from all ranks' data or this rank's market only")
    ap.add_argument("--logq", action="store_true", help="logQ correction of sampled-softmax logits")
    ap.add_argument("--hard-negatives", type=int, default=0, help="popularity negatives per position, in the loader")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--dedup", action="store_true", help="drop repeated views from histories")
    ap.add_argument("--item-meta", default="", help="item metadata CSV (category coverage report)")
    ap.add_argument("--cooc-init", action="store_true", help="init item embeddings from the co-occurrence SVD")
    ap.add_argument("--fast-rank", action="store_true", help="rank candidates with the libtopk C helper")
    ap.add_argument("--keep-all", action="store_true", help="keep every epoch's checkpoint")
    ap.add_argument("--compress-old", action="store_true", help="gzip older epoch checkpoints")
    ap.add_argument("--log-every", type=int, default=4)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--ckpt-dir", default="ckpt")
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
    with open(os.path.join(a.data, "catalog.json")) as f:
        catalog = json.load(f)
    n_items = catalog["n_items"]
    if rank == 0:
        log(f"sasrec: world {world}, torch {torch.__version__}, numpy {np.__version__}, catalog {n_items} items "
            f"(export {catalog['export']}), args {vars(a)}")
    shards = sorted(glob.glob(os.path.join(a.data, "items-*.npy")))[rank::world]
    events = np.concatenate([np.load(s, mmap_mode="r") for s in shards])
    local = torch.from_numpy(np.bincount(events, minlength=n_items + 1).astype(np.int64))
    counts = local.clone()
    dist.all_reduce(counts)  # global item popularity for the negative sampler
    parts = [Sessions(s, s.replace("items-", "offsets-"), a.maxlen, a.dedup, a.hard_negatives,
                      counts[1:].double() + 1.0) for s in shards]
    ds = torch.utils.data.ConcatDataset(parts)
    log(f"rank {rank}: shards {[os.path.basename(s) for s in shards]}, {len(ds)} users, {len(events)} events, "
        f"{int((local > 0).sum())} distinct items")
    if rank == 0:
        seen = int((counts[1:] > 0).sum())
        top = counts[1:].topk(10).values.sum() / counts.sum()
        log(f"catalog coverage: {seen}/{n_items} items with interactions, top-10 items {float(top):.1%} of events")
    if a.item_meta:
        import pandas as pd
        meta = pd.read_csv(a.item_meta)
        log(f"rank {rank}: item metadata {len(meta)} rows, {meta['category'].nunique()} categories")
    val = Sessions(os.path.join(a.data, "val-items.npy"), os.path.join(a.data, "val-offsets.npy"), a.maxlen + 1)
    vidx = list(range(rank, len(val), world))
    model = SASRec(n_items, a.dim, a.maxlen, a.blocks)
    if a.cooc_init:
        win = 5
        log(f"rank {rank}: cooc-init: counting item co-occurrences (window {win}) over {len(events)} events")
        cooc = np.zeros((n_items + 1, n_items + 1), np.float32)
        ev = np.asarray(events, np.int64)
        for k in range(1, win + 1):
            np.add.at(cooc, (ev[:-k], ev[k:]), 1.0)
            np.add.at(cooc, (ev[k:], ev[:-k]), 1.0)
        deg = cooc.sum(1) + 1.0
        log(f"rank {rank}: cooc-init: normalising {cooc.shape[0]}x{cooc.shape[1]} matrix")
        cooc = cooc / np.sqrt(np.outer(deg, deg))
        u, s, _ = torch.svd_lowrank(torch.from_numpy(cooc), q=a.dim)
        with torch.no_grad():
            model.item.weight.copy_(u * s.sqrt())
        log(f"rank {rank}: cooc-init: item embeddings from top-{a.dim} singular vectors")
    if rank == 0:
        log(f"model: SASRec, {a.blocks} blocks, dim {a.dim}, maxlen {a.maxlen}, "
            f"{sum(p.numel() for p in model.parameters())} parameters, loss {a.loss}")
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True,
                                         num_workers=a.workers, generator=torch.Generator().manual_seed(rank))
    if a.deepspeed:
        import deepspeed
        cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
               "gradient_accumulation_steps": 1, "steps_per_print": 20, "gradient_clipping": 1.0,
               "optimizer": {"type": "Adam", "params": {"lr": a.lr, "torch_adam": True}},
               "zero_optimization": {"stage": 0}}
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr, betas=(0.9, 0.98))
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)
    pool = (local if a.neg_pool == "local" else counts)[1:].double()
    logq = torch.log(counts[1:].double() / counts.sum()).float()
    pool_p = (pool / pool.sum()).numpy()
    g_neg = torch.Generator().manual_seed(1000 + rank)
    np_rng = np.random.default_rng(1000 + rank)

    def sample_negs(k):
        if a.neg_sampler == "uniform":
            return torch.randint(1, n_items + 1, (k,), generator=g_neg)
        return torch.from_numpy(np_rng.choice(n_items, k, replace=False, p=pool_p) + 1)

    def loss_fn(h, batch):
        pos, valid = batch["pos"], batch["pos"] > 0
        hv = h[valid]
        pe = model.item(pos[valid])
        if "negs" in batch:
            ne = model.item(batch["negs"][valid])
            pl, nl = (hv * pe).sum(-1), torch.einsum("nd,nkd->nk", hv, ne)
            return F.softplus(-pl).mean() + F.softplus(nl).mean()
        if a.loss == "bce":
            ne = model.item(torch.randint(1, n_items + 1, pos.shape, generator=g_neg)[valid])
            pl, nl = (hv * pe).sum(-1), (hv * ne).sum(-1)
            return F.softplus(-pl).mean() + F.softplus(nl).mean()
        negs = sample_negs(a.negatives)
        logits = torch.cat([(hv * pe).sum(-1, keepdim=True), hv @ model.item(negs).T], 1)
        if a.logq:
            logits = logits - torch.cat([logq[pos[valid] - 1][:, None], logq[negs - 1][None].expand(len(hv), -1)], 1)
        return F.cross_entropy(logits, torch.zeros(len(hv), dtype=torch.long))

    ranker = None
    if a.fast_rank:
        lib = ctypes.CDLL(os.path.abspath("libtopk.so"))
        lib.ranker_new.argtypes = [ctypes.c_int, ctypes.c_int]
        lib.ranker_rank.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
        lib.ranker_rank.restype = ctypes.c_int
        ranker = lib.ranker_new(101, 10)

    def evaluate():
        model.eval()
        g = torch.Generator().manual_seed(7)
        hr = ndcg = 0.0
        with torch.no_grad():
            for i in range(0, len(vidx), 64):
                users = vidx[i:i + 64]
                b = [val[u] for u in users]
                inp = torch.stack([x["inp"][1:] for x in b])  # history without the held-out item
                tgt = torch.stack([x["pos"][-1] for x in b])
                h = model(inp)[:, -1]
                cand = torch.cat([tgt[:, None], torch.randint(1, n_items + 1, (len(users), 100), generator=g)], 1)
                scores = torch.einsum("bd,bkd->bk", h, model.item(cand)).contiguous()
                if ranker is not None:
                    r = np.zeros(len(users), np.int32)
                    lib.ranker_rank(ranker, scores.numpy().ctypes.data, len(users), r.ctypes.data)
                    r = torch.from_numpy(r).long()
                else:
                    r = (scores[:, 1:] > scores[:, :1]).sum(1)
                hr += float((r < 10).sum())
                ndcg += float(((r < 10).double() / torch.log2(r.double() + 2)).sum())
        model.train()
        return hr, ndcg

    def save(epoch, hr, best):
        os.makedirs(a.ckpt_dir, exist_ok=True)
        state = {"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch, "hr10": hr}
        names = ["last.pt"] + ([f"epoch-{epoch:02d}.pt"] if a.keep_all else []) + (["best.pt"] if best else [])
        for nm in names:
            torch.save(state, os.path.join(a.ckpt_dir, nm))
        log(f"saved {', '.join(os.path.join(a.ckpt_dir, nm) for nm in names)} (epoch {epoch}, HR@10 {hr:.4f})")
        if a.compress_old:
            old = sorted(glob.glob(os.path.join(a.ckpt_dir, "epoch-*.pt")))[:-2]
            subprocess.run(["gzip", "-f", *old], check=True)

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = bad = 0
    best = -1.0
    epoch = 0
    for epoch in range(a.epochs):
        net.train()
        t0, run_loss, nb = time.time(), 0.0, 0
        for batch in loader:
            h = net(batch["inp"])
            loss = loss_fn(h, batch)
            if a.deepspeed:
                net.backward(loss)
                net.step()
                gn = None
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
            step += 1
            nb += 1
            run_loss += loss.item()
            bad = bad + 1 if not torch.isfinite(loss) else 0
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                    f"{'' if gn is None else f'grad-norm {float(gn):.3f} '}"
                    f"lr {opt.param_groups[0]['lr']:.2e} {nb * a.batch_size * world / (time.time() - t0):.1f} seq/s")
            if bad >= 10:
                log(f"rank {rank}: loss not finite for {bad} steps (last {loss.item()}), stopping")
                sys.exit(3)
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch, float("nan"), False)
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        hr, ndcg = evaluate()
        part = torch.tensor([hr, ndcg, float(len(vidx)), run_loss, float(nb)], dtype=torch.float64)
        dist.all_reduce(part)
        hr10, ndcg10 = float(part[0] / part[2]), float(part[1] / part[2])
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {float(part[3] / max(1.0, part[4])):.4f} HR@10 {hr10:.4f} "
                f"NDCG@10 {ndcg10:.4f} over {int(part[2])} users, epoch time {time.time() - t0:.1f}s")
            save(epoch, hr10, hr10 > best)
        best = max(best, hr10)
    if rank == 0:
        log(f"done: {epoch + 1} epochs, best HR@10 {best:.4f}")
    if ranker is not None:
        lib.ranker_free(ranker)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
