"""Class-conditional DDPM on synthetic 32x32 shape images: a small U-Net predicts the added noise, EMA weights,
classifier-free guidance (label dropout), periodic DDIM sampling from the EMA model, checkpoints.

Launch modes: ``spawn`` (torch.multiprocessing.spawn), ``ddp`` (under torchrun), ``lightning`` (Lightning Trainer,
DDP on CPU), ``ray`` (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import contextlib
import datetime
import fcntl
import json
import math
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ("circle", "square", "triangle", "hstripes", "vstripes", "ring", "cross", "dots", "diag", "checker")


# ----------------------------------------------------------------------------------------------------------------- data
def draw(rng: np.random.Generator, cls: int, size: int = 32) -> np.ndarray:
    yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
    cx, cy = rng.uniform(10, 22, 2)
    r = rng.uniform(5, 10)
    if cls == 0:
        m = (xx - cx) ** 2 + (yy - cy) ** 2 < r * r
    elif cls == 1:
        m = (abs(xx - cx) < r) & (abs(yy - cy) < r)
    elif cls == 2:
        m = (yy > cy - r) & (yy < cy + r) & (abs(xx - cx) < (yy - cy + r) / 2)
    elif cls == 3:
        m = (yy.astype(int) // int(2 + r / 3)) % 2 == 0
    elif cls == 4:
        m = (xx.astype(int) // int(2 + r / 3)) % 2 == 0
    elif cls == 5:
        d = np.sqrt((xx - cx) ** 2 + (yy - cy) ** 2)
        m = (d < r) & (d > r - 3)
    elif cls == 6:
        m = (abs(xx - cx) < 2) | (abs(yy - cy) < 2)
    elif cls == 7:
        m = ((xx.astype(int) % 6) < 2) & ((yy.astype(int) % 6) < 2)
    elif cls == 8:
        m = abs((xx - yy) % 8) < 3
    else:
        m = ((xx.astype(int) // 4 + yy.astype(int) // 4) % 2) == 0
    fg = rng.uniform(0.3, 1.0, 3)
    bg = rng.uniform(0.0, 0.3, 3)
    img = np.where(m[None], fg[:, None, None], bg[:, None, None]) + rng.normal(0, 0.03, (3, size, size))
    return (np.clip(img, 0, 1) * 255).astype(np.uint8)


def build_cache(path: str, n: int, seed: int) -> None:
    """Write the image cache as a .npy file, chunk by chunk (images are drawn on the fly)."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, len(CLASSES), n)
    with open(path, "wb") as f:
        np.lib.format.write_array_header_1_0(f, {"descr": "|u1", "fortran_order": False, "shape": (n, 3, 32, 32)})
        for lo in range(0, n, 256):
            chunk = np.stack([draw(rng, int(c)) for c in labels[lo:lo + 256]])
            f.write(chunk.tobytes())
            f.flush()
    np.save(path.replace(".npy", ".labels.npy"), labels)
    with open(path.replace(".npy", ".json"), "w") as f:
        json.dump({"n": n, "seed": seed, "generator": 3}, f)


def open_dataset(args, rank: int, world: int):
    os.makedirs(args.data_dir, exist_ok=True)
    path = os.path.join(args.data_dir, "shapes32.npy")
    meta_path = path.replace(".npy", ".json")
    if rank == 0 and not os.path.exists(path):
        print(f"[rank {rank}] building image cache {path} ({args.n_images} images)", flush=True)
        t0 = time.time()
        build_cache(path, args.n_images, args.seed)
        print(f"[rank {rank}] image cache ready in {time.time() - t0:.1f} s", flush=True)
    else:
        while not os.path.exists(path):
            time.sleep(0.1)
    images = np.load(path, mmap_mode="r")
    labels = None
    if world > 1 and args.barrier_after_cache:
        dist.barrier()
    if rank == 0 and args.verify_cache:
        meta = json.load(open(meta_path)) if os.path.exists(meta_path) else {}
        if meta.get("generator") != 3 or meta.get("seed") != args.seed or meta.get("n") != args.n_images:
            print(f"[rank 0] image cache {path} is stale ({meta}), rebuilding in place", flush=True)
            build_cache(path, args.n_images, args.seed)
            print("[rank 0] image cache rebuilt", flush=True)
    lab_path = path.replace(".npy", ".labels.npy")
    while not os.path.exists(lab_path):
        time.sleep(0.1)
    labels = np.load(lab_path)
    return images, labels


