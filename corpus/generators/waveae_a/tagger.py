"""Protein secondary-structure tagger: residue embeddings (plus optional profile and position features) through dilated
1-D conv blocks and a BiLSTM, per-residue 3-state (H/E/C) cross-entropy, Q3 accuracy on a validation set; data-parallel
over gloo under torchrun, Open MPI, the DeepSpeed launcher or accelerate launch. Rank r reads training shards
data/train-NN.ss3 with NN % world == r and its round-robin slice of data/val.ss3; rank 0 writes ckpt/last.pt."""
import argparse
import datetime
import faulthandler
import glob
import math
import os
import signal
import sys
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
AA = "ACDEFGHIKLMNPQRSTVWY"
VOCAB = {c: i + 1 for i, c in enumerate(AA)}  # 0 = padding
VOCAB["X"] = len(AA) + 1
SS = {"H": 0, "E": 1, "C": 2}


def log(msg):
    print(f"{time.strftime('%H:%M:%S')} {msg}", flush=True)


def read_ss3(path):
    with open(path) as f:
        return [tuple(line.rstrip("\n").split("\t")) for line in f if line.strip()]


def profile(seq, w=7):
    """A PSSM-like profile: windowed residue composition (20 x L)."""
    oh = np.zeros((20, len(seq)), np.float32)
    for i, c in enumerate(seq):
        if c in AA:
            oh[AA.index(c), i] = 1
    k = np.ones(w, np.float32) / w
    return np.stack([np.convolve(r, k, mode="same") for r in oh])


class Proteins(torch.utils.data.Dataset):
    def __init__(self, recs, use_profile=False, pair=0):
        self.recs, self.use_profile = recs, use_profile
        self.pair = []
        if pair:  # contact-propensity pair features for the 2-D head: outer products of residue embeddings
            g = torch.Generator().manual_seed(1)
            table = torch.randn(len(VOCAB) + 1, pair, generator=g)
            for _, s, _ in recs:
                e = table[torch.tensor([VOCAB[c] for c in s])]
                self.pair.append(e[:, None, :] * e[None, :, :])

    def __len__(self):
        return len(self.recs)

    def __getitem__(self, k):
        pid, s, t = self.recs[k]
        x = torch.tensor([VOCAB[c] for c in s])
        y = torch.tensor([SS[c] for c in t])
        prof = torch.from_numpy(profile(s)) if self.use_profile else torch.zeros(0, len(s))
        return x, y, prof


def collate(batch):
    n = max(len(x) for x, _, _ in batch)
    xs = torch.zeros(len(batch), n, dtype=torch.long)
    ys = torch.full((len(batch), n), -100, dtype=torch.long)
    ps = torch.zeros(len(batch), batch[0][2].shape[0], n)
    lens = torch.tensor([len(x) for x, _, _ in batch])
    for i, (x, y, p) in enumerate(batch):
        xs[i, :len(x)], ys[i, :len(y)], ps[i, :, :len(x)] = x, y, p
    return xs, ys, ps, lens


class Block(nn.Module):
    def __init__(self, c, dil):
        super().__init__()
        self.conv = nn.Conv1d(c, c, 5, padding=2 * dil, dilation=dil)
        self.norm = nn.BatchNorm1d(c)

    def forward(self, h):
        return h + F.gelu(self.norm(self.conv(h)))


