"""A small causal transformer LM trained with FSDP2 (``torch.distributed.fsdp.fully_shard``) and Distributed Checkpoint
(``torch.distributed.checkpoint``) saves, launched by torchrun on every node (gloo on CPU)."""
import argparse
import datetime
import importlib.util
import logging
import math
import os
import time
from pathlib import Path

import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.fsdp import fully_shard

torch.set_num_threads(1)
RANK = int(os.environ.get("RANK", 0))
logging.basicConfig(format=f"[rank{RANK}] %(asctime)s %(levelname)s %(name)s: %(message)s", level=logging.INFO)
log = logging.getLogger("train_fsdp")


class Block(nn.Module):
    def __init__(self, d: int) -> None:
        super().__init__()
        self.layer = nn.TransformerEncoderLayer(d, 4, 4 * d, dropout=0.0, batch_first=True, norm_first=True)

    def forward(self, x, mask):
        return self.layer(x, src_mask=mask, is_causal=True)


class LM(nn.Module):
    def __init__(self, vocab: int, d: int, layers: int, seq: int) -> None:
        super().__init__()
        self.emb, self.pos = nn.Embedding(vocab, d), nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d) for _ in range(layers))
        self.norm, self.head = nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, x):
        mask = nn.Transformer.generate_square_subsequent_mask(x.shape[1])
        h = self.emb(x) + self.pos(torch.arange(x.shape[1]))
        for b in self.blocks:
            h = b(h, mask)
        return self.head(self.norm(h))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--ckpt-every", type=int, default=40)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--timeout", type=int, default=600, help="process group timeout, seconds")
    a = ap.parse_args()
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    hook = None
    if Path("data/hooks.py").exists():
        spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        hook = mod.on_step
    text = Path("data/text.txt").read_text()
    vocab = sorted(set(text))
    ids = torch.tensor([vocab.index(c) for c in text[:400_000]])
    torch.manual_seed(1234)
    model = LM(len(vocab), a.dim, a.layers, a.seq)
    n_params = sum(p.numel() for p in model.parameters())
    for b in model.blocks:
        fully_shard(b)
    fully_shard(model)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.1)
    if rank == 0:
        log.info(f"world_size={world} model params={n_params / 1e6:.2f}M dim={a.dim} layers={a.layers} seq={a.seq} "
                 f"global batch={a.batch * world} sharding=FSDP2 (fully_shard per block)")
    start = 0
    ckpt = Path(a.ckpt_dir)
    done = sorted((int(p.name.split("-")[1]) for p in ckpt.glob("step-*") if (p / ".metadata").exists()))
    if done:
        start = done[-1]
        msd, osd = get_state_dict(model, opt)
        state = {"model": msd, "optim": osd}
        t0 = time.time()
        dcp.load(state, checkpoint_id=str(ckpt / f"step-{start}"))
        set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
        log.info(f"resumed from {ckpt / f'step-{start}'} in {time.time() - t0:.2f}s")
    g = torch.Generator().manual_seed(rank)
    t_last, tokens = time.time(), 0
    for step in range(start + 1, a.steps + 1):
        starts = torch.randint(0, len(ids) - a.seq - 1, (a.batch,), generator=g)
        x = torch.stack([ids[s:s + a.seq] for s in starts])
        y = torch.stack([ids[s + 1:s + a.seq + 1] for s in starts])
        loss = nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten())
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        lr = a.lr * min(1.0, step / 10) * 0.5 * (1 + math.cos(math.pi * step / a.steps))
        for group in opt.param_groups:
            group["lr"] = lr
        opt.step()
        opt.zero_grad()
        tokens += x.numel()
        if hook:
            hook(rank, step)
        if step % 10 == 0:
            avg = loss.detach().clone()
            dist.all_reduce(avg)
            avg /= world
            dt = time.time() - t_last
            if rank == 0:
                log.info(f"step {step:4d} | loss {avg.item():.4f} | grad_norm {gnorm.full_tensor().item():.3f} | "
                         f"lr {lr:.2e} | tok/s/rank {tokens / dt:.0f}")
            t_last, tokens = time.time(), 0
        if step % a.ckpt_every == 0 or step == a.steps:
            t0 = time.time()
            msd, osd = get_state_dict(model, opt)
            dcp.save({"model": msd, "optim": osd}, checkpoint_id=str(ckpt / f"step-{step}"))
            if rank == 0:
                log.info(f"saved checkpoint {ckpt / f'step-{step}'} in {time.time() - t0:.2f}s")
    if rank == 0:
        log.info(f"training complete: {a.steps} steps")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
