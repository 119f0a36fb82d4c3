"""Conv-TasNet-style two-speaker source separation on synthetic mixtures.

Each source is a "speaker": a harmonic tone (fundamental 85-320 Hz, 6-14 harmonics with a spectral tilt) with
vibrato (4-7 Hz, 1-4 % depth), a syllable-rate amplitude envelope and a little coloured noise (1/f^beta shaped in
the frequency domain). A mixture is two speakers at a relative level of -5..5 dB, peak-normalised. Model: a learned
1-D conv encoder (N filters of L samples, stride L/2, ReLU), a temporal conv network mask estimator (bottleneck,
R repeats of X dilated depthwise-separable conv blocks with PReLU and global layer norm, skip connections), a
sigmoid mask per source and a transposed-conv decoder. Loss: permutation-invariant negative SI-SNR. Validation:
SI-SNR improvement over the mixture, summed and all-reduced over ranks; rank 0 saves last.pt/best.pt.

Modes: make (write mixture shards), ddp (under torchrun), spawn (torch.multiprocessing.spawn), lightning (Trainer,
ddp on CPU), hf (transformers Trainer under torchrun), tune (Ray Tune sweep), raytrain (Ray Train).
"""
from __future__ import annotations

import argparse
import contextlib
import ctypes
import fcntl
import glob
import hashlib
import itertools
import json
import math
import os
import pickle
import sys
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

SR = 8000


# ---------------------------------------------------------------------------------------------------------------------
def coloured_noise(rng, n, beta):
    spec = np.fft.rfft(rng.standard_normal(n))
    f = np.arange(len(spec), dtype=np.float64)
    f[0] = 1.0
    x = np.fft.irfft(spec / f ** (beta / 2), n)
    return x / (np.abs(x).max() + 1e-9)


def make_speaker(rng, n):
    """One synthetic talker: harmonics with vibrato, syllable envelope and breath noise."""
    t = np.arange(n) / SR
    f0 = rng.uniform(85, 320)
    vib = 1 + rng.uniform(0.01, 0.04) * np.sin(2 * np.pi * rng.uniform(4, 7) * t + rng.uniform(0, 2 * np.pi))
    phase = 2 * np.pi * np.cumsum(f0 * vib) / SR
    tilt = rng.uniform(0.8, 1.6)
    x = np.zeros(n)
    for h in range(1, int(rng.integers(6, 15))):
        if h * f0 * 1.05 >= SR / 2:
            break
        x += np.sin(h * phase + rng.uniform(0, 2 * np.pi)) / h ** tilt
    rate = rng.uniform(3, 6)  # syllables per second
    env = np.clip(np.sin(2 * np.pi * rate * t + rng.uniform(0, 2 * np.pi)), 0, None) ** 0.7
    x = x * (0.15 + env) + 0.05 * coloured_noise(rng, n, rng.uniform(0.5, 2.0))
    return x / (np.sqrt((x ** 2).mean()) + 1e-9)


def make_mixture(seed, n, level_db=None, reverb=0.0):
    rng = np.random.default_rng(seed)
    s1, s2 = make_speaker(rng, n), make_speaker(rng, n)
    if reverb and rng.random() < reverb:  # augmentation: both talkers in the same simulated room
        s1, s2 = reverberate(s1, rng), reverberate(s2, rng)
    rel = rng.uniform(-5, 5) if level_db is None else level_db
    s2 = s2 * 10 ** (rel / 20)
    mix = s1 + s2
    g = 0.9 / np.abs(mix).max()
    return (mix * g).astype(np.float32), (np.stack([s1, s2]) * g).astype(np.float32)


