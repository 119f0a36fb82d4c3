"""A small mixture-of-experts decoder language model on a synthetic multi-domain token stream.

Decoder: token + position embeddings (output head tied to the token embedding), N pre-LN blocks of causal
self-attention and a top-2 gated mixture-of-experts MLP (GShard-style dense dispatch with an expert capacity; tokens
over capacity are dropped and counted), Switch-style load-balancing auxiliary loss. Evaluation: perplexity over each
rank's validation shard (sums all-reduced), expert load per layer; rank 0 writes a checkpoint after each evaluation.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Lightning Trainer, ddp on CPU),
ray (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import math
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

PAD, BOS, EOS = 0, 1, 2
FIRST, LAST = 3, 256  # ids 256.. are reserved for special tokens added later (chat markers, tools, ...)
N_DOMAINS = 4

COMBINE_SRC = r"""
#include <torch/extension.h>
#include <cstdint>
// out[t] += gate[t] * src[slot[t]] for the kept tokens; slots are compact 32-bit indices into the expert outputs.
torch::Tensor combine_rows(torch::Tensor src, torch::Tensor slot, torch::Tensor gate, torch::Tensor out) {
  const int64_t T = slot.size(0), d = src.size(1);
  const float* s = src.data_ptr<float>();
  const uint32_t* ix = reinterpret_cast<const uint32_t*>(slot.data_ptr<int32_t>());
  const float* g = gate.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t t = 0; t < T; ++t) {
    const float* row = s + static_cast<size_t>(ix[t]) * d;
    for (int64_t j = 0; j < d; ++j) o[t * d + j] += g[t] * row[j];
  }
  return out;
}
"""


def log(msg: str, rank: int | None = None) -> None:
    prefix = f"[rank {rank}] " if rank is not None else ""
    print(f"{time.strftime('%H:%M:%S')} {prefix}{msg}", flush=True)


# ------------------------------------------------------------------------------------------------------------ data
def domain_tables(seed: int = 1234):
    """Per-domain first-order transition tables over the content ids: each token has 6 likely successors."""
    rng = np.random.default_rng(seed)
    n = LAST - FIRST
    tables = []
    for _ in range(N_DOMAINS):
        succ = np.stack([rng.choice(n, 6, replace=False) for _ in range(n)]) + FIRST
        p = rng.dirichlet(np.ones(6) * 0.6, size=n)
        tables.append((succ, np.cumsum(p, axis=1)))
    return tables


def make_docs(n_docs: int, seed: int, mix, tables):
    rng = np.random.default_rng(seed)
    docs = []
    for _ in range(n_docs):
        dom = rng.choice(N_DOMAINS, p=mix)
        succ, cum = tables[dom]
        length = int(rng.integers(24, 160))
        tok = int(rng.integers(FIRST, LAST))
        doc = [BOS, tok]
        u = rng.random(length)
        for i in range(length):
            if u[i] < 0.05:  # a jump: start a new phrase
                tok = int(rng.integers(FIRST, LAST))
            else:
                tok = int(succ[tok - FIRST][np.searchsorted(cum[tok - FIRST], (u[i] - 0.05) / 0.95)])
            doc.append(tok)
        doc.append(EOS)
        docs.append(doc)
    return docs


def rank_mix(rank: int):
    """Each rank's shard is drawn from a different mix of the domains (its crawl partition)."""
    mix = np.full(N_DOMAINS, 0.1)
    mix[rank % N_DOMAINS] = 0.7
    return mix / mix.sum()


def shard(args, rank: int, split: str):
    tables = domain_tables()
    n = args.shard_docs if split == "train" else args.val_docs
    docs = make_docs(n, args.seed * 7919 + rank * 31 + (0 if split == "train" else 17), rank_mix(rank), tables)
    stream = [t for d in docs for t in d]
    S = args.seq + 1
    n_seq = len(stream) // S
    arr = torch.tensor(stream[: n_seq * S], dtype=torch.long).view(n_seq, 1, S)  # one row per sequence
    return [arr[i] for i in range(n_seq)], docs