class Shapes(torch.utils.data.Dataset):
    def __init__(self, images, labels, idx, sched=None):
        self.images, self.labels, self.idx, self.sched = images, labels, idx, sched

    def __len__(self):
        return len(self.idx)

    def __getitem__(self, i):
        j = int(self.idx[i])
        x0 = torch.from_numpy(np.array(self.images[j], dtype=np.float32)) / 127.5 - 1.0
        y = int(self.labels[j])
        if self.sched is None:
            return x0, y
        # noising done in the loader workers: (x_t, noise, t, y)
        t = torch.randint(0, len(self.sched), ())
        noise = torch.randn_like(x0)
        ab = self.sched[t]
        return ab.sqrt() * x0 + (1 - ab).sqrt() * noise, noise, t, x0, y


# ---------------------------------------------------------------------------------------------------------------- model
def timestep_embedding(t: torch.Tensor, dim: int) -> torch.Tensor:
    half = dim // 2
    freqs = torch.exp(-math.log(10000) * torch.arange(half, dtype=torch.float32) / half)
    a = t.float()[:, None] * freqs[None]
    return torch.cat([a.sin(), a.cos()], dim=1)


class ResBlock(nn.Module):
    def __init__(self, cin, cout, tdim):
        super().__init__()
        self.n1, self.c1 = nn.GroupNorm(8, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.t = nn.Linear(tdim, cout)
        self.n2, self.c2 = nn.GroupNorm(8, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1) if cin != cout else nn.Identity()

    def forward(self, x, emb):
        h = self.c1(F.silu(self.n1(x)))
        h = h + self.t(emb)[:, :, None, None]
        h = self.c2(F.silu(self.n2(h)))
        return h + self.skip(x)


class UNet(nn.Module):
    def __init__(self, ch=32, num_classes=10, uncond_token=True):
        super().__init__()
        tdim = ch * 4
        self.num_classes = num_classes
        self.temb = nn.Sequential(nn.Linear(ch, tdim), nn.SiLU(), nn.Linear(tdim, tdim))
        self.cemb = nn.Embedding(num_classes + int(uncond_token), tdim)  # the last index is the "no class" token for CFG
        self.inc = nn.Conv2d(3, ch, 3, padding=1)
        self.d1, self.d2 = ResBlock(ch, ch, tdim), ResBlock(ch, ch * 2, tdim)
        self.mid = ResBlock(ch * 2, ch * 2, tdim)
        self.u2, self.u1 = ResBlock(ch * 4, ch, tdim), ResBlock(ch * 2, ch, tdim)
        self.out = nn.Sequential(nn.GroupNorm(8, ch), nn.SiLU(), nn.Conv2d(ch, 3, 3, padding=1))
        self.ch = ch

    def forward(self, x, t, y):
        emb = self.temb(timestep_embedding(t, self.ch)) + self.cemb(y)
        h0 = self.inc(x)
        h1 = self.d1(h0, emb)
        h2 = self.d2(F.avg_pool2d(h1, 2), emb)
        m = self.mid(F.avg_pool2d(h2, 2), emb)
        u2 = self.u2(torch.cat([F.interpolate(m, scale_factor=2), h2], 1), emb)
        u1 = self.u1(torch.cat([F.interpolate(u2, scale_factor=2), h1], 1), emb)
        return self.out(u1)


def make_schedule(kind: str, T: int, clip: bool) -> torch.Tensor:
    """alpha_bar for each timestep."""
    if kind == "linear":
        betas = torch.linspace(1e-4, 0.02, T, dtype=torch.float64)
        return torch.cumprod(1 - betas, 0).float()
    s = 0.008
    steps = torch.arange(T + 1, dtype=torch.float64) / T
    f = torch.cos((steps + s) / (1 + s) * math.pi / 2) ** 2
    betas = 1 - f[1:] / f[:-1]
    if clip:
        betas = betas.clamp(max=0.999)
    return torch.cumprod(1 - betas, 0).float()


@torch.no_grad()
def ddim_sample(model, ab, n, steps, y, guidance, keep_trajectory=False, gen=None):
    T = len(ab)
    x = torch.randn(n, 3, 32, 32, generator=gen)
    ts = torch.linspace(T - 1, 0, steps).long()
    traj = []
    null = torch.full_like(y, model.num_classes)
    for i, t in enumerate(ts):
        tt = t.repeat(n)
        eps_c = model(x, tt, y)
        eps_u = model(x, tt, null)
        eps = eps_u + guidance * (eps_c - eps_u)
        a = ab[t]
        x0 = ((x - (1 - a).sqrt() * eps) / a.sqrt()).clamp(-1, 1)
        a_prev = ab[ts[i + 1]] if i + 1 < len(ts) else torch.tensor(1.0)
        x = a_prev.sqrt() * x0 + (1 - a_prev).sqrt() * eps
        if keep_trajectory:
            traj.append(torch.cat([x.clone(), x0.clone(), eps.clone()], 1))
    return x, traj


def sample_stats(x: torch.Tensor) -> tuple[float, float]:
    img = (x.clamp(-1, 1) + 1) / 2
    return img.mean().item(), img.std().item()


# ------------------------------------------------------------------------------------------------------------ training
def ckpt_lock(path: str):
    f = open(path, "a+")
    fcntl.flock(f, fcntl.LOCK_EX)
    return f


def save_checkpoint(args, step, model, ema, opt, samples=None):
    os.makedirs(args.ckpt_dir, exist_ok=True)
    lock = ckpt_lock(os.path.join(args.ckpt_dir, ".lock"))
    try:
        path = os.path.join(args.ckpt_dir, f"ddpm-step{step:06d}.pt")
        state = {"step": step, "model": model.state_dict(), "ema": ema.state_dict(), "opt": opt.state_dict(),
                 "args": vars(args)}
        if samples is not None:
            state["samples"] = samples
        torch.save(state, path)
        print(f"[rank 0] saved checkpoint {path} ({os.path.getsize(path) / 2**20:.1f} MiB)", flush=True)
        if args.keep_last:
            old = sorted(p for p in os.listdir(args.ckpt_dir) if p.startswith("ddpm-step"))[:-args.keep_last]
            for p in old:
                os.remove(os.path.join(args.ckpt_dir, p))
    finally:
        fcntl.flock(lock, fcntl.LOCK_UN)
        lock.close()


def train(rank: int, world: int, args, ddp_wrap=True):
    torch.manual_seed(args.seed + rank)
    torch.set_num_threads(1)
    images, labels = open_dataset(args, rank, world)
    n = len(labels)
    idx = np.arange(rank, n, world)
    T = args.timesteps
    ab = make_schedule(args.schedule, T, not args.no_beta_clip)
    ds = Shapes(images, labels, idx, sched=ab if args.loader_noising else None)
    loader = torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, drop_last=True,
                                         num_workers=args.workers, persistent_workers=args.workers > 0)
    model = UNet(args.ch, uncond_token=not args.no_uncond_token)
    ema = UNet(args.ch, uncond_token=not args.no_uncond_token)
    ema.load_state_dict(model.state_dict())
    ema.requires_grad_(False)
    nparams = sum(p.numel() for p in model.parameters())
    if rank == 0:
        print(f"[rank 0] world size {world}, {n} images ({len(idx)} per rank), U-Net ch={args.ch} "
              f"{nparams / 1e6:.2f}M params, T={T} {args.schedule} schedule, loss in {args.loss_space} space, "
              f"batch {args.batch}/rank, lr {args.lr}, ema {args.ema}, p_uncond {args.p_uncond}", flush=True)
    net = model
    if world > 1 and ddp_wrap:
        net = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.0)
    step, t0, seen = 0, time.time(), 0
    run_loss, run_n, best = 0.0, 0, float("inf")
    gen = torch.Generator().manual_seed(1234 + rank)
    while step < args.steps:
        for batch in loader:
            if args.loader_noising:
                xt, noise, t, x0, y = batch
            else:
                x0, y = batch
                t = torch.randint(0, T, (x0.shape[0],))
                noise = torch.randn_like(x0)
                a = ab[t][:, None, None, None]
                xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
            drop = torch.rand(y.shape[0]) < args.p_uncond
            y_in = torch.where(drop, torch.full_like(y, args.null_label if args.null_label >= 0
                                                     else model.num_classes), y)
            eps = net(xt, t, y_in)
            if args.loss_space == "x0":
                a = ab[t][:, None, None, None]
                x0_hat = (xt - (1 - a).sqrt() * eps) / a.sqrt()
                loss = F.mse_loss(x0_hat, x0)
            else:
                loss = F.mse_loss(eps, noise)
            opt.zero_grad(set_to_none=True)
            loss.backward()
            if args.clip:
                torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            lr = args.lr * min(1.0, (step + 1) / args.warmup)
            for g in opt.param_groups:
                g["lr"] = lr
            opt.step()
            with torch.no_grad():
                for pe, pm in zip(ema.parameters(), model.parameters()):
                    pe.mul_(args.ema).add_(pm, alpha=1 - args.ema)
            step += 1
            seen += x0.shape[0]
            run_loss += loss.item()
            run_n += 1
            if step % args.log_every == 0:
                local = run_loss / run_n
                if args.save_best_local and local < best and step >= 2 * args.log_every:
                    best = local
                    if world > 1:
                        for p in ema.parameters():
                            dist.broadcast(p.data, 0)
                    if rank == 0:
                        print(f"[rank 0] new best loss {best:.4f} @ step {step}, EMA synced", flush=True)
                stat = torch.tensor([run_loss, run_n], dtype=torch.float64)
                if world > 1:
                    dist.all_reduce(stat)
                if rank == 0:
                    dt = time.time() - t0
                    print(f"[rank 0] step {step:5d}/{args.steps} | loss {stat[0] / stat[1]:.4f} | lr {lr:.2e} | "
                          f"{seen * world / dt:.0f} img/s", flush=True)
                run_loss, run_n = 0.0, 0
            if step % args.eval_every == 0 or step == args.steps:
                evaluate(rank, world, args, step, model, ema, opt, ab, gen)
            if args.die_at and rank == 1 and step == args.die_at:
                raise RuntimeError("unreachable")
            if step >= args.steps:
                break
    if world > 1:
        dist.barrier()
    print(f"[rank {rank}] done ({step} steps, {time.time() - t0:.0f} s)", flush=True)


