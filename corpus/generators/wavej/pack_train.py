"""Causal-LM pre-training on packed sequences, torch.distributed (gloo, CPU) with DistributedDataParallel.

Rank and world size come from the launcher: torchrun (``RANK``/``WORLD_SIZE``), Open MPI's mpirun
(``OMPI_COMM_WORLD_*``) or Slurm's srun (``SLURM_PROCID``/``SLURM_NTASKS``); ``MASTER_ADDR``/``MASTER_PORT`` from the
environment. The tokenised corpus (``make_corpus.py``) is sharded by document (``docs[rank::world]``); every step a
rank packs its next ``--docs-per-step`` documents into rows of ``--seq-len`` tokens with the ``seqpack`` C++
extension (``seqpack.cpp``, built at start-up with ``torch.utils.cpp_extension.load``) and trains a small
Transformer decoder on them. Rank 0 evaluates every ``--eval-every`` steps and saves a checkpoint every
``--save-every`` steps.
"""
from __future__ import annotations

import argparse
import datetime
import json
import logging
import math
import os
import socket
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.cpp_extension import load

log = logging.getLogger("pretrain")


def env_int(names: tuple[str, ...], default: int) -> int:
    for n in names:
        if n in os.environ:
            return int(os.environ[n])
    return default


class TinyLM(nn.Module):
    def __init__(self, vocab: int, d: int, layers: int, heads: int, seq_len: int) -> None:
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq_len, d)
        layer = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.0, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, vocab)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(seq_len), persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.tok(x) + self.pos(torch.arange(x.shape[1]))
        h = self.blocks(h, mask=self.mask[: x.shape[1], : x.shape[1]], is_causal=True)
        return self.head(h)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="data/corpus.jsonl")
    ap.add_argument("--seq-len", type=int, default=256)
    ap.add_argument("--docs-per-step", type=int, default=12)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--pack-threads", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--eval-every", type=int, default=40)
    ap.add_argument("--save-every", type=int, default=60)
    ap.add_argument("--save-dir", default="checkpoints")
    a = ap.parse_args()

    rank = env_int(("RANK", "OMPI_COMM_WORLD_RANK", "SLURM_PROCID"), 0)
    world = env_int(("WORLD_SIZE", "OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS"), 1)
    local = env_int(("LOCAL_RANK", "OMPI_COMM_WORLD_LOCAL_RANK", "SLURM_LOCALID"), 0)
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s [rank{rank}] %(levelname)s %(name)s: %(message)s")
    log.info("host %s pid %d local_rank %d of world %d, torch %s", socket.gethostname(), os.getpid(), local, world,
             torch.__version__)
    t0 = time.time()
    seqpack = load("seqpack", [os.path.join(os.path.dirname(os.path.abspath(__file__)), "seqpack.cpp")],
                   verbose=True)
    log.info("seqpack extension ready in %.1f s", time.time() - t0)

    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=300))
    log.info("process group up: backend %s, world %d, master %s:%s", dist.get_backend(), dist.get_world_size(),
             os.environ.get("MASTER_ADDR"), os.environ.get("MASTER_PORT"))

    with open(a.corpus) as f:
        docs = [json.loads(line) for line in f]
    shard = docs[rank::world]
    n_tok = sum(len(d["tokens"]) for d in shard)
    log.info("corpus %s: %d documents, shard %d documents / %d tokens", a.corpus, len(docs), len(shard), n_tok)
    held_out = [torch.tensor(d["tokens"]) for d in docs[-24:]]

    torch.manual_seed(0)
    model = TinyLM(259, a.d_model, a.layers, 4, a.seq_len)
    ddp = DDP(model)
    opt = torch.optim.AdamW(ddp.parameters(), lr=a.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 20))
    log.info("model: %d parameters, seq_len %d, %d docs/step/rank, %d steps", sum(p.numel() for p in model.parameters()),
             a.seq_len, a.docs_per_step, a.steps)
    loss_fn = nn.CrossEntropyLoss(ignore_index=0)
    pos, t_last, tok_seen = 0, time.time(), 0
    for step in range(1, a.steps + 1):
        batch_docs = shard[pos:pos + a.docs_per_step]
        pos += a.docs_per_step
        if len(batch_docs) < a.docs_per_step:
            pos, batch_docs = 0, shard[: a.docs_per_step]
        rows = seqpack.pack([torch.tensor(d["tokens"]) for d in batch_docs], a.seq_len, 0, a.pack_threads)
        tok_seen += int((rows != 0).sum())
        logits = ddp(rows[:, :-1])
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), rows[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        gnorm = nn.utils.clip_grad_norm_(ddp.parameters(), 1.0)
        opt.step()
        sched.step()
        if step % a.log_every == 0:
            dt = time.time() - t_last
            t_last = time.time()
            pad = 1.0 - float((rows != 0).float().mean())
            log.info("step %d/%d loss %.4f ppl %.2f grad_norm %.3f lr %.2e rows %d pad %.1f%% tok/s %.0f", step,
                     a.steps, loss.item(), math.exp(min(loss.item(), 20)), float(gnorm), sched.get_last_lr()[0],
                     rows.shape[0], 100 * pad, tok_seen / max(dt, 1e-6))
            tok_seen = 0
        if a.eval_every and step % a.eval_every == 0:
            with torch.no_grad():
                ev = seqpack.pack(held_out, a.seq_len, 0, a.pack_threads)
                lg = model(ev[:, :-1])
                ev_loss = loss_fn(lg.reshape(-1, lg.shape[-1]), ev[:, 1:].reshape(-1))
                t = torch.tensor([ev_loss.item()])
                dist.all_reduce(t)
            log.info("step %d eval loss %.4f (mean over %d ranks)", step, t.item() / world, world)
        if a.save_every and step % a.save_every == 0:
            if rank == 0:
                os.makedirs(a.save_dir, exist_ok=True)
                path = os.path.join(a.save_dir, f"step{step:05d}.pt")
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
                log.info("saved checkpoint %s", path)
            dist.barrier()
    log.info("done: %d steps in %.1f s", a.steps, time.time() - t0)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