def room_ir(rng, room=4.0, grid=0.25, length=400, mic=(2.0, 2.0)):
    """A toy shoebox impulse response: direct path and first-order wall reflections (amplitude 1/distance, 0.7 per
    bounce), talker positions on a grid (rooms are annotated at the grid spacing)."""
    src = rng.integers(1, int(room / grid), 2) * grid
    h = np.zeros(length)
    images = [src] + [np.array([2 * w - src[0], src[1]]) for w in (0, room)] + \
        [np.array([src[0], 2 * w - src[1]]) for w in (0, room)]
    for k, img in enumerate(images):
        d = np.hypot(*(img - np.asarray(mic)))
        lag = int(round(d / 343.0 * SR))
        if lag < length:
            h[lag] += (0.7 if k else 1.0) / d
    return h / h.max()


def reverberate(x, rng):
    return np.convolve(x, room_ir(rng))[:len(x)]


def shard_files(args, split):
    return sorted(glob.glob(os.path.join(args.data, f"{split}-*.npz"))) if args.data else []


def read_shard(fn, lock=False):
    """mix [N, T] and sources [N, 2, T] of one shard file (float16 or float32 on disk). With lock, a shared lock on
    the shard's lock file so a shard is never read while the data pipeline rewrites it."""
    lf = None
    if lock:
        lf = open(fn[:-4] + ".lock", "a")
        fcntl.flock(lf, fcntl.LOCK_SH)
    try:
        with np.load(fn, allow_pickle=False) as z:
            if "lengths" in z:  # VAD-trimmed clips of different lengths, stored back to back
                ends = np.cumsum(z["lengths"])
                mix = np.split(z["mix"], ends[:-1])
                src = np.split(z["src"], ends[:-1], axis=1)
                return list(mix), list(src)
            return z["mix"], z["src"]
    finally:
        if lf is not None:
            fcntl.flock(lf, fcntl.LOCK_UN)
            lf.close()


class Mixtures(torch.utils.data.Dataset):
    """Clips of this rank: from shards (data/<split>-NN.npz, shard k read by rank k % world) or generated from
    seeds on the fly."""

    def __init__(self, args, split, rank=0, world=1, mixlib=None):
        self.args, self.split, self.rank, self.world, self.mixlib = args, split, rank, world, mixlib
        self.files = [fn for k, fn in enumerate(shard_files(args, split)) if k % world == rank]
        self.n_samples = int(args.seconds * SR)
        self.render_dir = None
        self.reload()
        if args.render_cache and split == "train":
            self.render_dir = os.path.join(args.render_cache, f"rank{rank}")
            os.makedirs(self.render_dir, exist_ok=True)
            t0 = time.time()
            for i in range(len(self)):
                mix, src = self.render(i)
                np.save(os.path.join(self.render_dir, f"{i:06d}.npy"), np.concatenate([mix[None], src]))
            print(f"[rank {rank}] rendered {len(self)} {split} clips to {self.render_dir} ({time.time() - t0:.1f} s)",
                  flush=True)

    def reload(self):
        self.mix = self.src = None
        if self.files:
            mixes, srcs = [], []
            for fn in self.files:
                m, s = read_shard(fn, lock=self.args.reload_shards)
                mixes += list(m)
                srcs += list(s)
            self.mix, self.src = mixes, srcs
            self.n = len(mixes)
        else:
            self.n = (self.args.train_size if self.split == "train" else self.args.val_size) // self.world

    def __len__(self):
        return self.n

    def seed(self, i):
        base = 0 if self.split == "train" else 10_000_000
        return base + self.args.seed * 100_003 + i * self.world + self.rank

    def render(self, i):
        if self.mix is None:
            return make_mixture(self.seed(i), self.n_samples, reverb=self.args.reverb if self.split == "train" else 0)
        src = self.src[i]
        if self.mixlib is not None and src.dtype == np.float16:  # half-precision shards: compiled mixdown helper
            return self.mixlib.mix(src), src.astype(np.float32)
        return np.asarray(self.mix[i], np.float32), np.asarray(src, np.float32)

    def __getitem__(self, i):
        if self.render_dir is not None:
            a = np.load(os.path.join(self.render_dir, f"{i:06d}.npy"))
            return {"mix": torch.from_numpy(a[0]), "src": torch.from_numpy(a[1:])}
        mix, src = self.render(i)
        return {"mix": torch.from_numpy(mix), "src": torch.from_numpy(src)}


