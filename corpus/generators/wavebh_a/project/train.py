"""gptmini: a small character-level GPT trained on support-ticket text with DDP + torch.compile.

    torchrun --nproc_per_node 2 train.py [--max-steps N] [--lr LR] ...
"""
import argparse
import ctypes
import datetime
import json
import logging
import math
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

log = logging.getLogger("gptmini")


def get_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", default="", help="checkpoint to resume from ('auto' = latest in --ckpt-dir)")
    ap.add_argument("--n-layer", type=int, default=2)
    ap.add_argument("--n-head", type=int, default=4)
    ap.add_argument("--n-kv-head", type=int, default=0, help="grouped-query attention heads (0 = n-head)")
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--max-seq-len", type=int, default=64)
    ap.add_argument("--seq-len-buckets", default="", help="comma list of training lengths (cycled)")
    ap.add_argument("--batch-size", type=int, default=8, help="micro batch per rank")
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--global-batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--warmup-steps", type=int, default=10)
    ap.add_argument("--max-steps", type=int, default=60)
    ap.add_argument("--eval-every", type=int, default=20)
    ap.add_argument("--eval-batches", type=int, default=4)
    ap.add_argument("--eval-per-doc", action="store_true", help="also report the mean of per-document losses")
    ap.add_argument("--ckpt-every", type=int, default=20)
    ap.add_argument("--log-every", type=int, default=1)
    ap.add_argument("--compile", default="inductor", help="torch.compile backend, or 'none'")
    ap.add_argument("--compile-fallback", action="store_true", help="fall back to eager if compilation fails")
    ap.add_argument("--tokenizer", default="char", choices=["char", "spm"])
    ap.add_argument("--dist-timeout", type=int, default=1800, help="seconds")
    ap.add_argument("--seed", type=int, default=1234)
    return ap.parse_args()


class Block(nn.Module):
    def __init__(self, d, n_head, n_kv_head):
        super().__init__()
        self.n_head, self.n_kv_head, self.hd = n_head, n_kv_head, d // n_head
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.q = nn.Linear(d, d)
        self.kv = nn.Linear(d, 2 * n_kv_head * self.hd)
        self.proj = nn.Linear(d, d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        B, T, C = x.shape
        h = self.ln1(x)
        q = self.q(h).view(B, T, self.n_head, self.hd).transpose(1, 2)
        k, v = self.kv(h).split(self.n_kv_head * self.hd, dim=-1)
        k = k.view(B, T, self.n_kv_head, self.hd).transpose(1, 2)
        v = v.view(B, T, self.n_kv_head, self.hd).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(B, T, C))
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(self, vocab, a):
        super().__init__()
        self.tok = nn.Embedding(vocab, a.d_model)
        self.pos = nn.Embedding(a.max_seq_len, a.d_model)
        self.blocks = nn.ModuleList(Block(a.d_model, a.n_head, a.n_kv_head or a.n_head) for _ in range(a.n_layer))
        self.ln = nn.LayerNorm(a.d_model)
        self.head = nn.Linear(a.d_model, vocab, bias=False)

    def forward(self, idx, targets=None):
        T = idx.shape[1]
        x = self.tok(idx) + self.pos(torch.arange(T, device=idx.device))
        for b in self.blocks:
            x = b(x)
        logits = self.head(self.ln(x))
        if targets is None:
            return logits
        return logits, F.cross_entropy(logits.reshape(-1, logits.size(-1)), targets.reshape(-1))


class Shard:
    """Token windows read straight from the memory-mapped shard by the native packer."""

    def __init__(self, data_dir, split, rank, world, lib):
        self.tokens = np.memmap(os.path.join(data_dir, f"{split}.bin"), dtype=np.uint16, mode="r")
        starts = np.fromfile(os.path.join(data_dir, f"{split}.idx"), dtype=np.int64)
        self.starts = starts[rank::world]
        self.lib = lib

    def batch(self, rng, bs, T):
        pick = np.ascontiguousarray(rng.choice(self.starts, size=bs))
        out = np.empty((bs, T + 1), dtype=np.int64)
        self.lib.pack_windows(self.tokens.ctypes.data_as(ctypes.c_void_p), pick.ctypes.data_as(ctypes.c_void_p),
                              ctypes.c_int64(bs), ctypes.c_int64(T + 1), out.ctypes.data_as(ctypes.c_void_p))
        t = torch.from_numpy(out)
        return t[:, :-1], t[:, 1:]


def lr_at(step, a):
    if step < a.warmup_steps:
        return a.lr * (step + 1) / a.warmup_steps
    p = (step - a.warmup_steps) / max(1, a.max_steps - a.warmup_steps)
    return a.lr * 0.5 * (1 + math.cos(math.pi * p))


def load_prompts(path):
    with open(path) as f:
        return [json.loads(line)["prompt"] for line in f if line.strip()]


@torch.no_grad()
def evaluate(model, val, rng, a, world):
    model.eval()
    losses, doc_losses = [], []
    for _ in range(a.eval_batches):
        x, y = val.batch(rng, a.batch_size, a.max_seq_len)
        logits = model(x)
        per = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), reduction="none").view(x.shape)
        losses.append(per.mean())
        doc_losses.extend(per.mean(1).tolist())
    t = torch.stack(losses).mean()
    dist.all_reduce(t)
    out = {"val_loss": t.item() / world}
    if a.eval_per_doc:
        # every document of this rank's validation shard, then the mean over all ranks
        docs = torch.tensor(doc_losses + [per.mean().item()] * (len(val.starts) % 7))
        dist.all_reduce(docs)
        out["val_doc_loss"] = docs.mean().item() / world
    model.train()
    return out


