"""Small next-token MLP-mixer LM trained with FSDP2 (fully_shard) on CPU/gloo, checkpoints via torch.distributed.checkpoint."""
from __future__ import annotations

import argparse
import ctypes
import json
import logging
import math
import os
import re
import shutil
import sys
import time
from datetime import timedelta
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint import FileSystemReader, FileSystemWriter
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.checkpoint.stateful import Stateful
from torch.distributed.fsdp import fully_shard

log = logging.getLogger("trainer")
rlog = logging.getLogger("trainer.rank")


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--max-steps", type=int, default=None)
    ap.add_argument("--lr", type=float, default=None)
    ap.add_argument("--d-model", type=int, default=None)
    ap.add_argument("--n-layer", type=int, default=None)
    ap.add_argument("--micro-batch-size", type=int, default=None)
    ap.add_argument("--global-batch-size", type=int, default=None)
    ap.add_argument("--ckpt-every", type=int, default=None)
    ap.add_argument("--eval-every", type=int, default=None)
    ap.add_argument("--async-ckpt", action="store_true")
    ap.add_argument("--ckpt-pg", choices=["default", "separate"], default="default",
                    help="process group used by checkpoint collectives")
    ap.add_argument("--keep-last", type=int, default=3)
    ap.add_argument("--resume", choices=["auto", "none"], default="none")
    ap.add_argument("--dist-timeout", type=int, default=600)
    ap.add_argument("--tokenizer", choices=["byte", "spm"], default="byte")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--num-workers", type=int, default=0, help="DataLoader worker processes for training batches")
    ap.add_argument("--doc-aligned", action="store_true", help="start training windows at document starts")
    ap.add_argument("--warmup-steps", type=int, default=None)
    ap.add_argument("--metrics-file", default=None, help="append per-step metrics as JSON lines (rank 0)")
    return ap.parse_args()


class Block(nn.Module):
    def __init__(self, d: int, seq: int) -> None:
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.tok_mix = nn.Linear(seq, seq)
        self.ln2 = nn.LayerNorm(d)
        self.ff = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
        mask = torch.tril(torch.ones(seq, seq))
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = self.ln1(x).transpose(1, 2)
        w = self.tok_mix.weight * self.mask
        h = F.linear(h, w, self.tok_mix.bias).transpose(1, 2)
        x = x + h
        return x + self.ff(self.ln2(x))