class MixLib:
    """Mixdown of half-precision source pairs with the compiled helper (mix.c)."""

    def __init__(self, path):
        self.lib = ctypes.CDLL(os.path.abspath(path))
        self.lib.mix_f16.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int]

    def mix(self, src):
        src = np.ascontiguousarray(src, np.float16)
        out = np.empty(src.shape[1], np.float16)
        self.lib.mix_f16(src[0].ctypes.data, src[1].ctypes.data, out.ctypes.data, src.shape[1])
        return out.astype(np.float32)


def dynamic_mix(ds, k):
    """Pre-mix k random re-pairings of every clip's sources (dynamic mixing, computed once up front)."""
    n = len(ds)
    items = [ds.render(i) for i in range(n)]
    t = items[0][0].shape[-1]
    bank = np.zeros((k * n, 3, t), np.float32)
    rng = np.random.default_rng(ds.rank)
    for r in range(k):
        perm = rng.permutation(n)
        for i in range(n):
            s1, s2 = items[i][1][0], items[perm[i]][1][1]
            bank[r * n + i, 1], bank[r * n + i, 2] = s1, s2
            bank[r * n + i, 0] = s1 + s2
    return bank


class Bank(torch.utils.data.Dataset):
    def __init__(self, bank):
        self.bank = bank

    def __len__(self):
        return len(self.bank)

    def __getitem__(self, i):
        return {"mix": torch.from_numpy(self.bank[i, 0]), "src": torch.from_numpy(self.bank[i, 1:])}


# ---------------------------------------------------------------------------------------------------------------------
class GlobalLayerNorm(nn.Module):
    def __init__(self, ch, eps=1e-8):
        super().__init__()
        self.g, self.b, self.eps = nn.Parameter(torch.ones(1, ch, 1)), nn.Parameter(torch.zeros(1, ch, 1)), eps

    def forward(self, x):
        m = x.mean(dim=(1, 2), keepdim=True)
        v = ((x - m) ** 2).mean(dim=(1, 2), keepdim=True)
        return self.g * (x - m) / torch.sqrt(v + self.eps) + self.b


