"""FastSpeech-style text-to-speech acoustic model on synthetic phoneme sequences.

Each utterance is a phoneme sequence (ARPAbet-like inventory, silences at the ends) with per-phoneme durations (in
mel frames) and a phoneme-level pitch contour (0 for unvoiced phonemes; whispered utterances are all unvoiced). The
target mel-spectrogram comes from a toy source-filter vocoder model: every phoneme has a spectral envelope (formant
peaks for vowels, high-band noise for fricatives, low-band energy for nasals), voiced frames add a harmonic ripple set
by the pitch, frames are smoothed across phoneme boundaries and log-compressed. Model: phoneme embeddings + sinusoidal
positions, a small feed-forward transformer encoder (self-attention + conv FFN), a variance adaptor (duration and
pitch predictors, pitch embedding), a length regulator that repeats each encoder frame by its duration, an FFT
decoder and a linear mel head (optional weight-normed conv postnet). Loss: masked L1 on the mel + MSE on log(d + 1)
durations + MSE on the normalised pitch. Validation: teacher-forced mel L1, all-reduced over ranks (optionally a
DTW mel distance of the synthesised mel with predicted durations); rank 0 saves last.pt/best.pt.

Modes: make (write utterance / transcript shards), ddp (under torchrun), spawn (torch.multiprocessing.spawn),
lightning (Trainer, ddp on CPU), hf (transformers Trainer under torchrun), tune (Ray Tune sweep), raytrain (Ray Train).
"""
from __future__ import annotations

import argparse
import ctypes
import glob
import json
import math
import os
import subprocess
import sys
import time
import wave
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

PHONES = ("sil AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW B CH D DH F G HH JH K L M N NG P R S SH T TH V W Y Z "
          "ZH").split()
VOWELS = set("AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW".split())
VOICED = VOWELS | set("B D DH G JH L M N NG R V W Y Z ZH".split())
FRICATIVES = set("CH F HH JH S SH TH V Z ZH DH".split())
NASALS = set("M N NG".split())
PID = {p: i + 1 for i, p in enumerate(PHONES)}  # 0 is padding
N_MELS = 40
HOP = 256
SR = 16000


def _envelopes():
    env = np.zeros((len(PHONES) + 1, N_MELS), np.float32)
    bins = np.arange(N_MELS, dtype=np.float32)
    for p, i in PID.items():
        rng = np.random.default_rng(1000 + i)
        if p == "sil":
            e = np.full(N_MELS, 0.02, np.float32)
        elif p in VOWELS:
            e = sum(a * np.exp(-0.5 * ((bins - c) / w) ** 2) for a, c, w in
                    [(1.0, rng.uniform(4, 10), 2.0), (0.7, rng.uniform(12, 24), 2.5), (0.4, rng.uniform(25, 34), 3.0)])
        elif p in FRICATIVES:
            e = 0.3 / (1 + np.exp(-(bins - rng.uniform(18, 30)) / 2.0)) + 0.05
        elif p in NASALS:
            e = 0.6 * np.exp(-0.5 * ((bins - rng.uniform(2, 6)) / 2.0) ** 2) + 0.05
        else:
            e = 0.25 * np.exp(-0.5 * ((bins - rng.uniform(5, 30)) / 6.0) ** 2) + 0.05
        env[i] = e
    return env


ENV = _envelopes()


