"""A small byte-level language-model trainer (DDP, gloo, CPU) used by ``generate.py``.

It is written the way many in-house trainers are: a config dataclass dumped at start-up, a tiny
pre-norm transformer, ``DistributedSampler`` + ``DataLoader`` with worker processes, AdamW with
warm-up + cosine decay, gradient clipping, a tqdm bar on rank 0, a metrics line every
``--log-every`` steps, a sharded evaluation every ``--eval-every`` steps and a checkpoint every
``--save-every`` steps. Everything it prints is what it really does on this machine.

Faults are injected through the ``TRAINER_FAULT`` environment variable (never printed, so the
log carries only what the software says), e.g. ``TRAINER_FAULT=short_record:rank=1:step=37``.
Kinds: ``short_record`` (one truncated record in the shard of ``rank``: default_collate fails in
a DataLoader worker), ``eval_view`` (the eval loss reshapes with the configured batch size, so the
last, smaller eval batch fails on ``rank``), ``slow_read`` (a sample read on ``rank`` blocks for
``secs`` seconds), ``gather_eval`` (eval gathers per-sample losses with ``all_gather`` although the
eval shards differ in size).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import math
import os
import random
import sys
import time
import warnings
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler
from tqdm import tqdm

log = logging.getLogger("trainer")

WORDS = ("the of and to in is that for it as with was on be by at this from are or have an they which "
         "one you were all we can her has there been if more when will would who so no model data loss "
         "gradient batch token layer attention train step epoch learning rate weight decay sample shard "
         "node rank worker process memory cache buffer tensor vector matrix sequence").split()


@dataclasses.dataclass
class Config:
    run_name: str = "lm-tiny"
    seed: int = 1234
    vocab_size: int = 256
    seq_len: int = 64
    d_model: int = 64
    n_heads: int = 4
    n_layers: int = 2
    dropout: float = 0.1
    train_samples: int = 4096
    eval_samples: int = 101
    batch_size: int = 16
    eval_batch_size: int = 16
    lr: float = 3e-4
    min_lr: float = 3e-5
    weight_decay: float = 0.1
    warmup_steps: int = 10
    max_steps: int = 120
    grad_clip: float = 1.0
    log_every: int = 10
    eval_every: int = 40
    save_every: int = 60
    num_workers: int = 2
    output_dir: str = "outputs"
    amp: bool = False
    manual_grad_sync: bool = False
    timeout_s: int = 1800
    step_sleep: float = 0.0


def parse_args() -> Config:
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        name = "--" + f.name.replace("_", "-")
        if f.type == "bool":
            ap.add_argument(name, action="store_true")
        else:
            ap.add_argument(name, type=type(f.default), default=f.default)
    return Config(**vars(ap.parse_args()))


def parse_fault() -> dict:
    raw = os.environ.get("TRAINER_FAULT", "")
    if not raw:
        return {}
    kind, *kvs = raw.split(":")
    out: dict = {"kind": kind}
    for kv in kvs:
        k, v = kv.split("=")
        out[k] = float(v) if "." in v else int(v)
    return out


class TextCorpus(Dataset):
    """Synthetic English-like byte sequences of ``seq_len + 1`` tokens."""

    def __init__(self, n: int, seq_len: int, seed: int, truncate: int = -1,
                 slow_index: int = -1, slow_secs: float = 0.0) -> None:
        rng = random.Random(seed)
        self.records = []
        for i in range(n):
            text = ""
            while len(text) < seq_len + 1:
                text += " ".join(rng.choice(WORDS) for _ in range(12)) + ". "
            toks = list(text.encode()[: seq_len + 1])
            if i == truncate:
                toks = toks[: seq_len - 7]
            self.records.append(toks)
        self.slow_index = slow_index
        self.slow_secs = slow_secs

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, idx: int):
        if idx == self.slow_index:
            time.sleep(self.slow_secs)  # e.g. a read from a stalled network filesystem
        t = torch.tensor(self.records[idx], dtype=torch.long)
        return {"input_ids": t[:-1], "labels": t[1:]}


class TinyLM(nn.Module):
    def __init__(self, cfg: Config) -> None:
        super().__init__()
        self.emb = nn.Embedding(cfg.vocab_size, cfg.d_model)
        self.pos = nn.Parameter(torch.zeros(1, cfg.seq_len, cfg.d_model))
        layer = nn.TransformerEncoderLayer(cfg.d_model, cfg.n_heads, 4 * cfg.d_model, cfg.dropout,
                                           batch_first=True, norm_first=True)
        self.blocks = nn.TransformerEncoder(layer, cfg.n_layers)
        self.norm = nn.LayerNorm(cfg.d_model)
        self.head = nn.Linear(cfg.d_model, cfg.vocab_size, bias=False)
        mask = torch.triu(torch.full((cfg.seq_len, cfg.seq_len), float("-inf")), diagonal=1)
        self.register_buffer("mask", mask, persistent=False)

    def forward(self, ids: torch.Tensor) -> torch.Tensor:
        x = self.emb(ids) + self.pos[:, : ids.size(1)]
        x = self.blocks(x, mask=self.mask[: ids.size(1), : ids.size(1)], is_causal=True)
        return self.head(self.norm(x))


def lr_at(step: int, cfg: Config) -> float:
    if step < cfg.warmup_steps:
        return cfg.lr * (step + 1) / cfg.warmup_steps
    p = (step - cfg.warmup_steps) / max(1, cfg.max_steps - cfg.warmup_steps)
    return cfg.min_lr + 0.5 * (cfg.lr - cfg.min_lr) * (1 + math.cos(math.pi * min(1.0, p)))


def evaluate(model: nn.Module, cfg: Config, eval_ds: TextCorpus, rank: int, world: int, fault: dict) -> dict:
    model.eval()
    shard = list(range(rank, len(eval_ds), world))
    losses = []
    with torch.no_grad():
        for i in range(0, len(shard), cfg.eval_batch_size):
            items = [eval_ds[j] for j in shard[i: i + cfg.eval_batch_size]]
            ids = torch.stack([it["input_ids"] for it in items])
            labels = torch.stack([it["labels"] for it in items])
            logits = model(ids)
            if fault.get("kind") == "eval_view" and rank == fault.get("rank", 0):
                logits = logits.view(cfg.eval_batch_size * cfg.seq_len, cfg.vocab_size)
                loss = F.cross_entropy(logits, labels.reshape(-1), reduction="none")
            else:
                loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), labels.reshape(-1), reduction="none")
            losses.append(loss.view(len(items), -1).mean(1))
    per_sample = torch.cat(losses)
    if world > 1 and fault.get("kind") == "gather_eval":
        gathered = [torch.empty_like(per_sample) for _ in range(world)]
        dist.all_gather(gathered, per_sample)
        total = torch.tensor([torch.cat(gathered).sum().item(), float(sum(g.numel() for g in gathered))])
    else:
        total = torch.tensor([per_sample.sum().item(), float(per_sample.numel())])
        if world > 1:
            dist.all_reduce(total)
    model.train()
    val = (total[0] / total[1]).item()
    return {"val_loss": val, "val_ppl": math.exp(min(val, 20.0)), "val_samples": int(total[1].item())}


def main() -> int:
    cfg = parse_args()
    fault = parse_fault()
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))
    logging.basicConfig(
        level=logging.INFO if rank == 0 else logging.WARNING,
        format=f"[%(asctime)s][%(name)s][%(levelname)s][rank{rank}] - %(message)s",
        stream=sys.stdout,
    )
    if world > 1:
        dist.init_process_group("gloo", timeout=timedelta(seconds=cfg.timeout_s))
    torch.manual_seed(cfg.seed)
    if rank == 0:
        log.info("torch %s, world_size=%d, backend=%s, local_rank=%d", torch.__version__, world,
                 dist.get_backend() if world > 1 else "none", local_rank)
        log.info("Training config:\n%s", json.dumps(dataclasses.asdict(cfg), indent=2))

    # data ---------------------------------------------------------------------------------
    truncate = -1
    slow_index, slow_secs = -1, 0.0
    probe = DistributedSampler(range(cfg.train_samples), num_replicas=world, rank=fault.get("rank", 0),
                               shuffle=True, seed=cfg.seed)
    probe.set_epoch(0)
    order = list(probe)
    if fault.get("kind") == "short_record":
        truncate = order[fault["step"] * cfg.batch_size + 5]
    if fault.get("kind") == "slow_read" and rank == fault.get("rank", 0):
        slow_index, slow_secs = order[fault["step"] * cfg.batch_size + 2], float(fault.get("secs", 60))
    t0 = time.time()
    train_ds = TextCorpus(cfg.train_samples, cfg.seq_len, cfg.seed, truncate, slow_index, slow_secs)
    eval_ds = TextCorpus(cfg.eval_samples, cfg.seq_len, cfg.seed + 1)
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=cfg.seed)
    loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=sampler, num_workers=cfg.num_workers,
                        drop_last=True, persistent_workers=cfg.num_workers > 0)
    if rank == 0:
        log.info("Loaded %d train / %d eval sequences in %.2fs (%d batches per epoch per rank, %d dataloader workers)",
                 len(train_ds), len(eval_ds), time.time() - t0, len(loader), cfg.num_workers)

    # model ----------------------------------------------------------------------------------
    model = TinyLM(cfg)
    n_params = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log.info("Model: TinyLM d_model=%d layers=%d heads=%d, %.2fM parameters", cfg.d_model, cfg.n_layers,
                 cfg.n_heads, n_params / 1e6)
    if world > 1 and not cfg.manual_grad_sync:
        model = DDP(model)
    if rank == 0:
        log.info("Gradient sync: %s", "none (single process)" if world == 1 else
                 "manual all_reduce of flattened grads" if cfg.manual_grad_sync else "DistributedDataParallel")
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)
    decay = [p for n, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for n, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": no_decay, "weight_decay": 0.0}], lr=cfg.lr, betas=(0.9, 0.95))
    out = Path(cfg.output_dir) / cfg.run_name
    if rank == 0:
        out.mkdir(parents=True, exist_ok=True)
        log.info("***** Running training *****")
        log.info("  Num examples = %d", len(train_ds))
        log.info("  Instantaneous batch size per device = %d", cfg.batch_size)
        log.info("  Total train batch size (w. parallel, distributed) = %d", cfg.batch_size * world)
        log.info("  Total optimization steps = %d", cfg.max_steps)
        log.info("  Output dir = %s", out)

    step, epoch = 0, 0
    bar = tqdm(total=cfg.max_steps, desc="train", disable=rank != 0, mininterval=2.0, ncols=100)
    t_log = time.time()
    tokens_since = 0
    while step < cfg.max_steps:
        sampler.set_epoch(epoch)
        for batch in loader:
            for g in opt.param_groups:
                g["lr"] = lr_at(step, cfg)
            with torch.cuda.amp.autocast(enabled=cfg.amp):
                logits = model(batch["input_ids"])
                loss = F.cross_entropy(logits.reshape(-1, cfg.vocab_size), batch["labels"].reshape(-1))
            opt.zero_grad(set_to_none=True)
            scaler.scale(loss).backward()
            if world > 1 and cfg.manual_grad_sync:
                grads = [p.grad for p in model.parameters() if p.grad is not None]
                flat = torch.cat([g.reshape(-1) for g in grads])
                dist.all_reduce(flat)
                flat /= world
                off = 0
                for g in grads:
                    g.copy_(flat[off: off + g.numel()].view_as(g))
                    off += g.numel()
            gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            scaler.step(opt)
            scaler.update()
            step += 1
            tokens_since += batch["input_ids"].numel() * world
            if cfg.step_sleep:
                time.sleep(cfg.step_sleep)
            bar.update(1)
            if step % cfg.log_every == 0:
                dt = time.time() - t_log
                if rank == 0:
                    log.info("epoch %d | step %d/%d | loss %.4f | lr %.3e | grad_norm %.3f | %.0f tok/s | %.1f ms/step",
                             epoch, step, cfg.max_steps, loss.item(), opt.param_groups[0]["lr"], gnorm.item(),
                             tokens_since / dt, 1000 * dt / cfg.log_every)
                t_log, tokens_since = time.time(), 0
            if step % cfg.eval_every == 0:
                m = evaluate(model, cfg, eval_ds, rank, world, fault)
                if rank == 0:
                    log.info("eval @ step %d: val_loss=%.4f val_ppl=%.2f (%d samples)", step, m["val_loss"],
                             m["val_ppl"], m["val_samples"])
            if step % cfg.save_every == 0:
                if rank == 0:
                    ck = out / f"checkpoint-{step}"
                    ck.mkdir(parents=True, exist_ok=True)
                    state = model.module.state_dict() if isinstance(model, DDP) else model.state_dict()
                    torch.save({"model": state, "optimizer": opt.state_dict(), "step": step,
                                "config": dataclasses.asdict(cfg)}, ck / "model.pt")
                    log.info("Saving model checkpoint to %s (%.1f MB)", ck,
                             (ck / "model.pt").stat().st_size / 2**20)
                if world > 1:
                    dist.barrier()
            if step >= cfg.max_steps:
                break
        epoch += 1
    bar.close()
    if rank == 0:
        log.info("Training completed.")
        log.info("train_runtime=%.1fs final_loss=%.4f steps=%d epochs=%.2f", time.time() - t0, loss.item(), step,
                 step / len(loader))
    if world > 1:
        dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    warnings.filterwarnings("default", category=FutureWarning)
    sys.exit(main())