class TCNBlock(nn.Module):
    def __init__(self, b, h, p, dilation, last=False):
        super().__init__()
        self.inp = nn.Conv1d(b, h, 1)
        self.a1, self.n1 = nn.PReLU(), GlobalLayerNorm(h)
        self.dw = nn.Conv1d(h, h, p, padding=dilation * (p - 1) // 2, dilation=dilation, groups=h)
        self.a2, self.n2 = nn.PReLU(), GlobalLayerNorm(h)
        self.res = None if last else nn.Conv1d(h, b, 1)  # the last block's residual output is never used
        self.skip = nn.Conv1d(h, b, 1)

    def forward(self, x):
        y = self.n1(self.a1(self.inp(x)))
        y = self.n2(self.a2(self.dw(y)))
        return (x if self.res is None else x + self.res(y)), self.skip(y)


class ConvTasNet(nn.Module):
    def __init__(self, args):
        super().__init__()
        n, length, self.n_src = args.filters, args.kernel, 2
        self.encoder = nn.Conv1d(1, n, length, stride=length // 2, bias=False)
        self.norm = GlobalLayerNorm(n)
        self.bottleneck = nn.Conv1d(n, args.bottleneck, 1)
        self.blocks = nn.ModuleList([TCNBlock(args.bottleneck, args.hidden, 3, 2 ** x,
                                              last=(r == args.repeats - 1 and x == args.blocks - 1))
                                     for r in range(args.repeats) for x in range(args.blocks)])
        self.mask = nn.Sequential(nn.PReLU(), nn.Conv1d(args.bottleneck, self.n_src * n, 1))
        self.decoder = nn.ConvTranspose1d(n, 1, length, stride=length // 2, bias=False)
        self.mask_act = args.mask_act

    def forward(self, mix):
        t = mix.shape[-1]
        w = F.relu(self.encoder(mix[:, None]))  # [B, N, frames]
        x = self.bottleneck(self.norm(w))
        skip = 0
        for blk in self.blocks:
            x, s = blk(x)
            skip = skip + s
        m = self.mask(skip).view(len(mix), self.n_src, w.shape[1], w.shape[2])
        m = torch.sigmoid(m) if self.mask_act == "sigmoid" else F.relu(m)
        est = self.decoder((m * w[:, None]).flatten(0, 1)).view(len(mix), self.n_src, -1)
        return F.pad(est, (0, t - est.shape[-1])) if est.shape[-1] < t else est[..., :t]


def si_snr(est, ref, eps=1e-8):
    est = est - est.mean(-1, keepdim=True)
    ref = ref - ref.mean(-1, keepdim=True)
    proj = (est * ref).sum(-1, keepdim=True) * ref / ((ref ** 2).sum(-1, keepdim=True) + eps)
    noise = est - proj
    return 10 * torch.log10(((proj ** 2).sum(-1) + eps) / ((noise ** 2).sum(-1) + eps))


def pit_si_snr(est, ref):
    """Best-permutation SI-SNR per clip [B] (2 sources: 2 permutations)."""
    scores = torch.stack([si_snr(est[:, list(p)], ref).mean(-1) for p in itertools.permutations(range(ref.shape[1]))],
                         dim=1)
    return scores.max(1).values


def pit_loss(est, ref):
    return -pit_si_snr(est, ref).mean()


def collate(items):
    return {"mix": torch.stack([it["mix"] for it in items]), "src": torch.stack([it["src"] for it in items])}


# ---------------------------------------------------------------------------------------------------------------------
@torch.no_grad()
def evaluate(model, vl, rank, world):
    raw = model.module if hasattr(model, "module") else model
    raw.eval()
    acc = torch.zeros(3, dtype=torch.float64)  # SI-SNR sum, SI-SNR of the mixture sum, clips
    for batch in vl:
        est = raw(batch["mix"])
        s = pit_si_snr(est, batch["src"])
        base = si_snr(batch["mix"][:, None].expand_as(batch["src"]), batch["src"]).mean(-1)
        acc += torch.tensor([s.sum().item(), base.sum().item(), len(s)], dtype=torch.float64)
    if world > 1:
        dist.all_reduce(acc)
    n = acc[2].clamp(min=1)
    return {"si_snr": (acc[0] / n).item(), "si_snri": ((acc[0] - acc[1]) / n).item()}


def level_stats(args, ds, rank, world):
    """Mean mixture RMS over the training data, computed once by rank 0 and cached under cache/ for the others."""
    os.makedirs("cache", exist_ok=True)
    key = hashlib.sha1("|".join(f"{fn}:{os.path.getsize(fn)}" for fn in ds.files).encode()).hexdigest()[:10]
    path = os.path.join("cache", f"level-stats-{key}.json")
    if rank == 0:
        rms = float(np.mean([np.sqrt((np.asarray(m, np.float64) ** 2).mean()) for m in ds.mix]))
        with open(path + ".tmp", "w") as f:
            json.dump({"rms": rms, "clips": len(ds)}, f)
        os.replace(path + ".tmp", path)
        print(f"[rank 0] wrote {path} (mean rms {rms:.4f})", flush=True)
    else:
        print(f"[rank {rank}] waiting for rank 0's level statistics ({path})", flush=True)
        while not os.path.exists(path):
            time.sleep(0.5)
    with open(path) as f:
        return json.load(f)["rms"]


def train_loop(rank, world, args):
    torch.manual_seed(args.seed)
    ddp = world > 1
    model = ConvTasNet(args)
    if rank == 0:
        print(f"ConvTasNet: {sum(p.numel() for p in model.parameters()) / 1e3:.1f}k parameters, N={args.filters} "
              f"L={args.kernel} B={args.bottleneck} H={args.hidden} X={args.blocks} R={args.repeats}, "
              f"{args.seconds} s clips at {SR} Hz", flush=True)
    if ddp:
        model = nn.parallel.DistributedDataParallel(model)
    raw = model.module if ddp else model
    if args.index:
        with open(os.path.join(args.data, "index.pkl"), "rb") as f:
            index = pickle.load(f)
        print(f"[rank {rank}] index: {len(index['files'])} shards, {int(index['clips'].sum())} clips", flush=True)
    mixlib = MixLib(args.mix_lib) if args.mix_lib else None
    train = Mixtures(args, "train", rank, world, mixlib)
    val = Mixtures(args, "val", rank, world, mixlib)
    gain = 1.0
    if args.input_norm == "dataset":
        gain = 0.1 / level_stats(args, train, rank, world)
    print(f"[rank {rank}] {len(train)} train / {len(val)} val clips ({len(train.files)} shards), input gain "
          f"{gain:.3f}", flush=True)
    train_ds = train
    if args.dynamic_mix:
        print(f"[rank {rank}] dynamic mixing: pre-mixing {args.dynamic_mix} re-pairings of {len(train)} clips",
              flush=True)
        train_ds = Bank(dynamic_mix(train, args.dynamic_mix))
        print(f"[rank {rank}] {len(train_ds)} pre-mixed clips", flush=True)
    tl = torch.utils.data.DataLoader(train_ds, batch_size=args.batch, shuffle=True, drop_last=True, collate_fn=collate,
                                     num_workers=args.workers)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, collate_fn=collate)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr) if args.optim == "adam" else \
        torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    if rank == 0:
        print(f"{len(tl)} steps/epoch, global batch {args.batch * world}, lr {args.lr}, clip {args.clip}", flush=True)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    steps, step, best = args.epochs * len(tl), 0, -math.inf
    res = {}
    for epoch in range(args.epochs):
        if args.reload_shards and epoch > 0:  # the data pipeline may have refreshed the shards between epochs
            train.reload()
        model.train()
        t0 = time.time()
        for batch in tl:
            with torch.autograd.detect_anomaly() if args.detect_anomaly else contextlib.nullcontext():
                est = model(batch["mix"] * gain)
                loss = pit_loss(est, batch["src"] * gain)
                opt.zero_grad()
                loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip if args.clip > 0 else math.inf)
            opt.step()
            step += 1
            if step % args.log_every == 0 and rank == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} (si-snr {-loss.item():.2f} dB) "
                      f"grad_norm {gn.item():.3f}", flush=True)
        res = evaluate(model, vl, rank, world)
        res["epoch"] = epoch
        if rank == 0:
            print(f"epoch {epoch} val si-snr {res['si_snr']:.2f} dB si-snri {res['si_snri']:.2f} dB "
                  f"({time.time() - t0:.1f} s)", flush=True)
            state = {"model": raw.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val": res}
            torch.save(state, os.path.join(args.ckpt_dir, "last.pt"))
            improved = torch.tensor([float(res["si_snri"] > best)])
            if ddp and args.sync_best:  # every rank must agree that this epoch became the best one
                dist.all_reduce(improved, op=dist.ReduceOp.MIN)
            if improved.item():
                best = res["si_snri"]
                torch.save(state, os.path.join(args.ckpt_dir, "best.pt"))
                print(f"saved best.pt (val si-snri {best:.2f} dB)", flush=True)
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


def load_config(args):
    """Options from a YAML recipe (keys as on the command line, with underscores) override the defaults."""
    import yaml

    with open(args.config) as f:
        cfg = yaml.safe_load(f) or {}
    print(f"config {args.config}: {cfg}", flush=True)
    for k, v in cfg.items():
        setattr(args, k, v)


def main_lightning(args):
    import lightning as L
    from lightning.pytorch.callbacks import EarlyStopping, ModelCheckpoint
    from lightning.pytorch.strategies import DDPStrategy

    if args.config:
        load_config(args)

    class LitSep(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = ConvTasNet(args)

        def training_step(self, batch, _):
            loss = pit_loss(self.model(batch["mix"]), batch["src"])
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, _):
            s = pit_si_snr(self.model(batch["mix"]), batch["src"])
            base = si_snr(batch["mix"][:, None].expand_as(batch["src"]), batch["src"]).mean(-1)
            self.log("val_si_snri", (s - base).mean(), sync_dist=True, prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=args.lr)

    train, val = Mixtures(args, "train"), Mixtures(args, "val")
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                     drop_last=True, collate_fn=collate, persistent_workers=args.workers > 0)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, num_workers=0, collate_fn=collate)
    callbacks = [ModelCheckpoint(dirpath=os.path.join(args.ckpt_dir, "checkpoints"), filename="tasnet-{epoch:02d}",
                                 monitor="val_si_snri", mode="max", save_last=True)]
    if args.patience:
        callbacks.append(EarlyStopping(monitor="val_si_snri", mode="max", patience=args.patience,
                                       min_delta=args.min_delta, verbose=True))
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs,
                        strategy=DDPStrategy(process_group_backend="gloo", timeout=timedelta(seconds=args.pg_timeout)),
                        max_epochs=args.epochs, log_every_n_steps=args.log_every, default_root_dir=args.ckpt_dir,
                        callbacks=callbacks, enable_progress_bar=False, gradient_clip_val=args.clip or None)
    trainer.fit(LitSep(), tl, vl)
    if trainer.global_rank == 0:
        print(f"fit finished: {trainer.callback_metrics}", flush=True)


