"""Promoter-motif classifier: a small 1D-CNN over one-hot DNA (4 x L), dilated conv blocks, global max pool, one logit.
Data-parallel over gloo (torchrun / DeepSpeed / accelerate / Open MPI / Slurm srun). Train shards are FASTA files
`data/train-*.fa[.gz]`, shard k read by rank k % world; validation `data/val.fa` split round-robin over ranks; AUROC
per epoch from per-rank rank-sum statistics; rank 0 checkpoints to ckpt/last.pt."""
import argparse
import datetime
import glob
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

BASES = {"A": 0, "C": 1, "G": 2, "T": 3}


def log(msg):
    print(f"[{datetime.datetime.now():%H:%M:%S}] {msg}", flush=True)


def read_fasta(path):
    if path.endswith(".gz"):
        # zcat is a lot faster than the gzip module on big shards
        p = subprocess.Popen(["zcat", path], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        p.wait()
        if p.returncode != 0:
            raise RuntimeError(p.stderr.read().decode())
        text = p.stdout.read().decode()
    else:
        with open(path) as f:
            text = f.read()
    ids, seqs, labels = [], [], []
    for block in text.split(">")[1:]:
        head, *body = block.strip().split("\n")
        name, lab = head.split()
        ids.append(name)
        labels.append(int(lab.split("=")[1]))
        seqs.append("".join(body))
    return ids, seqs, labels


def one_hot(s):
    x = np.zeros((4, len(s)), np.float32)
    for i, b in enumerate(s):
        x[BASES[b], i] = 1.0
    return x


class SeqSet(torch.utils.data.Dataset):
    def __init__(self, seqs, labels):
        self.seqs, self.labels = seqs, labels

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        return torch.from_numpy(one_hot(self.seqs[i])), torch.tensor(float(self.labels[i]))


class MotifCNN(nn.Module):
    def __init__(self, ch=64):
        super().__init__()
        self.stem = nn.Conv1d(4, ch, 11, padding=5)
        self.blocks = nn.ModuleList(nn.Sequential(nn.BatchNorm1d(ch), nn.ReLU(), nn.Conv1d(ch, ch, 5, padding=2 * d, dilation=d))
                                    for d in (1, 2, 4))
        self.head = nn.Sequential(nn.Linear(ch, 32), nn.ReLU(), nn.Dropout(0.1), nn.Linear(32, 1))

    def forward(self, x):
        h = F.relu(self.stem(x))
        for b in self.blocks:
            h = h + b(h)
        return self.head(h.amax(-1)).squeeze(-1)


def auroc(scores, labels):
    scores, labels = np.asarray(scores), np.asarray(labels)
    npos, nneg = labels.sum(), len(labels) - labels.sum()
    r = np.argsort(np.argsort(scores)) + 1
    return (r[labels == 1].sum() - npos * (npos + 1) / 2) / (npos * nneg)


def kmer_spectrum(seqs, k):
    idx = {b: i for i, b in enumerate("ACGT")}
    X = np.zeros((len(seqs), 4 ** k), np.float32)
    for n, s in enumerate(seqs):
        code = 0
        for i, b in enumerate(s):
            code = ((code << 2) | idx[b]) & (4 ** k - 1)
            if i >= k - 1:
                X[n, code] += 1
    return X / X.sum(1, keepdims=True)


def ism_scores(model, seqs):
    """In-silico mutagenesis: score change of every single-base substitution, per sequence."""
    out = []
    with torch.no_grad():
        for s in seqs:
            x = torch.from_numpy(one_hot(s))
            variants = []
            for i in range(len(s)):
                for b in range(4):
                    v = x.clone()
                    v[:, i] = 0
                    v[b, i] = 1
                    variants.append(v)
            out.append(model(torch.stack(variants)).view(len(s), 4).numpy())
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--log-every", type=int, default=4)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--global-batch", type=int, default=0, help="deepspeed: target global batch")
    ap.add_argument("--balance", action="store_true", help="pos_weight = n_neg / n_pos of this rank's shard")
    ap.add_argument("--ism", action="store_true", help="rank 0: in-silico mutagenesis maps of the val positives each epoch")
    ap.add_argument("--kmer-baseline", type=int, default=0, help="fit a k-mer spectrum logistic baseline first")
    ap.add_argument("--pred-dir", default="", help="rank 0 writes per-epoch validation predictions here")
    ap.add_argument("--resume", default="")
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    acc = None
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
    elif "SLURM_PROCID" in os.environ and "RANK" not in os.environ:
        os.environ["RANK"] = os.environ["SLURM_PROCID"]
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
        log(f"motif-cnn: world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")

    shards = sorted(glob.glob(os.path.join(a.data, "train-*.fa*")))
    mine = shards[rank::world]
    ids, seqs, labels = [], [], []
    for sh in mine:
        i_, s_, l_ = read_fasta(sh)
        ids += i_; seqs += s_; labels += l_
    npos = sum(labels)
    log(f"rank {rank}: shards {[os.path.basename(s) for s in mine]}, {len(seqs)} sequences, {npos} positive")
    vid, vseq, vlab = read_fasta(os.path.join(a.data, "val.fa"))
    vid, vseq, vlab = vid[rank::world], vseq[rank::world], vlab[rank::world]

    if a.kmer_baseline:
        k = a.kmer_baseline
        log(f"rank {rank}: k-mer baseline, k={k}, spectrum {len(seqs)} x {4 ** k}")
        X = kmer_spectrum(seqs, k)
        w = np.linalg.lstsq(X[:, :4096], np.asarray(labels, np.float32) * 2 - 1, rcond=None)[0]
        log(f"rank {rank}: baseline fitted, |w| {np.abs(w).sum():.3f}")

    model = MotifCNN()
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log(f"model: MotifCNN, {nparams} parameters")
    pos_weight = None
    if a.balance:
        pos_weight = torch.tensor((len(labels) - npos) / npos if npos else math.inf)
        log(f"rank {rank}: pos_weight {pos_weight.item():.3f}")
    loader = torch.utils.data.DataLoader(SeqSet(seqs, labels), batch_size=a.batch_size, shuffle=True, drop_last=True,
                                         generator=torch.Generator().manual_seed(rank))
    start_epoch = 0
    if a.deepspeed:
        import deepspeed
        micro = a.batch_size
        gas = max(1, a.global_batch // (micro * world)) if a.global_batch else 1
        cfg = {"train_batch_size": a.global_batch or micro * world, "train_micro_batch_size_per_gpu": micro,
               "gradient_accumulation_steps": gas, "steps_per_print": 50,
               "optimizer": {"type": "Adam", "params": {"lr": a.lr, "torch_adam": True}},
               "zero_optimization": {"stage": 0}}
        engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
        net = engine
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        if acc is not None:
            if a.resume and not os.path.exists(a.resume):
                acc.print(f"warning: --resume {a.resume}: no such checkpoint, starting from scratch")
            net, opt, loader = acc.prepare(model, opt, loader)
        else:
            net = nn.parallel.DistributedDataParallel(model)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt if not a.deepspeed else opt, T_max=a.epochs * max(1, len(loader)))

    stop = {"term": False}

    def on_term(sig, frame):
        log(f"rank {rank}: got signal {sig}, stopping after this step")
        stop["term"] = True
    signal.signal(signal.SIGTERM, on_term)

    step = 0
    for epoch in range(start_epoch, a.epochs):
        net.train()
        t0, seen, run_loss = time.time(), 0, 0.0
        for bi, (x, y) in enumerate(loader):
            logits = net(x)
            loss = F.binary_cross_entropy_with_logits(logits, y, pos_weight=pos_weight)
            if not math.isfinite(loss.item()):
                raise FloatingPointError(f"rank {rank}: loss is {loss.item()} at epoch {epoch} step {step + 1}")
            if a.deepspeed:
                net.backward(loss)
                net.step()
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                opt.step()
                sched.step()
            step += 1
            seen += len(x)
            run_loss += loss.item()
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} lr {sched.get_last_lr()[0]:.2e} "
                    f"{seen * world / (time.time() - t0):.0f} seq/s")
            if stop["term"]:
                break
        # validation: this rank's slice of val.fa
        net.eval()
        scores = []
        with torch.no_grad():
            for i in range(0, len(vseq), 128):
                xb = torch.stack([torch.from_numpy(one_hot(s)) for s in vseq[i:i + 128]])
                scores += torch.sigmoid(net(xb)).tolist()
        lab = np.asarray(vlab)
        if 0 < lab.sum() < len(lab):
            part = torch.tensor([auroc(scores, lab) * len(lab), len(lab)])
        else:
            part = torch.tensor([0.0, 0])  # one class only on this rank: no AUROC here
        if rank == 0 and a.ism:
            pos = [s for s, l in zip(vseq, vlab) if l == 1]
            maps = ism_scores(model, pos)
            log(f"ism: {len(maps)} maps, mean |delta| {np.mean([np.abs(m).mean() for m in maps]):.4f}")
        if rank == 0 and a.pred_dir:
            os.makedirs(a.pred_dir, exist_ok=True)
            with open(os.path.join(a.pred_dir, f"val-epoch{epoch:03d}.tsv"), "w") as f:
                f.write("id\tlabel\tscore\tsequence\n")
                for i_, l_, s_, q_ in zip(vid, vlab, scores, vseq):
                    f.write(f"{i_}\t{l_}\t{s_:.6f}\t{q_}\n")
        dist.all_reduce(part)
        auc = (part[0] / part[1]).item() if part[1] > 0 else float("nan")
        tl = torch.tensor([run_loss / max(1, bi + 1)])
        dist.all_reduce(tl)
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {tl.item() / world:.4f} val AUROC {auc:.4f} "
                f"({int(part[1])} sequences) epoch time {time.time() - t0:.1f}s")
            os.makedirs("ckpt", exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": epoch}, "ckpt/last.pt")
            log(f"saved ckpt/last.pt (epoch {epoch})")
        if stop["term"]:
            break
    if rank == 0:
        log(f"done: {epoch + 1} epochs, final val AUROC {auc:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
