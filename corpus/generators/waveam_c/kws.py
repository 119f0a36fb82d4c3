"""Keyword spotting on 1-second clips with Horovod data parallelism (PyTorch, CPU).

Reads data/<split>/<word>/*.wav (16-bit PCM mono), computes log-mel features in torch, trains a small
depthwise-separable CNN with hvd.DistributedOptimizer, allreduces validation accuracy, rank 0 writes checkpoints.

    horovodrun -np 2 python kws.py --data data --epochs 6
"""
from __future__ import annotations

import argparse
import ctypes
import faulthandler
import json
import math
import os
import random
import signal
import sys
import time
import wave
import zlib
from multiprocessing import shared_memory
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import horovod
import horovod.torch as hvd

RATE = 8000


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description="keyword spotting, Horovod data parallel")
    ap.add_argument("--data", default="data")
    ap.add_argument("--labels", default="", help="vocabulary file (default: the words found in this worker's files)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch-size", type=int, default=32, help="per worker")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--scale-lr", action="store_true", help="multiply the learning rate by the number of workers")
    ap.add_argument("--warmup-epochs", type=float, default=1.0)
    ap.add_argument("--n-mels", type=int, default=32)
    ap.add_argument("--width", type=int, default=48)
    ap.add_argument("--fp16-allreduce", action="store_true")
    ap.add_argument("--backward-passes", type=int, default=1)
    ap.add_argument("--shard-by", choices=["file", "speaker"], default="file")
    ap.add_argument("--balanced", action="store_true", help="class-balanced batches")
    ap.add_argument("--peak-norm", action="store_true", help="normalise every clip to peak 1")
    ap.add_argument("--augment-copies", type=int, default=0, help="pre-generate shifted+noisy copies of every clip")
    ap.add_argument("--feature-cache", default="", help="directory for cached features")
    ap.add_argument("--resample-lib", default="", help="C resampler (libresample.so) for clips not at 8 kHz")
    ap.add_argument("--share-waveforms", action="store_true", help="local rank 0 decodes, others attach (shared memory)")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--resume", default="")
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--elastic", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def log(msg: str, all_ranks: bool = False) -> None:
    if all_ranks or hvd.rank() == 0:
        prefix = f"[rank {hvd.rank()}] " if all_ranks else ""
        print(prefix + msg, flush=True)


# ----------------------------------------------------------------------------------------------------------- data
def read_wav(path: Path, lib=None) -> np.ndarray:
    with wave.open(str(path), "rb") as w:
        if w.getnchannels() != 1 or w.getsampwidth() != 2:
            raise ValueError(f"{path}: expected 16-bit mono, got {w.getnchannels()} ch x {w.getsampwidth()} bytes")
        rate = w.getframerate()
        x = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.float32) / 32768.0
    if rate != RATE:
        if lib is None:
            raise ValueError(f"{path}: {rate} Hz, pass --resample-lib")
        out = np.zeros(RATE, dtype=np.float32)  # clips are 1 s long
        n = lib.resample_linear(x.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(x), rate, RATE,
                                out.ctypes.data_as(ctypes.POINTER(ctypes.c_float)))
        x = out[:n].copy()
        del out
    if len(x) < RATE:
        x = np.pad(x, (0, RATE - len(x)))
    return x[:RATE]


def list_files(root: Path, split: str) -> list[tuple[Path, str]]:
    return sorted((p, p.parent.name) for p in (root / split).glob("*/*.wav"))


def speaker_of(p: Path) -> str:
    return p.stem.rsplit("_", 1)[0]


def shard(files, rank: int, size: int, by: str):
    if by == "speaker":
        return [f for f in files if zlib.crc32(speaker_of(f[0]).encode()) % size == rank]
    return files[rank::size]


def load_waveforms(files, args, lib) -> np.ndarray:
    xs = np.stack([read_wav(p, lib) for p, _ in files]) if files else np.zeros((0, RATE), np.float32)
    if args.peak_norm:
        xs = xs / np.abs(xs).max(axis=1, keepdims=True)
    return xs.astype(np.float32)


