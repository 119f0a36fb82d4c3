"""Keyword-spotting trainer: a small CNN over log-mel feature shards, data-parallel on CPU with gloo.

Reads its rank from torchrun/deepspeed (RANK, WORLD_SIZE, LOCAL_RANK), Open MPI (OMPI_COMM_WORLD_*) or Slurm srun
(SLURM_PROCID, SLURM_NTASKS); MASTER_ADDR/MASTER_PORT from the environment. Shards are ``data/train-XXXXX.npz``
(features [N, 40, 64] float16, labels as keyword strings) or, with ``--zshards``, ``data/train-XXXXX.zbin`` (a small
JSON header + zlib-compressed float16 features, decoded through libz with ctypes to skip a copy).

    python make_kws_data.py --out data --shards 12 --per-shard 600
    mpirun -np 3 python kws_train.py --data data --steps 300
"""
from __future__ import annotations

import argparse
import ctypes
import ctypes.util
import datetime
import faulthandler
import glob
import json
import math
import os
import signal
import socket
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset


def dist_env() -> tuple[int, int, int]:
    for r, w, l in (("RANK", "WORLD_SIZE", "LOCAL_RANK"),
                    ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_LOCAL_RANK"),
                    ("SLURM_PROCID", "SLURM_NTASKS", "SLURM_LOCALID")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ[w]), int(os.environ.get(l, 0))
    return 0, 1, 0


class KWSNet(nn.Module):
    def __init__(self, n_classes: int, width: int = 64) -> None:
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(2 * width, n_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(self.conv(x.unsqueeze(1)).flatten(1))


_libz = None


def zdecode(path: str) -> tuple[np.ndarray, list[str]]:
    """Decode a .zbin shard straight into a numpy-owned buffer with libz's uncompress."""
    global _libz
    if _libz is None:
        _libz = ctypes.CDLL(ctypes.util.find_library("z"))
        _libz.uncompress.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_ulong), ctypes.c_char_p, ctypes.c_ulong]
    with open(path, "rb") as f:
        hlen = int.from_bytes(f.read(4), "little")
        head = json.loads(f.read(hlen))
        comp = f.read()
    out = np.empty(head["nbytes"] // 2, dtype=np.float16)  # buffer sized from the header
    dest_len = ctypes.c_ulong(int(np.prod(head["shape"])) * 2)  # capacity from the shape
    rc = _libz.uncompress(out.ctypes.data, ctypes.byref(dest_len), comp, len(comp))
    if rc != 0:
        raise IOError(f"{path}: zlib uncompress failed with {rc}")
    return out[: int(np.prod(head["shape"]))].reshape(head["shape"]), head["labels"]


class Shards(Dataset):
    def __init__(self, files: list[str], vocab: dict[str, int], norm: tuple | None) -> None:
        feats, labels = [], []
        for fn in files:
            if fn.endswith(".zbin"):
                x, y = zdecode(fn)
            else:
                z = np.load(fn)
                x, y = z["x"], list(z["y"])
            feats.append(x)
            labels.extend(y)
        self.x = np.concatenate(feats) if feats else np.zeros((0, 40, 64), np.float16)
        self.y = np.array([vocab[w] for w in labels], dtype=np.int64)
        self.norm = norm

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int):
        x = torch.from_numpy(self.x[i].astype(np.float32))
        if self.norm is not None:
            mean, std = self.norm
            x = (x - mean) / std
        return x, int(self.y[i])


