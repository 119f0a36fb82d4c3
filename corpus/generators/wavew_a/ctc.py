"""CTC speech recogniser on a synthetic spoken-digits corpus: conv front-end (stride 2) + BiGRU + linear over 28 symbols
(blank, space, a-z), data-parallel over gloo (DDP, DeepSpeed engine or accelerate)."""
import argparse
import datetime
import faulthandler
import math
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
SR, WIN, HOP, NMEL = 8000, 256, 80, 40
VOCAB = ["<blank>", " "] + [chr(c) for c in range(ord("a"), ord("z") + 1)]
CHAR2ID = {c: i for i, c in enumerate(VOCAB)}

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--batch-size", type=int, default=16)
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--timeout-s", type=int, default=300)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--log-floor", type=float, default=1e-6, help="floor under the power spectrum before the log")
ap.add_argument("--pad-to", type=float, default=0.0, help="seconds: clips padded with digital silence by the export")
ap.add_argument("--framing", choices=["torch", "strided"], default="torch")
ap.add_argument("--spec-cache", type=int, default=0, help="cache linear spectrograms for N speed perturbations")
ap.add_argument("--dump-emissions", default="", help="dir: per-utterance dev log-probs for LM rescoring")
ap.add_argument("--char-errors", action="store_true", help="per-character substitution counts in eval")
ap.add_argument("--export-alignments", action="store_true", help="rank 0 writes CTC forced alignments of the train set")
ap.add_argument("--gather-hyps", action="store_true", help="collect decoded hypotheses on the main process")
ap.add_argument("--noise-bank-mb", type=int, default=0, help="shared noise bank for augmentation (MB)")
ap.add_argument("--on-sigterm", choices=["exit", "checkpoint"], default="exit",
                help="checkpoint: save a checkpoint and keep training (the scheduler may only be warning)")
ap.add_argument("--clip", choices=["torch", "legacy"], default="torch")
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--local_rank", type=int, default=0)
a = ap.parse_args()

env = os.environ
rank = int(env.get("RANK", env.get("OMPI_COMM_WORLD_RANK", env.get("SLURM_PROCID", 0))))
world = int(env.get("WORLD_SIZE", env.get("OMPI_COMM_WORLD_SIZE", env.get("SLURM_NTASKS", 1))))
os.environ.setdefault("RANK", str(rank))
os.environ.setdefault("WORLD_SIZE", str(world))
os.environ.setdefault("LOCAL_RANK", str(rank))
P = f"[rank{rank}]"


def log(msg, all_ranks=False):
    if all_ranks or rank == 0:
        print(f"{datetime.datetime.now():%H:%M:%S} {P} {msg}", flush=True)


stop = {"sig": None}


def on_term(signum, frame):
    stop["sig"] = signum


signal.signal(signal.SIGTERM, on_term)

# ---------------------------------------------------------------- data
def read_tsv(path):
    rows = []
    with open(path) as f:
        for line in f:
            uid, seed, text = line.rstrip("\n").split("\t")
            rows.append((uid, int(seed), text))
    return rows


def synth(seed, text):
    """One tone chord per character (60 ms) plus a short pause between words, in noise."""
    g = np.random.default_rng(seed)
    out = [g.normal(0, 0.01, int(0.05 * SR))]
    t = np.arange(int(0.06 * SR)) / SR
    for ch in text:
        if ch == " ":
            out.append(g.normal(0, 0.01, int(0.04 * SR)))
            continue
        k = CHAR2ID.get(ch, 1)
        f1, f2 = 200 + 60 * k, 900 + 45 * ((k * 7) % 28)
        out.append(0.5 * np.sin(2 * np.pi * f1 * t) + 0.3 * np.sin(2 * np.pi * f2 * t) + g.normal(0, 0.02, t.size))
    out.append(g.normal(0, 0.01, int(0.05 * SR)))
    x = np.concatenate(out).astype(np.float32)
    if a.pad_to and x.size < a.pad_to * SR:
        x = np.concatenate([x, np.zeros(int(a.pad_to * SR) - x.size, np.float32)])
    return x


def frame_signal(x):
    if a.framing == "strided":  # zero-copy framing (no padding), as in the old feature extractor
        n = 1 + (x.size - WIN) // HOP * HOP
        fr = np.lib.stride_tricks.as_strided(x, shape=(n, WIN), strides=(x.strides[0] * HOP, x.strides[0]))
        spec = np.abs(np.fft.rfft(fr * np.hanning(WIN).astype(np.float32), axis=1)) ** 2
        return torch.from_numpy(spec.astype(np.float32))
    s = torch.stft(torch.from_numpy(x), WIN, HOP, window=torch.hann_window(WIN), return_complex=True, center=False)
    return s.abs().pow(2).T


