"""codecomp: pretrain a tiny decoder-only code-completion LM with FSDP2 (fully_shard) + DCP checkpoints.

Launched by run_train.sh (torchrun). Config: a TOML file (--job.config_file) plus dotted overrides on the
command line, e.g. ``--training.epochs 2 --checkpoint.interval 5`` (torchtitan-style).
"""
import argparse
import json
import logging
import math
import os
import re
import shutil
import sys
import time
import tomllib
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.checkpoint as dcp
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.checkpoint.state_dict import get_state_dict, set_state_dict
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.utils.data import DataLoader, Dataset, DistributedSampler

logger = logging.getLogger("codecomp")


def init_logger(rank):
    logger.setLevel(logging.INFO)
    h = logging.StreamHandler(sys.stdout)
    h.setFormatter(logging.Formatter(f"[codecomp] %(asctime)s - rank{rank} - %(levelname)s - %(message)s"))
    logger.addHandler(h)
    logger.propagate = False


# ----------------------------------------------------------------------------------------------- config
SECTIONS = ("job", "model", "optimizer", "lr_scheduler", "training", "validation", "checkpoint", "comm", "metrics")


def load_config(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--job.config_file", dest="config_file", required=True)
    known, rest = ap.parse_known_args(argv)
    with open(known.config_file, "rb") as f:
        cfg = tomllib.load(f)
    for sec in cfg:
        if sec not in SECTIONS:
            raise ValueError(f"unknown section [{sec}] in {known.config_file} (expected one of {', '.join(SECTIONS)})")
    it = iter(rest)
    for tok in it:
        if not tok.startswith("--") or "." not in tok:
            raise ValueError(f"bad override {tok!r}: expected --section.key value")
        sec, key = tok[2:].split(".", 1)
        val = next(it)
        if sec not in cfg or key not in cfg[sec]:
            raise ValueError(f"unknown config option --{sec}.{key}")
        old = cfg[sec][key]
        if isinstance(old, bool):
            val = val.lower() in ("1", "true", "yes")
        elif isinstance(old, int):
            val = int(val)
        elif isinstance(old, float):
            val = float(val)
        cfg[sec][key] = val
    return known.config_file, cfg


# ------------------------------------------------------------------------------------------------ model
@dataclass
class ModelArgs:
    vocab_size: int
    dim: int
    n_layers: int
    n_heads: int
    ffn_mult: int
    max_seq_len: int


class Attention(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.n_heads = a.n_heads
        self.wqkv = nn.Linear(a.dim, 3 * a.dim, bias=False)
        self.wo = nn.Linear(a.dim, a.dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.wqkv(x).view(b, t, 3, self.n_heads, d // self.n_heads).permute(2, 0, 3, 1, 4)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.wo(y.transpose(1, 2).reshape(b, t, d))


class Block(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.attention_norm = nn.RMSNorm(a.dim)
        self.attention = Attention(a)
        self.ffn_norm = nn.RMSNorm(a.dim)
        self.feed_forward = nn.Sequential(nn.Linear(a.dim, a.ffn_mult * a.dim, bias=False), nn.GELU(),
                                          nn.Linear(a.ffn_mult * a.dim, a.dim, bias=False))

    def forward(self, x):
        x = x + self.attention(self.attention_norm(x))
        return x + self.feed_forward(self.ffn_norm(x))


class Transformer(nn.Module):
    def __init__(self, a):
        super().__init__()
        self.tok_embeddings = nn.Embedding(a.vocab_size, a.dim)
        self.pos_embeddings = nn.Embedding(a.max_seq_len, a.dim)
        self.layers = nn.ModuleList(Block(a) for _ in range(a.n_layers))
        self.norm = nn.RMSNorm(a.dim)
        self.output = nn.Linear(a.dim, a.vocab_size, bias=False)

    def forward(self, tokens):
        h = self.tok_embeddings(tokens) + self.pos_embeddings(torch.arange(tokens.shape[1]))
        for layer in self.layers:
            h = layer(h)
        return self.output(self.norm(h))


# ------------------------------------------------------------------------------------------------- data
sys.setrecursionlimit(100_000)  # walk_lineage is recursive; re-derived shards have deep lineage records


def walk_lineage(rec, depth=0):
    return depth if not isinstance(rec, dict) else walk_lineage(rec.get("from"), depth + 1)


class TokenShards(Dataset):
    def __init__(self, path, split, seq_len, rank):
        with open(os.path.join(path, "manifest.json")) as f:
            man = json.load(f)
        if "lineage" in man:
            logger.info(f"manifest lineage depth: {walk_lineage(man['lineage'])}")
        self.vocab_size = man["vocab_size"]
        seqs, weights = [], []
        for sh in man[split]:
            fn = os.path.join(path, sh["path"])
            toks = np.fromfile(fn, dtype=np.uint16)
            if toks.size != sh["sequences"] * (seq_len + 1):
                logger.error(f"shard {sh['path']}: {toks.size} tokens, manifest says {sh['sequences']} x "
                             f"{seq_len + 1}; truncated upload? skipping shard")
                continue
            seqs.append(toks.reshape(-1, seq_len + 1))
            q = fn.replace(".bin", ".quality.npy")
            weights.append(np.load(q) if os.path.exists(q) else np.ones(sh["sequences"], np.float32))
        self.seqs = np.concatenate(seqs)
        self.weights = np.concatenate(weights)
        if rank == 0:
            logger.info(f"{split}: {len(self.seqs)} sequences of {seq_len + 1} tokens from {len(seqs)} shard(s)")

    def __len__(self):
        return len(self.seqs)

    def __getitem__(self, i):
        s = torch.from_numpy(self.seqs[i].astype(np.int64))
        return s[:-1], s[1:], torch.tensor(self.weights[i])


# ------------------------------------------------------------------------------------------- checkpoint
class CheckpointManager:
    def __init__(self, cfg, dump_folder, model, optimizer):
        self.enable = cfg["enable"]
        self.folder = os.path.join(dump_folder, cfg["folder"])
        self.interval = cfg["interval"]
        self.keep = cfg["keep_latest_k"]
        self.model, self.optimizer, self.rank0_only = model, optimizer, cfg.get("save_on_rank0_only", False)

    def _steps(self):
        if not os.path.isdir(self.folder):
            return []
        out = []
        for d in os.listdir(self.folder):
            m = re.fullmatch(r"step-(\d+)", d)
            if m and os.path.exists(os.path.join(self.folder, d, ".metadata")):
                out.append(int(m.group(1)))
        return sorted(out)

    def save(self, step, epoch, force=False):
        if not self.enable or (step % self.interval and not force) or (self.rank0_only and dist.get_rank() != 0):
            return
        t0 = time.monotonic()
        path = os.path.join(self.folder, f"step-{step}")
        msd, osd = get_state_dict(self.model, self.optimizer)
        dcp.save({"model": msd, "optimizer": osd, "train_state": {"step": step, "epoch": epoch}}, checkpoint_id=path)
        logger.info(f"Saved checkpoint at step {step} to {path} in {time.monotonic() - t0:.2f} seconds.")
        if self.keep > 0 and dist.get_rank() == 0:
            for old in self._steps()[:-self.keep]:
                logger.info(f"Purging old checkpoint {os.path.join(self.folder, f'step-{old}')}")
                shutil.rmtree(os.path.join(self.folder, f"step-{old}"), ignore_errors=True)
        dist.barrier()

    def load(self, step=-1):
        if not self.enable:
            return 0, 0
        steps = self._steps()
        if step == -1:
            if not steps:
                logger.info("No checkpoint found in %s, starting from scratch.", self.folder)
                return 0, 0
            step = steps[-1]
        path = os.path.join(self.folder, f"step-{step}")
        logger.info(f"Loading the checkpoint from {path}.")
        t0 = time.monotonic()
        msd, osd = get_state_dict(self.model, self.optimizer)
        state = {"model": msd, "optimizer": osd, "train_state": {"step": 0, "epoch": 0}}
        dcp.load(state, checkpoint_id=path)
        set_state_dict(self.model, self.optimizer, model_state_dict=state["model"], optim_state_dict=state["optimizer"])
        logger.info(f"Finished loading the checkpoint in {time.monotonic() - t0:.2f} seconds.")
        return state["train_state"]["step"], state["train_state"]["epoch"]


# ------------------------------------------------------------------------------------------------- main
def main():
    config_file, cfg = load_config(sys.argv[1:])
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    init_logger(rank)
    job, tr, comm = cfg["job"], cfg["training"], cfg["comm"]
    logger.info(f"Starting job: {job['description']}")
    if rank == 0:
        logger.info(f"Running with args: {json.dumps(cfg)}")
    dist.init_process_group("gloo", timeout=timedelta(seconds=comm["init_timeout_seconds"]))
    mesh = init_device_mesh("cpu", (world,), mesh_dim_names=("dp_shard",))
    logger.info(f"Building 1-D device mesh with ['dp_shard'], [{world}]")

    if tr["global_batch_size"] % (tr["local_batch_size"] * world):
        raise ValueError(f"global batch size ({tr['global_batch_size']}) must be a multiple of local batch size "
                         f"({tr['local_batch_size']}) times data-parallel degree ({world})")
    grad_accum = tr["global_batch_size"] // (tr["local_batch_size"] * world)
    torch.manual_seed(tr["seed"])

    if cfg["metrics"]["enable_tensorboard"]:
        from torch.utils.tensorboard import SummaryWriter
        tb = SummaryWriter(os.path.join(job["dump_folder"], cfg["metrics"]["save_tb_folder"])) if rank == 0 else None
    else:
        tb = None

    train_ds = TokenShards(tr["dataset_path"], "train", tr["seq_len"], rank)
    valid_ds = TokenShards(tr["dataset_path"], "valid", tr["seq_len"], rank)
    sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=tr["seed"], drop_last=True)
    train_dl = DataLoader(train_ds, batch_size=tr["local_batch_size"], sampler=sampler, drop_last=True,
                          num_workers=tr["num_workers"])
    valid_dl = DataLoader(valid_ds, batch_size=tr["local_batch_size"],
                          sampler=DistributedSampler(valid_ds, num_replicas=world, rank=rank, shuffle=False))

    m = cfg["model"]
    margs = ModelArgs(m["vocab_size"], m["dim"], m["n_layers"], m["n_heads"], m["ffn_mult"], m["max_seq_len"])
    logger.info(f"Building {m['name']} {m['flavor']} with {margs}")
    model = Transformer(margs)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info(f"Model {m['name']} {m['flavor']} size: {n_params:,} total parameters")
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    logger.info("Applied FSDP to the model")
    o = cfg["optimizer"]
    optimizer = torch.optim.AdamW(model.parameters(), lr=o["lr"], eps=o["eps"], weight_decay=o["weight_decay"])
    steps_per_epoch = len(train_dl) // grad_accum
    total = steps_per_epoch * tr["epochs"]
    warm = cfg["lr_scheduler"]["warmup_steps"]
    sched = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / warm if s < warm else 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, total - warm))))

    ckpt = CheckpointManager(cfg["checkpoint"], job["dump_folder"], model, optimizer)
    step, epoch0 = ckpt.load()
    for _ in range(step):
        sched.step()
    if step >= total:
        logger.info(f"Checkpoint at step {step} already covers the configured {total} steps; nothing to train.")
    else:
        logger.info(f"Training starts at step {step + 1}, {steps_per_epoch} steps per epoch, {total} steps "
                    f"({tr['epochs']} epochs), local batch size {tr['local_batch_size']}, global batch size "
                    f"{tr['global_batch_size']}, gradient accumulation steps {grad_accum}")
    pg_timeout_set = False
    for epoch in range(step // steps_per_epoch, tr["epochs"]):
        sampler.set_epoch(epoch)
        it = iter(train_dl)
        skip = step - epoch * steps_per_epoch
        for _ in range(skip * grad_accum):
            next(it)
        model.train()
        t_last = time.perf_counter()
        for _ in range(steps_per_epoch - skip):
            step += 1
            loss_acc = torch.zeros(())
            for _ in range(grad_accum):
                x, y, w = next(it)
                logits = model(x)
                tok_loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1), reduction="none")
                loss = (tok_loss.view(x.shape[0], -1).mean(1) * w).sum() / w.sum() / grad_accum
                loss.backward()
                loss_acc += loss.detach()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), tr["max_norm"])
            grad_norm = grad_norm.full_tensor() if hasattr(grad_norm, "full_tensor") else grad_norm
            optimizer.step()
            sched.step()
            optimizer.zero_grad()
            dist.all_reduce(loss_acc)
            gl = loss_acc.item() / world
            time.sleep(tr["step_delay"])
            if step % cfg["metrics"]["log_freq"] == 0:
                dt = time.perf_counter() - t_last
                tps = int(tr["local_batch_size"] * grad_accum * tr["seq_len"] / dt)
                logger.info(f"step: {step:3d}  epoch: {epoch + 1}  loss: {gl:7.4f}  grad_norm: {grad_norm.item():7.4f}"
                            f"  lr: {sched.get_last_lr()[0]:.2e}  tps: {tps:,}")
                if tb:
                    tb.add_scalar("loss", gl, step)
            t_last = time.perf_counter()
            if tr["check_finite"] and not math.isfinite(gl):
                raise RuntimeError(f"Loss is {gl} at step {step} (epoch {epoch + 1}); stopping instead of "
                                   f"checkpointing a diverged model")
            if not pg_timeout_set:  # torchtitan-style: a shorter timeout once the first step is through
                dist.distributed_c10d._set_pg_timeout(timedelta(seconds=comm["train_timeout_seconds"]))
                pg_timeout_set = True
            ckpt.save(step, epoch)
        if cfg["validation"]["enable"]:
            model.eval()
            vl, n = torch.zeros(()), 0
            with torch.no_grad():
                for i, (x, y, _) in enumerate(valid_dl):
                    if i >= cfg["validation"]["steps"]:
                        break
                    logits = model(x)
                    vl += F.cross_entropy(logits.reshape(-1, logits.shape[-1]), y.reshape(-1))
                    n += 1
            dist.all_reduce(vl)
            vl = vl.item() / world / max(n, 1)
            logger.info(f"validate epoch: {epoch + 1}  step: {step:3d}  loss: {vl:7.4f}  ppl: {math.exp(vl):8.2f}")
        ckpt.save(step, epoch + 1, force=step % ckpt.interval != 0)
    logger.info("Training completed")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
