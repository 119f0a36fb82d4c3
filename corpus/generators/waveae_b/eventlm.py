"""A symbolic-music language model: an LSTM over MIDI-like event tokens (note-on / note-off / time-shift).

Data: synthetic multi-part pieces (a melody over a scale, a bass line, block chords), rendered to an event stream at
10 ms resolution and cut into fixed windows; each rank reads a strided shard of the pieces. Optional octave
transposition augmentation. Training: next-token cross-entropy, AdamW, warmup + cosine, grad clipping; evaluation
each epoch: validation loss / perplexity / note-on accuracy (sums all-reduced), a sampled continuation from rank 0 (or
from every rank with --gather-samples), checkpoints last.pt / best.pt from rank 0.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Lightning Trainer, ddp on CPU),
ray (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import datetime
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

PAD, BOS, EOS = 0, 1, 2
ON, OFF, TS = 3, 131, 259  # note-on 0..127, note-off 0..127, time-shift 1..100 (x10 ms)
VOCAB = TS + 100
NAMES = ["C", "C#", "D", "D#", "E", "F", "F#", "G", "G#", "A", "A#", "B"]
SCALES = {"major": [0, 2, 4, 5, 7, 9, 11], "minor": [0, 2, 3, 5, 7, 8, 10], "dorian": [0, 2, 3, 5, 7, 9, 10]}


def log(msg: str, rank: int | None = None) -> None:
    prefix = f"[rank {rank}] " if rank is not None else ""
    print(f"{time.strftime('%H:%M:%S')} {prefix}{msg}", flush=True)


def pname(p: int) -> str:
    return f"{NAMES[p % 12]}{p // 12 - 1}"


# ------------------------------------------------------------------------------------------------------------ data
def make_piece(rng: np.random.Generator):
    """(start, end, pitch) notes of one short piece: melody, bass, chords."""
    key = int(rng.integers(0, 12))
    scale = SCALES[rng.choice(list(SCALES))]
    beat = int(rng.choice([40, 50, 60]))  # in 10 ms ticks
    bars = int(rng.integers(4, 9))
    notes = []
    deg = int(rng.integers(0, 7))
    t = 0
    for _ in range(bars * 4):
        dur = beat * int(rng.choice([1, 1, 2])) // int(rng.choice([1, 2]))
        deg = int(np.clip(deg + rng.choice([-2, -1, -1, 0, 1, 1, 2]), -3, 12))
        p = 60 + key + 12 * (deg // 7) + scale[deg % 7]
        notes.append((t, t + dur - 2, p))
        t += dur
    end = t
    for b in range(0, end, beat * 4):  # bass: root of the bar's chord, low register
        root = int(rng.choice([0, 3, 4]))
        bp = 28 + key + scale[root]
        notes.append((b, min(b + beat * 2, end), bp))
        notes.append((b + beat * 2, min(b + beat * 4, end), bp + 7))
        for k in (0, 2, 4):  # chord
            notes.append((b, min(b + beat * 4, end) - 4, 48 + key + scale[(root + k) % 7]))
    return notes


def events(notes) -> list[int]:
    ev = []
    for s, e, p in notes:
        ev.append((s, 1, p))
        ev.append((e, 0, p))
    ev.sort()
    out, now = [BOS], 0
    for t, kind, p in ev:
        gap = t - now
        while gap > 0:
            step = min(gap, 100)
            out.append(TS + step - 1)
            gap -= step
        now = t
        out.append((ON if kind else OFF) + p)
    out.append(EOS)
    return out


def transpose(notes, semis: int):
    return [(s, e, p + semis) for s, e, p in notes]


def build(n_pieces: int, seed: int):
    rng = np.random.default_rng(seed)
    return [make_piece(rng) for _ in range(n_pieces)]


def windows(pieces, seq: int, rng=None, octaves: int = 0):
    rows = []
    for notes in pieces:
        if octaves and rng is not None:
            notes = transpose(notes, 12 * int(rng.integers(-octaves, octaves + 1)))
        toks = events(notes)
        for i in range(0, max(1, len(toks) - seq - 1), seq):
            w = toks[i:i + seq + 1]
            if len(w) < seq + 1:
                w = w + [PAD] * (seq + 1 - len(w))
            rows.append(w)
    return torch.tensor(rows, dtype=torch.long)


def shard(args, rank, world, split):
    if split == "val":
        return windows(build(args.val_pieces, 999)[rank::world], args.seq)
    pieces = build(args.pieces, 7)[rank::world]
    return pieces


# ----------------------------------------------------------------------------------------------------------- model
class EventLSTM(nn.Module):
    def __init__(self, args):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, args.emb, padding_idx=PAD)
        self.rnn = nn.LSTM(args.emb, args.hidden, num_layers=args.layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(args.hidden, VOCAB)

    def forward(self, x, state=None):
        h, state = self.rnn(self.emb(x), state)
        return self.head(h), state


def lm_loss(model, batch):
    x, y = batch[:, :-1], batch[:, 1:]
    logits, _ = model(x)
    return F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1), ignore_index=PAD)


@torch.no_grad()
def evaluate(model, val, args, world):
    model.eval()
    tot = torch.zeros(4, dtype=torch.float64)
    for i in range(0, len(val), args.eval_batch):
        b = val[i:i + args.eval_batch]
        x, y = b[:, :-1], b[:, 1:]
        logits, _ = model(x)
        mask = y != PAD
        tot[0] += F.cross_entropy(logits.reshape(-1, VOCAB), y.reshape(-1), ignore_index=PAD, reduction="sum").item()
        tot[1] += mask.sum().item()
        on = (y >= ON) & (y < OFF)
        tot[2] += ((logits.argmax(-1) == y) & on).sum().item()
        tot[3] += on.sum().item()
    if world > 1:
        dist.all_reduce(tot)
    model.train()
    nll = tot[0] / max(tot[1], 1)
    return nll.item(), math.exp(min(nll.item(), 50)), (tot[2] / max(tot[3], 1)).item()


@torch.no_grad()
def sample(m, args, seed):
    g = torch.Generator().manual_seed(seed)
    m.eval()
    x = torch.tensor([[BOS]])
    out, state = [], None
    limit = args.sample_len if args.sample_len > 0 else float("inf")
    while len(out) < limit:
        logits, state = m(x, state)
        if args.temperature <= 0:
            nxt = int(logits[0, -1].argmax())
        else:
            nxt = int(torch.multinomial(F.softmax(logits[0, -1] / args.temperature, -1), 1, generator=g))
        out.append(nxt)
        if nxt == EOS:
            break
        x = torch.tensor([[nxt]])
    m.train()
    return out


def describe(toks) -> str:
    ons = [t - ON for t in toks if ON <= t < OFF]
    dur = sum(t - TS + 1 for t in toks if t >= TS) / 100
    head = " ".join(("ON" + pname(t - ON)) if ON <= t < OFF else ("OFF" + pname(t - OFF)) if OFF <= t < TS
                    else f"TS{t - TS + 1}" if t >= TS else ["PAD", "BOS", "EOS"][t] for t in toks[:8])
    rng = f"{pname(min(ons))}-{pname(max(ons))}" if ons else "-"
    return f"{len(toks)} events, {len(ons)} notes, {dur:.1f} s, pitch range {rng}, ends {'EOS' if toks and toks[-1] == EOS else 'at limit'}: {head} ..."


# ----------------------------------------------------------------------------------------------------------- train
def train(rank: int, world: int, args, init: bool = True) -> None:
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)
    if init and world > 1:
        dist.init_process_group("gloo", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=args.pg_timeout))
    if rank == 0:
        log(f"world size {world}, backend gloo, pg timeout {args.pg_timeout}s")
    pieces = shard(args, rank, world, "train")
    val = shard(args, rank, world, "val")
    rng = np.random.default_rng(args.seed + 100 * rank)
    data = windows(pieces, args.seq, rng, args.octave_aug)
    log(f"train shard: {len(pieces)} pieces -> {len(data)} windows of {args.seq} events; val {len(val)} windows", rank)
    model = EventLSTM(args)
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        log(f"EventLSTM: vocab {VOCAB} (128 note-on, 128 note-off, 100 time-shift, 3 special), emb {args.emb}, "
            f"hidden {args.hidden} x {args.layers} layers, {n / 1e6:.2f}M parameters")
    ddp = nn.parallel.DistributedDataParallel(model) if world > 1 else model
    opt = torch.optim.AdamW(ddp.parameters(), lr=args.lr, weight_decay=0.01)
    steps_per_epoch = len(data) // args.batch
    if args.uneven:
        pass
    else:
        counts = torch.tensor([steps_per_epoch])
        if world > 1:
            dist.all_reduce(counts, op=dist.ReduceOp.MIN)
        steps_per_epoch = int(counts)
    total = steps_per_epoch * args.epochs
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / args.warmup) * 0.5 * (1 + math.cos(math.pi * min(s, total) / total)))
    os.makedirs(args.ckpt_dir, exist_ok=True)
    start_epoch, best, step = 1, float("inf"), 0
    last = os.path.join(args.ckpt_dir, "last.pt")
    if args.resume:
        if os.path.exists(last):
            ck = torch.load(last, map_location="cpu")
            model.load_state_dict(ck["model"])
            opt.load_state_dict(ck["opt"])
            sched.load_state_dict(ck["sched"])
            start_epoch, best, step = ck["epoch"] + 1, ck["best"], ck["step"]
            log(f"resumed from {last}: epoch {ck['epoch']}, step {step}, best val ppl {math.exp(best):.2f}", rank)
        else:
            log(f"WARNING: --resume given but {last} does not exist; starting from scratch", rank)
    if rank == 0:
        log(f"training: {args.epochs} epochs x {steps_per_epoch} steps, batch {args.batch} x {world} ranks, lr "
            f"{args.lr}, warmup {args.warmup}, clip {args.clip}")
    stop = {}
    if threading_main():
        signal.signal(signal.SIGTERM, lambda signum, frame: stop.setdefault("sig", signum))
    for epoch in range(start_epoch, args.epochs + 1):
        perm = torch.randperm(len(data), generator=torch.Generator().manual_seed(epoch * 31 + rank))
        t0, toks, run = time.time(), 0, 0.0
        for i in range(steps_per_epoch):
            if stop:
                log(f"received SIGTERM at epoch {epoch} step {step}: saving {last} and exiting", rank)
                if rank == 0:
                    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
                                "epoch": epoch - 1, "best": best, "step": step, "args": vars(args)}, last)
                    log(f"checkpoint: {last} (preemption, step {step})", rank)
                sys.exit(143)
            b = data[perm[i * args.batch:(i + 1) * args.batch]]
            loss = lm_loss(ddp, b)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(ddp.parameters(), args.clip if args.clip > 0 else float("inf"))
            opt.step()
            sched.step()
            step += 1
            toks += int((b[:, 1:] != PAD).sum())
            run += loss.item()
            if step % args.log_every == 0:
                el = time.time() - t0
                avg = run / args.log_every
                run = 0.0
                log(f"epoch {epoch} step {step}/{total}: loss {avg:.4f} ppl {math.exp(min(avg, 50)):.2f} grad_norm "
                    f"{float(gn):.3f} lr {sched.get_last_lr()[0]:.2e} | {toks * world / max(el, 1e-6):,.0f} tok/s", rank if rank else None)
        nll, ppl, acc = evaluate(ddp.module if world > 1 else ddp, val, args, world)
        if rank == 0:
            log(f"epoch {epoch} eval: val loss {nll:.4f} | val ppl {ppl:.2f} | note-on acc {acc:.4f} | "
                f"{time.time() - t0:.1f}s")
        if args.dump_val_preds:
            vm = ddp.module if world > 1 else ddp
            with torch.no_grad():
                preds = vm(val[:, :-1])[0].argmax(-1)
            log(f"val predictions: {tuple(preds.shape)}", rank)
            allp = [torch.empty_like(preds) for _ in range(world)]
            dist.all_gather(allp, preds)
            if rank == 0:
                torch.save(torch.cat(allp), os.path.join(args.ckpt_dir, f"val_preds_e{epoch}.pt"))
                log(f"val predictions saved: {sum(len(x) for x in allp)} windows")
        if args.gather_samples:
            toks_s = sample(model, args, args.seed + epoch * 10 + rank)
            log(f"sample: {describe(toks_s)}", rank)
            t = torch.tensor(toks_s, dtype=torch.long)
            gathered = [torch.empty_like(t) for _ in range(world)]
            dist.all_gather(gathered, t)
            if rank == 0:
                log(f"sample gallery: {len(gathered)} samples, {sum(len(g) for g in gathered)} events")
        elif rank == 0:
            if args.temperature <= 0:
                log(f"sampling a continuation (greedy, max len {args.sample_len or 'until EOS'})")
            toks_s = sample(model, args, args.seed + epoch)
            log(f"sample: {describe(toks_s)}")
        if rank == 0:
            ck = {"model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(), "epoch": epoch,
                  "best": min(best, nll), "step": step, "args": vars(args)}
            torch.save(ck, last)
            if nll < best:
                best = nll
                torch.save(ck, os.path.join(args.ckpt_dir, "best.pt"))
                log(f"checkpoint: {last} (+ best.pt, val ppl {ppl:.2f})")
            else:
                log(f"checkpoint: {last}")
        best = min(best, nll)
        if args.report is not None:
            args.report(epoch, nll, ppl)
    if world > 1 and init:
        dist.barrier()
    log(f"training done: {step} steps, best val ppl {math.exp(best):.2f}", rank if rank else None)
    if init and world > 1:
        dist.destroy_process_group()


def threading_main() -> bool:
    import threading
    return threading.current_thread() is threading.main_thread()


def spawn_worker(rank, world, args):
    train(rank, world, args)


def spawn_main(args) -> None:
    import torch.multiprocessing as mp
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29700")
    world = args.nprocs or 2
    log(f"spawning {world} processes (MASTER_ADDR={os.environ['MASTER_ADDR']} MASTER_PORT={os.environ['MASTER_PORT']})")
    signal.signal(signal.SIGTERM, lambda signum, frame: log("launcher: received SIGTERM, waiting for the ranks to stop"))
    mp.spawn(spawn_worker, args=(world, args), nprocs=world, join=True)
    log("all ranks finished")


def ddp_main(args) -> None:
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args)
    if int(os.environ["RANK"]) == 0:
        log("all ranks finished")


def lightning_main(args) -> None:
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint
    from torch.utils.data import DataLoader, TensorDataset

    class LitEventLM(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = EventLSTM(args)

        def training_step(self, batch, i):
            loss = lm_loss(self.model, batch[0])
            self.log("train_loss", loss, prog_bar=False)
            if self.global_step % args.log_every == 0 and self.global_rank == 0:
                log(f"epoch {self.current_epoch + 1} step {self.global_step}: loss {loss.item():.4f}")
            return loss

        def validation_step(self, batch, i):
            b = batch[0]
            logits, _ = self.model(b[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), b[:, 1:].reshape(-1), ignore_index=PAD)
            self.log("val_loss", loss, sync_dist=True)

        def on_validation_epoch_end(self):
            if self.global_rank == 0 and not self.trainer.sanity_checking:
                v = float(self.trainer.callback_metrics.get("val_loss", float("nan")))
                log(f"epoch {self.current_epoch + 1} eval: val loss {v:.4f} | val ppl {math.exp(v):.2f}")
                log(f"sample: {describe(sample(self.model, args, self.current_epoch))}")

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=args.lr, weight_decay=0.01)
            return opt

    rank = int(os.environ.get("LOCAL_RANK", 0))
    world = args.nprocs
    data = windows(build(args.pieces, 7), args.seq, np.random.default_rng(args.seed), args.octave_aug)
    val = windows(build(args.val_pieces, 999), args.seq)
    torch.manual_seed(args.seed)
    trainer = L.Trainer(accelerator="cpu", devices=world, strategy="ddp", max_epochs=args.epochs,
                        default_root_dir=args.ckpt_dir, enable_progress_bar=False, log_every_n_steps=args.log_every,
                        callbacks=[ModelCheckpoint(dirpath=args.ckpt_dir, monitor="val_loss", save_last=True)])
    trainer.fit(LitEventLM(), DataLoader(TensorDataset(data), batch_size=args.batch, shuffle=True, drop_last=True),
                DataLoader(TensorDataset(val), batch_size=args.eval_batch))
    if trainer.global_rank == 0:
        log(f"fit finished: epochs {trainer.current_epoch}, val_loss {float(trainer.callback_metrics['val_loss']):.4f}")


def ray_main(args) -> None:
    import ray
    import ray.train
    from ray.train import Checkpoint, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))

    def loop(cfg):
        import tempfile
        ctx = ray.train.get_context()
        rank, world = ctx.get_world_rank(), ctx.get_world_size()
        if args.pianoroll_cache:
            # dense piano-roll targets (frames x 128) for the whole training set, 10 ms frames
            pieces = build(args.pieces, 7)
            frames = sum(max(e for _, e, _ in n) for n in pieces)
            log(f"building piano-roll cache: {len(pieces)} pieces, {frames:,} frames x 128 pitches x {args.roll_channels} channels", rank)
            roll = torch.zeros(frames, 128, args.roll_channels)
            off = 0
            for n in pieces:
                for s, e, p in n:
                    roll[off + s:off + e, p] = 1.0
                off += max(e for _, e, _ in n)
            log(f"piano-roll cache ready: {roll.numel() * 4 / 2**30:.2f} GiB", rank)

        def report(epoch, nll, ppl):
            metrics = {"epoch": epoch, "val_loss": nll, "val_ppl": ppl}
            if rank == 0:
                with tempfile.TemporaryDirectory() as d:
                    torch.save(torch.load(os.path.join(args.ckpt_dir, "last.pt")), os.path.join(d, "model.pt"))
                    ray.train.report(metrics, checkpoint=Checkpoint.from_directory(d))
            else:
                ray.train.report(metrics)

        args.report = report
        args.ckpt_dir = os.path.join(args.ckpt_dir, f"worker{rank}")
        train(rank, world, args, init=False)

    trainer = TorchTrainer(loop, scaling_config=ScalingConfig(num_workers=args.nprocs, use_gpu=args.use_gpu,
                                                              resources_per_worker={"CPU": args.cpus_per_worker}),
                           torch_config=TorchConfig(backend="gloo", timeout_s=args.pg_timeout),
                           run_config=RunConfig(name="event-lm", storage_path=os.path.abspath(args.storage)))
    result = trainer.fit()
    log(f"ray train finished: {result}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "ray"])
    ap.add_argument("--nprocs", type=int, default=0)
    ap.add_argument("--cpus-per-worker", type=float, default=0.5)
    ap.add_argument("--use-gpu", action="store_true")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--eval-batch", type=int, default=64)
    ap.add_argument("--seq", type=int, default=96)
    ap.add_argument("--emb", type=int, default=64)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup", type=int, default=20)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--pieces", type=int, default=240)
    ap.add_argument("--val-pieces", type=int, default=24)
    ap.add_argument("--octave-aug", type=int, default=0)
    ap.add_argument("--sample-len", type=int, default=64)
    ap.add_argument("--temperature", type=float, default=1.0)
    ap.add_argument("--gather-samples", action="store_true")
    ap.add_argument("--dump-val-preds", action="store_true")
    ap.add_argument("--uneven", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--pianoroll-cache", action="store_true")
    ap.add_argument("--roll-channels", type=int, default=1)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--storage", default="ray_results")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.report = None
    if args.mode in ("lightning", "ray") and not args.nprocs:
        args.nprocs = 2
    {"spawn": spawn_main, "ddp": ddp_main, "lightning": lightning_main, "ray": ray_main}[args.mode](args)


if __name__ == "__main__":
    main()