class Tagger(nn.Module):
    def __init__(self, depth=3, prof=0, pos=False, emb=32, ch=64, hid=48):
        super().__init__()
        self.pos = pos
        self.emb = nn.Embedding(len(VOCAB) + 1, emb, padding_idx=0)
        self.inp = nn.Conv1d(emb + prof + (1 if pos else 0), ch, 1)
        self.blocks = nn.ModuleList([Block(ch, 2 ** i) for i in range(depth)])
        self.rnn = nn.LSTM(ch, hid, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hid, 3)

    def forward(self, x, prof, lens):
        h = [self.emb(x).transpose(1, 2)]
        if prof.shape[1]:
            h.append(prof)
        if self.pos:  # relative position, log-normalised by protein length
            i = torch.arange(x.shape[1]).float()[None, :]
            h.append((torch.log1p(i) / torch.log(lens.float()[:, None])).unsqueeze(1))
        h = self.inp(torch.cat(h, 1))
        for b in self.blocks:
            h = b(h)
        packed = nn.utils.rnn.pack_padded_sequence(h.transpose(1, 2), lens, batch_first=True, enforce_sorted=False)
        out, _ = self.rnn(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return self.head(out)


def smith_waterman(a, b, match=2, mis=-1, gap=-2):
    """Local alignment score and identity over the shorter sequence (plain Python)."""
    prev = [0] * (len(b) + 1)
    best = 0
    for ca in a:
        cur = [0]
        for j, cb in enumerate(b):
            v = max(0, prev[j] + (match if ca == cb else mis), prev[j + 1] + gap, cur[j] + gap)
            cur.append(v)
            if v > best:
                best = v
        prev = cur
    return best, best / (match * min(len(a), len(b)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--log-every", type=int, default=4)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--auto-depth", action="store_true", help="enough dilated blocks to cover the longest protein")
    ap.add_argument("--pos-feature", action="store_true")
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--pair-features", type=int, default=0)
    ap.add_argument("--homology-filter", type=float, default=0.0,
                    help="rank 0 drops validation proteins with identity >= this to training proteins")
    ap.add_argument("--dump-probs", default="", help="rank 0 writes per-residue probabilities here each epoch")
    ap.add_argument("--stage-to", default="", help="copy this rank's shards to a node-local cache first")
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
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
    rank_env, world_env = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    shards = sorted(glob.glob(os.path.join(a.data, "train-*.ss3")))
    mine = shards[rank_env::world_env]
    if a.stage_to:
        os.makedirs(a.stage_to, exist_ok=True)
        staged = []
        for s in mine:
            dst = os.path.join(a.stage_to, os.path.basename(s))
            lock = dst + ".lock"
            t0 = time.time()
            while True:
                try:
                    fd = os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
                    os.write(fd, f"{os.getpid()}\n".encode())
                    os.close(fd)
                    break
                except FileExistsError:
                    if time.time() - t0 < 1 or int(time.time() - t0) % 30 == 0:
                        with open(lock) as f:
                            log(f"rank {rank_env}: waiting for {lock} (held by pid {f.read().strip()})")
                    time.sleep(1)
            with open(s) as fi, open(dst, "w") as fo:
                fo.write(fi.read())
            os.remove(lock)
            staged.append(dst)
        log(f"rank {rank_env}: staged {len(staged)} shards to {a.stage_to}")
        mine = staged
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
        log(f"ss3 tagger: world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")

    recs = [r for s in mine for r in read_ss3(s)]
    lens = [len(s) for _, s, _ in recs]
    log(f"rank {rank}: shards {[os.path.basename(s) for s in mine]}, {len(recs)} proteins, "
        f"{sum(lens)} residues, length {min(lens)}-{max(lens)}")
    val = read_ss3(os.path.join(a.data, "val.ss3"))
    unk = [pid for pid, s, _ in val if "X" in s]
    if unk:
        warnings.warn(f"{len(unk)} validation proteins contain unknown residues (X); they are embedded as X: {unk}")
    if a.homology_filter and rank == 0:
        log(f"rank 0: homology filter: aligning {len(val)} validation proteins against {len(recs)} training proteins")
    val = val[rank::world]

    depth = a.depth
    if a.auto_depth:
        depth = max(1, math.ceil(math.log2(max(lens) / 8)))
        log(f"rank {rank}: auto depth {depth} dilated blocks (receptive field {4 * (2 ** depth - 1) + 1} residues)")
    ds = Proteins(recs, a.profile, a.pair_features)
    if a.pair_features:
        nbytes = sum(p.numel() * 4 for p in ds.pair)
        log(f"rank {rank}: pair features {a.pair_features} channels, {nbytes / 2 ** 20:.0f} MiB")
    model = Tagger(depth, 20 if a.profile else 0, a.pos_feature)
    if rank == 0:
        log(f"model: Tagger depth {depth}, {sum(p.numel() for p in model.parameters())} parameters")
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True, collate_fn=collate,
                                         num_workers=a.num_workers, generator=torch.Generator().manual_seed(rank))
    if a.deepspeed:
        import deepspeed
        cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
               "gradient_accumulation_steps": 1, "steps_per_print": 40, "gradient_clipping": 1.0,
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
                              f"{len(unexpected)} keys); loaded what matched")
            start_epoch = st["epoch"] + 1
            log(f"rank {rank}: resumed from {ckpt} (epoch {st['epoch']})")
        else:
            log(f"rank {rank}: no checkpoint at {ckpt}, starting from scratch")

    def save(epoch):
        os.makedirs(a.ckpt_dir, exist_ok=True)
        torch.save({"model": model.state_dict(), "epoch": epoch, "depth": depth}, ckpt)
        log(f"saved {ckpt} (epoch {epoch})")

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = 0
    epoch = start_epoch
    for epoch in range(start_epoch, a.epochs):
        net.train()
        t0, res, run_loss, nb, correct = time.time(), 0, 0.0, 0, 0
        for x, y, prof, ln in loader:
            logits = net(x, prof, ln)
            loss = F.cross_entropy(logits.reshape(-1, 3), y.reshape(-1), ignore_index=-100)
            if a.deepspeed:
                net.backward(loss)
                net.step()
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
            step += 1
            nb += 1
            m = y != -100
            res += int(m.sum())
            correct += int((logits.argmax(-1)[m] == y[m]).sum())
            run_loss += loss.item()
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} train-q3 {correct / max(1, res):.3f} "
                    f"{res * world / (time.time() - t0):.0f} residues/s")
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch - 1 if epoch > start_epoch else epoch)
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        net.eval()
        if a.homology_filter and rank == 0 and epoch == start_epoch:
            keep, t1 = [], time.time()
            for pid, s, t in read_ss3(os.path.join(a.data, "val.ss3")):
                ident = max(smith_waterman(s, ts)[1] for _, ts, _ in recs[:48])
                if ident < a.homology_filter:
                    keep.append((pid, s, t))
            log(f"rank 0: homology filter kept {len(keep)} validation proteins ({time.time() - t1:.0f} s)")
        ok = tot = 0
        dump = None
        if rank == 0 and a.dump_probs:
            os.makedirs(a.dump_probs, exist_ok=True)
            dump = open(os.path.join(a.dump_probs, f"val-probs-epoch{epoch:03d}.tsv"), "w")
        with torch.no_grad():
            for i in range(0, len(val), 16):
                b = collate([(torch.tensor([VOCAB[c] for c in s]), torch.tensor([SS[c] for c in t]),
                              torch.from_numpy(profile(s)) if a.profile else torch.zeros(0, len(s)))
                             for _, s, t in val[i:i + 16]])
                out = model(b[0], b[2], b[3])
                m = b[1] != -100
                ok += int((out.argmax(-1)[m] == b[1][m]).sum())
                tot += int(m.sum())
                if dump:
                    pr = out.softmax(-1)
                    for j, (pid, s, _) in enumerate(val[i:i + 16]):
                        for p in range(len(s)):
                            dump.write(f"{pid}\t{p}\t{s[p]}\t{pr[j, p, 0]:.4f}\t{pr[j, p, 1]:.4f}\t{pr[j, p, 2]:.4f}\n")
        if dump:
            dump.close()
            log(f"wrote per-residue probabilities to {dump.name}")
        part = torch.tensor([float(ok), float(tot)])
        dist.all_reduce(part)
        tl = torch.tensor([run_loss / max(1, nb)])
        dist.all_reduce(tl)
        if rank == 0:
            log(f"eval epoch {epoch}: train loss {tl.item() / world:.4f} val Q3 {part[0].item() / max(1, part[1].item()):.3f} "
                f"({int(part[1])} residues) epoch time {time.time() - t0:.1f}s")
            save(epoch)
    if rank == 0:
        log(f"done: {epoch + 1} epochs")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