FB = torch.zeros(WIN // 2 + 1, NMEL)
edges = np.geomspace(2, WIN // 2, NMEL + 2).astype(int)
for m in range(NMEL):
    lo, c, hi = edges[m], max(edges[m + 1], edges[m] + 1), max(edges[m + 2], edges[m] + 2)
    FB[lo:c, m] = torch.linspace(0, 1, c - lo)
    FB[c:hi, m] = torch.linspace(1, 0, hi - c)


def features(power):
    return torch.log(torch.clamp(power @ FB, min=a.log_floor))


class Utts(torch.utils.data.Dataset):
    def __init__(self, rows):
        self.rows = rows
        self.cache = None

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        uid, seed, text = self.rows[i]
        feat = features(frame_signal(synth(seed, text)))
        target = torch.tensor([CHAR2ID[c] for c in text])
        return uid, feat, target, text


def collate(b):
    uids, feats, tgts, texts = zip(*b)
    fl = torch.tensor([f.shape[0] for f in feats])
    x = torch.zeros(len(b), int(fl.max()), NMEL)
    for i, f in enumerate(feats):
        x[i, : f.shape[0]] = f
    return list(uids), x, fl, torch.cat(tgts), torch.tensor([t.numel() for t in tgts]), list(texts)


# ---------------------------------------------------------------- model
class CTCModel(nn.Module):
    def __init__(self, hid=96):
        super().__init__()
        self.norm = nn.LayerNorm(NMEL)
        self.conv = nn.Sequential(nn.Conv1d(NMEL, hid, 5, stride=2, padding=2), nn.GELU(),
                                  nn.Conv1d(hid, hid, 3, padding=1), nn.GELU())
        self.gru = nn.GRU(hid, hid, num_layers=2, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hid, len(VOCAB))

    def forward(self, x, lens):
        h = self.conv(self.norm(x).transpose(1, 2)).transpose(1, 2)
        h, _ = self.gru(h)
        return self.out(h).log_softmax(-1), (lens + 1) // 2


def greedy(lp, lens):
    out = []
    for seq, n in zip(lp.argmax(-1), lens):
        prev, s = 0, []
        for k in seq[: int(n)].tolist():
            if k != prev and k != 0:
                s.append(VOCAB[k])
            prev = k
        out.append("".join(s))
    return out


def edit(a_, b_):
    d = list(range(len(b_) + 1))
    for i, ca in enumerate(a_, 1):
        prev, d[0] = d[0], i
        for j, cb in enumerate(b_, 1):
            prev, d[j] = d[j], min(d[j] + 1, d[j - 1] + 1, prev + (ca != cb))
    return d[-1]


def force_align(lp, target):
    """Viterbi CTC alignment (pure Python trellis) -> frame index of each character."""
    ext = [0]
    for c in target:
        ext += [c, 0]
    T, S = lp.shape[0], len(ext)
    lp = lp.tolist()
    NEG = -1e30
    prev = [NEG] * S
    prev[0], prev[1] = lp[0][ext[0]], lp[0][ext[1]]
    back = []
    for t in range(1, T):
        cur, bp = [NEG] * S, [0] * S
        for s in range(S):
            best, arg = prev[s], s
            if s > 0 and prev[s - 1] > best:
                best, arg = prev[s - 1], s - 1
            if s > 1 and ext[s] != 0 and ext[s] != ext[s - 2] and prev[s - 2] > best:
                best, arg = prev[s - 2], s - 2
            cur[s], bp[s] = best + lp[t][ext[s]], arg
        back.append(bp)
        prev = cur
    s = S - 1 if prev[S - 1] >= prev[S - 2] else S - 2
    path = [s]
    for bp in reversed(back):
        s = bp[s]
        path.append(s)
    path.reverse()
    return [t for t, s in enumerate(path) if s % 2 == 1 and (t == 0 or path[t - 1] != s)]


# ---------------------------------------------------------------- setup
t0 = time.time()
log(f"torch {torch.__version__}, python {sys.version.split()[0]}, pid {os.getpid()}, host {os.uname().nodename}", True)
if a.clip == "legacy":
    from legacy_clip import clip_grad_norm_
else:
    from torch.nn.utils import clip_grad_norm_
timeout = datetime.timedelta(seconds=a.timeout_s)
accel = None
if a.accelerate:
    import accelerate
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    accel = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo", timeout=timeout)])
    log(f"accelerate {accelerate.__version__}: {accel.state.distributed_type}, {accel.num_processes} processes", True)
elif a.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
else:
    log(f"init_process_group(gloo) via {env.get('MASTER_ADDR')}:{env.get('MASTER_PORT')}, world {world}", True)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)
rank, world = dist.get_rank(), dist.get_world_size()
log(f"process group ready: rank {rank}/{world} ({time.time() - t0:.1f} s)", True)
torch.manual_seed(0)

train_rows, dev_rows = read_tsv(os.path.join(a.data, "train.tsv")), read_tsv(os.path.join(a.data, "dev.tsv"))
per = math.ceil(len(train_rows) / world)
my_train = train_rows[rank * per:(rank + 1) * per]
my_dev = dev_rows[rank::world]
log(f"shard: {len(my_train)} train utterances (rows {rank * per}..{rank * per + len(my_train) - 1}), {len(my_dev)} dev", True)
train_ds, dev_ds = Utts(my_train), Utts(my_dev)

probe = torch.stack([train_ds[i][1].mean(0) for i in range(8)])
log(f"features: {NMEL} log-filterbank bins, hop {HOP / SR * 1000:.0f} ms, first 8 utterances mean {probe.mean():.3f} "
    f"min {probe.min():.3f} max {probe.max():.3f}")

if a.spec_cache:
    # linear spectrograms for every speed perturbation, float64, so SpecAugment can be applied per epoch
    cache = []
    for k in range(a.spec_cache):
        rate = 0.9 + 0.1 * k
        for j, (uid, seed, text) in enumerate(my_train):
            x = synth(seed, text)
            x = np.interp(np.arange(0, x.size, rate), np.arange(x.size), x).astype(np.float32)
            cache.append(frame_signal(x).double().repeat(1, 4))
            if j % 240 == 0:
                mb = sum(c.numel() * 8 for c in cache) / 2**20
                log(f"spectrogram cache: speed {rate:.1f} utt {j}/{len(my_train)}, {mb:.0f} MiB", True)
    log(f"spectrogram cache ready: {len(cache)} entries", True)

noise_bank = None
if a.noise_bank_mb:
    noise_bank = torch.randn(a.noise_bank_mb * 2**20 // 4) * 0.01
    log(f"noise bank: {noise_bank.numel() * 4 / 2**20:.0f} MiB, moving to shared memory for loader workers", True)
    noise_bank.share_memory_()
    log("noise bank shared", True)

model = CTCModel()
nparams = sum(p.numel() for p in model.parameters())
log(f"model: conv(stride 2) + 2x BiGRU(96) + linear -> {len(VOCAB)} symbols, {nparams / 1e3:.1f}K parameters")
g = torch.Generator().manual_seed(rank)
train_dl = torch.utils.data.DataLoader(train_ds, batch_size=a.batch_size, shuffle=True, collate_fn=collate, generator=g,
                                       drop_last=True)
dev_dl = torch.utils.data.DataLoader(dev_ds, batch_size=32, collate_fn=collate)
opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-2)
engine = None
if a.deepspeed:
    import json
    cfg = json.load(open(a.ds_config))
    cfg["train_micro_batch_size_per_gpu"] = a.batch_size
    engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=cfg)
    net = engine