def batches(seqs, batch: int, epoch: int, seed: int, shuffle: bool = True):
    order = torch.randperm(len(seqs), generator=torch.Generator().manual_seed(seed + epoch)) if shuffle else \
        torch.arange(len(seqs))
    for i in range(0, len(seqs), batch):
        rows = [seqs[j] for j in order[i:i + batch].tolist()]
        yield torch.stack(rows).squeeze()  # [B, 1, S] -> [B, S]


def producer_loop(args, rank, q, conn, seqs, docs):
    """Token-stream producer process: packs chunks of batches and queues them for the trainer."""
    torch.set_num_threads(1)
    epoch, sent = 0, 0
    lengths = [len(d) for d in docs]
    chunk = []
    while True:
        for b in batches(seqs, args.batch, epoch, args.seed + rank * 1000):
            if b.dim() == 2 and b.shape[0] == args.batch:
                chunk.append(b)
            if len(chunk) == args.chunk_batches:
                q.put(torch.stack(chunk))
                sent += 1
                if conn is not None:
                    hist = torch.bincount(torch.stack(chunk).flatten(), minlength=args.vocab).float()
                    conn.send({"chunk": sent, "epoch": epoch, "token_freq": (hist / hist.sum()).tolist(),
                               "doc_lengths": lengths[:200]})
                chunk = []
        epoch += 1


# ----------------------------------------------------------------------------------------------------------- model
class MoE(nn.Module):
    def __init__(self, d, hidden, n_exp, top_k, capacity_factor, fast_combine=False):
        super().__init__()
        self.n_exp, self.k, self.cf = n_exp, top_k, capacity_factor
        self.router = nn.Linear(d, n_exp, bias=False)
        self.w1 = nn.Parameter(torch.randn(n_exp, d, hidden) * d ** -0.5)
        self.b1 = nn.Parameter(torch.zeros(n_exp, 1, hidden))
        self.w2 = nn.Parameter(torch.randn(n_exp, hidden, d) * hidden ** -0.5)
        self.fast_combine = fast_combine
        self.balance = "switch"
        self.counts = torch.zeros(n_exp)
        self.last_dropped, self.last_total = 0, 0

    def forward(self, x):
        B, S, d = x.shape
        x = x.reshape(-1, d)
        T, E = x.shape[0], self.n_exp
        cap = max(1, int(self.cf * T * self.k / E))
        probs = F.softmax(self.router(x), dim=-1)
        gval, gidx = probs.topk(self.k, dim=-1)
        gval = gval / gval.sum(-1, keepdim=True)
        dispatch = x.new_zeros(T, E, cap)
        combine = x.new_zeros(T, E, cap)
        filled = torch.zeros(E, dtype=torch.long)
        slots, kept_all = [], []
        dropped = 0
        for j in range(self.k):
            mask = F.one_hot(gidx[:, j], E)
            pos = torch.cumsum(mask, 0) - 1 + filled
            pos = (pos * mask).sum(-1)
            keep = pos < cap
            dropped += int((~keep).sum())
            filled += (mask * keep.unsqueeze(-1)).sum(0)
            e = gidx[:, j]
            t = torch.nonzero(keep).squeeze(-1)
            dispatch[t, e[t], pos[t]] = 1.0
            combine[t, e[t], pos[t]] = gval[t, j]
            slots.append(torch.where(keep, e * cap + pos, torch.full_like(pos, -1)).to(torch.int32))
        with torch.no_grad():
            self.counts += filled.float()
        self.last_dropped, self.last_total = dropped, T * self.k
        xin = torch.einsum("tec,td->ecd", dispatch, x)
        h = F.gelu(torch.bmm(xin, self.w1) + self.b1)
        out_e = torch.bmm(h, self.w2)  # [E, cap, d]
        if self.fast_combine:
            from torch.utils.cpp_extension import load_inline
            ext = load_inline("moe_combine", cpp_sources=COMBINE_SRC, functions=["combine_rows"],
                              extra_cflags=["-O2"], verbose=False)
            flat = out_e.reshape(E * cap, d).contiguous()
            y = torch.zeros_like(x)
            with torch.no_grad():
                for j in range(self.k):
                    ext.combine_rows(flat, slots[j], gval[:, j].contiguous(), y)
            y_ref = torch.einsum("tec,ecd->td", combine, out_e)
            y = y_ref + (y - y_ref).detach()
        else:
            y = torch.einsum("tec,ecd->td", combine, out_e)
        if self.balance == "kl-seq":  # per sequence: KL(router mass || realised top-1 load)
            f_seq = F.one_hot(gidx[:, 0], E).float().view(B, S, E).mean(1)
            p_seq = probs.view(B, S, E).mean(1)
            aux = (p_seq * torch.log(p_seq / f_seq)).sum(-1).mean()
        else:  # Switch Transformer: E * sum(fraction routed * mean router probability)
            frac = F.one_hot(gidx[:, 0], E).float().mean(0)
            aux = E * (frac * probs.mean(0)).sum()
        return y.view(B, S, d), aux

    def prune(self, keep_idx):
        keep_idx = torch.as_tensor(keep_idx)
        with torch.no_grad():
            self.router.weight = nn.Parameter(self.router.weight[keep_idx].clone())
            self.w1 = nn.Parameter(self.w1[keep_idx].clone())
            self.b1 = nn.Parameter(self.b1[keep_idx].clone())
            self.w2 = nn.Parameter(self.w2[keep_idx].clone())
        self.n_exp = len(keep_idx)
        self.counts = torch.zeros(self.n_exp)


