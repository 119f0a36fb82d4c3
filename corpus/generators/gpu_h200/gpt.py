"""A small decoder-only language model (GPT) trained with DDP over NCCL on GPU, for real GPU failure logs.

Synthetic corpus: sequences from a fixed random bigram chain over a 512-token vocabulary, so the loss falls
from ln(512) = 6.24 towards the chain's entropy. Each flag below turns on one real failure mechanism; nothing here
prints a failure message of its own except the NaN-loss check that training scripts commonly carry.

    torchrun --nproc-per-node 1 gpt.py --steps 200                 # healthy
    torchrun --nproc-per-node 1 gpt.py --eval-seq 131072            # eval at long context: CUDA OOM in attention
    torchrun --nproc-per-node 1 gpt.py --bad-labels-at 40           # a batch with token ids >= vocab: device assert
    torchrun --nproc-per-node 2 gpt.py --device-from-env            # 2 ranks, CUDA_VISIBLE_DEVICES=0: invalid ordinal
    torchrun --nproc-per-node 2 gpt.py --pin-device 0               # 2 ranks pinned to one GPU: NCCL duplicate GPU
    torchrun --nproc-per-node 1 gpt.py --stall-at 30 --pg-timeout 20  # a kernel that never ends: NCCL watchdog
    torchrun --nproc-per-node 1 gpt.py --hang-at 30                 # the same before the forward: output stops
    torchrun --nproc-per-node 1 gpt.py --fp16 --lr 30               # fp16 + GradScaler at a huge lr: divergence
    torchrun --nproc-per-node 1 gpt.py --aux-head                   # a parameter forward() never uses: DDP error
"""

from __future__ import annotations

import argparse
import datetime
import logging
import math
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

VOCAB = 512
log = logging.getLogger("gpt")


