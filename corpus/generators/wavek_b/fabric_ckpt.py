"""Lightning Fabric (``Fabric(strategy="ddp").launch()``, gloo on CPU) character-level language model with
periodic full checkpoints.

Multi-node: ``--num-nodes N`` with ``MASTER_ADDR``/``MASTER_PORT``/``NODE_RANK`` set on every node, as Fabric's
launcher expects; ``--pg-timeout-s`` sets the process group's timeout.

``python fabric_ckpt.py --devices 2 --steps 400 --ckpt-dir ckpt --save-every 40``: a 4-layer Transformer decoder
over a byte-level corpus generated from templates (log-like text), AdamW with cosine decay; every ``--save-every``
steps ``fabric.save`` writes the model, optimizer and step to ``<ckpt-dir>/step-N.ckpt`` (all kept,
``--keep-last`` prunes older ones); a validation perplexity every ``--eval-every`` steps.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import math
import os
import random
import time

import lightning as L
import torch
from lightning.fabric.strategies import DDPStrategy
from torch import nn

TEMPLATES = ["GET /api/v{v}/items/{n} 200 {ms}ms", "user {u} added {n} items to cart", "payment {u} failed: card "
             "declined ({n})", "worker-{v} heartbeat ok load={ms}", "cache miss key=item:{n} fetch {ms}ms"]


def corpus(n_lines: int, seed: int) -> bytes:
    rng = random.Random(seed)
    return "\n".join(rng.choice(TEMPLATES).format(v=rng.randint(1, 4), n=rng.randint(1, 99999),
                                                  ms=rng.randint(1, 900), u=f"u{rng.randint(1, 5000)}")
                     for _ in range(n_lines)).encode()


class CharLM(nn.Module):
    def __init__(self, d: int = 256, layers: int = 4, ctx: int = 128) -> None:
        super().__init__()
        self.tok, self.pos = nn.Embedding(256, d), nn.Embedding(ctx, d)
        layer = nn.TransformerEncoderLayer(d, 8, 4 * d, dropout=0.1, batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = nn.Linear(d, 256)
        self.register_buffer("mask", nn.Transformer.generate_square_subsequent_mask(ctx), persistent=False)

    def forward(self, x):
        t = x.shape[1]
        h = self.tok(x) + self.pos(torch.arange(t))
        return self.head(self.blocks(h, mask=self.mask[:t, :t], is_causal=True))


def batches(data: torch.Tensor, bs: int, ctx: int, gen: torch.Generator):
    while True:
        idx = torch.randint(len(data) - ctx - 1, (bs,), generator=gen)
        yield torch.stack([data[i:i + ctx] for i in idx]), torch.stack([data[i + 1:i + ctx + 1] for i in idx])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--num-nodes", type=int, default=1)
    ap.add_argument("--pg-timeout-s", type=int, default=0)
    ap.add_argument("--steps", type=int, default=400)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--ctx", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--save-every", type=int, default=40)
    ap.add_argument("--keep-last", type=int, default=0)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--log-every", type=int, default=10)
    a = ap.parse_args()
    torch.set_num_threads(1)
    strategy = DDPStrategy(timeout=datetime.timedelta(seconds=a.pg_timeout_s)) if a.pg_timeout_s else "ddp"
    fabric = L.Fabric(accelerator="cpu", devices=a.devices, num_nodes=a.num_nodes, strategy=strategy)
    fabric.launch()
    fabric.seed_everything(1234 + fabric.global_rank)
    data = torch.tensor(list(corpus(60000, 0)), dtype=torch.long)
    val = torch.tensor(list(corpus(4000, 1)), dtype=torch.long)
    model = CharLM(ctx=a.ctx)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.1)
    model, opt = fabric.setup(model, opt)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.5 * (1 + math.cos(math.pi * min(s, a.steps) / a.steps)))
    n_params = sum(p.numel() for p in model.parameters())
    fabric.print(f"CharLM: {n_params / 1e6:.2f}M parameters, {len(data)} training bytes, world size "
                 f"{fabric.world_size}, checkpoints to {a.ckpt_dir} every {a.save_every} steps")
    it = batches(data, a.batch, a.ctx, torch.Generator().manual_seed(fabric.global_rank))
    t0 = time.time()
    for step in range(1, a.steps + 1):
        x, y = next(it)
        loss = nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        opt.zero_grad(set_to_none=True)
        fabric.backward(loss)
        fabric.clip_gradients(model, opt, max_norm=1.0)
        opt.step()
        sched.step()
        if step % a.log_every == 0:
            l = fabric.all_reduce(loss.detach(), reduce_op="mean")
            fabric.print(f"step {step}/{a.steps} loss {l.item():.4f} lr {sched.get_last_lr()[0]:.2e} "
                         f"{(time.time() - t0) / step:.3f} s/step")
        if step % a.eval_every == 0:
            model.eval()
            with torch.no_grad():
                vl = torch.stack([nn.functional.cross_entropy(model(vx).flatten(0, 1), vy.flatten())
                                  for vx, vy in (next(batches(val, 32, a.ctx, torch.Generator().manual_seed(k)))
                                                 for k in range(4))]).mean()
            vl = fabric.all_reduce(vl, reduce_op="mean")
            fabric.print(f"step {step}: val loss {vl.item():.4f} ppl {math.exp(vl.item()):.2f}")
            model.train()
        if step % a.save_every == 0:
            path = os.path.join(a.ckpt_dir, f"step-{step:05d}.ckpt")
            fabric.save(path, {"model": model, "optimizer": opt, "step": step})
            fabric.print(f"saved {path}")
            if a.keep_last and fabric.global_rank == 0:
                for old in sorted(glob.glob(os.path.join(a.ckpt_dir, "step-*.ckpt")))[:-a.keep_last]:
                    os.remove(old)
    fabric.print(f"training done: {a.steps} steps in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