class Block(nn.Module):
    def __init__(self, d, heads, moe: MoE):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.moe = moe

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        y, aux = self.moe(self.ln2(x))
        return x + y, aux


class MoELM(nn.Module):
    def __init__(self, args):
        super().__init__()
        d = args.d_model
        self.tok = nn.Embedding(args.vocab, d)
        self.pos = nn.Embedding(args.seq, d)
        self.blocks = nn.ModuleList(
            Block(d, args.heads, MoE(d, args.d_ff, args.experts, args.top_k, args.capacity_factor, args.fast_combine))
            for _ in range(args.layers))
        self.ln = nn.LayerNorm(d)
        for b in self.blocks:
            b.moe.balance = args.balance_loss
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)

    def forward(self, ids):
        S = ids.shape[1]
        x = self.tok(ids) + self.pos(torch.arange(S))
        mask = torch.triu(torch.full((S, S), float("-inf")), 1)
        aux = 0.0
        for b in self.blocks:
            x, a = b(x, mask)
            aux = aux + a
        return self.ln(x) @ self.tok.weight.T, aux / len(self.blocks)  # tied output head

    def moes(self):
        return [b.moe for b in self.blocks]


def lm_loss(model, batch, aux_coef):
    inp, tgt = batch[:, :-1], batch[:, 1:]
    logits, aux = model(inp)
    ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=PAD)
    return ce, aux, ce + aux_coef * aux


@torch.no_grad()
def evaluate(model, val, args, rank, world):
    m = model.module if hasattr(model, "module") else model
    m.eval()
    tot = torch.zeros(2, dtype=torch.float64)
    kept_probs = []
    for b in batches(val, args.eval_batch, 0, 0, shuffle=False):
        if b.dim() == 1:
            b = b.unsqueeze(0)
        inp, tgt = b[:, :-1], b[:, 1:]
        logits, _ = m(inp)
        ce = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), tgt.reshape(-1), ignore_index=PAD,
                             reduction="sum")
        tot += torch.tensor([ce.item(), float((tgt != PAD).sum())], dtype=torch.float64)
        if args.calibration:
            kept_probs.append(F.softmax(logits.double(), -1).reshape(-1, logits.shape[-1]))
    if args.calibration:
        probs = torch.cat(kept_probs)
        conf = probs.max(-1).values
        log(f"calibration: {probs.shape[0]} tokens, mean confidence {conf.mean():.3f}", rank)
    if args.samples and rank == 0:
        sample(m, args, rank)
    if world > 1:
        dist.all_reduce(tot)
    m.train()
    return math.exp(tot[0] / tot[1]), tot[0] / tot[1]


