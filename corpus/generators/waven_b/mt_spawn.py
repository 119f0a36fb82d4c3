"""Toy EN->XX translator (GRU encoder-decoder with attention), DDP over gloo under torch.multiprocessing.spawn."""
import argparse
import datetime
import os
import random
import signal
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.nn.parallel import DistributedDataParallel as DDP

import mt_core as mc


def evaluate(model, pairs, sv, tv, rank, world, beam):
    model.eval()
    mine = pairs[rank::world]
    hyps, refs = [], []
    if beam:
        print(f"[rank {rank}] beam search (k={beam}) over {len(mine)} dev sentences", flush=True)
        for s, t in mine:
            ids = model.beam(mc.pad_batch([sv.encode(s)]), k=beam)
            hyps.append(tv.decode(ids))
            refs.append(t)
    else:
        for i in range(0, len(mine), 64):
            chunk = mine[i:i + 64]
            out = model.greedy(mc.pad_batch([sv.encode(s) for s, _ in chunk]))
            hyps += [tv.decode(o) for o in out]
            refs += [t for _, t in chunk]
    exact = sum(h == r for h, r in zip(hyps, refs))
    stats = torch.tensor([exact, len(refs)], dtype=torch.float64)
    dist.all_reduce(stats)
    model.train()
    return mc.bleu(hyps, refs), (stats[0] / stats[1]).item()


STOP = {"sig": None}


def _on_term(signum, frame):
    STOP["sig"] = signum  # finish the current step, then checkpoint and leave


def worker(rank, a):
    signal.signal(signal.SIGTERM, _on_term)
    world = a.nprocs
    addr = os.environ.get("MASTER_ADDR", "127.0.0.1")
    port = os.environ.get("MASTER_PORT", "29400")
    dist.init_process_group("gloo", init_method=f"tcp://{addr}:{port}", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.pg_timeout))
    torch.manual_seed(0)
    train = mc.make_pairs(a.train_size, seed=1, blank_every=a.blank_every)
    dev = mc.make_pairs(a.dev_size, seed=2)
    sv = mc.Vocab([s for s, _ in train])
    tv = mc.Vocab([t for _, t in train])
    if rank == 0:
        print(f"corpus: {len(train)} train / {len(dev)} dev pairs, src vocab {len(sv)}, tgt vocab {len(tv)}", flush=True)
        print(f"example: {' '.join(train[0][0])} => {' '.join(train[0][1])}", flush=True)
    model = DDP(mc.Seq2Seq(len(sv), len(tv), mask_specials=a.mask_specials))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    shard = train[rank::world]
    rng = random.Random(rank)
    step = 0
    for epoch in range(a.epochs):
        t0, ntok = time.time(), 0
        for src, tin, tout in mc.batches(shard, sv, tv, a.batch, rng):
            logits = model(src, tin)
            loss = mc.loss_fn(logits, tout, a.label_smoothing, manual=a.manual_smoothing)
            opt.zero_grad()
            loss.backward()
            if a.clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
            opt.step()
            step += 1
            ntok += int(tout.ne(mc.PAD).sum())
            if step % a.log_every == 0:
                print(f"[rank {rank}] epoch {epoch} step {step} loss {loss.item():.4f} "
                      f"tok/s {ntok / (time.time() - t0):.0f}", flush=True)
            if STOP["sig"]:
                print(f"[rank {rank}] received SIGTERM at epoch {epoch} step {step}, writing preemption checkpoint",
                      flush=True)
                if rank == 0:
                    torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "step": step},
                               "preempt.pt")
                    print("[rank 0] saved preempt.pt", flush=True)
                sys.exit(143)
            if a.check_finite and not torch.isfinite(loss):
                raise FloatingPointError(f"non-finite loss {loss.item()} at epoch {epoch} step {step} on rank {rank}")
        use_beam = a.beam if (a.beam and rank == 0 and epoch >= a.beam_from) else 0
        b, em = evaluate(model.module, dev, sv, tv, rank, world, use_beam)
        if rank == 0:
            print(f"epoch {epoch} dev BLEU {b:.2f} exact-match {em:.3f} ({time.time() - t0:.1f}s)", flush=True)
    if rank == 0:
        torch.save(model.module.state_dict(), "translator.pt")
        print("saved translator.pt", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--train-size", type=int, default=4000)
    ap.add_argument("--dev-size", type=int, default=400)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--label-smoothing", type=float, default=0.0)
    ap.add_argument("--manual-smoothing", action="store_true")
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--check-finite", action="store_true")
    ap.add_argument("--beam", type=int, default=0, help="rank 0 scores its dev share with beam search")
    ap.add_argument("--beam-from", type=int, default=1)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--mask-specials", action="store_true")
    ap.add_argument("--blank-every", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=10)
    a = ap.parse_args()
    print(f"torch {torch.__version__}, spawning {a.nprocs} processes (gloo)", flush=True)
    signal.signal(signal.SIGTERM, lambda s, f: print("launcher: SIGTERM received, waiting for workers to exit", flush=True))
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all processes finished", flush=True)