def make_utt(seed, min_ph=8, max_ph=24, whisper_frac=0.0):
    """Phonemes, true durations (frames at HOP) and phoneme-level pitch (Hz, 0 = unvoiced) of one utterance."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(min_ph, max_ph + 1))
    cons = [p for p in PHONES[1:] if p not in VOWELS]
    vow = sorted(VOWELS)
    ph = ["sil"] + [str(rng.choice(vow if k % 2 else cons)) for k in range(n - 2)] + ["sil"]
    return utt_from_phones(ph, rng, whisper_frac)


def utt_from_phones(ph, rng, whisper_frac=0.0):
    dur = [int(rng.integers(3, 10)) if p in VOWELS else int(rng.integers(2, 7)) if p == "sil" else
           int(rng.integers(1, 5)) for p in ph]
    whisper = rng.random() < whisper_frac
    base = rng.uniform(90, 220)
    f0 = [0.0 if (whisper or p not in VOICED) else float(base * (1 - 0.15 * k / len(ph)) * rng.uniform(0.93, 1.07))
          for k, p in enumerate(ph)]
    return {"phones": [PID[p] for p in ph], "durations": dur, "f0": [round(x, 2) for x in f0]}


def synth_mel(phones, durations, f0, seed):
    """Target log-mel frames [T, N_MELS] from the toy source-filter model."""
    rng = np.random.default_rng(seed + 7)
    d = np.asarray(durations)
    env = np.repeat(ENV[np.asarray(phones)], d, axis=0)
    pitch = np.repeat(np.asarray(f0, np.float32), d)
    bins = np.arange(N_MELS, dtype=np.float32)
    ripple = np.where(pitch[:, None] > 0, 1 + 0.35 * np.cos(2 * np.pi * bins[None] * pitch[:, None] / 400.0),
                      0.6 + 0.4 * rng.random((len(pitch), N_MELS)))
    x = env * ripple
    if len(x) > 2:
        x[1:-1] = 0.25 * x[:-2] + 0.5 * x[1:-1] + 0.25 * x[2:]
    mel = np.log(x + 1e-2) + 0.03 * rng.standard_normal(x.shape)
    return ((mel + 2.5) / 1.5).astype(np.float32)


# ---------------------------------------------------------------------------------------------------------------------
def phonemize(lines, g2p="g2p.py"):
    """Letter-to-sound for transcript lines with the g2p helper process (one line of phonemes per input line)."""
    p = subprocess.Popen([sys.executable, g2p], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    for ln in lines:
        p.stdin.write(ln + "\n")
    p.stdin.close()
    out = p.stdout.read().splitlines()
    p.wait()
    return out


def load_records(args, split, rank=0, world=1):
    """This rank's utterances: from shards (data/<split>-NN.jsonl, shard k read by rank k % world), from transcript
    shards (text/<split>-NN.txt, phonemized here) or generated on the fly from seeds."""
    files = sorted(glob.glob(os.path.join(args.data, f"{split}-*.jsonl"))) if args.data else []
    if files:
        recs = []
        for k, fn in enumerate(files):
            if k % world == rank:
                with open(fn) as f:
                    recs += [json.loads(ln) for ln in f if ln.strip()]
        return recs
    tfiles = sorted(glob.glob(os.path.join(args.text, f"{split}-*.txt"))) if args.text else []
    if tfiles:
        lines = []
        for k, fn in enumerate(tfiles):
            if k % world == rank:
                with open(fn) as f:
                    lines += [ln.strip() for ln in f if ln.strip()]
        print(f"[rank {rank}] phonemizing {len(lines)} {split} transcripts", flush=True)
        recs = []
        for i, ph in enumerate(phonemize(lines)):
            seed = 5_000_000 + rank * 1_000_003 + i
            u = utt_from_phones(["sil"] + [p for p in ph.split() if p != "|"] + ["sil"],
                                np.random.default_rng(seed), args.whisper_frac)
            u["seed"] = seed
            recs.append(u)
        return recs
    n, base = (args.train_size, 0) if split == "train" else (args.val_size, 10_000_000)
    recs = []
    for i in range(rank, n, world):
        seed = base + args.seed * 100_003 + i
        u = make_utt(seed, args.min_phones, args.max_phones, args.whisper_frac)
        u["seed"] = seed
        recs.append(u)
    return recs


class PitchStats:
    def __init__(self, recs):
        v = np.array([x for r in recs for x in r["f0"] if x > 0] or [150.0])
        self.mean, self.std = float(v.mean()), float(v.std())


def norm_pitch(f0, mode, stats):
    f0 = np.asarray(f0, np.float32)
    voiced = f0 > 0
    if mode == "utterance":  # per-utterance statistics of the voiced phonemes
        mean, std = f0[voiced].mean(), f0[voiced].std()
    else:
        mean, std = stats.mean, stats.std
    return ((f0 - mean) / std * voiced).astype(np.float32)


class MelCache:
    """Target mels of a shard in one POSIX shared-memory block (created once, read by every loader)."""

    def __init__(self, recs, name):
        from multiprocessing import shared_memory
        lens = [sum(r["durations"]) for r in recs]
        self.offsets = np.concatenate([[0], np.cumsum(lens)])
        nbytes = int(self.offsets[-1]) * N_MELS * 4
        print(f"mel cache {name}: {len(recs)} utterances, {self.offsets[-1]} frames, {nbytes / 2**20:.1f} MiB in "
              f"shared memory", flush=True)
        self.shm = shared_memory.SharedMemory(name=name, create=True, size=nbytes)
        self.arr = np.ndarray((int(self.offsets[-1]), N_MELS), np.float32, buffer=self.shm.buf)
        for i, r in enumerate(recs):
            self.arr[self.offsets[i]:self.offsets[i + 1]] = synth_mel(r["phones"], r["durations"], r["f0"], r["seed"])
        print(f"mel cache {name} filled", flush=True)

    def get(self, i):
        return torch.from_numpy(self.arr[self.offsets[i]:self.offsets[i + 1]].copy())


class Utterances(torch.utils.data.Dataset):
    def __init__(self, recs, args, stats, cache=None):
        self.recs, self.args, self.stats, self.cache = recs, args, stats, cache

    def __len__(self):
        return len(self.recs)

    def __getitem__(self, i):
        r = self.recs[i]
        true_d = r.get("frames_durations", r["durations"])  # the audio's own phoneme timing
        mel = self.cache.get(i) if self.cache is not None else \
            torch.from_numpy(synth_mel(r["phones"], true_d, r["f0"], r["seed"]))
        return {"phones": torch.tensor(r["phones"]), "durations": torch.tensor(r["durations"]),
                "pitch": torch.from_numpy(norm_pitch(r["f0"], self.args.pitch_norm, self.stats)), "mel": mel}


def collate(items):
    n = max(len(it["phones"]) for it in items)
    t = max(len(it["mel"]) for it in items)
    out = {"phones": torch.zeros(len(items), n, dtype=torch.long), "durations": torch.zeros(len(items), n,
                                                                                          dtype=torch.long),
           "pitch": torch.zeros(len(items), n), "mel": torch.zeros(len(items), t, N_MELS),
           "mel_len": torch.tensor([len(it["mel"]) for it in items])}
    for i, it in enumerate(items):
        k = len(it["phones"])
        out["phones"][i, :k] = it["phones"]
        out["durations"][i, :k] = it["durations"]
        out["pitch"][i, :k] = it["pitch"]
        out["mel"][i, :len(it["mel"])] = it["mel"]
    return out


# ---------------------------------------------------------------------------------------------------------------------
def sinusoid(n, d):
    pos = torch.arange(n, dtype=torch.float32)[:, None]
    i = torch.arange(0, d, 2, dtype=torch.float32)[None]
    ang = pos / torch.pow(10000.0, i / d)
    pe = torch.zeros(n, d)
    pe[:, 0::2], pe[:, 1::2] = torch.sin(ang), torch.cos(ang)
    return pe


class FFTBlock(nn.Module):
    def __init__(self, d, heads, kernel=3):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Conv1d(d, 2 * d, kernel, padding=kernel // 2), nn.ReLU(), nn.Conv1d(2 * d, d, 1))

    def forward(self, x, pad):
        a, _ = self.attn(x, x, x, key_padding_mask=pad)
        x = self.ln1(x + a).masked_fill(pad[..., None], 0)
        x = self.ln2(x + self.ff(x.transpose(1, 2)).transpose(1, 2))
        return x.masked_fill(pad[..., None], 0)


class VariancePredictor(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.c1, self.c2 = nn.Conv1d(d, d, 3, padding=1), nn.Conv1d(d, d, 3, padding=1)
        self.l1, self.l2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.out = nn.Linear(d, 1)

    def forward(self, x, pad):
        h = self.l1(F.relu(self.c1(x.transpose(1, 2))).transpose(1, 2))
        h = self.l2(F.relu(self.c2(h.transpose(1, 2))).transpose(1, 2))
        return self.out(h).squeeze(-1).masked_fill(pad, 0)


class Postnet(nn.Module):
    def __init__(self, ch=64, k=5):
        super().__init__()
        wn = nn.utils.weight_norm
        self.convs = nn.ModuleList([wn(nn.Conv1d(N_MELS, ch, k, padding=k // 2)), wn(nn.Conv1d(ch, N_MELS, k,
                                                                                               padding=k // 2))])

    def forward(self, mel):
        h = torch.tanh(self.convs[0](mel.transpose(1, 2)))
        return self.convs[1](h).transpose(1, 2)


def length_regulate(x, durations, max_frames=None):
    """Repeat every encoder frame by its duration; returns [B, T, d] and the frame padding mask."""
    lens = durations.sum(1)
    t = int(lens.max()) if max_frames is None else max_frames
    y = x.new_zeros(len(x), t, x.shape[-1])
    for b in range(len(x)):
        r = torch.repeat_interleave(x[b], durations[b], dim=0)[:t]
        y[b, :len(r)] = r
    pad = torch.arange(t)[None] >= lens[:, None]
    return y, pad


class FastSpeech(nn.Module):
    def __init__(self, args):
        super().__init__()
        d = args.dim
        self.emb = nn.Embedding(len(PHONES) + 1, d, padding_idx=0)
        self.enc = nn.ModuleList([FFTBlock(d, args.heads) for _ in range(args.layers)])
        self.dur = VariancePredictor(d)
        self.pitch = VariancePredictor(d)
        self.pitch_emb = nn.Conv1d(1, d, 3, padding=1)
        self.dec = nn.ModuleList([FFTBlock(d, args.heads) for _ in range(args.layers)])
        self.mel = nn.Linear(d, N_MELS)
        self.postnet = Postnet() if args.postnet else None
        self.d = d

    def forward(self, phones, durations=None, pitch=None, max_frames=None, pace=1.0):
        pad = phones == 0
        x = self.emb(phones) + sinusoid(phones.shape[1], self.d)[None]
        for blk in self.enc:
            x = blk(x, pad)
        logd = self.dur(x, pad)
        p_pred = self.pitch(x, pad)
        p = pitch if pitch is not None else p_pred
        x = x + self.pitch_emb(p[:, None]).transpose(1, 2)
        if durations is None:  # inference: predicted durations at the given pace
            durations = torch.clamp(torch.round((torch.exp(logd) - 1) * pace), min=0).long().masked_fill(pad, 0)
        y, fpad = length_regulate(x, durations, max_frames)
        y = y + sinusoid(y.shape[1], self.d)[None]
        for blk in self.dec:
            y = blk(y, fpad)
        mel = self.mel(y)
        if self.postnet is not None:
            mel = mel + self.postnet(mel)
        return mel, logd, p_pred, fpad


def tts_loss(out, batch):
    mel, logd, p_pred, fpad = out
    pad = batch["phones"] == 0
    keep = ~fpad[..., None]
    mel_l1 = ((mel - batch["mel"]).abs() * keep).sum() / (keep.sum() * N_MELS)
    tgt_d = torch.log(batch["durations"].float() + 1)
    dur = (((logd - tgt_d) ** 2).masked_fill(pad, 0)).sum() / (~pad).sum()
    pit = (((p_pred - batch["pitch"]) ** 2).masked_fill(pad, 0)).sum() / (~pad).sum()
    return mel_l1 + dur + 0.1 * pit, mel_l1, dur, pit


def dtw_distance(a, b):
    """Mean L1 frame distance along the DTW path between two mels (frames x mels)."""
    cost = np.abs(a[:, None, :] - b[None, :, :]).mean(-1).tolist()
    n, m = len(a), len(b)
    prev = [math.inf] * (m + 1)
    prev[0] = 0.0
    for i in range(1, n + 1):
        cur = [math.inf] * (m + 1)
        row = cost[i - 1]
        for j in range(1, m + 1):
            cur[j] = row[j - 1] + min(prev[j], prev[j - 1], cur[j - 1])
        prev = cur
    return prev[m] / (n + m)


def preview_wave(mel, f0_hz=140.0):
    """Toy vocoder for listening previews: a sum of harmonics shaped by the mel envelope (16 kHz)."""
    env = np.exp(mel * 1.5 - 2.5)
    t = np.arange(len(mel) * HOP) / SR
    frame = np.minimum((t * SR / HOP).astype(int), len(mel) - 1)
    w = np.zeros_like(t)
    for h in range(1, 12):
        band = min(int(h * f0_hz / (SR / 2) * N_MELS * 4), N_MELS - 1)
        w += env[frame, band] * np.sin(2 * np.pi * h * f0_hz * t)
    return (w / (np.abs(w).max() + 1e-6) * 0.8).astype(np.float32)


def write_wav(path, w):
    with wave.open(path, "wb") as f:
        f.setnchannels(1)
        f.setsampwidth(2)
        f.setframerate(SR)
        f.writeframes((w * 32767).astype(np.int16).tobytes())


class SpectralHelper:
    """Frame energies of a preview waveform with the compiled STFT helper (spec.c)."""

    def __init__(self, path, n_fft, win_length, hop):
        self.lib = ctypes.CDLL(os.path.abspath(path))
        self.n_fft, self.win, self.hop = n_fft, win_length, hop

    def energies(self, w):
        w = np.ascontiguousarray(w, np.float32)
        n = 1 + (len(w) - self.win) // self.hop if len(w) >= self.win else 0
        out = np.zeros(max(n, 1), np.float32)
        self.lib.frame_energies(w.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(len(w)), ctypes.c_int(self.n_fft),
                                ctypes.c_int(self.win), ctypes.c_int(self.hop), out.ctypes.data_as(ctypes.c_void_p))
        return out


# ---------------------------------------------------------------------------------------------------------------------
@torch.no_grad()
def evaluate(model, vl, args, rank, world):
    raw = model.module if hasattr(model, "module") else model
    raw.eval()
    acc = torch.zeros(4, dtype=torch.float64)  # mel L1 sum, mel values, dtw sum, utterances
    for batch in vl:
        mel, _, _, fpad = raw(batch["phones"], batch["durations"], batch["pitch"])
        keep = ~fpad[..., None]
        acc[0] += ((mel - batch["mel"]).abs() * keep).sum().item()
        acc[1] += keep.sum().item() * N_MELS
        if args.eval_dtw:
            syn, _, _, spad = raw(batch["phones"], pitch=None)
            for b in range(len(syn)):
                a = syn[b][~spad[b]].numpy()
                if len(a) == 0:
                    a = syn[b, :1].numpy()
                acc[2] += dtw_distance(a, batch["mel"][b, :int(batch["mel_len"][b])].numpy())
                acc[3] += 1
    if world > 1:
        dist.all_reduce(acc)
    res = {"mel_l1": (acc[0] / acc[1].clamp(min=1)).item()}
    if args.eval_dtw:
        res["dtw"] = (acc[2] / acc[3].clamp(min=1)).item()
    return res


def train_loop(rank, world, args, cache=None):
    torch.manual_seed(args.seed)
    ddp = world > 1
    model = FastSpeech(args)
    if rank == 0:
        print(f"FastSpeech: {sum(p.numel() for p in model.parameters()) / 1e3:.1f}k parameters, dim {args.dim}, "
              f"{args.layers}+{args.layers} FFT blocks, {args.heads} heads, {N_MELS} mels, phonemes {len(PHONES)}",
              flush=True)
    if ddp:
        model = nn.parallel.DistributedDataParallel(model)
    raw = model.module if ddp else model
    train_recs = load_records(args, "train", rank, world)
    val_recs = load_records(args, "val", rank, world)
    stats = PitchStats(train_recs)
    print(f"[rank {rank}] {len(train_recs)} train / {len(val_recs)} val utterances, "
          f"{sum(sum(r['durations']) for r in train_recs)} frames, pitch mean {stats.mean:.1f} Hz", flush=True)
    tl = torch.utils.data.DataLoader(Utterances(train_recs, args, stats, cache), batch_size=args.batch, shuffle=True,
                                     drop_last=True, collate_fn=collate, num_workers=args.workers)
    vl = torch.utils.data.DataLoader(Utterances(val_recs, args, stats), batch_size=args.batch, collate_fn=collate)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)
    helper = SpectralHelper(args.preview_lib, args.n_fft, args.win_length, args.hop) if args.preview_lib else None
    if rank == 0:
        print(f"{len(tl)} steps/epoch, global batch {args.batch * world}, lr {args.lr}, pitch norm {args.pitch_norm}",
              flush=True)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    bucket = args.bucket_frames
    steps, step, best, res = args.epochs * len(tl), 0, math.inf, {}
    for epoch in range(args.epochs):
        model.train()
        t0 = time.time()
        for batch in tl:
            max_frames = None
            if bucket:  # static padding bucket; grow it on every rank when a batch does not fit
                need = int(batch["mel_len"].max())
                if need > bucket:
                    print(f"[rank {rank}] batch needs {need} frames > bucket {bucket}; growing bucket", flush=True)
                    t = torch.tensor([need])
                    dist.all_reduce(t, op=dist.ReduceOp.MAX)
                    bucket = int(math.ceil(t.item() / 64) * 64)
                max_frames = bucket
                batch["mel"] = F.pad(batch["mel"], (0, 0, 0, bucket - batch["mel"].shape[1]))
            out = model(batch["phones"], batch["durations"], batch["pitch"], max_frames)
            loss, mel_l1, dur, pit = tts_loss(out, batch)
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()
            step += 1
            if step % args.log_every == 0 and rank == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} mel_l1 {mel_l1.item():.4f} "
                      f"dur {dur.item():.4f} pitch {pit.item():.4f} grad_norm {gn.item():.3f}", flush=True)
        res = evaluate(model, vl, args, rank, world)
        res["epoch"] = epoch
        if rank == 0:
            print(f"epoch {epoch} val mel_l1 {res['mel_l1']:.4f}" + (f" dtw {res['dtw']:.4f}" if "dtw" in res else "")
                  + f" ({time.time() - t0:.1f} s)", flush=True)
            if helper is not None:
                syn, _, _, spad = raw(*(next(iter(vl))[k][:2] for k in ("phones", "durations", "pitch")))
                for b in range(len(syn)):
                    e = helper.energies(preview_wave(syn[b][~spad[b]].detach().numpy()))
                    print(f"preview {b}: {len(e)} frames, mean energy {float(e.mean()):.4f}", flush=True)
            state = {"model": raw.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val": res}
            torch.save(state, os.path.join(args.ckpt_dir, "last.pt"))
            if res["mel_l1"] < best:
                best = res["mel_l1"]
                torch.save(state, os.path.join(args.ckpt_dir, "best.pt"))
                print(f"saved best.pt (val mel_l1 {best:.4f})", flush=True)
    return res


def init_pg(rank, world, args):
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))


def spawn_worker(rank, world, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    init_pg(rank, world, args)
    train_loop(rank, world, args)
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_spawn(args):
    print(f"spawning {args.nprocs} ranks (gloo), MASTER_ADDR={os.environ.get('MASTER_ADDR', '127.0.0.1')} "
          f"MASTER_PORT={os.environ.get('MASTER_PORT')}", flush=True)
    torch.multiprocessing.spawn(spawn_worker, args=(args.nprocs, args), nprocs=args.nprocs, join=True)


def main_ddp(args):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    init_pg(rank, world, args)
    if rank == 0:
        print(f"world size {world}, backend gloo, torch {torch.__version__}", flush=True)
    train_loop(rank, world, args)
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_lightning(args):
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from lightning.pytorch.strategies import DDPStrategy

    class LitTTS(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = FastSpeech(args)

        def training_step(self, batch, _):
            loss, mel_l1, dur, pit = tts_loss(self.model(batch["phones"], batch["durations"], batch["pitch"]), batch)
            self.log_dict({"train_loss": loss, "mel_l1": mel_l1, "dur_loss": dur}, prog_bar=True)
            return loss

        def validation_step(self, batch, _):
            if args.val_predicted_durations:  # the inverse of the log(d + 1) duration target
                mel, logd, _, fpad = self.model(batch["phones"], pitch=None)
                d = torch.round(torch.exp(logd) - 1).long()
                frames = torch.stack([torch.repeat_interleave(torch.ones_like(d[b]), d[b]).sum()
                                      for b in range(len(d))])
                self.log("val_frames_err", (frames - batch["mel_len"]).abs().float().mean(), sync_dist=True)
            mel, _, _, fpad = self.model(batch["phones"], batch["durations"], batch["pitch"])
            keep = ~fpad[..., None]
            self.log("val_mel_l1", ((mel - batch["mel"]).abs() * keep).sum() / (keep.sum() * N_MELS),
                     sync_dist=True, prog_bar=True)

        def on_validation_epoch_end(self):
            if args.synth_samples and not self.trainer.sanity_checking:
                batch = collate([val[i] for i in range(args.synth_samples)])
                mel, _, _, fpad = self.model(batch["phones"], pitch=None, pace=args.pace)
                print(f"[rank {self.global_rank}] synthesised {args.synth_samples} samples at pace {args.pace}: "
                      f"{(~fpad).sum(1).tolist()} frames", flush=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=args.lr, betas=(0.9, 0.98), weight_decay=0.01)

    train_recs = load_records(args, "train")
    stats = PitchStats(train_recs)
    train = Utterances(train_recs, args, stats)
    val = Utterances(load_records(args, "val"), args, stats)
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                     drop_last=True, collate_fn=collate, persistent_workers=args.workers > 0)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, num_workers=0, collate_fn=collate)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs,
                        strategy=DDPStrategy(process_group_backend="gloo", timeout=timedelta(seconds=args.pg_timeout)),
                        max_epochs=args.epochs, log_every_n_steps=args.log_every, default_root_dir=args.ckpt_dir,
                        callbacks=[ModelCheckpoint(dirpath=os.path.join(args.ckpt_dir, "checkpoints"),
                                                   filename="fastspeech-{epoch:02d}", monitor="val_mel_l1",
                                                   mode="min", save_last=True)],
                        enable_progress_bar=False)
    trainer.fit(LitTTS(), tl, vl)
    if trainer.global_rank == 0:
        print(f"fit finished: {trainer.callback_metrics}", flush=True)


class HFFastSpeech(FastSpeech):
    def forward(self, phones, durations, pitch, mel, mel_len, **_):
        out = super().forward(phones, durations, pitch)
        loss = tts_loss(out, {"phones": phones, "durations": durations, "pitch": pitch, "mel": mel})[0]
        return {"loss": loss, "mel": out[0]}


def main_hf(args):
    import transformers
    from transformers import Trainer, TrainerCallback, TrainingArguments

    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    if rank == 0:
        print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)
    targs = TrainingArguments(output_dir=args.ckpt_dir, per_device_train_batch_size=args.batch,
                              per_device_eval_batch_size=args.batch, num_train_epochs=args.epochs, learning_rate=args.lr,
                              weight_decay=0.01, logging_steps=args.log_every, save_strategy="epoch",
                              eval_strategy="epoch", report_to=[], use_cpu=True, ddp_backend="gloo",
                              remove_unused_columns=False, dataloader_num_workers=args.workers, disable_tqdm=True,
                              dataloader_drop_last=True, max_grad_norm=1.0, label_names=["mel"])
    train_recs = load_records(args, "train", rank, world)
    val_recs = load_records(args, "val")
    stats = PitchStats(train_recs)
    cache = None
    if args.shm_cache:
        cache = MelCache(train_recs, f"fs_mels_{os.environ.get('MASTER_PORT', '0')}_r{rank}")
    model = HFFastSpeech(args)
    val = Utterances(val_recs, args, stats)

    class Previews(TrainerCallback):
        """Listening previews of a few validation utterances after every evaluation (rank 0)."""

        def on_evaluate(self, targs_, state, control, **kw):
            if not state.is_world_process_zero or not args.preview_dir:
                return
            os.makedirs(args.preview_dir, exist_ok=True)
            batch = collate([val[i] for i in range(args.preview_count)])
            with torch.no_grad():
                mel, _, _, fpad = FastSpeech.forward(model, batch["phones"], pitch=None)
            for b in range(len(mel)):
                path = os.path.join(args.preview_dir, f"epoch{int(state.epoch or 0):02d}_utt{b:02d}.wav")
                write_wav(path, preview_wave(mel[b][~fpad[b]].numpy()))
            print(f"wrote {len(mel)} previews to {args.preview_dir}/", flush=True)

    trainer = Trainer(model=model, args=targs, train_dataset=Utterances(train_recs, args, stats, cache),
                      eval_dataset=val, data_collator=collate, callbacks=[Previews()])
    trainer.train()
    if trainer.is_world_process_zero():
        print("training finished", flush=True)


def trial_fn(config, args):
    from ray import tune

    a = argparse.Namespace(**vars(args))
    a.lr, a.dim = config["lr"], config["dim"]
    torch.set_num_threads(1)
    model = FastSpeech(a)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, betas=(0.9, 0.98))
    recs = load_records(a, "train")
    stats = PitchStats(recs)
    tl = torch.utils.data.DataLoader(Utterances(recs, a, stats), batch_size=a.batch, shuffle=True, drop_last=True,
                                     collate_fn=collate)
    vl = torch.utils.data.DataLoader(Utterances(load_records(a, "val"), a, stats), batch_size=a.batch,
                                     collate_fn=collate)
    for epoch in range(a.epochs):
        model.train()
        for i, batch in enumerate(tl):
            loss = tts_loss(model(batch["phones"], batch["durations"], batch["pitch"]), batch)[0]
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i % a.log_every == 0:
                print(f"epoch {epoch} batch {i} loss {loss.item():.4f}", flush=True)
        res = evaluate(model, vl, a, 0, 1)
        tune.report({"mel_l1": res["mel_l1"], "epoch": epoch})


def main_tune(args):
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    space = {"lr": tune.loguniform(3e-4, 3e-3), "dim": tune.choice([32, 48])}
    tuner = tune.Tuner(tune.with_resources(tune.with_parameters(trial_fn, args=args), {"cpu": 1}), param_space=space,
                       tune_config=tune.TuneConfig(metric="mel_l1", mode="min", num_samples=args.trials,
                                                   scheduler=ASHAScheduler(max_t=args.epochs, grace_period=1)),
                       run_config=tune.RunConfig(name="fastspeech_sweep", storage_path=os.path.abspath(args.storage),
                                                 verbose=1))
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial: {best.config} mel_l1 {best.metrics['mel_l1']:.4f}", flush=True)


def main_raytrain(args):
    import ray

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    import ray.train
    from ray.train.torch import TorchTrainer, prepare_model

    def loop(config):
        torch.set_num_threads(1)
        ctx = ray.train.get_context()
        rank, world = ctx.get_world_rank(), ctx.get_world_size()
        model = prepare_model(FastSpeech(args))
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.98))
        recs = load_records(args, "train", rank, world)
        stats = PitchStats(recs)
        print(f"[rank {rank}] {len(recs)} train utterances", flush=True)
        tl = torch.utils.data.DataLoader(Utterances(recs, args, stats), batch_size=args.batch, shuffle=True,
                                         drop_last=True, collate_fn=collate)
        vl = torch.utils.data.DataLoader(Utterances(load_records(args, "val", rank, world), args, stats),
                                         batch_size=args.batch, collate_fn=collate)
        for epoch in range(args.epochs):
            model.train()
            for i, batch in enumerate(tl):
                loss = tts_loss(model(batch["phones"], batch["durations"], batch["pitch"]), batch)[0]
                opt.zero_grad()
                loss.backward()
                opt.step()
                if i % args.log_every == 0 and rank == 0:
                    print(f"epoch {epoch} batch {i} loss {loss.item():.4f}", flush=True)
            res = evaluate(model, vl, args, rank, world)
            ray.train.report({"loss": loss.item(), "val_mel_l1": res["mel_l1"], "epoch": epoch})

    trainer = TorchTrainer(loop, scaling_config=ray.train.ScalingConfig(
        num_workers=args.nprocs, resources_per_worker={"CPU": 1}),
        run_config=ray.train.RunConfig(name="fastspeech_train", storage_path=os.path.abspath(args.storage)))
    result = trainer.fit()
    print(f"result: {result.metrics}", flush=True)


SYLLABLES = "ka to mi re bo lu sa ne vi da go pe shi chu ra no ze fu ha yo thi wa".split()


def main_make(args):
    os.makedirs(args.out, exist_ok=True)
    for k in range(args.first_shard, args.first_shard + args.shards):
        if args.transcripts:  # raw text for the g2p front end
            fn = os.path.join(args.out, f"{args.split}-{k:02d}.txt")
            rng = np.random.default_rng(77 + k)
            with open(fn, "w") as f:
                for _ in range(args.per_shard):
                    words = ["".join(rng.choice(SYLLABLES, int(rng.integers(1, 4)))) for _ in
                             range(int(rng.integers(3, 9)))]
                    f.write(" ".join(words) + "\n")
            print(f"wrote {fn} ({args.per_shard} transcripts)")
            continue
        fn = os.path.join(args.out, f"{args.split}-{k:02d}.jsonl")
        with open(fn, "w") as f:
            for i in range(args.per_shard):
                seed = 3_000_000 + k * 100_000 + i + (0 if args.split == "train" else 50_000)
                u = make_utt(seed, args.min_phones, args.max_phones, args.whisper_frac)
                u["seed"] = seed
                if args.aligner_hop != HOP:  # durations from a forced aligner run at another hop length
                    u["frames_durations"] = u["durations"]
                    u["durations"] = [max(1, int(round(d * HOP / args.aligner_hop))) for d in u["durations"]]
                f.write(json.dumps(u) + "\n")
        print(f"wrote {fn} ({args.per_shard} utterances, {args.min_phones}-{args.max_phones} phonemes)")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "spawn", "ddp", "lightning", "hf", "tune", "raytrain"])
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--train-size", type=int, default=512)
    ap.add_argument("--val-size", type=int, default=64)
    ap.add_argument("--data", default="")
    ap.add_argument("--text", default="")
    ap.add_argument("--min-phones", type=int, default=8)
    ap.add_argument("--max-phones", type=int, default=24)
    ap.add_argument("--whisper-frac", type=float, default=0.005)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dim", type=int, default=48)
    ap.add_argument("--heads", type=int, default=2)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--postnet", action="store_true")
    ap.add_argument("--pitch-norm", choices=["global", "utterance"], default="global")
    ap.add_argument("--bucket-frames", type=int, default=0)
    ap.add_argument("--eval-dtw", action="store_true")
    ap.add_argument("--val-predicted-durations", action="store_true")
    ap.add_argument("--synth-samples", type=int, default=0)
    ap.add_argument("--pace", type=float, default=1.0)
    ap.add_argument("--preview-lib", default="")
    ap.add_argument("--preview-dir", default="")
    ap.add_argument("--preview-count", type=int, default=8)
    ap.add_argument("--n-fft", type=int, default=1024)
    ap.add_argument("--win-length", type=int, default=1024)
    ap.add_argument("--hop", type=int, default=256)
    ap.add_argument("--shm-cache", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--storage", default="ray_results")
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    # make
    ap.add_argument("--out", default="data")
    ap.add_argument("--split", default="train")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--first-shard", type=int, default=0)
    ap.add_argument("--per-shard", type=int, default=256)
    ap.add_argument("--transcripts", action="store_true")
    ap.add_argument("--aligner-hop", type=int, default=HOP)
    return ap.parse_args()


if __name__ == "__main__":
    a = parse()
    torch.set_num_threads(1)
    if a.mode != "make":
        print(f"args: {' '.join(sys.argv[1:])}", flush=True)
    {"make": main_make, "spawn": main_spawn, "ddp": main_ddp, "lightning": main_lightning, "hf": main_hf,
     "tune": main_tune, "raytrain": main_raytrain}[a.mode](a)