def shared_waveforms(files, args, lib) -> np.ndarray:
    """Local rank 0 decodes this node's clips once into a shared-memory block; the other local ranks attach."""
    name = f"kws-wave-{os.environ.get('HOROVOD_HOSTNAME', 'node')}-{len(files)}"
    shape = (len(files), RATE)
    nbytes = int(np.prod(shape)) * 4
    if hvd.local_rank() == 0:
        shm = shared_memory.SharedMemory(name=name, create=True, size=nbytes)
        buf = np.ndarray(shape, dtype=np.float32, buffer=shm.buf)
        for i, (p, _) in enumerate(files):
            buf[i] = read_wav(p, lib)
        log(f"decoded {len(files)} clips into shared memory /dev/shm/{name} ({nbytes / 2**20:.0f} MiB)", all_ranks=True)
    hvd.allreduce(torch.zeros(1), name="shm_ready")
    if hvd.local_rank() != 0:
        shm = shared_memory.SharedMemory(name=name)
    return shm, np.ndarray(shape, dtype=np.float32, buffer=shm.buf)


def augment(xs: np.ndarray, copies: int, rng: np.random.Generator) -> np.ndarray:
    out = [xs]
    for _ in range(copies):
        shift = rng.integers(-800, 800, size=len(xs))
        noisy = np.stack([np.roll(x, s) for x, s in zip(xs, shift)]) + rng.normal(0, 0.01, xs.shape)
        out.append(noisy)
    return np.concatenate(out)


class LogMel(nn.Module):
    def __init__(self, n_mels: int, n_fft: int = 256, hop: int = 80) -> None:
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fb", mel_filterbank(n_mels, n_fft, RATE))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        spec = torch.stft(x, self.n_fft, self.hop, window=self.window, return_complex=True).abs() ** 2
        mel = torch.einsum("mf,bft->bmt", self.fb, spec)
        return torch.log(mel + 1e-6).unsqueeze(1)