elif accel is not None:
    net, opt, train_dl = accel.prepare(model, opt, train_dl)
else:
    net = nn.parallel.DistributedDataParallel(model)
start_epoch = 1
os.makedirs(a.ckpt_dir, exist_ok=True)
ck = os.path.join(a.ckpt_dir, "last.pt")
if a.resume and os.path.exists(ck):
    state = torch.load(ck)
    model.load_state_dict(state["model"])
    start_epoch = state["epoch"] + 1
    log(f"resuming from {ck}: epoch {state['epoch']} done, dev CER {state['cer']:.4f}", True)
log(f"training: epochs {start_epoch}..{a.epochs}, {len(train_dl)} steps/epoch, batch {a.batch_size}/rank, world {world}")


def evaluate(epoch):
    net.eval()
    errs = torch.zeros(2)
    sub = None
    dumped = 0
    gathered = []
    with torch.no_grad():
        for uids, x, fl, tg, tl, texts in dev_dl:
            lp, ol = model(x, fl)
            hyps = greedy(lp, ol)
            if a.gather_hyps:  # token ids of this batch's hypotheses, padded to the batch's longest, for the WER report
                ids = torch.zeros(len(hyps), max([len(h) for h in hyps] + [1]), dtype=torch.long)
                for i, h in enumerate(hyps):
                    ids[i, : len(h)] = torch.tensor([CHAR2ID[c] for c in h], dtype=torch.long)
                allids = accel.gather(ids) if accel is not None else ids
                if rank == 0 and len(allids) and not gathered:
                    log(f"gathered hypotheses: {tuple(allids.shape)}")
                    gathered.append(1)
            for u, hyp, ref, l, n in zip(uids, hyps, texts, lp, ol):
                errs += torch.tensor([edit(hyp, ref), len(ref)])
                if a.char_errors:
                    ids = [CHAR2ID[c] for c in ref]
                    if sub is None:
                        sub = torch.zeros(max(CHAR2ID[c] for _, _, t in my_dev for c in t) + 1)
                    for r_, h_ in zip(ids, hyp):
                        if h_ != VOCAB[r_]:
                            sub[r_] += 1
                if a.dump_emissions:
                    os.makedirs(a.dump_emissions, exist_ok=True)
                    with open(os.path.join(a.dump_emissions, f"e{epoch}-{u}.npy"), "wb") as f:
                        np.save(f, l[: int(n)].numpy().astype(np.float32))
                    dumped += 1
    dist.all_reduce(errs)
    cer = (errs[0] / errs[1]).item()
    log(f"eval epoch {epoch}: dev CER {cer:.4f} ({int(errs[1])} chars)")
    if a.dump_emissions:
        log(f"dumped {dumped} emission matrices to {a.dump_emissions}/", True)
    if sub is not None:
        log(f"char error table: {sub.numel()} symbols", True)
        dist.all_reduce(sub)
        top = sub.topk(3)
        log("most substituted: " + ", ".join(f"{VOCAB[i]!r} {int(v)}" for v, i in zip(top.values, top.indices)))
    net.train()
    return cer