class HFConvTasNet(ConvTasNet):
    def forward(self, mix, src=None, **_):
        est = super().forward(mix)
        out = {"est": est}
        if src is not None:
            out["loss"] = pit_loss(est, src)
        return out


def main_hf(args):
    import transformers
    from transformers import Trainer, TrainingArguments

    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    if rank == 0:
        print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)
    targs = TrainingArguments(output_dir=args.ckpt_dir, per_device_train_batch_size=args.batch,
                              per_device_eval_batch_size=args.batch, num_train_epochs=args.epochs, learning_rate=args.lr,
                              logging_steps=args.log_every, save_strategy="epoch", eval_strategy="epoch",
                              save_total_limit=args.save_total_limit, load_best_model_at_end=args.load_best,
                              metric_for_best_model="eval_loss", report_to=[], use_cpu=True, ddp_backend="gloo",
                              remove_unused_columns=False, dataloader_num_workers=args.workers, disable_tqdm=True,
                              dataloader_drop_last=True, max_grad_norm=args.clip or 1.0, label_names=["src"])
    model = HFConvTasNet(args)
    trainer = Trainer(model=model, args=targs, train_dataset=Mixtures(args, "train", rank, world),
                      eval_dataset=Mixtures(args, "val"), data_collator=collate)
    trainer.train()
    if trainer.is_world_process_zero():
        print("training finished", flush=True)


