"""A small DDPM on 2-D point clouds: an MLP noise predictor (sinusoidal timestep embedding, 4 x 256 SiLU) trained
with the epsilon objective on a linear or cosine beta schedule, an EMA copy of the weights, and ancestral sampling at
evaluation (each rank samples a slice, gathered to rank 0, scored against a held-out reference set with an RBF MMD and
the mean nearest-neighbour distance). Launch with torchrun / mpirun / srun (env ranks), the DeepSpeed launcher
(--deepspeed) or accelerate launch (--accelerate); gloo on CPU."""
import argparse
import copy
import datetime
import http.server
import json
import math
import os
import socket
import threading
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--steps", type=int, default=600)
ap.add_argument("--epochs", type=int, default=0, help="train this many passes over the rank's own shard instead")
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--T", type=int, default=200)
ap.add_argument("--schedule", default="linear", choices=["linear", "cosine"])
ap.add_argument("--cosine-s", type=float, default=0.008)
ap.add_argument("--cosine-include-t0", action="store_true", help="index the cosine alpha_bar from t=0 (f(0)/f(0) = 1)")
ap.add_argument("--loss-weight", default="none", choices=["none", "snr", "min-snr"])
ap.add_argument("--weight-after", type=int, default=0, help="plain epsilon loss before this step, then the weighting")
ap.add_argument("--ckpt-on-sigterm", action="store_true")
ap.add_argument("--eval-every", type=int, default=200)
ap.add_argument("--eval-samples", type=int, default=2000)
ap.add_argument("--mmd-full", action="store_true", help="exact MMD over all samples x the whole reference set")
ap.add_argument("--save-every", type=int, default=200)
ap.add_argument("--save-dir", default="ckpt")
ap.add_argument("--keep", type=int, default=2)
ap.add_argument("--dump-samples", default="", help="write every eval's samples (npz) here")
ap.add_argument("--norm-cache", action="store_true", help="rank 0 builds data/norm-cache.pt, the others load it")
ap.add_argument("--memmap", action="store_true", help="read points from the packed data/points.f32 via np.memmap")
ap.add_argument("--preview-fifo", default="", help="stream eval samples to a live viewer through this FIFO")
ap.add_argument("--preview-port", type=int, default=0, help="rank 0 serves the latest samples over HTTP here")
ap.add_argument("--timeout-s", type=int, default=1800)
ap.add_argument("--step-sleep", type=float, default=0.0)
ap.add_argument("--accelerate", action="store_true")
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--local_rank", type=int, default=-1)
args = ap.parse_args()

torch.set_num_threads(1)
timeout = datetime.timedelta(seconds=args.timeout_s)


def env_rank():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"),
                 ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ.get("WORLD_SIZE") or os.environ[w])
    return 0, 1


def log(msg, all_ranks=False):
    if all_ranks or rank == 0:
        print(f"{time.strftime('%Y-%m-%d %H:%M:%S')} [rank{rank}] {msg}", flush=True)


preview = {"samples": b"[]"}
if args.preview_port and int(os.environ.get("RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0"))) == 0:
    class Preview(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.end_headers()
            self.wfile.write(preview["samples"])

    srv = http.server.ThreadingHTTPServer(("0.0.0.0", args.preview_port), Preview)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    print(f"[rank0] sample preview on http://{socket.gethostname()}:{args.preview_port}/", flush=True)

accelerator = None
if args.accelerate:
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    accelerator = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=timeout)])
    rank, world = accelerator.process_index, accelerator.num_processes
elif args.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
else:
    rank, world = env_rank()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", "29500")
    print(f"[rank{rank}] init_process_group(gloo) world {world} master {os.environ['MASTER_ADDR']}:"
          f"{os.environ['MASTER_PORT']} on {socket.gethostname()}", flush=True)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)