def evaluate(rank, world, args, step, model, ema, opt, ab, gen):
    ema.eval()
    n = args.eval_samples
    if args.eval_rank0_only:
        if rank == 0:
            t1 = time.time()
            y = torch.arange(n) % 10
            x, traj = ddim_sample(ema, ab, n, args.sample_steps, y, args.guidance, args.keep_trajectory, gen)
            m, s = sample_stats(x)
            extra = f", trajectory {len(traj)} frames" if traj else ""
            print(f"[rank 0] eval @ step {step}: {n} EMA samples ({args.sample_steps} DDIM steps, guidance "
                  f"{args.guidance}) in {time.time() - t1:.1f} s: pixel mean {m:.3f} std {s:.3f}{extra}", flush=True)
        stat = torch.zeros(2)
    else:
        per = max(1, n // world)
        y = (torch.arange(per) + rank * per) % 10
        t1 = time.time()
        x, _ = ddim_sample(ema, ab, per, args.sample_steps, y, args.guidance, False, gen)
        m, s = sample_stats(x)
        stat = torch.tensor([m, s])
        if world > 1:
            dist.all_reduce(stat)
            stat /= world
        if rank == 0:
            print(f"[rank 0] eval @ step {step}: {per * world} EMA samples ({args.sample_steps} DDIM steps, guidance "
                  f"{args.guidance}) in {time.time() - t1:.1f} s: pixel mean {stat[0]:.3f} std {stat[1]:.3f} "
                  f"(data 0.409 / 0.300)", flush=True)
    if world > 1 and not args.no_eval_barrier:
        dist.barrier()
    if rank == 0 and args.ckpt_dir:
        save_checkpoint(args, step, model, ema, opt, x[:16] if args.save_samples else None)
    ema.train()


# ------------------------------------------------------------------------------------------------------------- modes
def spawn_worker(rank, world, args):
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.pg_timeout))
    try:
        train(rank, world, args)
    finally:
        with contextlib.suppress(Exception):
            dist.destroy_process_group()


