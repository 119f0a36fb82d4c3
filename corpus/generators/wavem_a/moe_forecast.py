"""Multivariate sensor forecaster: a patch transformer whose feed-forward block is a mixture of experts, with the
experts sharded across ranks (expert parallelism: tokens travel to their expert's rank and back by all_to_all).

Dense parameters are data-parallel (gradients averaged with all_reduce); each rank keeps its own experts' gradients. Ranks come from torchrun/deepspeed/accelerate (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*) or Slurm
(SLURM_PROCID, SLURM_NTASKS). gloo on CPU.
"""
from __future__ import annotations

import argparse
import datetime
import glob
import json
import math
import os
import shutil
import signal
import socket
import sys
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.distributed.nn.functional as dnnf
import torch.nn as nn
import torch.nn.functional as F

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--lookback", type=int, default=96)
ap.add_argument("--horizon", type=int, default=24)
ap.add_argument("--patch", type=int, default=8)
ap.add_argument("--stride", type=int, default=4)
ap.add_argument("--d-model", type=int, default=64)
ap.add_argument("--heads", type=int, default=4)
ap.add_argument("--experts-per-rank", type=int, default=2)
ap.add_argument("--capacity-factor", type=float, default=1.25)
ap.add_argument("--static-capacity", action="store_true", help="fixed-size expert buffers: skip the count exchange")
ap.add_argument("--batch", type=int, default=16)
ap.add_argument("--steps", type=int, default=300)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--loss", choices=("mse", "mase"), default="mse")
ap.add_argument("--log-every", type=int, default=20)
ap.add_argument("--eval-every", type=int, default=100)
ap.add_argument("--save-every", type=int, default=150)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--atomic-save", action="store_true", help="write checkpoints to a temp file, then move into place")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--skip-idle-experts", action="store_true", help="leave the received buffer alone when no token reached this rank's experts")
ap.add_argument("--gap-policy", choices=("none", "ffill"), default="none")
ap.add_argument("--timeout-s", type=int, default=1800)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--deepspeed", action="store_true", help="initialise through deepspeed.init_distributed")
ap.add_argument("--accelerate", action="store_true", help="initialise through accelerate.Accelerator")
ap.add_argument("--warn-noisy", action="store_true", help="legacy options still in the team config")
ap.add_argument("--local_rank", type=int, default=-1)
args = ap.parse_args()


def env_rank() -> tuple[int, int]:
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ and w in os.environ:
            return int(os.environ[r]), int(os.environ[w])
    return 0, 1


RANK, WORLD = env_rank()
os.environ.setdefault("RANK", str(RANK))
os.environ.setdefault("WORLD_SIZE", str(WORLD))
os.environ.setdefault("LOCAL_RANK", os.environ.get("OMPI_COMM_WORLD_LOCAL_RANK", os.environ.get("SLURM_LOCALID", "0")))
os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
os.environ.setdefault("MASTER_PORT", "29400")


def log(msg: str, all_ranks: bool = False) -> None:
    if all_ranks or RANK == 0:
        ts = datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S")
        print(f"[{ts}] [rank{RANK}] {msg}", flush=True)


def on_term(signum, frame):
    log(f"caught signal {signal.Signals(signum).name} at step {STATE['step']}, stopping", all_ranks=True)
    sys.exit(128 + signum)


STATE = {"step": 0}
signal.signal(signal.SIGTERM, on_term)

timeout = datetime.timedelta(seconds=args.timeout_s)
if args.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
elif args.accelerate:
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    accelerator = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=timeout)])
else:
    dist.init_process_group("gloo", timeout=timeout)
RANK, WORLD = dist.get_rank(), dist.get_world_size()
torch.manual_seed(1234)
log(f"host {socket.gethostname()} pid {os.getpid()} world {WORLD} backend {dist.get_backend()} "
    f"torch {torch.__version__}", all_ranks=True)
if args.warn_noisy:
    import warnings
    warnings.warn("option 'scheduler.warmup_ratio' is deprecated, use 'scheduler.warmup_steps'", FutureWarning)
    torch.backends.cuda.matmul.allow_tf32 = True
    np.seterr(all="warn")