def trial_fn(config, args):
    from ray import tune

    a = argparse.Namespace(**vars(args))
    a.lr, a.hidden = config["lr"], config["hidden"]
    torch.set_num_threads(1)
    model = ConvTasNet(a)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    tl = torch.utils.data.DataLoader(Mixtures(a, "train"), batch_size=a.batch, shuffle=True, drop_last=True,
                                     collate_fn=collate)
    vl = torch.utils.data.DataLoader(Mixtures(a, "val"), batch_size=a.batch, collate_fn=collate)
    for epoch in range(a.epochs):
        model.train()
        for i, batch in enumerate(tl):
            loss = pit_loss(model(batch["mix"]), batch["src"])
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i % a.log_every == 0:
                print(f"epoch {epoch} batch {i} loss {loss.item():.4f}", flush=True)
        res = evaluate(model, vl, 0, 1)
        tune.report({"si_snri": res["si_snri"], "epoch": epoch})


def main_tune(args):
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    space = {"lr": tune.loguniform(3e-4, 3e-3), "hidden": tune.choice([48, 64])}
    tuner = tune.Tuner(tune.with_resources(tune.with_parameters(trial_fn, args=args), {"cpu": 1}), param_space=space,
                       tune_config=tune.TuneConfig(metric="si_snri", mode="max", num_samples=args.trials,
                                                   scheduler=ASHAScheduler(max_t=args.epochs, grace_period=1)),
                       run_config=tune.RunConfig(name="tasnet_sweep", storage_path=os.path.abspath(args.storage),
                                                 verbose=1))
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial: {best.config} si_snri {best.metrics['si_snri']:.2f}", flush=True)


