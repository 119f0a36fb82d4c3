"""Protein secondary-structure tagger: per-residue 3-state (helix H, strand E, coil C) prediction from one-hot amino-acid
windows. A Conv1d over the one-hot chain (window of --window residues) feeds a bidirectional GRU and a linear tagger;
masked cross entropy over padded chains, Q3 accuracy (correct / residues) all-reduced over the validation shards;
rank 0 writes ckpt/last.pt and ckpt/best.pt. Data-parallel over gloo under torchrun, Open MPI, the DeepSpeed launcher
or accelerate launch. Rank r reads the training shards sorted(...)[r::world]."""
import argparse
import ctypes
import datetime
import difflib
import faulthandler
import glob
import json
import os
import re
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

faulthandler.enable()

# low-complexity stretches (runs of Q/N/S/G, e.g. polyQ tracts) are left out of the loss: their DSSP is unreliable
LOW_COMPLEXITY = re.compile(r"(?:[QNSG]+[QN]*)+[QNSG]{8}(?=[^QNSG])")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def read_shard(fn):
    recs = []
    with open(fn) as f:
        lines = f.read().split("\n")
    for i in range(0, len(lines) - 2, 3):
        if lines[i].startswith(">"):
            recs.append((lines[i][1:].split()[0], lines[i + 1], lines[i + 2]))
    return recs


