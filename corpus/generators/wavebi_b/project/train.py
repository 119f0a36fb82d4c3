"""ppgpt: a small char-level transformer LM trained with torch.distributed.pipelining (one stage per process)."""
import argparse
import errno
import io
import json
import logging
import math
import os
import shutil
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe

log = logging.getLogger("ppgpt")


class Block(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, h, batch_first=True)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        t = x.size(1)
        mask = torch.triu(torch.ones(t, t, dtype=torch.bool), 1)
        a = self.ln1(x)
        x = x + self.attn(a, a, a, attn_mask=mask, need_weights=False)[0]
        return x + self.mlp(self.ln2(x))


class StageModule(nn.Module):
    """Layers [lo, hi) of the LM; the first stage owns the embeddings, the last the final norm and the head."""

    def __init__(self, cfg, lo, hi, first, last):
        super().__init__()
        d = cfg["d_model"]
        self.first, self.last = first, last
        if first:
            self.tok_emb = nn.Embedding(cfg["vocab_size"], d)
            self.pos_emb = nn.Embedding(cfg["max_seq_len"], d)
        self.layers = nn.ModuleDict({str(i): Block(d, cfg["n_head"]) for i in range(lo, hi)})
        if last:
            self.norm = nn.LayerNorm(d)
            self.head = nn.Linear(d, cfg["vocab_size"], bias=False)

    def forward(self, x):
        if self.first:
            pos = torch.arange(x.size(1))
            x = self.tok_emb(x) + self.pos_emb(pos)
        for blk in self.layers.values():
            x = blk(x)
        if self.last:
            x = self.head(self.norm(x))
        return x


def lm_loss(logits, target):
    return F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1))


class Shard:
    def __init__(self, path, seq_len):
        self.data = np.memmap(path, dtype=np.uint8, mode="r")
        self.seq_len = seq_len

    def batch(self, step, bs, seed):
        g = np.random.default_rng(seed * 100003 + step)
        ix = g.integers(0, len(self.data) - self.seq_len - 1, size=bs)
        x = np.stack([np.asarray(self.data[i:i + self.seq_len], dtype=np.int64) for i in ix])
        y = np.stack([np.asarray(self.data[i + 1:i + 1 + self.seq_len], dtype=np.int64) for i in ix])
        return torch.from_numpy(x), torch.from_numpy(y)


def save_ckpt(args, stage_idx, module, opt, step):
    d = os.path.join(args.ckpt_dir, f"step_{step:05d}")
    os.makedirs(d, exist_ok=True)
    state = {"model": module.state_dict(), "optim": opt.state_dict(), "step": step}
    t0 = time.time()
    for attempt in range(3):
        try:
            if args.ckpt_format == "dcp":
                import torch.distributed.checkpoint as dcp
                dcp.save({"model": module.state_dict(), "step": torch.tensor(step)}, checkpoint_id=d)
            else:
                # serialize in memory, then write + rename so a reader never sees a half-written file
                buf = io.BytesIO()
                torch.save(state, buf)
                final = os.path.join(d, f"stage{stage_idx}.pt")
                with open(final + ".tmp", "wb") as f:
                    f.write(buf.getbuffer())
                os.replace(final + ".tmp", final)
            break
        except (OSError, RuntimeError) as e:
            tmp = os.path.join(d, f"stage{stage_idx}.pt.tmp")
            if os.path.exists(tmp):
                os.remove(tmp)
            full = isinstance(e, OSError) and e.errno == errno.ENOSPC or "No space left" in str(e) \
                or "file write failed" in str(e)
            old = sorted(p for p in os.listdir(args.ckpt_dir) if p.startswith("step_") and p != os.path.basename(d))
            victim = next((os.path.join(args.ckpt_dir, p, f"stage{stage_idx}.pt") for p in old
                           if os.path.exists(os.path.join(args.ckpt_dir, p, f"stage{stage_idx}.pt"))), None)
            if not full or victim is None or attempt == 2:
                log.error("checkpoint save for step %d failed: %s", step, e)
                raise
            log.error("checkpoint save for step %d failed: %s; removing %s and retrying", step, e, victim)
            os.remove(victim)
            time.sleep(1)
    log.info("saved checkpoint %s (stage %d, %.2fs)", d, stage_idx, time.time() - t0)