class MixerLM(nn.Module):
    def __init__(self, vocab: int, d: int, n_layer: int, seq: int) -> None:
        super().__init__()
        self.emb = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(seq, d))
        self.blocks = nn.ModuleList([Block(d, seq) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        x = self.emb(idx) + self.pos[: idx.shape[1]]
        for b in self.blocks:
            x = b(x)
        return self.head(self.ln_f(x))


class AppState(Stateful):
    def __init__(self, model, optim, extra: dict) -> None:
        self.model, self.optim, self.extra = model, optim, extra

    def state_dict(self):
        msd, osd = get_state_dict(self.model, self.optim)
        return {"model": msd, "optim": osd, "extra": dict(self.extra)}

    def load_state_dict(self, sd) -> None:
        set_state_dict(self.model, self.optim, model_state_dict=sd["model"], optim_state_dict=sd["optim"])
        self.extra.update(sd["extra"])


def load_tokens(data_dir: Path, tokenizer: str, vocab: int) -> tuple[np.ndarray, np.ndarray]:
    if tokenizer == "spm":
        import sentencepiece as spm
        sp = spm.SentencePieceProcessor(model_file=str(data_dir / "tokenizer.model"))
        enc = sp.encode
    else:
        enc = lambda s: list(s.encode("utf-8"))  # noqa: E731
    out = {}
    for split in ("train", "val"):
        ids: list[int] = []
        with open(data_dir / f"{split}.jsonl") as f:
            for line in f:
                row = json.loads(line)
                ids.extend(enc(row["text"] + "\n"))
        arr = np.asarray(ids, dtype=np.int64)
        out[split] = np.clip(arr, 0, vocab - 1)
    return out["train"], out["val"]


def batch(arr: np.ndarray, n: int, seq: int, rng: np.random.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    starts = rng.integers(0, len(arr) - seq - 1, size=n)
    x = np.stack([arr[s: s + seq] for s in starts])
    y = np.stack([arr[s + 1: s + seq + 1] for s in starts])
    return torch.from_numpy(x), torch.from_numpy(y)


class Windows(torch.utils.data.IterableDataset):
    def __init__(self, arr: np.ndarray, n: int, seq: int, seed: int) -> None:
        self.arr, self.n, self.seq, self.seed = arr, n, seq, seed

    def __iter__(self):
        info = torch.utils.data.get_worker_info()
        rng = np.random.default_rng(self.seed * 31 + (info.id if info else 0))
        while True:
            yield batch(self.arr, self.n, self.seq, rng)


_libc = ctypes.CDLL(None)
_libc.memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]


def batch_aligned(arr: np.ndarray, idx: np.ndarray, n: int, seq: int, rng: np.random.Generator):
    """Collate document-aligned windows with one memcpy per row (the index was validated in prep_data.py)."""
    starts = idx[rng.integers(0, len(idx), size=n)]
    out = np.empty((n, seq + 1), dtype=np.int64)
    base, item = arr.ctypes.data, arr.itemsize
    for i, s in enumerate(starts):
        _libc.memcpy(out[i].ctypes.data, base + int(s) * item, (seq + 1) * item)
    t = torch.from_numpy(out)
    return t[:, :-1], t[:, 1:]


def step_dirs(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if re.fullmatch(r"step_\d+", p.name) and (p / ".metadata").exists()]
    return sorted(found, key=lambda p: int(p.name.split("_")[1]))


def main() -> None:
    args = parse()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING,
                        format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s", stream=sys.stdout)
    rlog.setLevel(logging.INFO)
    cfg = json.loads(Path(args.config).read_text())
    for k in ("max_steps", "lr", "d_model", "n_layer", "micro_batch_size", "global_batch_size", "ckpt_every",
              "eval_every", "warmup_steps"):
        v = getattr(args, k)
        if v is not None:
            cfg[k] = v
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.dist_timeout))
    rlog.info("process group ready (pid %d, local rank %s)", os.getpid(), os.environ.get("LOCAL_RANK"))
    log.info("world size %d, backend %s, torch %s", world, dist.get_backend(), torch.__version__)
    log.info("config: %s", json.dumps(cfg, sort_keys=True))
    accum = cfg.get("grad_accum", 1)
    if cfg["global_batch_size"] != cfg["micro_batch_size"] * accum * world:
        raise ValueError(f"global_batch_size ({cfg['global_batch_size']}) must equal micro_batch_size "
                         f"({cfg['micro_batch_size']}) x grad_accum ({accum}) x world_size ({world})")
    torch.manual_seed(args.seed)
    seq, vocab = cfg["seq_len"], cfg["vocab"]
    train, val = load_tokens(Path(args.data_dir), args.tokenizer, vocab)
    log.info("loaded %d train tokens, %d val tokens", len(train), len(val))
    doc_idx = None
    if args.doc_aligned:
        doc_idx = np.fromfile(Path(args.data_dir) / "train.idx", dtype=np.int64)
        log.info("document-aligned sampling over %d document starts", len(doc_idx))

    model = MixerLM(vocab, cfg["d_model"], cfg["n_layer"], seq)
    n_params = sum(p.numel() for p in model.parameters())
    for b in model.blocks:
        fully_shard(b)
    fully_shard(model)
    log.info("model: %d layers, d_model %d, %.2fM params, sharded with fully_shard over %d ranks",
             cfg["n_layer"], cfg["d_model"], n_params / 1e6, world)
    local = sum(p.to_local().numel() for p in model.parameters())
    rlog.info("local shard: %d of %d parameters", local, n_params)
    optim = torch.optim.AdamW(model.parameters(), lr=cfg["lr"], weight_decay=0.01)
    ckpt_pg = dist.new_group(backend="gloo") if args.ckpt_pg == "separate" else None
    extra = {"step": 0}
    state = AppState(model, optim, extra)
    ckpt_root = Path(args.ckpt_dir)
    if rank == 0:
        ckpt_root.mkdir(parents=True, exist_ok=True)
    dist.barrier()
    if args.resume == "auto":
        found = step_dirs(ckpt_root)
        if found:
            last = found[-1]
            log.info("resuming from %s", last)
            t0 = time.time()
            dcp.load({"app": state}, storage_reader=FileSystemReader(str(last)))
            rlog.info("loaded shard state from %s", last)
            log.info("resumed from %s at step %d (%.2f s)", last, extra["step"], time.time() - t0)
        else:
            log.info("no checkpoint under %s, starting fresh", ckpt_root)
    start = int(extra["step"])
    log.info("training from step %d to %d, global batch %d (%d x %d x %d), lr %g", start, cfg["max_steps"],
             cfg["global_batch_size"], cfg["micro_batch_size"], accum, world, cfg["lr"])
    rng = np.random.default_rng(args.seed * 100 + rank + start)
    loader = None
    if args.num_workers:
        loader = iter(torch.utils.data.DataLoader(Windows(train, cfg["micro_batch_size"], seq, args.seed + 97 * rank),
                                                  batch_size=None, num_workers=args.num_workers, prefetch_factor=4))
        log.info("training batches from a DataLoader with %d workers", args.num_workers)
    pending = None
    t_last = time.time()
    metrics = open(args.metrics_file, "a") if (args.metrics_file and rank == 0) else None
    for step in range(start + 1, cfg["max_steps"] + 1):
        warm = min(1.0, step / max(1, cfg.get("warmup_steps", 1)))
        for g in optim.param_groups:
            g["lr"] = cfg["lr"] * warm
        loss_acc = 0.0
        for _ in range(accum):
            if loader is not None:
                x, y = next(loader)
            elif doc_idx is not None:
                x, y = batch_aligned(train, doc_idx, cfg["micro_batch_size"], seq, rng)
            else:
                x, y = batch(train, cfg["micro_batch_size"], seq, rng)
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, vocab), y.reshape(-1)) / accum
            loss.backward()
            loss_acc += loss.item()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.get("clip", 1.0))
        gn = gn.full_tensor().item() if hasattr(gn, "full_tensor") else float(gn)
        optim.step()
        optim.zero_grad(set_to_none=True)
        t = torch.tensor([loss_acc])
        dist.all_reduce(t)
        mean_loss = t.item() / world
        if not math.isfinite(mean_loss):
            log.error("step %d: loss is %s (grad norm %s), stopping", step, mean_loss, gn)
            raise FloatingPointError(f"loss is {mean_loss} at step {step}")
        now = time.time()
        log.info("step %d/%d loss %.4f grad_norm %.3f lr %.2e (%.2f s/step)", step, cfg["max_steps"], mean_loss,
                 gn, cfg["lr"] * warm, now - t_last)
        t_last = now
        if metrics is not None:
            try:
                metrics.write(json.dumps({"step": step, "loss": mean_loss, "grad_norm": gn, "time": now}) + "\n")
                metrics.flush()
            except OSError:
                log.exception("could not append to metrics file %s; metrics file disabled for this run",
                              args.metrics_file)
                metrics = None
        if step % cfg["eval_every"] == 0:
            vrng = np.random.default_rng(7 + rank)
            with torch.no_grad():
                vx, vy = batch(val, cfg["micro_batch_size"], seq, vrng)
                vl = F.cross_entropy(model(vx).reshape(-1, vocab), vy.reshape(-1))
            vt = torch.tensor([vl.item()])
            dist.all_reduce(vt)
            vloss = vt.item() / world
            log.info("eval step %d: val_loss %.4f val_ppl %.2f", step, vloss, math.exp(vloss) if vloss < 80 else float("inf"))
        if step % cfg["ckpt_every"] == 0 or step == cfg["max_steps"]:
            if pending is not None:
                pending.result()
                pending = None
            out = ckpt_root / f"step_{step}"
            extra["step"] = step
            t0 = time.time()
            if args.async_ckpt and step != cfg["max_steps"]:
                pending = dcp.async_save({"app": state}, storage_writer=FileSystemWriter(str(out)),
                                         process_group=ckpt_pg)
                log.info("checkpoint step %d: async save to %s started (staged in %.2f s)", step, out,
                         time.time() - t0)
            else:
                dcp.save({"app": state}, storage_writer=FileSystemWriter(str(out)), process_group=ckpt_pg)
                size = sum(f.stat().st_size for f in out.iterdir()) if rank == 0 else 0
                log.info("checkpoint step %d: saved to %s (%.1f MB, %.2f s)", step, out, size / 1e6,
                         time.time() - t0)
            if rank == 0:
                for old in step_dirs(ckpt_root)[:-args.keep_last]:
                    shutil.rmtree(old, ignore_errors=True)
                    log.info("removed old checkpoint %s", old)
    if pending is not None:
        pending.result()
    dist.barrier()
    log.info("training done: %d steps", cfg["max_steps"])
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