class SSTagger(nn.Module):
    def __init__(self, n_in=21, conv=48, hidden=48, window=15, n_out=3, dropout=0.1, extra=0):
        super().__init__()
        self.conv = nn.Conv1d(n_in, conv, window, padding=window // 2)
        self.gru = nn.GRU(conv + extra, hidden, num_layers=1, batch_first=True, bidirectional=True, dropout=dropout)
        self.out = nn.Linear(2 * hidden, n_out)

    def forward(self, x, lengths, extra=None):
        h = F.relu(self.conv(x.transpose(1, 2))).transpose(1, 2)
        if extra is not None:
            h = torch.cat([h, extra[:, None, :].expand(-1, h.shape[1], -1)], 2)
        packed = pack_padded_sequence(h, lengths, batch_first=True, enforce_sorted=False)
        o, _ = self.gru(packed)
        o, _ = pad_packed_sequence(o, batch_first=True, total_length=x.shape[1])
        return self.out(o)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--window", type=int, default=15, help="residues seen by the convolution")
    ap.add_argument("--hidden", type=int, default=48)
    ap.add_argument("--pad", choices=("batch", "global"), default="batch",
                    help="pad each batch to its longest chain, or every chain to the longest in the dataset")
    ap.add_argument("--bucket", action="store_true", help="batch chains of similar length together")
    ap.add_argument("--mask-termini", type=int, default=0, help="residues at each chain end left out of the loss")
    ap.add_argument("--lc-filter", action="store_true", help="leave low-complexity stretches out of the loss")
    ap.add_argument("--composition", choices=("none", "numpy", "native"), default="none",
                    help="append the chain's amino-acid composition to every residue's features")
    ap.add_argument("--redundancy-cache", action="store_true",
                    help="rank 0 writes data/cache/nonredundant.json (chains under 90%% identity) before training")
    ap.add_argument("--loss", choices=("ce", "focal"), default="ce")
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--ds-checkpoint", action="store_true", help="save with DeepSpeed's save_checkpoint")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
    rank0 = int(os.environ.get("RANK", "0")) == 0
    if a.redundancy_cache and rank0:
        # only rank 0 writes the cache; the others read it after the barrier below
        t = time.time()
        recs = [r for fn in sorted(glob.glob(os.path.join(a.data, "train", "shard-*.ss"))) for r in read_shard(fn)]
        log(f"rank 0: building redundancy cache over {len(recs)} chains (90% identity)")
        keep, drop = [], set()
        for i, (rid, seq, _) in enumerate(recs):
            if rid in drop:
                continue
            keep.append(rid)
            for rid2, seq2, _ in recs[i + 1:]:
                if difflib.SequenceMatcher(None, seq, seq2, autojunk=False).ratio() >= 0.9:
                    drop.add(rid2)
        os.makedirs(os.path.join(a.data, "cache"), exist_ok=True)
        with open(os.path.join(a.data, "cache", "nonredundant.json"), "w") as f:
            json.dump(keep, f)
        log(f"rank 0: redundancy cache written, {len(keep)} of {len(recs)} chains kept ({time.time() - t:.0f}s)")
    if a.loss == "focal":
        from torchvision.ops import sigmoid_focal_loss
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
    with open(os.path.join(a.data, "meta.json")) as f:
        meta = json.load(f)
    alphabet, states = meta["alphabet"], meta["states"]
    if rank == 0:
        log(f"sstagger: world {world}, torch {torch.__version__}, numpy {np.__version__}, {len(alphabet)} residue "
            f"channels, states {states}, args {vars(a)}")
    log(f"rank {rank}: pid {os.getpid()} on {os.uname().nodename}")
    if a.redundancy_cache:
        dist.barrier()
        with open(os.path.join(a.data, "cache", "nonredundant.json")) as f:
            keep = set(json.load(f))

    aa_index = np.full(256, len(alphabet) - 1, np.int64)  # anything else (X, U, B, Z...) is the unknown channel
    for i, c in enumerate(alphabet[:-1]):
        aa_index[ord(c)] = i

    def encode(recs):
        out = []
        n_unknown = 0
        for rid, seq, ss in recs:
            s = np.frombuffer(seq.upper().encode(), np.uint8)
            x = aa_index[s]
            n_unknown += int((x == len(alphabet) - 1).sum())
            y = np.array([states.find(c) for c in ss], np.int64)
            out.append((rid, seq, x, y))
        return out, n_unknown

    files = sorted(glob.glob(os.path.join(a.data, "train", "shard-*.ss")))[rank::world]
    recs = [r for fn in files for r in read_shard(fn)]
    if a.redundancy_cache:
        recs = [r for r in recs if r[0] in keep]
    train, n_unk = encode(recs)
    lengths = [len(t[2]) for t in train]
    log(f"rank {rank}: shards {[os.path.basename(f) for f in files]}, {len(train)} chains, {sum(lengths)} residues, "
        f"lengths {min(lengths)}-{max(lengths)}")
    if n_unk:
        log(f"rank {rank}: WARNING {n_unk} non-standard residues mapped to X")
    vfiles = sorted(glob.glob(os.path.join(a.data, "val", "shard-*.ss")))[rank::world]
    val, _ = encode([r for fn in vfiles for r in read_shard(fn)])

    lib = None
    if a.composition == "native":
        lib = ctypes.CDLL(os.path.abspath("libcomposition.so"))
        lib.composition.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        lib.composition.restype = ctypes.c_int

    def comp(seq):
        if lib is not None:
            out = (ctypes.c_float * 21)()
            lib.composition(seq.encode(), len(seq), out)
            return torch.tensor(list(out))
        x = aa_index[np.frombuffer(seq.upper().encode(), np.uint8)]
        return torch.from_numpy(np.bincount(x, minlength=21) / max(1, len(x))).float()

    def loss_mask(seq, n):
        m = torch.ones(n, dtype=torch.bool)
        if a.mask_termini:
            m[:a.mask_termini] = False
            m[max(0, n - a.mask_termini):] = False
        if a.lc_filter:
            for hit in LOW_COMPLEXITY.finditer(seq):
                m[hit.start():hit.end()] = False
        return m

    n_ch = len(alphabet)
    global_len = 0
    if a.pad == "global":
        ml = torch.tensor([max(lengths + [len(v[2]) for v in val])])
        dist.all_reduce(ml, op=dist.ReduceOp.MAX)
        global_len = int(ml)
        log(f"rank {rank}: padding every chain to {global_len} residues")
        onehot = np.eye(n_ch)
        X_all = np.stack([np.pad(onehot[x], ((0, global_len - len(x)), (0, 0))) for _, _, x, _ in train])
        log(f"rank {rank}: one-hot tensor {X_all.shape}, {X_all.nbytes / 2**20:.0f} MiB")

    def collate(items):
        L = global_len or max(len(it[2]) for it in items)
        B = len(items)
        x = torch.zeros(B, L, n_ch)
        y = torch.full((B, L), -100, dtype=torch.long)
        m = torch.zeros(B, L, dtype=torch.bool)
        lens = torch.tensor([len(it[2]) for it in items])
        for i, (rid, seq, xi, yi) in enumerate(items):
            n = len(xi)
            x[i, torch.arange(n), torch.from_numpy(xi)] = 1.0
            y[i, :n] = torch.from_numpy(yi)
            m[i, :n] = loss_mask(seq, n)
        ex = torch.stack([comp(it[1]) for it in items]) if a.composition != "none" else None
        return x, y, m, lens, ex

    g = torch.Generator().manual_seed(rank)
    if a.bucket:
        order = sorted(range(len(train)), key=lambda i: lengths[i])
        batches = [order[i:i + a.batch_size] for i in range(0, len(order), a.batch_size)]
    else:
        batches = None

    def epoch_batches():
        if batches is not None:
            perm = torch.randperm(len(batches), generator=g).tolist()
            return [batches[p] for p in perm]
        perm = torch.randperm(len(train), generator=g).tolist()
        return [perm[i:i + a.batch_size] for i in range(0, len(perm), a.batch_size)]

    extra = 21 if a.composition != "none" else 0
    model = SSTagger(n_ch, 48, a.hidden, a.window, len(states), 0.1, extra)
    if rank == 0:
        log(f"model: SSTagger (conv window {a.window}, biGRU {a.hidden}), "
            f"{sum(p.numel() for p in model.parameters())} parameters")
    cfg = None
    if a.deepspeed:
        with open(a.ds_config) as f:
            cfg = json.load(f)
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
        a.batch_size = cfg["train_micro_batch_size_per_gpu"]
    else:
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)

    def criterion(logits, y, m):
        if a.loss == "focal":
            t = F.one_hot(y.clamp(min=0), len(states)).float()
            per = sigmoid_focal_loss(logits, t, reduction="none").sum(-1)
        else:
            per = F.cross_entropy(logits.transpose(1, 2), y, reduction="none")
        return (per * m).sum() / m.sum()

    def evaluate():
        model.eval()
        tot = torch.zeros(2 + 2 * len(states), dtype=torch.float64)
        with torch.no_grad():
            for i in range(0, len(val), 32):
                x, y, m, lens, ex = collate(val[i:i + 32])
                p = model(x, lens, ex).argmax(-1)
                valid = y >= 0
                tot[0] += float(((p == y) & valid).sum())
                tot[1] += float(valid.sum())
                for k in range(len(states)):
                    tot[2 + k] += float(((p == k) & (y == k)).sum())
                    tot[2 + len(states) + k] += float((y == k).sum())
        model.train()
        return tot

    def save(epoch, q3, is_best):
        if a.ds_checkpoint:
            net.save_checkpoint(a.ckpt_dir, tag=f"epoch{epoch:02d}", client_state={"q3": q3})
            if rank == 0:
                log(f"saved DeepSpeed checkpoint {a.ckpt_dir}/epoch{epoch:02d} (Q3 {q3:.4f})")
            return
        if rank != 0:
            return
        os.makedirs(a.ckpt_dir, exist_ok=True)
        state = {"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch, "q3": q3}
        names = ["last.pt"] + (["best.pt"] if is_best else [])
        for nm in names:
            torch.save(state, os.path.join(a.ckpt_dir, nm))
        log(f"saved {', '.join(os.path.join(a.ckpt_dir, nm) for nm in names)} (epoch {epoch}, Q3 {q3:.4f})")

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = bad = 0
    best = -1.0
    epoch = 0
    for epoch in range(a.epochs):
        t0, run_loss, nb, nres = time.time(), 0.0, 0, 0
        for idx in epoch_batches():
            x, y, m, lens, ex = collate([train[i] for i in idx])
            logits = net(x, lens, ex)
            loss = criterion(logits, y, m)
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
            nres += int(lens.sum())
            run_loss += loss.item()
            bad = bad + 1 if not torch.isfinite(loss) else 0
            if step % a.log_every == 0 and rank == 0:
                valid = y >= 0
                q3b = float(((logits.argmax(-1) == y) & valid).sum() / valid.sum())
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} q3 {q3b:.3f} "
                    f"{'' if gn is None else f'grad-norm {float(gn):.3f} '}"
                    f"lr {opt.param_groups[0]['lr']:.2e} {nres * world / (time.time() - t0):.0f} residues/s")
            if bad >= 5:
                log(f"rank {rank}: loss not finite for {bad} steps (last {loss.item()}), stopping")
                sys.exit(3)
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0 and not a.ds_checkpoint:
                save(epoch, float("nan"), False)
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        tot = evaluate()
        part = torch.tensor([run_loss, float(nb)], dtype=torch.float64)
        dist.all_reduce(tot)
        dist.all_reduce(part)
        q3 = float(tot[0] / tot[1].clamp(min=1))
        per = [float(tot[2 + k] / tot[2 + len(states) + k].clamp(min=1)) for k in range(len(states))]
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {float(part[0] / max(1.0, part[1])):.4f} Q3 {q3:.4f} over "
                f"{int(tot[1])} residues ({', '.join(f'{s} {v:.3f}' for s, v in zip(states, per))}), "
                f"epoch time {time.time() - t0:.1f}s")
        save(epoch, q3, q3 > best)
        best = max(best, q3)
    if rank == 0:
        log(f"done: {epoch + 1} epochs, best Q3 {best:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