def load_latest(args, stage_idx, module, opt):
    if not os.path.isdir(args.ckpt_dir):
        return 0
    steps = sorted(p for p in os.listdir(args.ckpt_dir) if p.startswith("step_"))
    for p in reversed(steps):
        f = os.path.join(args.ckpt_dir, p, f"stage{stage_idx}.pt")
        if os.path.exists(f):
            state = torch.load(f, weights_only=False)
            module.load_state_dict(state["model"])
            opt.load_state_dict(state["optim"])
            log.info("resumed stage %d from %s at step %d", stage_idx, f, state["step"])
            return state["step"]
    log.warning("--resume auto: no checkpoint for stage %d under %s, starting from scratch", stage_idx, args.ckpt_dir)
    return 0


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/pp_small.json")
    ap.add_argument("--schedule", choices=["gpipe", "1f1b"], default="gpipe")
    ap.add_argument("--batch-size", type=int)
    ap.add_argument("--n-microbatches", type=int)
    ap.add_argument("--max-seq-len", type=int)
    ap.add_argument("--seq-len", type=int)
    ap.add_argument("--d-model", type=int)
    ap.add_argument("--n-layer", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--warmup-steps", type=int)
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--ckpt-format", choices=["torch", "dcp"], default="torch")
    ap.add_argument("--resume", choices=["none", "auto"], default="none")
    ap.add_argument("--dist-timeout", type=int, default=1800)
    ap.add_argument("--tokenizer", choices=["byte", "tiktoken"], default="byte")
    ap.add_argument("--seed", type=int, default=1234)
    args = ap.parse_args()

    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s [rank {rank}] %(levelname)s %(name)s: %(message)s")
    with open(args.config) as f:
        cfg = json.load(f)
    mcfg, tcfg = cfg["model"], cfg["train"]
    for k in ("batch_size", "n_microbatches", "seq_len", "lr", "warmup_steps", "max_steps"):
        if getattr(args, k) is not None:
            tcfg[k] = getattr(args, k)
    for k in ("d_model", "n_layer", "max_seq_len"):
        if getattr(args, k) is not None:
            mcfg[k] = getattr(args, k)
    if args.tokenizer == "tiktoken":
        import tiktoken
        mcfg["vocab_size"] = tiktoken.get_encoding("gpt2").n_vocab

    dist.init_process_group("gloo", timeout=timedelta(seconds=args.dist_timeout))
    torch.manual_seed(args.seed + rank)
    n_layer = mcfg["n_layer"]
    per = [n_layer // world + (1 if i < n_layer % world else 0) for i in range(world)]
    lo = sum(per[:rank])
    first, last = rank == 0, rank == world - 1
    module = StageModule(mcfg, lo, lo + per[rank], first, last)
    n_params = sum(p.numel() for p in module.parameters())
    log.info("stage %d/%d: layers %d-%d%s%s, %.3fM params", rank, world, lo, lo + per[rank] - 1,
             " +embeddings" if first else "", " +head" if last else "", n_params / 1e6)

    bs, nmb, seq = tcfg["batch_size"], tcfg["n_microbatches"], tcfg["seq_len"]
    mb = bs // nmb
    d = mcfg["d_model"]
    if first:
        example_in = torch.zeros(mb, min(seq, mcfg["max_seq_len"]), dtype=torch.long)
    else:
        example_in = torch.zeros(mb, seq, d)
    stage = PipelineStage(module, rank, world, torch.device("cpu"), input_args=(example_in,))
    sched_cls = ScheduleGPipe if args.schedule == "gpipe" else Schedule1F1B
    schedule = sched_cls(stage, n_microbatches=nmb, loss_fn=lm_loss)
    opt = torch.optim.AdamW(module.parameters(), lr=tcfg["lr"], weight_decay=0.01)
    max_steps, warm = tcfg["max_steps"], tcfg["warmup_steps"]

    def lr_at(s):
        if s < warm:
            return tcfg["lr"] * (s + 1) / warm
        return tcfg["lr"] * 0.5 * (1 + math.cos(math.pi * (s - warm) / max(1, max_steps - warm)))

    start = load_latest(args, rank, module, opt) if args.resume == "auto" else 0
    train = Shard(os.path.join(args.data_dir, "train.bin"), seq) if first or last else None
    val = Shard(os.path.join(args.data_dir, "val.bin"), seq) if first or last else None
    prompts = None
    if first:
        log.info("schedule %s, %d stages, batch %d = %d microbatches x %d, seq %d, steps %d-%d",
                 sched_cls.__name__, world, bs, nmb, mb, seq, start, max_steps)
    dist.barrier()
    t_last = time.time()
    for step in range(start + 1, max_steps + 1):
        for g in opt.param_groups:
            g["lr"] = lr_at(step - 1)
        opt.zero_grad(set_to_none=True)
        x = y = None
        if first or last:
            x, y = train.batch(step, bs, args.seed)
        if first and x.size(1) > mcfg["max_seq_len"]:
            if step == start + 1:
                log.warning("seq_len %d exceeds max_seq_len %d of the position table; keeping the last %d tokens",
                            x.size(1), mcfg["max_seq_len"], mcfg["max_seq_len"])
            x = x[:, -mcfg["max_seq_len"]:].contiguous()
        losses = []
        if first:
            schedule.step(x)
        elif last:
            schedule.step(target=y, losses=losses)
        else:
            schedule.step()
        gn = torch.nn.utils.clip_grad_norm_(module.parameters(), tcfg["grad_clip"])
        opt.step()
        if last:
            loss = torch.stack(losses).mean().item()
            now = time.time()
            log.info("step %d/%d loss %.4f lr %.2e grad_norm(stage %d) %.3f %.0f tok/s", step, max_steps, loss,
                     lr_at(step - 1), rank, gn.item(), bs * seq / (now - t_last))
            t_last = now
            if not math.isfinite(loss):
                raise FloatingPointError(f"loss is {loss} at step {step}")
        if step % tcfg["eval_every"] == 0:
            vx, vy = val.batch(0, bs, args.seed) if (first or last) else (None, None)
            if first and vx.size(1) > mcfg["max_seq_len"]:
                vx = vx[:, -mcfg["max_seq_len"]:].contiguous()
            vl = []
            if first:
                schedule.eval(vx)
            elif last:
                schedule.eval(target=vy, losses=vl)
                if prompts is None:
                    with open(os.path.join(args.data_dir, "prompts.jsonl")) as f:
                        prompts = [json.loads(line)["prompt"] for line in f if line.strip()]
                v = torch.stack(vl).mean().item()
                log.info("eval step %d: val_loss %.4f ppl %.2f (%d prompts queued for sampling)", step, v,
                         math.exp(v), len(prompts))
            else:
                schedule.eval()
        if step % tcfg["ckpt_every"] == 0:
            save_ckpt(args, rank, module, opt, step)
            dist.barrier()
    log.info("training done: %d steps", max_steps)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
