"""Query-intent model for the search team: a tiny transformer encoder over tokenized search queries, tensor parallel
(DTensor ColwiseParallel/RowwiseParallel) on the 'tp' mesh dim, optionally FSDP2 on a 'dp' dim, gloo on CPU.

    torchrun --nnodes 1 --nproc_per_node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:PORT train.py \
        --config configs/intent_small.json --data-dir data --ckpt-dir checkpoints
"""
from __future__ import annotations

import argparse
import ctypes
import json
import logging
import math
import os
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.tensor import DTensor, Replicate
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

RANK = int(os.environ.get("RANK", "0"))
logging.basicConfig(level=logging.INFO,
                    format=f"[intent] [rank{RANK}] %(asctime)s - %(name)s - %(levelname)s - %(message)s")
logger = logging.getLogger("intent")


class Attention(nn.Module):
    def __init__(self, d: int, heads: int):
        super().__init__()
        self.hd = d // heads
        self.wq, self.wk, self.wv = (nn.Linear(d, d, bias=False) for _ in range(3))
        self.wo = nn.Linear(d, d, bias=False)

    def forward(self, x, mask):
        b, t, _ = x.shape
        q, k, v = (w(x).view(b, t, -1, self.hd).transpose(1, 2) for w in (self.wq, self.wk, self.wv))
        o = F.scaled_dot_product_attention(q, k, v, attn_mask=mask[:, None, None, :])
        return self.wo(o.transpose(1, 2).reshape(b, t, -1))


class Block(nn.Module):
    def __init__(self, d: int, heads: int, ffn: int):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = Attention(d, heads)
        self.w1, self.w2 = nn.Linear(d, ffn), nn.Linear(ffn, d)

    def forward(self, x, mask):
        x = x + self.attn(self.norm1(x), mask)
        return x + self.w2(F.gelu(self.w1(self.norm2(x))))


class IntentModel(nn.Module):
    def __init__(self, vocab: int, d: int, heads: int, ffn: int, layers: int, n_intents: int, max_len: int):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.randn(max_len, d) * 0.02)
        self.layers = nn.ModuleList(Block(d, heads, ffn) for _ in range(layers))
        self.norm = nn.LayerNorm(d)
        self.head = nn.Linear(d, n_intents)

    def forward(self, ids):
        mask = ids != 0
        x = self.tok(ids) + self.pos[: ids.shape[1]]
        for blk in self.layers:
            x = blk(x, mask)
        x = self.norm(x)
        pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return self.head(pooled)


def apply_tp(model: IntentModel, tp_mesh) -> None:
    parallelize_module(model, tp_mesh, {"tok": RowwiseParallel(input_layouts=Replicate(), output_layouts=Replicate())})
    for blk in model.layers:
        parallelize_module(blk, tp_mesh, {
            "attn.wq": ColwiseParallel(), "attn.wk": ColwiseParallel(), "attn.wv": ColwiseParallel(),
            "attn.wo": RowwiseParallel(), "w1": ColwiseParallel(), "w2": RowwiseParallel(),
        })


@torch.no_grad()
def clip_grads(model: nn.Module, max_norm: float) -> float:
    """Clip by the global grad norm; grads are a mix of DTensors (tp/dp shards) and plain replicated tensors."""
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    total = math.sqrt(sum(float((g.full_tensor() if isinstance(g, DTensor) else g).pow(2).sum()) for g in grads))
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for g in grads:
            g.mul_(coef)
    return total


class QueryNormalizer:
    """Folds rare token ids onto their bucket with the team's native helper (libqtok.so, built by prep_data.py)."""

    def __init__(self, lib_dir: Path, vocab: int):
        self.lib = ctypes.CDLL(str(lib_dir / "libqtok.so"))
        self.lib.qtok_fold.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        self.lib.qtok_fold.restype = ctypes.c_int
        self.vocab = vocab

    def fold(self, packed: np.ndarray, offset: int, length: int) -> np.ndarray:
        out = np.zeros(length, dtype=np.int32)
        addr = packed.ctypes.data + offset * 4
        ctypes.memmove(out.ctypes.data, addr, length * 4)
        self.lib.qtok_fold(out.ctypes.data, length, self.vocab)
        return out