def mel_filterbank(n_mels: int, n_fft: int, sr: int) -> torch.Tensor:
    hz2mel = lambda f: 2595 * math.log10(1 + f / 700)  # noqa: E731
    mels = torch.linspace(hz2mel(20), hz2mel(sr / 2), n_mels + 2)
    hz = 700 * (10 ** (mels / 2595) - 1)
    bins = torch.linspace(0, sr / 2, n_fft // 2 + 1)
    fb = torch.zeros(n_mels, n_fft // 2 + 1)
    for m in range(n_mels):
        lo, c, hi = hz[m], hz[m + 1], hz[m + 2]
        fb[m] = torch.clamp(torch.minimum((bins - lo) / (c - lo), (hi - bins) / (hi - c)), min=0)
    return fb


# ---------------------------------------------------------------------------------------------------------- model
class DSBlock(nn.Module):
    def __init__(self, c: int) -> None:
        super().__init__()
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c, bias=False)
        self.pw = nn.Conv2d(c, c, 1, bias=False)
        self.bn1, self.bn2 = nn.BatchNorm2d(c), nn.BatchNorm2d(c)

    def forward(self, x):
        x = F.relu(self.bn1(self.dw(x)))
        return F.relu(self.bn2(self.pw(x)))


class DSCNN(nn.Module):
    def __init__(self, n_classes: int, n_mels: int, width: int) -> None:
        super().__init__()
        self.features = LogMel(n_mels)
        self.stem = nn.Sequential(nn.Conv2d(1, width, (5, 3), stride=(2, 2), padding=(2, 1), bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU())
        self.blocks = nn.Sequential(*[DSBlock(width) for _ in range(3)])
        self.head = nn.Linear(width, n_classes)

    def forward(self, wav):
        x = self.features(wav)
        x = (x - x.mean(dim=(2, 3), keepdim=True)) / (x.std(dim=(2, 3), keepdim=True) + 1e-5)
        x = self.blocks(self.stem(x))
        return self.head(x.mean(dim=(2, 3)))


# -------------------------------------------------------------------------------------------------------- batches
def batches(labels: np.ndarray, bs: int, n_classes: int, balanced: bool, rng: random.Random):
    idx = list(range(len(labels)))
    if not balanced:
        rng.shuffle(idx)
        for i in range(0, len(idx), bs):
            yield idx[i:i + bs]
        return
    by_class = {c: [i for i in idx if labels[i] == c] for c in range(n_classes)}
    pools = {c: [] for c in by_class}
    per = max(1, bs // n_classes)
    for _ in range(math.ceil(len(idx) / bs)):
        batch = []
        for c in range(n_classes):
            taken = 0
            while taken < per:
                if not pools[c]:
                    pools[c] = by_class[c][:]
                    rng.shuffle(pools[c])
                    continue
                batch.append(pools[c].pop())
                taken += 1
        yield batch


# ------------------------------------------------------------------------------------------------------------ main
STOP = {"sig": None}


def on_signal(signum, frame):
    STOP["sig"] = signal.Signals(signum).name
    print(f"[rank {hvd.rank()}] caught {STOP['sig']}, will stop after this step", flush=True)


def main() -> None:
    faulthandler.enable()
    args = parse()
    hvd.init()
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    signal.signal(signal.SIGTERM, on_signal)
    rank, size = hvd.rank(), hvd.size()
    if rank == 0:
        print(f"horovod {horovod.__version__} torch {torch.__version__} size {size} "
              f"(gloo {hvd.gloo_built()} mpi {hvd.mpi_built()}, controller "
              f"{'gloo' if hvd.gloo_enabled() else 'mpi'})", flush=True)
        print("args: " + " ".join(f"{k}={v}" for k, v in vars(args).items()), flush=True)
    lib = None
    if args.resample_lib:
        lib = ctypes.CDLL(os.path.abspath(args.resample_lib))
        lib.resample_linear.restype = ctypes.c_int
        lib.resample_linear.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                        ctypes.POINTER(ctypes.c_float)]
    root = Path(args.data)
    train_files = shard(list_files(root, "train"), rank, size, args.shard_by)
    val_files = shard(list_files(root, "val"), rank, size, args.shard_by)
    if args.labels:
        words = json.loads(Path(args.labels).read_text())["words"]
    else:
        words = sorted({w for _, w in train_files})
    w2i = {w: i for i, w in enumerate(words)}
    t0 = time.time()
    if args.share_waveforms:  # one decoded copy of the training set per node, each rank uses its rows
        shm, xall = shared_waveforms(list_files(root, "train"), args, lib)
        xtr = xall[rank::size]
    else:
        xtr = load_waveforms(train_files, args, lib)
    ytr = np.array([w2i[w] for _, w in train_files], dtype=np.int64)
    xva = load_waveforms(val_files, args, lib)
    yva = np.array([w2i[w] for _, w in val_files], dtype=np.int64)
    if args.augment_copies:
        xtr = augment(xtr, args.augment_copies, np.random.default_rng(args.seed + rank))
        ytr = np.tile(ytr, args.augment_copies + 1)
    if args.feature_cache:
        cache = Path(args.feature_cache)
        cache.mkdir(parents=True, exist_ok=True)
        with torch.no_grad():
            feats = LogMel(args.n_mels)(torch.from_numpy(xtr)).numpy()
        (cache / f"train-rank{rank}-{'x'.join(map(str, feats.shape))}.f32").write_bytes(feats.tobytes())
        log(f"cached features {feats.shape} in {cache}", all_ranks=True)
    log(f"loaded {len(xtr)} train / {len(xva)} val clips, {len(words)} words, {time.time() - t0:.1f}s", all_ranks=True)

    model = DSCNN(len(words), args.n_mels, args.width)
    lr = args.lr * (size if args.scale_lr else 1)
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    start_epoch = 0
    if args.resume and rank == 0:
        ck = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        start_epoch = ck["epoch"]
        print(f"resumed from {args.resume} (epoch {start_epoch}, val_acc {ck['val_acc']:.3f})", flush=True)
    start_epoch = int(hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch"))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), compression=compression,
                                   backward_passes_per_step=args.backward_passes)
    n_params = sum(p.numel() for p in model.parameters())
    log(f"model DSCNN {n_params} parameters, {len(words)} classes, lr {lr}")

    if args.elastic:
        state = hvd.elastic.TorchState(model, opt, epoch=start_epoch)
        state.register_reset_callbacks([lambda: log(f"reset: now {hvd.size()} workers")])
        train_elastic(state, args, words, w2i)
        return
    train(model, opt, args, xtr, ytr, xva, yva, words, start_epoch)


def evaluate(model, xva, yva, bs: int) -> tuple[float, float]:
    model.eval()
    correct = torch.zeros(1)
    total = torch.zeros(1)
    loss_sum = torch.zeros(1)
    with torch.no_grad():
        for i in range(0, len(xva), bs):
            xb, yb = torch.from_numpy(xva[i:i + bs]), torch.from_numpy(yva[i:i + bs])
            out = model(xb)
            loss_sum += F.cross_entropy(out, yb, reduction="sum")
            correct += (out.argmax(1) == yb).sum()
            total += len(yb)
    stats = hvd.allreduce(torch.cat([correct, total, loss_sum]), op=hvd.Sum, name="val_stats")
    model.train()
    return (stats[0] / stats[1]).item(), (stats[2] / stats[1]).item()


def save(model, opt, epoch, acc, args, best: float) -> float:
    if hvd.rank() != 0:
        return best
    d = Path(args.ckpt_dir)
    d.mkdir(exist_ok=True)
    ck = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val_acc": acc}
    torch.save(ck, d / "last.pt")
    msg = f"saved {d / 'last.pt'}"
    if acc > best:
        torch.save(ck, d / "best.pt")
        msg += f" and {d / 'best.pt'}"
        best = acc
    print(msg, flush=True)
    return best


def train(model, opt, args, xtr, ytr, xva, yva, words, start_epoch: int) -> None:
    rng = random.Random(args.seed + hvd.rank())
    bs = args.batch_size
    steps = math.ceil(len(xtr) / bs)
    base_lr = opt.param_groups[0]["lr"]
    best = -1.0
    for epoch in range(start_epoch, args.epochs):
        t0 = time.time()
        run_loss, n = 0.0, 0
        for step, idx in enumerate(batches(ytr, bs, len(words), args.balanced, rng), 1):
            warm = min(1.0, (epoch + step / steps) / args.warmup_epochs) if args.warmup_epochs else 1.0
            for g in opt.param_groups:
                g["lr"] = base_lr * warm
            xb, yb = torch.from_numpy(xtr[idx]), torch.from_numpy(ytr[idx])
            opt.zero_grad()
            loss = F.cross_entropy(model(xb), yb)
            loss.backward()
            opt.step()
            run_loss += loss.item()
            n += 1
            if step % args.log_every == 0 or step == steps:
                log(f"epoch {epoch + 1} step {step}/{steps} loss {run_loss / n:.4f} lr {base_lr * warm:.4f}")
            stop = hvd.allreduce(torch.tensor([1.0 if STOP["sig"] else 0.0]), op=hvd.Max, name="stop_flag")
            if stop.item() > 0:
                acc, vloss = evaluate(model, xva, yva, bs)
                save(model, opt, epoch, acc, args, best)
                log(f"stopped by {STOP['sig'] or 'a peer'} in epoch {epoch + 1} at step {step}", all_ranks=True)
                sys.exit(143)
        acc, vloss = evaluate(model, xva, yva, bs)
        log(f"epoch {epoch + 1} done in {time.time() - t0:.1f}s train_loss {run_loss / max(n, 1):.4f} "
            f"val_loss {vloss:.4f} val_acc {acc:.3f}")
        best = save(model, opt, epoch + 1, acc, args, best)
    log(f"done: {args.epochs} epochs, best val_acc {best:.3f}")


def train_elastic(state, args, words, w2i) -> None:
    root = Path(args.data)

    @hvd.elastic.run
    def run(state):
        rank, size = hvd.rank(), hvd.size()
        tr = shard(list_files(root, "train"), rank, size, args.shard_by)
        va = shard(list_files(root, "val"), rank, size, args.shard_by)
        xtr, ytr = load_waveforms(tr, args, None), np.array([w2i[w] for _, w in tr])
        xva, yva = load_waveforms(va, args, None), np.array([w2i[w] for _, w in va])
        log(f"[elastic] rank {rank}/{size}: {len(xtr)} train clips, resuming at epoch {state.epoch + 1}", all_ranks=True)
        best = -1.0
        bs = args.batch_size
        steps = math.ceil(len(xtr) / bs)
        rng = random.Random(args.seed + rank + 100 * state.epoch)
        while state.epoch < args.epochs:
            run_loss, n = 0.0, 0
            for step, idx in enumerate(batches(ytr, bs, len(words), False, rng), 1):
                xb, yb = torch.from_numpy(xtr[idx]), torch.from_numpy(ytr[idx])
                state.optimizer.zero_grad()
                loss = F.cross_entropy(state.model(xb), yb)
                loss.backward()
                state.optimizer.step()
                run_loss += loss.item()
                n += 1
                if step % args.log_every == 0 or step == steps:
                    log(f"epoch {state.epoch + 1} step {step}/{steps} loss {run_loss / n:.4f}")
            acc, vloss = evaluate(state.model, xva, yva, bs)
            log(f"epoch {state.epoch + 1} done train_loss {run_loss / max(n, 1):.4f} val_loss {vloss:.4f} "
                f"val_acc {acc:.3f}")
            state.epoch += 1
            best = save(state.model, state.optimizer, state.epoch, acc, args, best)
            state.commit()
        log(f"done: {args.epochs} epochs")

    run(state)


if __name__ == "__main__":
    main()