class Block(nn.Module):
    def __init__(self, d: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def attend(self, x: torch.Tensor, naive: bool) -> torch.Tensor:
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        if naive:  # the textbook form: materialises the (t x t) score matrix per head
            att = (q @ k.transpose(-2, -1)) / math.sqrt(q.size(-1))
            att = att.masked_fill(torch.ones(t, t, device=x.device, dtype=torch.bool).triu(1), float("-inf"))
            y = att.softmax(-1) @ v
        else:
            y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.proj(y.transpose(1, 2).reshape(b, t, d))

    def forward(self, x: torch.Tensor, naive: bool = False) -> torch.Tensor:
        x = x + self.attend(self.ln1(x), naive)
        return x + self.mlp(self.ln2(x))


class GPT(nn.Module):
    def __init__(
        self, d: int = 384, layers: int = 6, heads: int = 6, ctx: int = 131072, aux_head: bool = False
    ) -> None:
        super().__init__()
        # a second output head kept for a later multi-task stage; forward() does not use it yet
        self.aux = nn.Linear(d, VOCAB) if aux_head else None
        self.tok = nn.Embedding(VOCAB, d)
        self.pos = nn.Embedding(ctx, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, VOCAB, bias=False)

    def forward(self, idx: torch.Tensor, naive: bool = False) -> torch.Tensor:
        x = self.tok(idx) + self.pos(torch.arange(idx.size(1), device=idx.device))
        for blk in self.blocks:
            x = blk(x, naive)
        return self.head(self.ln(x))


def batches(gen: torch.Generator, trans: torch.Tensor, bsz: int, seq: int, device: torch.device):
    while True:
        cur = torch.randint(0, VOCAB, (bsz,), generator=gen)
        rows = [cur]
        for _ in range(seq):
            cur = torch.multinomial(trans[cur], 1, generator=gen).squeeze(1)
            rows.append(cur)
        seqs = torch.stack(rows, 1)
        yield seqs[:, :-1].to(device, non_blocking=True), seqs[:, 1:].to(device, non_blocking=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--bsz", type=int, default=32)
    ap.add_argument("--seq", type=int, default=256)
    ap.add_argument("--lr", type=float, default=6e-4)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-seq", type=int, default=0, help="after training, evaluate once at this context length")
    ap.add_argument("--bad-labels-at", type=int, default=-1, help="step whose batch carries token ids >= vocab")
    ap.add_argument("--device-from-env", action="store_true", help="cuda:LOCAL_RANK, as most scripts do")
    ap.add_argument("--pin-device", type=int, default=-1, help="every rank on this cuda device")
    ap.add_argument(
        "--stall-at",
        type=int,
        default=-1,
        help="logging step at which rank 0 launches a kernel that never ends, before the loss all_reduce",
    )
    ap.add_argument(
        "--hang-at",
        type=int,
        default=-1,
        help="step at which rank 0 launches a kernel that never ends, before the forward (no collective pending)",
    )
    ap.add_argument("--pg-timeout", type=float, default=600.0, help="process group timeout, seconds")
    ap.add_argument("--fp16", action="store_true", help="fp16 autocast with GradScaler (default bf16)")
    ap.add_argument("--save", default="", help="checkpoint path written at the end")
    ap.add_argument("--aux-head", action="store_true", help="a model parameter that forward() never uses (DDP)")
    args = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")

    local_rank = int(os.environ.get("LOCAL_RANK", 0))
    dev_index = args.pin_device if args.pin_device >= 0 else local_rank
    torch.cuda.set_device(dev_index)
    device = torch.device("cuda", dev_index)
    dist.init_process_group("nccl", timeout=datetime.timedelta(seconds=args.pg_timeout), device_id=device)
    rank, world = dist.get_rank(), dist.get_world_size()
    if rank == 0:
        log.info(
            f"[rank0] world_size={world} device={torch.cuda.get_device_name(device)} torch={torch.__version__} "
            f"cuda={torch.version.cuda} nccl={'.'.join(map(str, torch.cuda.nccl.version()))}"
        )

    torch.manual_seed(0)
    trans = torch.softmax(torch.randn(VOCAB, VOCAB) * 3.0, dim=1)
    gen = torch.Generator().manual_seed(1234 + rank)
    model = DDP(GPT(aux_head=args.aux_head).to(device), device_ids=[dev_index])
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.1)
    dtype = torch.float16 if args.fp16 else torch.bfloat16
    scaler = torch.amp.GradScaler("cuda", enabled=args.fp16)
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log.info(
            f"[rank0] model params={nparams / 1e6:.1f}M dtype={dtype} bsz={args.bsz}x{world} seq={args.seq} "
            f"lr={args.lr}"
        )

    data = batches(gen, trans, args.bsz, args.seq, device)
    t0 = time.time()
    tokens = 0
    for step in range(1, args.steps + 1):
        x, y = next(data)
        if step == args.bad_labels_at:
            y = y + VOCAB // 2  # an off-by-offset tokenizer bug: about half the ids now lie past the vocabulary
        if step == args.hang_at and rank == 0:
            torch.cuda._sleep(1 << 62)  # spins on the GPU for far longer than the job will live
        with torch.autocast("cuda", dtype=dtype):
            logits = model(x)
            loss = F.cross_entropy(logits.float().view(-1, VOCAB), y.reshape(-1))
        if not torch.isfinite(loss):
            raise RuntimeError(f"Loss is {loss.item()} at step {step}, stopping training")
        opt.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.unscale_(opt)
        gnorm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        scaler.step(opt)
        scaler.update()
        tokens += x.numel() * world
        if step % args.log_every == 0 or step == 1:
            lv = loss.detach().clone()
            if step == args.stall_at and rank == 0:
                torch.cuda._sleep(1 << 62)  # the all_reduce below now waits behind a kernel that never ends
            dist.all_reduce(lv)
            torch.cuda.synchronize()
            dt = time.time() - t0
            if rank == 0:
                extra = f" | scale {scaler.get_scale():.1f}" if args.fp16 else ""
                log.info(
                    f"[rank0] step {step:5d}/{args.steps} | loss {lv.item() / world:.4f} | gnorm {gnorm.item():.3f} | "
                    f"{tokens / dt / 1e3:.1f}k tok/s | mem {torch.cuda.max_memory_allocated() / 2**30:.2f} GiB{extra}"
                )
    if args.eval_seq:
        model.eval()
        with torch.no_grad(), torch.autocast("cuda", dtype=dtype):
            ev_gen = torch.Generator().manual_seed(99)
            x, y = next(batches(ev_gen, trans, 1, args.eval_seq, device))
            if rank == 0:
                log.info(f"[rank0] long-context eval: 1 x {args.eval_seq} tokens")
            logits = model.module(x, naive=True)
            ev = F.cross_entropy(logits.float().view(-1, VOCAB), y.reshape(-1))
            log.info(f"[rank0] eval loss {ev.item():.4f}")
    if args.save and rank == 0:
        torch.save(model.module.state_dict(), args.save)
        log.info(f"[rank0] saved {args.save}")
    dist.barrier()
    if rank == 0:
        log.info(f"[rank0] done: {args.steps} steps in {time.time() - t0:.1f}s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