@torch.no_grad()
def sample(m, args, rank):
    """Rank 0 writes a few free-running samples for the eval report (one sequence at a time, stops at EOS)."""
    g = torch.Generator().manual_seed(0)
    t0 = time.time()
    for i in range(args.samples):
        ids = torch.tensor([[BOS, FIRST + 7 * i % (LAST - FIRST)]])
        for _ in range(args.sample_len):
            logits, _ = m(ids[:, -args.seq:])
            nxt = torch.multinomial(F.softmax(logits[0, -1] / 0.8, -1), 1, generator=g)
            ids = torch.cat([ids, nxt.view(1, 1)], 1)
            if int(nxt) == args.eos_id:
                break
        if i < 3:
            log(f"sample {i}: {' '.join(map(str, ids[0, :16].tolist()))} ... ({ids.shape[1]} tokens)", rank)
    log(f"wrote {args.samples} samples in {time.time() - t0:.1f} s", rank)


def expert_load_str(m):
    out = []
    for li, moe in enumerate(m.moes()):
        f = moe.counts / moe.counts.sum().clamp(min=1)
        out.append(f"L{li}: " + " ".join(f"{v:.2f}" for v in f.tolist()))
    return " | ".join(out)


# ---------------------------------------------------------------------------------------------------------- train
def train(rank: int, world: int, args, init: bool = True) -> None:
    torch.set_num_threads(1)
    torch.manual_seed(args.seed)
    if init:
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29600")
        from datetime import timedelta
        if rank == 0:
            log(f"init_process_group gloo world_size={world} master={os.environ['MASTER_ADDR']}:"
                f"{os.environ['MASTER_PORT']} timeout={args.pg_timeout}s", rank)
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))
    seqs, docs = shard(args, rank, "train")
    val, _ = shard(args, rank, "val")
    n_batches = math.ceil(len(seqs) / args.batch)
    log(f"train shard: {len(docs)} docs, {sum(map(len, docs))} tokens, {len(seqs)} sequences of {args.seq + 1}, "
        f"{n_batches} batches/epoch (last {len(seqs) - (n_batches - 1) * args.batch}); val {len(val)} sequences",
        rank)
    model = MoELM(args)
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        ne = sum(p.numel() for mo in model.moes() for p in (mo.w1, mo.b1, mo.w2))
        log(f"model: {args.layers} layers d={args.d_model} experts={args.experts} top{args.top_k} "
            f"capacity_factor={args.capacity_factor} balance_loss={args.balance_loss} vocab={args.vocab}: {n / 1e6:.2f}M params ({ne / 1e6:.2f}M in experts)",
            rank)
        if args.fast_combine:
            log("expert combine: moe_combine C++ extension (load_inline, compact 32-bit slot indices)", rank)
        log(f"optimizer AdamW lr={args.lr} betas=(0.9, 0.95) eps={args.adam_eps} wd=0.1 warmup={args.warmup}", rank)
    ddp = nn.parallel.DistributedDataParallel(model) if world > 1 else model
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), eps=args.adam_eps, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: min(1.0, (s + 1) / args.warmup))
    producer = None
    if args.producer:
        import torch.multiprocessing as tmp
        ctx = tmp.get_context("fork")
        q = ctx.Queue(maxsize=args.prefetch)
        rx, tx = ctx.Pipe(duplex=False) if args.producer_stats else (None, None)
        producer = ctx.Process(target=producer_loop, args=(args, rank, q, tx, seqs, docs), daemon=True)
        producer.start()
        log(f"token producer pid {producer.pid}: chunks of {args.chunk_batches} batches, prefetch {args.prefetch}",
            rank)

        def stream():
            while True:
                chunk = q.get()
                for b in chunk:
                    yield b
        it = stream()
        args.drain_stats = (lambda: sum(1 for _ in iter(lambda: rx.poll() and rx.recv(), False))) if rx else None
    else:
        def stream():
            ep = 0
            while True:
                for b in batches(seqs, args.batch, ep, args.seed + rank * 1000):
                    yield b
                ep += 1
                if rank == 0:
                    log(f"epoch {ep} done", rank)
        it = stream()
    t0, seen = time.time(), 0
    for step in range(1, args.steps + 1):
        b = next(it)
        inp, tgt = b[:, :-1], b[:, 1:]
        ce, aux, loss = lm_loss(ddp, b, args.aux_coef)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if args.clip > 0:
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        opt.step()
        sched.step()
        seen += inp.numel()
        if step % args.log_every == 0 and rank == 0:
            dr = sum(m.last_dropped for m in model.moes()) / max(1, sum(m.last_total for m in model.moes()))
            log(f"step {step}/{args.steps} | loss {ce.item():.4f} | aux {aux.item():.3f} | ppl {math.exp(min(ce.item(), 50)):.1f}"
                f" | dropped {100 * dr:.1f}% | lr {sched.get_last_lr()[0]:.2e} | {seen * world / (time.time() - t0):.0f} tok/s",
                rank)
            if dr > args.drop_warn:
                log(f"WARNING: {100 * dr:.1f}% of routed tokens exceeded expert capacity "
                    f"(capacity_factor={args.capacity_factor}); consider raising it", rank)
        if args.prune_at and step == args.prune_at:
            for li, mo in enumerate(model.moes()):
                load = mo.counts / mo.counts.sum()
                keep = [i for i, v in enumerate(load.tolist()) if v >= args.prune_min_load]
                cold = [i for i in range(mo.n_exp) if i not in keep]
                log(f"expert load L{li}: " + " ".join(f"{v:.3f}" for v in load.tolist())
                    + (f" -> pruning cold experts {cold}" if cold else " -> keeping all"), rank)
                if cold:
                    mo.prune(keep)
            ddp = nn.parallel.DistributedDataParallel(model) if world > 1 else model
            opt = torch.optim.AdamW(model.parameters(), lr=args.lr, betas=(0.9, 0.95), eps=args.adam_eps,
                                    weight_decay=0.1)
            sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 1.0)
            log("re-wrapped model after pruning", rank)
        if step % args.eval_every == 0 or step == args.steps:
            if getattr(args, "drain_stats", None):
                log(f"producer stats: {args.drain_stats()} chunk reports", rank)
            ppl, vl = evaluate(ddp, val, args, rank, world)
            if rank == 0:
                log(f"eval step {step}: val_loss {vl:.4f} val_ppl {ppl:.2f} | expert load {expert_load_str(model)}",
                    rank)
                os.makedirs(args.ckpt_dir, exist_ok=True)
                path = os.path.join(args.ckpt_dir, f"step-{step:05d}.pt")
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
                log(f"saved checkpoint {path}", rank)
            if args.report is not None:
                args.report({"step": step, "val_ppl": ppl})
    if rank == 0:
        log(f"done ({args.steps} steps, {time.time() - t0:.0f} s)", rank)
    if producer is not None:
        producer.terminate()
    if init:
        dist.destroy_process_group()