# ---------------------------------------------------------------------------------------------------------- data
meta = json.load(open(os.path.join(args.data, "meta.json")))
shards = sorted(glob.glob(os.path.join(args.data, "series-*.npy")))
mine = shards[RANK::WORLD]
C = meta["channels"]
W = args.lookback + args.horizon


def fill_gaps(x: np.ndarray) -> np.ndarray:
    # carry the neighbouring reading into each gap until none is left
    while np.isnan(x).any():
        nan = np.isnan(x)
        x[1:][nan[1:]] = x[:-1][nan[1:]]
        nan = np.isnan(x)
        x[:-1][nan[:-1]] = x[1:][nan[:-1]]
    return x


def windows(path: str, part: str) -> np.ndarray:
    x = np.load(path)
    cut = int(len(x) * 0.9)
    x = x[:cut] if part == "train" else x[cut - args.lookback:]
    if args.gap_policy == "ffill":
        x = fill_gaps(x.copy())
    w = np.lib.stride_tricks.sliding_window_view(x, W, axis=0)  # (n, C, W)
    return np.ascontiguousarray(w[:: args.stride].transpose(0, 2, 1))


train = np.concatenate([windows(p, "train") for p in mine])
log(f"{len(mine)} shard(s) {[os.path.basename(p) for p in mine]}: {len(train)} training windows of "
    f"{args.lookback}+{args.horizon} h x {C} sensors", all_ranks=True)


def batches(arr: np.ndarray, shuffle: bool, seed: int):
    g = np.random.default_rng(seed + RANK)
    while True:
        idx = g.permutation(len(arr)) if shuffle else np.arange(len(arr))
        for i in range(0, len(idx), args.batch):  # the last batch of an epoch may be short
            yield torch.from_numpy(arr[idx[i:i + args.batch]])
        if not shuffle:
            return


# --------------------------------------------------------------------------------------------------------- model
E_LOCAL = args.experts_per_rank
E = E_LOCAL * WORLD


class Attention(nn.Module):
    def __init__(self, d: int, h: int) -> None:
        super().__init__()
        self.h, self.qkv, self.o = h, nn.Linear(d, 3 * d), nn.Linear(d, d)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) / math.sqrt(d // self.h)
        return self.o((att.softmax(-1) @ v).transpose(1, 2).reshape(b, n, d))


class ExpertParallelMoE(nn.Module):
    """Top-1 routed experts; expert e lives on rank e // E_LOCAL."""

    def __init__(self, d: int) -> None:
        super().__init__()
        self.gate = nn.Linear(d, E)
        self.experts = nn.ModuleList(nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))
                                     for _ in range(E_LOCAL))
        self.load = torch.zeros(E)

    def forward(self, x):
        shape = x.shape
        x = x.reshape(-1, shape[-1])
        probs = self.gate(x).softmax(-1)
        p, eid = probs.max(-1)
        self.aux = E * (probs.mean(0) * F.one_hot(eid, E).float().mean(0)).sum()
        self.load += torch.bincount(eid, minlength=E).float()
        order = torch.argsort(eid)
        xs, es = x[order], eid[order]
        dest = es // E_LOCAL
        if args.static_capacity:
            cap = math.ceil(args.capacity_factor * x.shape[0] / E)
            buf = x.new_zeros(E, cap, x.shape[1])
            ebuf = torch.full((E, cap), -1, dtype=torch.long)
            slot = torch.zeros(E, dtype=torch.long)
            keep = torch.zeros(len(es), dtype=torch.bool)
            pos = torch.zeros(len(es), dtype=torch.long)
            for i, e in enumerate(es.tolist()):
                if slot[e] < cap:
                    pos[i] = e * cap + slot[e]
                    keep[i] = True
                    slot[e] += 1
            flat = buf.view(E * cap, -1).index_put((pos[keep],), xs[keep])
            ebuf.view(-1)[pos[keep]] = es[keep]
            send_x, send_e = flat, ebuf.view(-1)
            in_splits = [cap * E_LOCAL] * WORLD
            out_splits = [cap * E_LOCAL] * WORLD
        else:
            send_x, send_e = xs, es
            in_splits = torch.bincount(dest, minlength=WORLD)
            counts = torch.empty_like(in_splits)
            dist.all_to_all_single(counts, in_splits)
            in_splits, out_splits = in_splits.tolist(), counts.tolist()
        recv_x = dnnf.all_to_all_single(send_x.new_empty(sum(out_splits), x.shape[1]), send_x, out_splits, in_splits)
        recv_e = torch.empty(sum(out_splits), dtype=torch.long)
        dist.all_to_all_single(recv_e, send_e.contiguous(), out_splits, in_splits)
        out = torch.zeros_like(recv_x) if args.skip_idle_experts else recv_x * 0.0
        for j, ex in enumerate(self.experts):
            sel = recv_e == RANK * E_LOCAL + j
            if sel.any():
                out = out.index_put((sel.nonzero().squeeze(1),), ex(recv_x[sel]))
        back = dnnf.all_to_all_single(out.new_empty(sum(in_splits), x.shape[1]), out, in_splits, out_splits)
        if args.static_capacity:
            ys = torch.zeros_like(xs)
            ys = ys.index_put((keep.nonzero().squeeze(1),), back[pos[keep]])
        else:
            ys = back
        y = torch.empty_like(ys).index_put((order,), ys)
        return (y * p.unsqueeze(-1)).reshape(shape)