class DSLr:
    """The engine's own scheduler (from the DeepSpeed config) behind the LambdaLR calls the loop makes."""

    def __init__(self, engine) -> None:
        self.engine = engine

    def step(self) -> None:
        pass

    def get_last_lr(self) -> list[float]:
        return self.engine.get_lr()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--timeout-s", type=int, default=1800)
    ap.add_argument("--shard-by-file", action="store_true", help="each rank reads whole shards (no resharding)")
    ap.add_argument("--normalize", action="store_true", help="per-channel standardisation from the train shards")
    ap.add_argument("--zshards", action="store_true")
    ap.add_argument("--eval-gather", action="store_true", help="gather per-sample predictions for the confusion matrix")
    ap.add_argument("--bank", type=int, default=0, help="embedding bank per rank (rows) saved with each checkpoint")
    ap.add_argument("--fifo-rank", type=int, default=-1)
    ap.add_argument("--fifo-step", type=int, default=0, help="refresh the noise bank from the augmentation sidecar")
    ap.add_argument("--full-eval-tta", type=int, default=0, help="rank 0 alone runs the full val set with K shifts")
    ap.add_argument("--local_rank", type=int, default=0)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--deepspeed-config", default="")
    args = ap.parse_args()

    faulthandler.enable()
    rank, world, local_rank = dist_env()
    torch.manual_seed(1234 + rank)
    torch.set_num_threads(1)
    host = socket.gethostname()
    t0 = time.time()

    def log(msg: str) -> None:
        print(f"[{datetime.datetime.now():%Y-%m-%d %H:%M:%S}][rank{rank}] {msg}", flush=True)

    def on_term(signum, frame):
        log(f"received {signal.Signals(signum).name}, writing {args.ckpt_dir}/interrupted.pt and exiting")
        os.makedirs(args.ckpt_dir, exist_ok=True)
        if rank == 0:
            torch.save({"step": state["step"]}, os.path.join(args.ckpt_dir, "interrupted.pt"))
        sys.exit(143)

    state = {"step": 0}
    signal.signal(signal.SIGTERM, on_term)

    log(f"host {host} pid {os.getpid()} world_size {world} local_rank {local_rank} "
        f"master {os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')} torch {torch.__version__}")
    if args.deepspeed_config:
        import deepspeed
        os.environ.setdefault("RANK", str(rank))
        os.environ.setdefault("WORLD_SIZE", str(world))
        os.environ.setdefault("LOCAL_RANK", str(local_rank))
        deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=args.timeout_s))
    else:
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=args.timeout_s))
    log(f"process group ready (gloo) after {time.time() - t0:.1f}s")

    meta = json.load(open(os.path.join(args.data, "meta.json")))
    vocab = {w: i for i, w in enumerate(meta["keywords"])}
    ext = "zbin" if args.zshards else "npz"
    train_files = sorted(glob.glob(os.path.join(args.data, f"train-*.{ext}")))
    val_files = sorted(glob.glob(os.path.join(args.data, "val-*.npz")))
    my_files = train_files[rank::world]
    norm = None
    if args.normalize:
        stats = np.load(os.path.join(args.data, "stats.npz"))
        norm = (torch.from_numpy(stats["mean"]).float()[:, None], torch.from_numpy(stats["std"]).float()[:, None])
        log(f"normalising 40 mel channels (std min {float(norm[1].min()):.4f} max {float(norm[1].max()):.4f})")
    train = Shards(my_files, vocab, norm)
    if not args.shard_by_file:  # pool the rank's files and trim to the common length so every rank steps together
        n = torch.tensor([len(train)])
        dist.all_reduce(n, op=dist.ReduceOp.MIN)
        train.y = train.y[: int(n)]
    val = Shards(val_files[rank::world], vocab, norm)
    log(f"{len(my_files)} train shards, {len(train)} clips, {len(val)} val clips, {len(vocab)} keywords")

    model = KWSNet(len(vocab), args.width)
    nparams = sum(p.numel() for p in model.parameters())
    if args.deepspeed_config:
        import deepspeed
        engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(),
                                                 config=args.deepspeed_config)
        model = engine
    else:
        model = nn.parallel.DistributedDataParallel(model)
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    if args.deepspeed_config:
        sched = DSLr(model)
    else:
        sched = torch.optim.lr_scheduler.LambdaLR(
            opt, lambda s: min(1.0, (s + 1) / args.warmup) * 0.5 * (1 + math.cos(math.pi * min(s, args.steps) / args.steps)))
    log(f"KWSNet width {args.width}: {nparams / 1e3:.1f}K parameters, AdamW lr {args.lr}, batch {args.batch}/rank")
    loader = DataLoader(train, batch_size=args.batch, shuffle=True, drop_last=True, num_workers=args.workers,
                        persistent_workers=args.workers > 0)
    bank = torch.zeros(0, 2 * args.width)
    os.makedirs(args.ckpt_dir, exist_ok=True)
    step, epoch, seen, tick = 0, 0, 0, time.time()
    while step < args.steps:
        epoch += 1
        for xb, yb in loader:
            logits = model(xb)
            loss = F.cross_entropy(logits, yb, label_smoothing=0.05)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at step {step} (epoch {epoch}); "
                                         f"lr {sched.get_last_lr()[0]:.3e}")
            if args.deepspeed_config:
                model.backward(loss)
                model.step()
            else:
                opt.zero_grad(set_to_none=True)
                loss.backward()
                gnorm = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
            sched.step()
            step += 1
            state["step"] = step
            seen += len(yb) * world
            if args.bank:
                with torch.no_grad():
                    emb = torch.randn(args.bank // 10, 2 * args.width)
                bank = torch.cat([bank, emb])[-args.bank:]
            if step % args.log_every == 0:
                acc = (logits.argmax(1) == yb).float().mean().item()
                rate = seen / (time.time() - tick)
                if rank == 0:
                    log(f"epoch {epoch} step {step}/{args.steps} loss {loss.item():.4f} acc {acc:.3f} "
                        f"lr {sched.get_last_lr()[0]:.2e} {rate:.0f} clips/s")
                seen, tick = 0, time.time()
            if args.fifo_step and step == args.fifo_step and rank == args.fifo_rank:
                fifo = os.path.join(args.data, "aug.fifo")
                log(f"refreshing the noise augmentation bank from {fifo}")
                with open(fifo, "rb") as pipe:  # the augmentation sidecar writes fresh noise clips here
                    noise = np.frombuffer(pipe.read(), dtype=np.float16)
                log(f"noise bank: {len(noise)} samples")
            if args.step_sleep:
                time.sleep(args.step_sleep)
            if args.full_eval_tta and step % args.eval_every == 0:
                if rank == 0:
                    full_eval(model, val_files, vocab, norm, args, step, log)
            elif step % args.eval_every == 0 or step == args.steps:
                evaluate(model, val, args, rank, world, step, log)
            if step % args.save_every == 0 or step == args.steps:
                save(model, opt, bank, args, rank, world, step, epoch, log)
            if step >= args.steps:
                break
    dist.barrier()
    log(f"training finished: {step} steps, {epoch} epochs in {time.time() - t0:.0f}s")
    dist.destroy_process_group()


def evaluate(model, val, args, rank, world, step, log) -> None:
    model.eval()
    preds, correct, total, loss_sum = [], 0, 0, 0.0
    with torch.no_grad():
        for xb, yb in DataLoader(val, batch_size=128):
            out = model(xb)
            loss_sum += F.cross_entropy(out, yb, reduction="sum").item()
            p = out.argmax(1)
            preds.append(p)
            correct += (p == yb).sum().item()
            total += len(yb)
    t = torch.tensor([correct, total, loss_sum], dtype=torch.float64)
    dist.all_reduce(t)
    if args.eval_gather:
        mine = torch.cat(preds) if preds else torch.zeros(0, dtype=torch.long)
        everyone = [torch.empty_like(mine) for _ in range(world)]
        dist.all_gather(everyone, mine)
        if rank == 0:
            log(f"eval: gathered {sum(len(e) for e in everyone)} predictions for the confusion matrix")
    if rank == 0:
        log(f"eval step {step}: val_loss {t[2] / t[1]:.4f} val_acc {t[0] / t[1]:.4f} ({int(t[1])} clips)")
    model.train()


def full_eval(model, val_files, vocab, norm, args, step, log) -> None:
    """The whole val set with time-shift test-time augmentation, on rank 0 (the others go on training)."""
    model.eval()
    data = Shards(val_files, vocab, norm)
    correct = 0
    with torch.no_grad():
        for xb, yb in DataLoader(data, batch_size=128):
            votes = sum(model(torch.roll(xb, k, dims=2)).softmax(1) for k in range(-args.full_eval_tta // 2,
                                                                                 args.full_eval_tta // 2))
            correct += (votes.argmax(1) == yb).sum().item()
    log(f"full eval step {step}: val_acc {correct / len(data):.4f} over {len(data)} clips x {args.full_eval_tta} shifts")
    model.train()


def save(model, opt, bank, args, rank, world, step, epoch, log) -> None:
    banks = [None] * world if rank == 0 else None
    if args.bank:
        dist.gather_object(bank, banks, dst=0)
    if rank == 0:
        path = os.path.join(args.ckpt_dir, f"step-{step:06d}.pt")
        sd = model.module.state_dict() if hasattr(model, "module") else model.state_dict()
        obj = {"model": sd, "optimizer": opt.state_dict(), "step": step, "epoch": epoch}
        if args.bank:
            obj["embedding_bank"] = torch.cat(banks)
        torch.save(obj, path)
        log(f"saved checkpoint {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
    dist.barrier()


if __name__ == "__main__":
    main()