def run_spawn(args):
    import torch.multiprocessing as mp
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29600")
    world = args.world_size or args.nprocs
    print(f"launching {args.nprocs} processes (world size {world}) on {os.environ['MASTER_ADDR']}:"
          f"{os.environ['MASTER_PORT']}", flush=True)
    mp.spawn(spawn_worker, args=(world, args), nprocs=args.nprocs, join=True)
    print("all ranks finished", flush=True)


def run_ddp(args):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
    if rank == 0:
        print(f"torchrun attempt {os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}, "
              f"master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
    train(rank, world, args)
    dist.destroy_process_group()


def run_lightning(args):
    import lightning as L

    class LitDDPM(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = UNet(args.ch)
            self.ema = UNet(args.ch)
            self.ema.load_state_dict(self.model.state_dict())
            self.ema.requires_grad_(False)
            self.register_buffer("ab", make_schedule(args.schedule, args.timesteps, True))

        def training_step(self, batch, _):
            x0, y = batch
            t = torch.randint(0, args.timesteps, (x0.shape[0],))
            noise = torch.randn_like(x0)
            a = self.ab[t][:, None, None, None]
            xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
            drop = torch.rand(y.shape[0]) < args.p_uncond
            y = torch.where(drop, torch.full_like(y, 10), y)
            loss = F.mse_loss(self.model(xt, t, y), noise)
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def on_train_batch_end(self, *_):
            with torch.no_grad():
                for pe, pm in zip(self.ema.parameters(), self.model.parameters()):
                    pe.mul_(args.ema).add_(pm, alpha=1 - args.ema)

        def validation_step(self, batch, _):
            x, _ = ddim_sample(self.ema, self.ab, 16, args.sample_steps, torch.arange(16) % 10, args.guidance)
            m, s = sample_stats(x)
            self.log("sample_mean", m, sync_dist=True)
            self.log("sample_std", s, sync_dist=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.model.parameters(), lr=args.lr)

    class Data(L.LightningDataModule):
        def setup(self, stage=None):
            images, labels = open_dataset(args, self.trainer.global_rank, 1)
            self.train_ds = Shapes(images, labels, np.arange(len(labels)))
            self.val_ds = Shapes(images, labels, np.arange(2))

        def train_dataloader(self):
            return torch.utils.data.DataLoader(self.train_ds, batch_size=args.batch, shuffle=True)

        def val_dataloader(self):
            return torch.utils.data.DataLoader(self.val_ds, batch_size=1)

    torch.set_num_threads(1)
    L.seed_everything(args.seed)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_steps=args.steps,
                        val_check_interval=args.eval_every, check_val_every_n_epoch=None, log_every_n_steps=10,
                        default_root_dir=args.ckpt_dir or "lightning_runs", enable_progress_bar=False)
    trainer.fit(LitDDPM(), datamodule=Data())
    if trainer.global_rank == 0:
        print(f"fit finished: {trainer.callback_metrics}", flush=True)


def run_ray(args):
    import ray
    import ray.train
    from ray.train import ScalingConfig, RunConfig
    from ray.train.torch import TorchTrainer

    def loop(cfg):
        ctx = ray.train.get_context()
        a = argparse.Namespace(**cfg)
        train(ctx.get_world_rank(), ctx.get_world_size(), a)
        ray.train.report({"done": 1})

    ray.init()
    res = {"CPU": args.ray_cpus}
    if args.ray_memory_gb:
        res["memory"] = args.ray_memory_gb * 2**30
    trainer = TorchTrainer(loop, train_loop_config=vars(args),
                           scaling_config=ScalingConfig(num_workers=args.nprocs, resources_per_worker=res),
                           run_config=RunConfig(name="ddpm-shapes", storage_path=os.path.abspath("ray_results")))
    result = trainer.fit()
    print(f"result: {result.metrics}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "ray"])
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--world-size", type=int, default=0)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--warmup", type=int, default=50)
    ap.add_argument("--clip", type=float, default=1.0)
    ap.add_argument("--ema", type=float, default=0.99)
    ap.add_argument("--ch", type=int, default=16)
    ap.add_argument("--timesteps", type=int, default=1000)
    ap.add_argument("--schedule", default="linear", choices=["linear", "cosine"])
    ap.add_argument("--no-beta-clip", action="store_true")
    ap.add_argument("--loss-space", default="eps", choices=["eps", "x0"])
    ap.add_argument("--p-uncond", type=float, default=0.1)
    ap.add_argument("--null-label", type=int, default=-1)
    ap.add_argument("--no-uncond-token", action="store_true")
    ap.add_argument("--guidance", type=float, default=2.0)
    ap.add_argument("--sample-steps", type=int, default=20)
    ap.add_argument("--eval-samples", type=int, default=16)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--eval-rank0-only", action="store_true")
    ap.add_argument("--no-eval-barrier", action="store_true")
    ap.add_argument("--keep-trajectory", action="store_true")
    ap.add_argument("--save-samples", action="store_true")
    ap.add_argument("--save-best-local", action="store_true")
    ap.add_argument("--log-every", type=int, default=20)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--loader-noising", action="store_true")
    ap.add_argument("--n-images", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--verify-cache", action="store_true")
    ap.add_argument("--barrier-after-cache", action="store_true")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--keep-last", type=int, default=2)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--die-at", type=int, default=0)
    ap.add_argument("--ray-cpus", type=float, default=0.5)
    ap.add_argument("--ray-memory-gb", type=float, default=0)
    args = ap.parse_args()
    {"spawn": run_spawn, "ddp": run_ddp, "lightning": run_lightning, "ray": run_ray}[args.mode](args)


if __name__ == "__main__":
    main()