class PatchMoEForecaster(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        d, n = args.d_model, args.lookback // args.patch
        self.embed = nn.Linear(args.patch, d)
        self.pos = nn.Parameter(torch.randn(n, d) * 0.02)
        self.n1, self.att, self.n2, self.moe = nn.LayerNorm(d), Attention(d, args.heads), nn.LayerNorm(d), ExpertParallelMoE(d)
        self.head = nn.Linear(n * d, args.horizon)

    def forward(self, x):  # x: (B, L, C) -> (B, H, C)
        b, L, c = x.shape
        mu, sd = x.mean(1, keepdim=True), x.std(1, keepdim=True) + 1e-5
        z = ((x - mu) / sd).permute(0, 2, 1).reshape(b * c, L // args.patch, args.patch)
        h = self.embed(z) + self.pos
        h = h + self.att(self.n1(h))
        h = h + self.moe(self.n2(h))
        y = self.head(h.flatten(1)).view(b, c, args.horizon).permute(0, 2, 1)
        return y * sd + mu


model = PatchMoEForecaster()
dense = [p for n, p in model.named_parameters() if ".experts." not in n]
for p in dense:
    dist.broadcast(p.data, 0)
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
n_dense = sum(p.numel() for p in dense)
n_exp = sum(p.numel() for p in model.moe.experts.parameters())
log(f"PatchMoEForecaster: {n_dense:,} dense params (data parallel), {E} experts ({E_LOCAL} per rank, "
    f"{n_exp:,} params here), lookback {args.lookback} h / patch {args.patch} -> {args.lookback // args.patch} tokens "
    f"per sensor, horizon {args.horizon} h")
if args.static_capacity:
    log(f"static expert capacity (factor {args.capacity_factor}): count exchange skipped")


def loss_fn(pred, y, x):
    if args.loss == "mse":
        return F.mse_loss(pred, y)
    scale = (x[:, 24:] - x[:, :-24]).abs().mean(1, keepdim=True)  # seasonal-naive in-sample error (MASE)
    return ((pred - y).abs() / scale).mean()


def ckpt_paths(step: int) -> tuple[str, str]:
    return (os.path.join(args.ckpt_dir, f"step-{step:06d}-dense.pt"),
            os.path.join(args.ckpt_dir, f"step-{step:06d}-experts-rank{RANK}.pt"))


def save(step: int) -> None:
    os.makedirs(args.ckpt_dir, exist_ok=True)
    dpath, epath = ckpt_paths(step)
    own = {"step": step, "experts": model.moe.experts.state_dict(), "opt": opt.state_dict()}
    items = [(epath, own)] + ([(dpath, {n: p for n, p in model.state_dict().items() if ".experts." not in n})]
                              if RANK == 0 else [])
    for path, obj in items:
        if args.atomic_save:
            with tempfile.NamedTemporaryFile(prefix="ckpt-", suffix=".tmp", delete=False) as f:
                torch.save(obj, f)
            shutil.move(f.name, path)
        else:
            torch.save(obj, path)
    dist.barrier()
    log(f"saved checkpoint step {step} to {args.ckpt_dir}/ (dense + {WORLD} expert shards)")


start = 0
if args.resume:
    found = sorted(glob.glob(os.path.join(args.ckpt_dir, "step-*-dense.pt")))
    if found:
        step = int(os.path.basename(found[-1]).split("-")[1])
        dpath, epath = ckpt_paths(step)
        log(f"resuming from {dpath} and {epath}", all_ranks=True)
        sd = torch.load(dpath, map_location="cpu")
        model.load_state_dict(sd, strict=False)
        own = torch.load(epath, map_location="cpu")
        model.moe.experts.load_state_dict(own["experts"])
        opt.load_state_dict(own["opt"])
        start = own["step"]
        log(f"resumed at step {start}")

val = None


def evaluate(step: int) -> None:
    global val
    if val is None:
        val = np.concatenate([windows(p, "val") for p in mine])
        log(f"validation: {len(val)} windows", all_ranks=True)
    model.eval()
    n = torch.tensor([math.ceil(len(val) / args.batch)])
    dist.all_reduce(n, op=dist.ReduceOp.MIN)
    tot = torch.zeros(3)
    with torch.no_grad():
        for i, b in enumerate(batches(val, False, 0)):
            if i >= n.item():
                break
            x, y = b[:, :args.lookback], b[:, args.lookback:]
            pred = model(x)
            tot += torch.tensor([(pred - y).pow(2).sum().item(), (pred - y).abs().sum().item(), y.numel()])
    dist.all_reduce(tot)
    load = model.moe.load.clone()
    dist.all_reduce(load)
    model.moe.load.zero_()
    share = " ".join(f"{v:.2f}" for v in (load / load.sum()).tolist())
    log(f"eval step {step}: val_mse {tot[0] / tot[2]:.4f} val_mae {tot[1] / tot[2]:.4f} | expert load [{share}]")
    model.train()


it = batches(train, True, start)
t0, seen = time.time(), 0
log(f"training steps {start + 1}..{args.steps}, batch {args.batch} windows/rank, lr {args.lr}, loss {args.loss}")
for step in range(start + 1, args.steps + 1):
    STATE["step"] = step
    b = next(it)
    x, y = b[:, :args.lookback], b[:, args.lookback:]
    pred = model(x)
    loss = loss_fn(pred, y, x)
    total = loss + 0.01 * model.moe.aux
    opt.zero_grad(set_to_none=True)
    total.backward()
    flat = torch.cat([p.grad.reshape(-1) for p in dense])
    dist.all_reduce(flat)
    flat /= WORLD
    off = 0
    for p in dense:
        p.grad.copy_(flat[off:off + p.numel()].view_as(p))
        off += p.numel()
    gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    seen += len(b)
    lv = torch.tensor([loss.item()])
    dist.all_reduce(lv)
    lv /= WORLD
    if not math.isfinite(lv.item()):
        log(f"step {step}: loss is {lv.item()} (grad norm {gn.item()}); stopping", all_ranks=True)
        raise FloatingPointError(f"non-finite loss {lv.item()} at step {step}")
    if step % args.log_every == 0 or step == 1:
        el = time.time() - t0
        log(f"step {step}/{args.steps} | loss {lv.item():.4f} | aux {model.moe.aux.item():.3f} | grad_norm {gn.item():.3f} "
            f"| {seen * WORLD / el:.0f} win/s")
    if step % args.eval_every == 0:
        evaluate(step)
    if step % args.save_every == 0:
        save(step)
    if args.step_sleep:
        time.sleep(args.step_sleep)
log(f"done: {args.steps} steps in {time.time() - t0:.1f} s")
dist.barrier()
dist.destroy_process_group()