def main_raytrain(args):
    import ray

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    import tempfile

    import ray.train
    from ray.train.torch import TorchTrainer, prepare_model

    def loop(config):
        torch.set_num_threads(1)
        ctx = ray.train.get_context()
        rank, world = ctx.get_world_rank(), ctx.get_world_size()
        model = prepare_model(ConvTasNet(args))
        opt = torch.optim.Adam(model.parameters(), lr=args.lr)
        train, val = Mixtures(args, "train", rank, world), Mixtures(args, "val", rank, world)
        print(f"[rank {rank}] {len(train)} train / {len(val)} val clips", flush=True)
        tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, drop_last=True,
                                         collate_fn=collate)
        vl = torch.utils.data.DataLoader(val, batch_size=1 if val.mix is not None and isinstance(val.mix, list)
                                         else args.batch, collate_fn=collate)
        for epoch in range(args.epochs):
            model.train()
            for i, batch in enumerate(tl):
                loss = pit_loss(model(batch["mix"]), batch["src"])
                opt.zero_grad()
                loss.backward()
                opt.step()
                if i % args.log_every == 0 and rank == 0:
                    print(f"epoch {epoch} batch {i} loss {loss.item():.4f}", flush=True)
            res = evaluate(model, vl, rank, world)
            metrics = {"loss": loss.item(), "val_si_snri": res["si_snri"], "epoch": epoch}
            if args.ray_checkpoints and rank == 0:
                with tempfile.TemporaryDirectory() as d:
                    torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch},
                               os.path.join(d, "checkpoint.pt"))
                    ray.train.report(metrics, checkpoint=ray.train.Checkpoint.from_directory(d))
            else:
                ray.train.report(metrics)

    trainer = TorchTrainer(loop, scaling_config=ray.train.ScalingConfig(
        num_workers=args.nprocs, resources_per_worker={"CPU": 1}),
        run_config=ray.train.RunConfig(name="tasnet_train", storage_path=os.path.abspath(args.storage)))
    result = trainer.fit()
    print(f"result: {result.metrics}", flush=True)


def vad_trim(x, db):
    """Drop leading/trailing 10 ms frames quieter than db (dBFS)."""
    f = 80
    n = len(x) // f
    e = 10 * np.log10((x[:n * f].reshape(n, f) ** 2).mean(1) + 1e-12)
    on = np.nonzero(e > db)[0]
    if len(on) == 0:
        return 0, 0
    return on[0] * f, (on[-1] + 1) * f