def sample(raw, prompt, stoi, itos, n=24, T=64):
    idx = torch.tensor([[stoi.get(c, 0) for c in prompt]])
    for _ in range(n):
        logits = raw(idx[:, -T:])
        idx = torch.cat([idx, logits[:, -1].argmax(-1, keepdim=True)], 1)
    return "".join(itos[i] for i in idx[0].tolist())


def save(path, raw, opt, step, a):
    tmp = path + ".tmp"
    torch.save({"model": raw.state_dict(), "optim": opt.state_dict(), "step": step, "args": vars(a)}, tmp)
    os.replace(tmp, path)


def main():
    a = get_args()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.dist_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING,
                        format=f"%(asctime)s %(levelname)s %(name)s: [rank {rank}] %(message)s")
    torch.manual_seed(a.seed)
    log.info("torch %s, world size %d, backend %s, compile=%s", torch.__version__, world, dist.get_backend(), a.compile)
    if a.global_batch_size != a.batch_size * a.grad_accum * world:
        raise ValueError(f"global_batch_size ({a.global_batch_size}) must equal batch_size ({a.batch_size}) * "
                         f"grad_accum ({a.grad_accum}) * world_size ({world})")
    if a.tokenizer == "spm":
        import sentencepiece as spm  # noqa: F401
    vocab = json.load(open(os.path.join(a.data_dir, "vocab.json")))["itos"]
    stoi = {c: i for i, c in enumerate(vocab)}
    lib = ctypes.CDLL(os.path.join(a.data_dir, "libpack.so"))
    train = Shard(a.data_dir, "train", rank, world, lib)
    val = Shard(a.data_dir, "val", rank, world, lib)
    log.info("data: %d train docs / %d val docs on this rank, vocab %d", len(train.starts), len(val.starts), len(vocab))
    raw = GPT(len(vocab), a)
    log.info("model: %d layers, d_model %d, %d heads, %.2fM parameters", a.n_layer, a.d_model, a.n_head,
             sum(p.numel() for p in raw.parameters()) / 1e6)
    opt = torch.optim.AdamW(raw.parameters(), lr=a.lr, weight_decay=0.1)
    step = 0
    os.makedirs(a.ckpt_dir, exist_ok=True)
    resume = a.resume
    if resume == "auto":
        resume = os.path.join(a.ckpt_dir, "latest.pt")
        resume = resume if os.path.exists(resume) else ""
    if resume:
        ck = torch.load(resume, map_location="cpu")
        raw.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optim"])
        step = ck["step"]
        log.info("resumed from %s at step %d", resume, step)
    model = DDP(raw)
    if a.compile_fallback:
        torch._dynamo.config.suppress_errors = True
    fwd = model if a.compile == "none" else torch.compile(model, backend=a.compile)
    rng = np.random.default_rng(a.seed + rank + step)
    buckets = [int(s) for s in a.seq_len_buckets.split(",")] if a.seq_len_buckets else [a.max_seq_len]
    log.info("training from step %d to %d, global batch %d (%d x %d x %d)", step, a.max_steps, a.global_batch_size,
             a.batch_size, a.grad_accum, world)
    t0 = time.time()
    while step < a.max_steps:
        T = buckets[step % len(buckets)]
        for g in opt.param_groups:
            g["lr"] = lr_at(step, a)
        tot = 0.0
        for micro in range(a.grad_accum):
            x, y = train.batch(rng, a.batch_size, T)
            _, loss = fwd(x, y)
            (loss / a.grad_accum).backward()
            tot += loss.item() / a.grad_accum
        if not math.isfinite(tot):
            raise FloatingPointError(f"loss is {tot} at step {step} (lr {lr_at(step, a):.3g}); stopping")
        gn = torch.nn.utils.clip_grad_norm_(raw.parameters(), 1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        step += 1
        if step % a.log_every == 0:
            dt = time.time() - t0
            t0 = time.time()
            log.info("step %d/%d | loss %.4f | lr %.2e | grad_norm %.3f | seq %d | %.0f ms/step", step, a.max_steps,
                     tot, lr_at(step - 1, a), gn.item(), T, 1000 * dt / a.log_every)
        if step % a.eval_every == 0 or step == a.max_steps:
            m = evaluate(model, val, rng, a, world)
            log.info("eval step %d | %s | ppl %.2f", step,
                     " | ".join(f"{k} {v:.4f}" for k, v in m.items()), math.exp(min(m["val_loss"], 50.0)))
            if rank == 0:
                for p in load_prompts(os.path.join(a.data_dir, "prompts.jsonl")):
                    log.info("sample: %r", sample(raw, p, stoi, vocab, T=a.max_seq_len))
        if step % a.ckpt_every == 0 or step == a.max_steps:
            if rank == 0:
                path = os.path.join(a.ckpt_dir, f"step_{step:05d}.pt")
                save(path, raw, opt, step, a)
                save(os.path.join(a.ckpt_dir, "latest.pt"), raw, opt, step, a)
                log.info("saved checkpoint %s", path)
            dist.barrier()
    log.info("training done: %d steps", step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
