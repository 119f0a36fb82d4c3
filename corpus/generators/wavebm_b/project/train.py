"""Data-parallel character-level MLP language model with MLX distributed (ring backend)."""
import argparse
import ctypes
import glob
import json
import os
import sys
import time
import warnings

import mlx.core as mx
import mlx.nn as nn
import mlx.optimizers as optim
from mlx.utils import tree_flatten, tree_unflatten

ap = argparse.ArgumentParser()
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--ctx", type=int, default=16)
ap.add_argument("--hidden", type=int, default=128)
ap.add_argument("--log-every", type=int, default=20)
ap.add_argument("--ckpt-every", type=int, default=100)
ap.add_argument("--ckpt-dir", default="checkpoints")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--config", default=None)
ap.add_argument("--tokenizer", default="chartok")
args = ap.parse_args()
if args.config:
    with open(args.config) as f:
        for k, v in json.load(f).items():
            setattr(args, k.replace("-", "_"), v)

group = mx.distributed.init(strict=True)
rank, world = group.rank(), group.size()


def log(msg, all_ranks=False):
    if rank == 0 or all_ranks:
        print(f"[{time.strftime('%H:%M:%S')}] [rank {rank}] {msg}", flush=True)


tok = __import__(args.tokenizer)
text = open("data/corpus.txt").read()
vocab = tok.build_vocab(text)
ids = mx.array(tok.encode(text, vocab), dtype=mx.int32)
log(f"mlx {mx.__version__}, world size {world}, backend ring, device {mx.default_device()}")
log(f"corpus {len(text)} chars, vocab {len(vocab)}, context {args.ctx}")

shard = ids[rank * (ids.size // world):(rank + 1) * (ids.size // world)]
if os.path.exists("data/shard_override.json"):
    ov = json.load(open("data/shard_override.json"))
    if str(rank) in ov:
        shard = ids[: ov[str(rank)]]
log(f"shard {shard.size} tokens", all_ranks=True)


class CharMLP(nn.Module):
    def __init__(self, v, ctx, hidden):
        super().__init__()
        self.emb = nn.Embedding(v, 32)
        self.l1 = nn.Linear(32 * ctx, hidden)
        self.l2 = nn.Linear(hidden, hidden)
        self.out = nn.Linear(hidden, v)

    def __call__(self, x):
        h = self.emb(x).reshape(x.shape[0], -1)
        h = nn.gelu(self.l1(h))
        h = nn.gelu(self.l2(h))
        return self.out(h)


vocab_size = len(vocab)
model = CharMLP(vocab_size, args.ctx, args.hidden)
mx.eval(model.parameters())
nparams = sum(v.size for _, v in tree_flatten(model.parameters()))
log(f"model CharMLP params {nparams}")
opt = optim.AdamW(learning_rate=args.lr, weight_decay=0.01)

start = 0
if args.resume:
    cks = sorted(glob.glob(os.path.join(args.ckpt_dir, "step_*.safetensors")))
    if cks:
        w = mx.load(cks[-1])
        model.update(tree_unflatten(list(w.items())))
        start = int(os.path.basename(cks[-1])[5:11])
        log(f"resumed from {cks[-1]} (step {start})", all_ranks=True)
    else:
        log("no checkpoint found, starting from scratch")


def loss_fn(m, x, y):
    return nn.losses.cross_entropy(m(x), y, reduction="mean")


grad_fn = nn.value_and_grad(model, loss_fn)


def batch(step):
    key = mx.random.key(step * 131 + rank)
    pos = mx.random.randint(0, shard.size - args.ctx - 1, (args.batch,), key=key)
    idx = pos[:, None] + mx.arange(args.ctx + 1)[None, :]
    b = shard[idx]
    return b[:, :-1], b[:, 1:][:, -1]


hooks = os.path.exists("data/hooks.py")
if hooks:
    import importlib.util
    spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
    hk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hk)

os.makedirs(args.ckpt_dir, exist_ok=True)
t0 = time.time()
tokens = 0
for step in range(start + 1, args.steps + 1):
    x, y = batch(step)
    loss, grads = grad_fn(model, x, y)
    if hooks:
        grads = hk.on_grads(step, rank, grads)
    grads = nn.average_gradients(grads)
    opt.update(model, grads)
    loss = mx.distributed.all_sum(loss) / world
    mx.eval(model.parameters(), opt.state, loss)
    tokens += args.batch * args.ctx * world
    if hooks and hasattr(hk, "after_step"):
        hk.after_step(step, rank, ctypes)
    if step % args.log_every == 0:
        dt = time.time() - t0
        lv = loss.item()
        if lv != lv or abs(lv) == float("inf"):
            raise FloatingPointError(f"loss is {lv} at step {step}; aborting (check learning rate / data)")
        log(f"step {step}/{args.steps} loss {lv:.4f} lr {args.lr:.2e} {tokens / dt:.0f} tok/s")
    if step % args.ckpt_every == 0 and rank == 0:
        path = os.path.join(args.ckpt_dir, f"step_{step:06d}.safetensors")
        mx.save_safetensors(path, dict(tree_flatten(model.parameters())), metadata={"step": str(step)})
        log(f"saved checkpoint {path}")
log(f"training finished: {args.steps - start} steps in {time.time() - t0:.1f}s", all_ranks=True)