def main_make(args):
    os.makedirs(args.out, exist_ok=True)
    n = int(args.seconds * SR)
    files, counts = [], []
    for k in range(args.first_shard, args.first_shard + args.shards):
        fn = os.path.join(args.out, f"{args.split}-{k:02d}.npz")
        seeds = [5_000_000 + k * 100_000 + i + (0 if args.split == "train" else 50_000) for i in range(args.per_shard)]
        mixes, srcs = zip(*(make_mixture(s, n) for s in seeds))
        mix, src = np.stack(mixes), np.stack(srcs)
        if args.gain_db_range:  # recordings at different levels
            lo, hi = args.gain_db_range
            g = 10 ** (np.random.default_rng(k).uniform(lo, hi, len(mix)) / 20)
            mix, src = mix * g[:, None], src * g[:, None, None]
        dtype = np.float16 if args.half else np.float32
        if args.vad_db is not None:  # trimmed to the active region: variable lengths, stored back to back
            spans = [vad_trim(m, args.vad_db) for m in mix]
            mix_l = [m[a:b] for m, (a, b) in zip(mix, spans)]
            src_l = [s[:, a:b] for s, (a, b) in zip(src, spans)]
            lengths = np.array([len(m) for m in mix_l])
            np.savez(fn, mix=np.concatenate(mix_l).astype(dtype), src=np.concatenate(src_l, axis=1).astype(dtype),
                     lengths=lengths)
            print(f"wrote {fn} ({len(mix_l)} clips trimmed at {args.vad_db} dBFS, {lengths.min()}-{lengths.max()} "
                  "samples)")
        else:
            np.savez(fn, mix=mix.astype(dtype), src=src.astype(dtype))
            print(f"wrote {fn} ({len(mix)} clips of {n} samples, {np.dtype(dtype).name})")
        files.append(os.path.basename(fn))
        counts.append(len(mix))
    if args.index:
        path = os.path.join(args.out, "index.pkl")
        index = {"files": files, "clips": np.array(counts), "sr": SR, "seconds": args.seconds}
        with open(path, "wb") as f:
            pickle.dump(index, f)
        print(f"wrote {path}")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "spawn", "ddp", "lightning", "hf", "tune", "raytrain"])
    ap.add_argument("--config", default="")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--train-size", type=int, default=512)
    ap.add_argument("--val-size", type=int, default=64)
    ap.add_argument("--seconds", type=float, default=0.5)
    ap.add_argument("--data", default="")
    ap.add_argument("--index", action="store_true")
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--clip", type=float, default=5.0)
    ap.add_argument("--optim", choices=["adam", "sgd"], default="adam")
    ap.add_argument("--filters", type=int, default=64)
    ap.add_argument("--kernel", type=int, default=16)
    ap.add_argument("--bottleneck", type=int, default=32)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--blocks", type=int, default=4)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--reverb", type=float, default=0.0)
    ap.add_argument("--mask-act", choices=["sigmoid", "relu"], default="sigmoid")
    ap.add_argument("--input-norm", choices=["none", "dataset"], default="none")
    ap.add_argument("--dynamic-mix", type=int, default=0)
    ap.add_argument("--render-cache", default="")
    ap.add_argument("--reload-shards", action="store_true")
    ap.add_argument("--mix-lib", default="")
    ap.add_argument("--sync-best", action="store_true")
    ap.add_argument("--detect-anomaly", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--patience", type=int, default=0)
    ap.add_argument("--min-delta", type=float, default=0.0)
    ap.add_argument("--save-total-limit", type=int, default=None)
    ap.add_argument("--load-best", action="store_true")
    ap.add_argument("--storage", default="ray_results")
    ap.add_argument("--ray-checkpoints", action="store_true")
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    # make
    ap.add_argument("--out", default="data")
    ap.add_argument("--split", default="train")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--first-shard", type=int, default=0)
    ap.add_argument("--per-shard", type=int, default=256)
    ap.add_argument("--half", action="store_true")
    ap.add_argument("--vad-db", type=float, default=None)
    ap.add_argument("--gain-db-range", type=float, nargs=2, default=None)
    return ap.parse_args()


if __name__ == "__main__":
    a = parse()
    torch.set_num_threads(1)
    if a.mode != "make":
        print(f"args: {' '.join(sys.argv[1:])}", flush=True)
    {"make": main_make, "spawn": main_spawn, "ddp": main_ddp, "lightning": main_lightning, "hf": main_hf,
     "tune": main_tune, "raytrain": main_raytrain}[a.mode](a)