step = 0
ema = None
for epoch in range(start_epoch, a.epochs + 1):
    tick = time.time()
    nutt = 0
    for uids, x, fl, tg, tl, texts in train_dl:
        if noise_bank is not None:
            o = int(torch.randint(0, noise_bank.numel() - x.numel(), (1,)))
            x = x + noise_bank[o:o + x.numel()].view_as(x)
        lp, ol = net(x, fl)
        loss = F.ctc_loss(lp.transpose(0, 1), tg, ol, tl, blank=0, reduction="mean")
        if engine is not None:
            engine.backward(loss)
            engine.step()
        else:
            opt.zero_grad()
            (accel.backward(loss) if accel is not None else loss.backward())
            gn = clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
        step += 1
        nutt += x.shape[0]
        li = loss.item()
        ema = li if ema is None else 0.9 * ema + 0.1 * li
        if step % a.log_every == 0:
            log(f"epoch {epoch} step {step} loss {li:.4f} (ema {ema:.4f}) lr {a.lr:.1e} "
                f"{nutt / (time.time() - tick):.1f} utt/s")
        if not math.isfinite(li):
            log(f"non-finite CTC loss {li} at epoch {epoch} step {step}; stopping", True)
            sys.exit(3)
        if a.step_sleep:
            time.sleep(a.step_sleep)
        if stop["sig"]:
            if a.on_sigterm == "checkpoint":
                log(f"received signal {stop['sig']} (SIGTERM): saving {ck}, continuing", True)
                if rank == 0:
                    torch.save({"model": model.state_dict(), "epoch": epoch - 1, "cer": float("nan")}, ck)
                stop["sig"] = None
            else:
                log(f"received signal {stop['sig']} (SIGTERM): saving {ck} and exiting", True)
                if rank == 0:
                    torch.save({"model": model.state_dict(), "epoch": epoch - 1, "cer": float("nan")}, ck)
                sys.exit(143)
    log(f"epoch {epoch} done: {nutt} utterances in {time.time() - tick:.1f} s, loss ema {ema:.4f}", True)
    if a.export_alignments and rank == 0:
        log("exporting CTC forced alignments of the train set (all shards) to align/", True)
        os.makedirs("align", exist_ok=True)
        model.eval()
        with torch.no_grad(), open(f"align/epoch{epoch}.txt", "w") as f:
            for j in range(len(train_rows)):
                uid, seed, text = train_rows[j]
                feat = features(frame_signal(synth(seed, text)))
                lp, ol = model(feat[None], torch.tensor([feat.shape[0]]))
                frames = force_align(lp[0, : int(ol)], [CHAR2ID[c] for c in text])
                f.write(f"{uid}\t{' '.join(map(str, frames))}\n")
                if j % 200 == 0:
                    log(f"  aligned {j}/{len(train_rows)}", True)
        model.train()
    cer = evaluate(epoch)
    if rank == 0:
        torch.save({"model": model.state_dict(), "epoch": epoch, "cer": cer}, ck)
        log(f"saved {ck} (epoch {epoch}, dev CER {cer:.4f})")
dist.barrier()
log(f"done: {a.epochs} epochs, {step} steps, {time.time() - t0:.0f} s", True)
dist.destroy_process_group()