def spawn_main(args) -> None:
    nprocs = args.nprocs or len(os.sched_getaffinity(0))
    world = args.world_size or os.cpu_count()
    log(f"launching {nprocs} local rank(s) for world size {world}")
    torch.multiprocessing.spawn(train, args=(world, args), nprocs=nprocs)
    log("all ranks finished")


def ddp_main(args) -> None:
    train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), args)


def lightning_main(args) -> None:
    import lightning as L
    from torch.utils.data import DataLoader, Dataset

    class Seqs(Dataset):
        def __init__(self, rows):
            self.rows = rows

        def __len__(self):
            return len(self.rows)

        def __getitem__(self, i):
            return self.rows[i][0]

    class LitMoE(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = MoELM(args)
            self.t0 = time.time()

        def training_step(self, batch, i):
            ce, aux, loss = lm_loss(self.model, batch, args.aux_coef)
            self.log("train_loss", ce)
            if (self.global_step + 1) % args.log_every == 0 and self.global_rank == 0:
                dr = sum(m.last_dropped for m in self.model.moes()) / max(1, sum(m.last_total for m in self.model.moes()))
                log(f"step {self.global_step + 1}/{args.steps} | loss {ce.item():.4f} | aux {aux.item():.3f} | "
                    f"dropped {100 * dr:.1f}% | {time.time() - self.t0:.0f} s", self.global_rank)
            return loss

        def validation_step(self, batch, i):
            ce, _, _ = lm_loss(self.model, batch, 0.0)
            self.log("val_loss", ce, sync_dist=True, batch_size=batch.shape[0])

        def on_validation_epoch_end(self):
            if self.global_rank == 0 and not self.trainer.sanity_checking:
                v = float(self.trainer.callback_metrics.get("val_loss", float("nan")))
                log(f"eval step {self.global_step}: val_loss {v:.4f} val_ppl {math.exp(v):.2f} | expert load "
                    f"{expert_load_str(self.model)}", 0)

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=args.lr, betas=(0.9, 0.95), eps=args.adam_eps,
                                    weight_decay=0.1)
            return opt

    torch.set_num_threads(1)
    rank = int(os.environ.get("LOCAL_RANK", 0))  # set by Lightning's launcher for the ranks it starts
    seqs, _ = shard(args, rank, "train")
    val, _ = shard(args, rank, "val")
    train_loader = DataLoader(Seqs(seqs), batch_size=args.batch, shuffle=True, drop_last=True)
    val_loader = DataLoader(Seqs(val), batch_size=args.eval_batch)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_steps=args.steps,
                        val_check_interval=args.eval_every, check_val_every_n_epoch=None, log_every_n_steps=10,
                        default_root_dir=args.ckpt_dir, enable_progress_bar=False, use_distributed_sampler=False)
    trainer.fit(LitMoE(), train_loader, val_loader)
    if trainer.global_rank == 0:
        log(f"fit finished: {trainer.callback_metrics}")