def load_split(data_dir: Path, split: str, max_len: int, norm: QueryNormalizer):
    packed = np.fromfile(data_dir / f"{split}_tokens.bin", dtype=np.int32)
    ids, labels = [], []
    with open(data_dir / f"{split}.tsv") as f:
        header = f.readline().rstrip("\n").split("\t")
        col = {name: i for i, name in enumerate(header)}
        for line_no, line in enumerate(f, start=2):
            row = line.rstrip("\n").split("\t")
            off, n = int(row[col["offset"]]), int(row[col["length"]])
            toks = norm.fold(packed, off, n)[:max_len]
            ids.append(np.pad(toks, (0, max_len - len(toks))))
            labels.append(int(row[col["intent"]]))
    return torch.from_numpy(np.stack(ids)).long(), torch.tensor(labels)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", required=True)
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--lib-dir", default="lib")
    ap.add_argument("--max-steps", type=int, default=60)
    ap.add_argument("--max-seq-len", type=int, default=24)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--dp", type=int, default=1)
    ap.add_argument("--tp", type=int, default=2)
    ap.add_argument("--log-every", type=int, default=5)
    ap.add_argument("--eval-every", type=int, default=20)
    ap.add_argument("--ckpt-every", type=int, default=20)
    ap.add_argument("--dist-timeout", type=int, default=300)
    ap.add_argument("--step-delay", type=float, default=0.15)
    ap.add_argument("--per-intent-report", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args()

    cfg = json.loads(Path(a.config).read_text())
    logger.info(f"Starting job: query-intent training, config {a.config}")
    dist.init_process_group("gloo", timeout=timedelta(seconds=a.dist_timeout))
    world = dist.get_world_size()
    logger.info(f"world size {world}, parallel dims dp={a.dp} tp={a.tp}")
    if a.dp * a.tp != world:
        raise ValueError(f"dp({a.dp}) * tp({a.tp}) != WORLD_SIZE({world})")
    mesh = init_device_mesh("cpu", (a.dp, a.tp), mesh_dim_names=("dp", "tp"))
    logger.info(f"Building 2-D device mesh with {mesh}")
    dp_rank = mesh["dp"].get_local_rank()

    gbs, lbs, accum = cfg["global_batch_size"], cfg["local_batch_size"], cfg.get("gradient_accumulation_steps", 1)
    if gbs != lbs * accum * a.dp:
        raise ValueError(f"global batch size ({gbs}) must equal local batch size ({lbs}) * gradient accumulation "
                         f"steps ({accum}) * data parallel degree ({a.dp})")

    data_dir = Path(a.data_dir)
    names_file = data_dir / "intent_names.json"
    try:
        intent_names = json.loads(names_file.read_text())
    except (OSError, json.JSONDecodeError) as e:
        logger.error(f"could not read intent names ({e}); reporting intents by id")
        intent_names = [f"intent_{i}" for i in range(cfg["n_intents"])]

    norm = QueryNormalizer(Path(a.lib_dir), cfg["vocab_size"])
    logger.info(f"loaded query normalizer from {a.lib_dir}/libqtok.so")
    x_train, y_train = load_split(data_dir, "train", a.max_seq_len, norm)
    x_val, y_val = load_split(data_dir, "valid", a.max_seq_len, norm)
    logger.info(f"loaded {len(x_train)} training and {len(x_val)} validation queries, {len(intent_names)} intents")

    torch.manual_seed(a.seed)
    model = IntentModel(cfg["vocab_size"], cfg["dim"], cfg["n_heads"], cfg["ffn_dim"], cfg["n_layers"],
                        cfg["n_intents"], a.max_seq_len)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info(f"Model IntentModel size: {n_params:,} total parameters")
    apply_tp(model, mesh["tp"])
    logger.info("Applied Tensor Parallelism to the model")
    if a.dp > 1:
        from torch.distributed.fsdp import fully_shard
        for blk in model.layers:
            fully_shard(blk, mesh=mesh["dp"])
        fully_shard(model, mesh=mesh["dp"])
        logger.info("Applied FSDP to the model")
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=0.01)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / 10))

    ckpt_dir = Path(a.ckpt_dir)
    step = 0
    if a.resume:
        done = sorted((int(p.name.split("-")[1]) for p in ckpt_dir.glob("step-*") if (p / ".metadata").exists()))
        if done:
            step = done[-1]
            msd, osd = get_state_dict(model, opt)
            state = {"model": msd, "optim": osd, "train": {"step": torch.tensor(0)}}
            t0 = time.time()
            dcp.load(state, checkpoint_id=str(ckpt_dir / f"step-{step}"))
            set_state_dict(model, opt, model_state_dict=state["model"], optim_state_dict=state["optim"])
            for _ in range(step):
                sched.step()
            logger.info(f"Loading the checkpoint from {ckpt_dir}/step-{step}. Finished in {time.time() - t0:.2f} s")
        else:
            logger.warning(f"no checkpoint found in {ckpt_dir}, training from scratch")
    if step >= a.max_steps:
        logger.info(f"checkpoint step {step} >= max steps {a.max_steps}, nothing to train")

    gen = torch.Generator().manual_seed(a.seed + dp_rank)
    logger.info(f"Training starts at step {step + 1}, local batch size {lbs}, global batch size {gbs}, "
                f"max steps {a.max_steps}")
    model.train()
    t_last = time.time()
    while step < a.max_steps:
        step += 1
        opt.zero_grad()
        total = 0.0
        for _ in range(accum):
            idx = torch.randint(0, len(x_train), (lbs,), generator=gen)
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx]) / accum
            loss.backward()
            total += loss.item()
        if not math.isfinite(total):
            raise RuntimeError(f"non-finite loss {total} at step {step}")
        grad_norm = clip_grads(model, 1.0)
        opt.step()
        sched.step()
        time.sleep(a.step_delay)
        if step % a.log_every == 0:
            loss_t = torch.tensor([total])
            dist.all_reduce(loss_t, group=mesh["dp"].get_group())
            dt = time.time() - t_last
            t_last = time.time()
            logger.info(f"step: {step:3d}  loss: {loss_t.item() / a.dp:7.4f}  grad_norm: {float(grad_norm):7.4f}  "
                        f"lr: {sched.get_last_lr()[0]:.2e}  qps: {a.log_every * gbs / dt:6.1f}")
        if step % a.eval_every == 0:
            evaluate(model, x_val, y_val, mesh, a, cfg, intent_names, step)
            model.train()
        if step % a.ckpt_every == 0 or step == a.max_steps:
            t0 = time.time()
            msd, osd = get_state_dict(model, opt)
            dcp.save({"model": msd, "optim": osd, "train": {"step": torch.tensor(step)}},
                     checkpoint_id=str(ckpt_dir / f"step-{step}"))
            logger.info(f"Saving the checkpoint (or staging if async is enabled) to {ckpt_dir}/step-{step}. "
                        f"Finished in {time.time() - t0:.2f} s")
    dist.barrier()
    logger.info("Training completed")
    dist.destroy_process_group()


