"""Lightning Fabric causal-LM fine-tuning (``fabric run ... fabric_lm.py``), CPU DDP over gloo.

Reads the tokenised corpus of ``make_corpus.py``, cuts each document into windows of ``--seq-len`` tokens
(padded), trains a small GRU language model with AdamW and a cosine schedule, ``--accum`` micro-batches per
optimizer step (``fabric.no_backward_sync``), logs every ``--log-every`` optimizer steps from every rank, evaluates on
held-out documents and saves ``fabric.save`` checkpoints every ``--save-every`` steps.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import time

import lightning as L
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset


class GRULM(nn.Module):
    def __init__(self, vocab: int = 259, d: int = 128) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.rnn = nn.GRU(d, d, num_layers=2, batch_first=True)
        self.head = nn.Linear(d, vocab)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h, _ = self.rnn(self.emb(x))
        return self.head(h)


def windows(docs: list[list[int]], seq_len: int) -> torch.Tensor:
    rows = []
    for t in docs:
        for i in range(0, max(1, len(t) - 1), seq_len):
            w = t[i:i + seq_len + 1]
            rows.append(w + [0] * (seq_len + 1 - len(w)))
    return torch.tensor(rows)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpus", default="data/corpus.jsonl")
    ap.add_argument("--seq-len", type=int, default=96)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--accum", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--save-every", type=int, default=100)
    ap.add_argument("--out", default="ckpt")
    a = ap.parse_args()

    fabric = L.Fabric()
    fabric.seed_everything(1234 + fabric.global_rank)
    with open(a.corpus) as f:
        docs = [json.loads(line)["tokens"] for line in f]
    train, held = windows(docs[:-200], a.seq_len), windows(docs[-200:], a.seq_len)
    fabric.print(f"corpus {a.corpus}: {len(docs)} documents -> {len(train)} train / {len(held)} held-out windows "
                 f"of {a.seq_len} tokens; world size {fabric.world_size}")
    loader = fabric.setup_dataloaders(DataLoader(TensorDataset(train), batch_size=a.batch, shuffle=True,
                                                 drop_last=True))
    model = GRULM()
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    model, opt = fabric.setup(model, opt)
    sched = torch.optim.lr_scheduler.LambdaLR(
        opt, lambda s: min(1.0, (s + 1) / 30) * 0.5 * (1 + math.cos(math.pi * min(s, a.steps) / a.steps)))
    loss_fn = nn.CrossEntropyLoss(ignore_index=0)
    step, micro, t0, it = 0, 0, time.time(), iter(loader)
    fabric.print(f"training {a.steps} optimizer steps, micro-batch {a.batch} x accum {a.accum} x "
                 f"{fabric.world_size} ranks")
    while step < a.steps:
        try:
            (batch,) = next(it)
        except StopIteration:
            it = iter(loader)
            (batch,) = next(it)
        micro += 1
        last = micro % a.accum == 0
        with fabric.no_backward_sync(model, enabled=not last):
            logits = model(batch[:, :-1])
            loss = loss_fn(logits.reshape(-1, logits.shape[-1]), batch[:, 1:].reshape(-1))
            fabric.backward(loss / a.accum)
        if not last:
            continue
        fabric.clip_gradients(model, opt, max_norm=1.0)
        opt.step()
        opt.zero_grad()
        sched.step()
        step += 1
        if step % a.log_every == 0:
            print(f"[rank {fabric.global_rank}] step {step}/{a.steps} loss {loss.item():.4f} "
                  f"lr {sched.get_last_lr()[0]:.2e} {(time.time() - t0) / step:.2f} s/step", flush=True)
        if step % a.eval_every == 0:
            model.eval()
            with torch.no_grad():
                part = held[fabric.global_rank::fabric.world_size]
                lg = model(part[:, :-1])
                ev = loss_fn(lg.reshape(-1, lg.shape[-1]), part[:, 1:].reshape(-1))
            ev = fabric.all_reduce(ev, reduce_op="mean")
            model.train()
            fabric.print(f"step {step}: eval loss {ev.item():.4f} ppl {math.exp(ev.item()):.2f}")
        if step % a.save_every == 0:
            path = os.path.join(a.out, f"step-{step:05d}.ckpt")
            fabric.save(path, {"model": model, "optimizer": opt, "step": step})
            fabric.print(f"saved {path}")
    fabric.print(f"finished {a.steps} steps in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