torch.manual_seed(1234 + rank)
rng = np.random.default_rng(1234 + rank)
log(f"torch {torch.__version__}, backend {dist.get_backend()}, world {world}, pid {os.getpid()}", True)

# ---------------------------------------------------------------------------------------------------- data
meta = json.load(open(os.path.join(args.data, "meta.json")))
if args.memmap:
    pm = json.load(open(os.path.join(args.data, "points.json")))
    allpts = np.memmap(os.path.join(args.data, "points.f32"), dtype=np.float32, mode="r", shape=(pm["n"], 2))
    per = pm["n"] // world
    shard = allpts[rank * per:(rank + 1) * per]
    log(f"memory-mapped {args.data}/points.f32: {pm['n']} points, rows {rank * per}..{(rank + 1) * per} on this rank",
        True)
else:
    s = rank % meta["shards"]
    shard = np.load(os.path.join(args.data, f"shard-{s:02d}.npy"))
    log(f"shard-{s:02d}.npy: {len(shard)} points, dim {shard.shape[1]}", True)
if args.norm_cache:
    cache = os.path.join(args.data, "norm-cache.pt")
    if rank == 0 and not os.path.exists(cache):
        log("building normalisation cache (per-shard statistics + whitened copies of every shard)")
        blob = {}
        for s in range(meta["shards"]):
            x = torch.from_numpy(np.load(os.path.join(args.data, f"shard-{s:02d}.npy")))
            blob[f"shard{s}"] = {"mean": x.mean(0), "std": x.std(0),
                                 "white": ((x - x.mean(0)) / x.std(0)).repeat(8, 1)}
        torch.save(blob, cache)
        log(f"wrote {cache} ({os.path.getsize(cache) / 1e6:.1f} MB)")
    else:
        while not os.path.exists(cache):
            time.sleep(0.01)
        log(f"loading {cache}", True)
    for attempt in range(1, 41):
        try:
            stats = torch.load(cache)[f"shard{rank % meta['shards']}"]
            break
        except (RuntimeError, EOFError, OSError) as e:  # rank 0 may still be writing it
            log(f"WARNING: {cache} not readable yet (attempt {attempt}/40): {type(e).__name__}: {e}; retrying in 0.25 s",
                True)
            time.sleep(0.25)
    else:
        raise RuntimeError(f"{cache} still unreadable after 40 attempts")
    log(f"normalisation: mean {stats['mean'].tolist()} std {stats['std'].tolist()}", True)
ref = torch.from_numpy(np.load(os.path.join(args.data, "ref.npy")))

# ---------------------------------------------------------------------------------------------------- schedule
T = args.T
if args.schedule == "linear":
    betas = torch.linspace(1e-4, 0.02 * 1000 / T, T, dtype=torch.float64)
    alpha_bar = torch.cumprod(1 - betas, 0)
else:
    f = torch.cos(((torch.arange(T + 1, dtype=torch.float64) / T) + args.cosine_s) / (1 + args.cosine_s) * math.pi / 2) ** 2
    alpha_bar = (f / f[0])[:T] if args.cosine_include_t0 else (f / f[0])[1:]
    betas = (1 - alpha_bar / torch.cat([torch.ones(1, dtype=torch.float64), alpha_bar[:-1]])).clamp(max=0.999)
    alpha_bar = torch.cumprod(1 - betas, 0)
alphas = 1 - betas
snr = alpha_bar / (1 - alpha_bar)
log(f"{args.schedule} schedule, T={T}: beta[0]={betas[0]:.3e} beta[-1]={betas[-1]:.3e} "
    f"alpha_bar[0]={alpha_bar[0]:.6f} alpha_bar[-1]={alpha_bar[-1]:.3e} snr[0]={snr[0]:.3e}")
betas, alphas, alpha_bar, snr = (v.float() for v in (betas, alphas, alpha_bar, snr))