@torch.no_grad()
def evaluate(model, x_val, y_val, mesh, a, cfg, intent_names, step) -> None:
    model.eval()
    dp_rank = mesh["dp"].get_local_rank()
    xs, ys = x_val[dp_rank::a.dp], y_val[dp_rank::a.dp]
    logits = model(xs)
    pred = logits.argmax(-1)
    stats = torch.tensor([(pred == ys).sum().item(), len(ys)], dtype=torch.float64)
    # tail intents (the last two ids) are rare: their recall is NaN when a shard has none of them
    tail = ys >= cfg["n_intents"] - 2
    tail_recall = (pred[tail] == ys[tail]).float().mean()
    dp_group = mesh["dp"].get_group()
    dist.all_reduce(stats, group=dp_group)
    logger.info(f"validation at step {step}: accuracy {stats[0] / stats[1]:.4f} on {int(stats[1])} queries, "
                f"tail-intent recall (local shard) {tail_recall.item():.4f}")
    if a.per_intent_report:
        hits = torch.bincount(ys[pred == ys]).double()
        seen = torch.bincount(ys).double()
        dist.all_reduce(hits, group=dp_group)
        dist.all_reduce(seen, group=dp_group)
        if dist.get_rank() == 0:
            for i in range(len(seen)):
                logger.info(f"  {intent_names[i]:>22}: recall {hits[i] / max(seen[i], 1):.3f} ({int(seen[i])})")


if __name__ == "__main__":
    main()