def ray_main(args) -> None:
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))

    def loop(cfg):
        import ray.train
        ctx = ray.train.get_context()
        args.report = None
        train(ctx.get_world_rank(), ctx.get_world_size(), args, init=False)

    trainer = TorchTrainer(loop, scaling_config=ScalingConfig(num_workers=args.nprocs,
                                                              resources_per_worker={"CPU": args.cpus_per_worker}),
                           torch_config=TorchConfig(backend="gloo", timeout_s=args.pg_timeout),
                           run_config=RunConfig(name="moe-lm", storage_path=os.path.abspath(args.ckpt_dir) + "/ray"))
    result = trainer.fit()
    log(f"ray train finished: {result}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "ray"])
    ap.add_argument("--nprocs", type=int, default=0)
    ap.add_argument("--world-size", type=int, default=0)
    ap.add_argument("--cpus-per-worker", type=float, default=0.5)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--eval-batch", type=int, default=32)
    ap.add_argument("--seq", type=int, default=64)
    ap.add_argument("--vocab", type=int, default=320)
    ap.add_argument("--d-model", type=int, default=64)
    ap.add_argument("--d-ff", type=int, default=128)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--experts", type=int, default=4)
    ap.add_argument("--top-k", type=int, default=2)
    ap.add_argument("--capacity-factor", type=float, default=1.5)
    ap.add_argument("--aux-coef", type=float, default=0.01)
    ap.add_argument("--balance-loss", choices=["switch", "kl-seq"], default="switch")
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--adam-eps", type=float, default=1e-8)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--drop-warn", type=float, default=0.05)
    ap.add_argument("--shard-docs", type=int, default=600)
    ap.add_argument("--val-docs", type=int, default=60)
    ap.add_argument("--calibration", action="store_true")
    ap.add_argument("--samples", type=int, default=0)
    ap.add_argument("--sample-len", type=int, default=200)
    ap.add_argument("--eos-id", type=int, default=EOS)
    ap.add_argument("--fast-combine", action="store_true")
    ap.add_argument("--prune-at", type=int, default=0)
    ap.add_argument("--prune-min-load", type=float, default=0.05)
    ap.add_argument("--producer", action="store_true")
    ap.add_argument("--producer-stats", action="store_true")
    ap.add_argument("--prefetch", type=int, default=4)
    ap.add_argument("--chunk-batches", type=int, default=8)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.report = None
    if args.mode in ("lightning", "ray") and not args.nprocs:
        args.nprocs = 2
    {"spawn": spawn_main, "ddp": ddp_main, "lightning": lightning_main, "ray": ray_main}[args.mode](args)


if __name__ == "__main__":
    main()