class TimeEmb(nn.Module):
    def __init__(self, d=64):
        super().__init__()
        self.register_buffer("freqs", torch.exp(-math.log(10000) * torch.arange(d // 2) / (d // 2)))

    def forward(self, t):
        a = t.float()[:, None] * self.freqs[None]
        return torch.cat([a.sin(), a.cos()], 1)


class EpsMLP(nn.Module):
    def __init__(self, dim=2, h=256):
        super().__init__()
        self.temb = TimeEmb()
        self.inp = nn.Linear(dim + 64, h)
        self.blocks = nn.ModuleList([nn.Sequential(nn.SiLU(), nn.Linear(h, h)) for _ in range(3)])
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(h, dim))

    def forward(self, x, t):
        h = self.inp(torch.cat([x, self.temb(t)], 1))
        for b in self.blocks:
            h = h + b(h)
        return self.out(h)


model = EpsMLP()
ema = copy.deepcopy(model).requires_grad_(False)
n_params = sum(p.numel() for p in model.parameters())
opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
engine = None
if accelerator is not None:
    model, opt = accelerator.prepare(model, opt)
elif args.deepspeed:
    cfg = json.load(open(args.ds_config)) if args.ds_config else {
        "train_micro_batch_size_per_gpu": args.batch, "gradient_accumulation_steps": 1, "steps_per_print": 200,
        "gradient_clipping": 1.0}
    log(f"deepspeed config {json.dumps(cfg)}")
    engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=cfg)
    model = engine
else:
    model = nn.parallel.DistributedDataParallel(model)
core = model.module if hasattr(model, "module") else model
steps = args.steps
if args.epochs:
    steps = args.epochs * (len(shard) // args.batch)
    log(f"{args.epochs} epochs over {len(shard)} local points at batch {args.batch}: {steps} steps", True)
log(f"EpsMLP: {n_params} parameters, T={T}, loss weight {args.loss_weight}, world {world}, "
    f"global batch {args.batch * world}, {steps} steps")


@torch.no_grad()
def sample(n, g):
    x = torch.randn(n, 2, generator=g)
    for t in reversed(range(T)):
        tt = torch.full((n,), t, dtype=torch.long)
        eps = ema(x, tt)
        mean = (x - betas[t] / (1 - alpha_bar[t]).sqrt() * eps) / alphas[t].sqrt()
        x = mean + (betas[t].sqrt() * torch.randn(n, 2, generator=g) if t > 0 else 0)
    return x


def rbf_mmd(a, b, sig=0.5):
    k = lambda u, v: torch.exp(-torch.cdist(u, v).pow(2) / (2 * sig * sig)).mean()
    return (k(a, a) + k(b, b) - 2 * k(a, b)).item()


def evaluate(step):
    t0 = time.time()
    n_local = args.eval_samples // world + (1 if rank < args.eval_samples % world else 0)
    log(f"eval @ {step}: sampling {n_local} points ({T} ancestral steps, EMA weights)", True)
    g = torch.Generator().manual_seed(step * 100 + rank)
    xs = sample(n_local, g)
    if args.preview_fifo and rank == 0:
        log(f"streaming samples to preview viewer via {args.preview_fifo}")
        with open(args.preview_fifo, "w") as fifo:
            fifo.write(json.dumps(xs.tolist()))
    if args.mmd_full:
        log(f"exact MMD on this rank: {n_local} samples against the full reference set ({len(ref)} points)", True)
        log(f"exact MMD(rbf 0.5) rank {rank}: {rbf_mmd(xs, ref):.5f}", True)
    out = [torch.empty_like(xs) for _ in range(world)]
    dist.all_gather(out, xs)
    if rank == 0:
        allx = torch.cat(out)
        r = ref[torch.randperm(len(ref))[: len(allx)]]
        nn_d = torch.cdist(allx, r).min(1).values.mean().item()
        log(f"eval @ {step}: {len(allx)} samples, MMD(rbf 0.5) {rbf_mmd(allx, r):.5f}, mean NN dist {nn_d:.4f}, "
            f"sample mean {allx.mean(0).tolist()}, std {allx.std(0).tolist()} ({time.time() - t0:.1f} s)")
        preview["samples"] = json.dumps(allx[:500].tolist()).encode()
        if args.dump_samples:
            os.makedirs(args.dump_samples, exist_ok=True)
            fn = os.path.join(args.dump_samples, f"samples-{step:06d}.npz")
            np.savez(fn, samples=allx.numpy(), trajectory=allx.repeat(T, 1).numpy())
            log(f"dumped samples + trajectory to {fn}")


def save(step):
    if rank != 0:
        return
    os.makedirs(args.save_dir, exist_ok=True)
    fn = os.path.join(args.save_dir, f"ddpm-{step:06d}.pt")
    torch.save({"step": step, "model": core.state_dict(), "ema": ema.state_dict(), "opt": opt.state_dict()}, fn)
    old = sorted(f for f in os.listdir(args.save_dir) if f.startswith("ddpm-"))[: -args.keep]
    for o in old:
        os.remove(os.path.join(args.save_dir, o))
    log(f"saved {fn}" + (f", removed {', '.join(old)}" if old else ""))


stop = {"sig": None}
if args.ckpt_on_sigterm:
    import signal

    def on_term(signum, frame):
        stop["sig"] = signum
        log(f"received signal {signal.Signals(signum).name}: will checkpoint after this step and exit", True)

    signal.signal(signal.SIGTERM, on_term)
t_last, seen = time.time(), 0
for step in range(1, steps + 1):
    idx = rng.integers(0, len(shard), args.batch)
    x0 = torch.from_numpy(np.asarray(shard[np.sort(idx)], dtype=np.float32))
    t = torch.randint(0, T, (args.batch,))
    eps = torch.randn_like(x0)
    ab = alpha_bar[t][:, None]
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * eps
    pred = model(xt, t)
    per = (pred - eps).pow(2).mean(1)
    if args.loss_weight == "snr" and step > args.weight_after:
        per = per * snr[t]
    elif args.loss_weight == "min-snr" and step > args.weight_after:
        per = per * snr[t].clamp(max=5.0)
    loss = per.mean()
    if not torch.isfinite(loss):
        log(f"step {step}: non-finite loss {loss.item()} (t range {t.min().item()}..{t.max().item()}, "
            f"max weight {snr[t].max().item():.3e})", True)
        raise FloatingPointError(f"Loss is {loss.item()} at step {step} on rank {rank}")
    if engine is not None:
        engine.backward(loss)
        gn = torch.norm(torch.stack([p.grad.norm() for p in core.parameters() if p.grad is not None])).item()
        engine.step()
    else:
        opt.zero_grad(set_to_none=True)
        if accelerator is not None:
            accelerator.backward(loss)
        else:
            loss.backward()
        gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0).item()
        opt.step()
    with torch.no_grad():
        for pe, pm_ in zip(ema.parameters(), core.parameters()):
            pe.lerp_(pm_, 0.01)
    seen += args.batch
    if args.step_sleep:
        time.sleep(args.step_sleep)
    if step % 50 == 0 or step == 1:
        dt = time.time() - t_last
        log(f"step {step}/{steps} loss {loss.item():.4f} grad_norm {gn:.3f} lr {args.lr:.1e} "
            f"{seen * world / max(dt, 1e-6):.0f} pts/s")
        t_last, seen = time.time(), 0
    if step % args.eval_every == 0:
        evaluate(step)
    if step % args.save_every == 0:
        save(step)
    if stop["sig"] is not None:
        save(step)
        log(f"exiting at step {step}/{steps} after {signal.Signals(stop['sig']).name}", True)
        raise SystemExit(128 + stop["sig"])
dist.barrier()
log(f"done: {steps} steps")
dist.destroy_process_group()
