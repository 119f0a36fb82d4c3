"""Density estimation for sensor anomaly detection: a RealNVP normalizing flow over plant sensor readings.

Synthetic telemetry: each reading is a 16-d vector (pressures, temperatures, flows) of a plant whose state lives on a
4-d latent manifold, seen through a fixed nonlinear map plus per-site offsets and noise. Each site has its own
normalisation statistics (``data/site_stats.json``). The flow (affine coupling layers, alternating masks) is trained by
maximum likelihood; evaluation reports the val NLL in bits/dim and the anomaly AUROC (NLL as score) on a labelled
val set with injected faults (stuck sensors, drifts, spikes).

    python flow.py make [--new-sites 1 --shard 1]      # data/train-0000{r}.npz, data/val.npz, data/site_stats.json
    python flow.py spawn --nprocs 2 --epochs 6           # data-parallel over gloo under torch.multiprocessing.spawn
    python flow.py ddp --epochs 6                        # the same loop under torchrun
    python flow.py pl --devices 2 --epochs 4             # LightningModule, strategy ddp (CPU)
    python flow.py ray --epochs 4                        # Ray Train TorchTrainer, 2 workers
    python flow.py tune --epochs 3                       # Ray Tune grid over coupling depth
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

DIM, LAT, SHARDS, SITES = 16, 4, 2, 12


# ------------------------------------------------------------------------------------------------------- data
def make(a) -> None:
    rng = np.random.default_rng(a.seed)
    w1 = rng.normal(0, 1, (LAT, 32))
    w2 = rng.normal(0, 1 / np.sqrt(32), (32, DIM))
    site_off = rng.normal(0, 2.0, (SITES + 8, DIM))
    site_scale = rng.uniform(0.5, 3.0, (SITES + 8, DIM))

    def readings(n, sites):
        z = rng.normal(0, 1, (n, LAT))
        s = rng.choice(sites, n)
        x = np.tanh(z @ w1) @ w2 + 0.05 * rng.normal(0, 1, (n, DIM))
        return (x * site_scale[s] + site_off[s]).astype(np.float32), s

    os.makedirs(a.out, exist_ok=True)
    for r in range(SHARDS):
        sites = list(range(SITES))
        if a.shard in (-1, r) and a.new_sites:  # a later export that already includes newly commissioned sites
            sites += list(range(SITES, SITES + a.new_sites))
        x, s = readings(a.n, sites)
        if a.dead_channel >= 0:  # a sensor that stopped reporting: the export fills it with the site's nominal value
            x[:, a.dead_channel] = site_off[s, a.dead_channel]
        np.savez(os.path.join(a.out, f"train-{r:05d}.npz"), x=x, site=np.array([f"S{i:02d}" for i in s]))
    x, s = readings(a.n_val, list(range(SITES)))
    anom = rng.uniform(0, 1, len(x)) < 0.1
    kind = rng.integers(0, 3, len(x))
    ch = rng.integers(0, DIM, len(x))
    for i in np.nonzero(anom)[0]:
        if kind[i] == 0:  # stuck sensor
            x[i, ch[i]] = site_off[s[i], ch[i]] + 1.2 * site_scale[s[i], ch[i]]
        elif kind[i] == 1:  # drift on a group of channels
            x[i, :4] += 0.4 * site_scale[s[i], :4]
        else:  # spike
            x[i, ch[i]] += 1.5 * site_scale[s[i], ch[i]]
    np.savez(os.path.join(a.out, "val.npz"), x=x, site=np.array([f"S{i:02d}" for i in s]), anom=anom)
    stats = {f"S{i:02d}": {"mean": site_off[i].tolist(), "std": site_scale[i].tolist()}
             for i in range(SITES + a.new_sites)}
    with open(os.path.join(a.out, "site_stats.json"), "w") as f:
        json.dump(stats, f)
    print(f"wrote {SHARDS} train shards ({a.n} readings), val ({a.n_val}, {int(anom.sum())} faults), site stats")


def normalise(x: np.ndarray, site: np.ndarray, stats: dict) -> torch.Tensor:
    mean = np.stack([stats[str(s)]["mean"] for s in site])
    std = np.stack([stats[str(s)]["std"] for s in site])
    return torch.from_numpy(((x - mean) / std).astype(np.float32))


def load_split(path: str, stats: dict):
    z = np.load(path)
    x = normalise(z["x"], z["site"], stats)
    return (x, torch.from_numpy(z["anom"])) if "anom" in z else (x, None)


# ------------------------------------------------------------------------------------------------------ model
class Coupling(nn.Module):
    def __init__(self, mask: torch.Tensor, hidden: int, clamp: bool):
        super().__init__()
        self.register_buffer("mask", mask)
        self.clamp = clamp
        self.net = nn.Sequential(nn.Linear(DIM, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 2 * DIM))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        s, t = self.net(x * self.mask).chunk(2, dim=1)
        if self.clamp:
            s = 2.0 * torch.tanh(s / 2.0)
        s, t = s * (1 - self.mask), t * (1 - self.mask)
        return x * torch.exp(s) + t, s.sum(1)

    def inverse(self, y):
        s, t = self.net(y * self.mask).chunk(2, dim=1)
        if self.clamp:
            s = 2.0 * torch.tanh(s / 2.0)
        s, t = s * (1 - self.mask), t * (1 - self.mask)
        return (y - t) * torch.exp(-s)


class RealNVP(nn.Module):
    def __init__(self, layers: int = 6, hidden: int = 64, clamp: bool = True):
        super().__init__()
        masks = [(torch.arange(DIM) + i) % 2 for i in range(layers)]
        self.layers = nn.ModuleList(Coupling(m.float(), hidden, clamp) for m in masks)

    def forward(self, x):
        logdet = torch.zeros(len(x))
        for layer in self.layers:
            x, ld = layer(x)
            logdet = logdet + ld
        return x, logdet

    def nll(self, x):
        z, logdet = self(x)
        logp = -0.5 * (z.pow(2).sum(1) + DIM * math.log(2 * math.pi))
        return -(logp + logdet)

    @torch.no_grad()
    def sample(self, n: int):
        z = torch.randn(n, DIM)
        for layer in reversed(self.layers):
            z = layer.inverse(z)
        return z


def bits_per_dim(nll: torch.Tensor) -> float:
    return float(nll.mean()) / (DIM * math.log(2))


def auroc(score: torch.Tensor, label: torch.Tensor) -> float:
    order = score.argsort()
    ranks = torch.empty_like(order, dtype=torch.float64)
    ranks[order] = torch.arange(1, len(score) + 1, dtype=torch.float64)
    pos = label.bool()
    npos, nneg = int(pos.sum()), int((~pos).sum())
    return float((ranks[pos].sum() - npos * (npos + 1) / 2) / (npos * nneg))


@torch.no_grad()
def evaluate(model, vx, va) -> dict:
    model.eval()
    nll = model.nll(vx)
    model.train()
    return {"bpd": bits_per_dim(nll[~va]), "auroc": auroc(nll, va), "nll": nll}


def bootstrap_ci(nll, va, n: int, seed: int = 0):
    """Percentile bootstrap of the AUROC (resampling readings with replacement)."""
    g = torch.Generator().manual_seed(seed)
    vals = []
    for _ in range(n):
        idx = torch.randint(0, len(nll), (len(nll),), generator=g)
        s, lab = nll[idx].tolist(), va[idx].tolist()
        pairs = sorted(zip(s, lab))
        pos_seen, num = 0, 0.0
        neg_total = sum(1 for v in lab if not v)
        for _, is_pos in reversed(pairs):  # count (positive, negative) pairs ranked correctly
            if is_pos:
                pos_seen += 1
            else:
                num += pos_seen
        vals.append(num / max(pos_seen * neg_total, 1))
    vals.sort()
    return vals[int(0.025 * n)], vals[int(0.975 * n) - 1]


# ------------------------------------------------------------------------------------- plain data-parallel loop
def average_grads(model, world: int) -> None:
    for p in model.parameters():
        if p.grad is not None:
            dist.all_reduce(p.grad)
            p.grad /= world


def train_loop(rank: int, world: int, a) -> None:
    stats = json.load(open(os.path.join(a.data, "site_stats.json")))
    x, _ = load_split(os.path.join(a.data, f"train-{rank % SHARDS:05d}.npz"), stats)
    vx, va = load_split(os.path.join(a.data, "val.npz"), stats)
    sd = x.std(0)
    print(f"[rank {rank}] train-{rank % SHARDS:05d}.npz: {len(x)} readings x {DIM} channels (normalised std min "
          f"{sd.min():.3f} ch{int(sd.argmin())}, max {sd.max():.3f} ch{int(sd.argmax())}); val {len(vx)} "
          f"({int(va.sum())} labelled faults)", flush=True)
    torch.manual_seed(0)
    model = RealNVP(a.layers, a.hidden, clamp=not a.unclamped)
    if a.site_embed:  # a learned per-site conditioning offset on the base distribution's input
        n_sites = len(np.unique(np.load(os.path.join(a.data, f"train-{rank % SHARDS:05d}.npz"))["site"]))
        model.site_emb = nn.Embedding(n_sites, DIM)
        print(f"[rank {rank}] site embedding table: {n_sites} sites", flush=True)
    if a.ddp:
        model = nn.parallel.DistributedDataParallel(model)
        inner = model.module
    else:
        inner = model
        for p in model.parameters():  # start from rank 0's weights
            dist.broadcast(p.data, 0)
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    if rank == 0:
        print(f"[rank 0] RealNVP: {a.layers} affine couplings, hidden {a.hidden}, "
              f"{sum(p.numel() for p in inner.parameters())} parameters, scale "
              f"{'unclamped exp(s)' if a.unclamped else '2*tanh(s/2)'}, Adam lr {a.lr}, batch {a.batch} x {world} "
              f"ranks, {a.steps} steps/epoch", flush=True)
    prof = None
    if a.profile_dir:
        from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler
        prof = profile(activities=[ProfilerActivity.CPU], record_shapes=True, with_stack=True,
                       schedule=schedule(wait=2, warmup=2, active=6, repeat=0),
                       on_trace_ready=tensorboard_trace_handler(a.profile_dir, worker_name=f"rank{rank}"))
        prof.start()
        print(f"[rank {rank}] torch.profiler on, traces to {a.profile_dir}", flush=True)
    g = torch.Generator().manual_seed(100 + rank)
    step, t0 = 0, time.time()
    for ep in range(1, a.epochs + 1):
        tot = 0.0
        for _ in range(a.steps):
            step += 1
            idx = torch.randint(0, len(x), (a.batch,), generator=g)
            if a.ddp:  # through DDP's forward so the reducer is armed
                z, ld = model(x[idx])
                loss = -(-0.5 * (z.pow(2).sum(1) + DIM * math.log(2 * math.pi)) + ld).mean()
            else:
                loss = model.nll(x[idx]).mean()
            opt.zero_grad()
            loss.backward()
            if not a.ddp:
                average_grads(model, world)
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip) if a.clip else None
            opt.step()
            if prof is not None:
                prof.step()
            tot += loss.item()
            if a.check_finite and not math.isfinite(loss.item()):
                raise FloatingPointError(f"rank {rank}: non-finite NLL {loss.item()} at epoch {ep} step {step}")
            if (rank == 0 or a.log_all_ranks) and step % a.log_every == 0:
                print(f"[rank {rank}] epoch {ep} step {step}: nll {loss.item():.4f} ({loss.item() / (DIM * math.log(2)):.3f}"
                      f" bits/dim){'' if gn is None else f' grad_norm {float(gn):.3f}'} "
                      f"{step * a.batch * world / (time.time() - t0):.0f} readings/s", flush=True)
        mean = torch.tensor([tot / a.steps])
        dist.all_reduce(mean)
        mean /= world
        if a.calib_samples:  # each rank draws from the flow to calibrate the alarm threshold (99.9th pct NLL)
            s = inner.sample(a.calib_samples)
            with torch.no_grad():
                thr = torch.quantile(inner.nll(s)[: 2 ** 24], 0.999)
            print(f"[rank {rank}] calibrated alarm threshold on {a.calib_samples} flow samples: nll {thr:.2f}",
                  flush=True)
        if a.calib_range:  # alarm threshold from flow samples inside the plant's operating envelope only
            print(f"[rank {rank}] drawing {a.calib_keep} calibration samples inside the operating envelope "
                  f"(|x| < {a.calib_range} sd on every channel)", flush=True)
            kept = []
            while sum(len(k) for k in kept) < a.calib_keep:
                s = inner.sample(4096)
                kept.append(s[(s.abs() < a.calib_range).all(1)])
            with torch.no_grad():
                thr = torch.quantile(inner.nll(torch.cat(kept)[: a.calib_keep]), 0.999)
            print(f"[rank {rank}] alarm threshold: nll {thr:.2f}", flush=True)
        if rank == 0:
            m = evaluate(inner, vx, va)
            print(f"[rank 0] epoch {ep}: train nll {mean.item():.4f} | val {m['bpd']:.3f} bits/dim, fault AUROC "
                  f"{m['auroc']:.3f}", flush=True)
            if a.bootstrap:
                t = time.time()
                print(f"[rank 0] bootstrap CI of the AUROC: {a.bootstrap} resamples of {len(vx)} readings", flush=True)
                lo, hi = bootstrap_ci(m["nll"], va, a.bootstrap)
                print(f"[rank 0] AUROC 95% CI [{lo:.3f}, {hi:.3f}] ({time.time() - t:.1f} s)", flush=True)
            os.makedirs(a.ckpt, exist_ok=True)
            torch.save({"model": inner.state_dict(), "opt": opt.state_dict(), "epoch": ep},
                       os.path.join(a.ckpt, f"flow-epoch{ep}.pt"))
            print(f"[rank 0] saved {a.ckpt}/flow-epoch{ep}.pt", flush=True)
    if prof is not None:
        prof.stop()
    dist.barrier()
    print(f"[rank {rank}] done", flush=True)
    dist.destroy_process_group()


def init_pg(rank: int, world: int, a) -> None:
    addr, port = os.environ["MASTER_ADDR"], int(os.environ["MASTER_PORT"])
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if a.run_registry:  # rank 0 hosts a small key-value store where ranks register their host/pid for the dashboard
        reg = dist.TCPStore(addr, port, world, rank == 0, timeout=timeout)
        reg.set(f"ranks/{rank}", json.dumps({"pid": os.getpid(), "host": os.uname().nodename}))
        print(f"[rank {rank}] registered in run registry {addr}:{port}", flush=True)
    if a.rundir_per_rank:  # each rank writes its outputs under runs/<run>/rank<r>
        d = os.path.join("runs", a.run, f"rank{rank}")
        os.makedirs(d, exist_ok=True)
        os.chdir(d)
    if a.init_file:
        method = f"file://{os.path.abspath(a.init_file)}"
        print(f"[rank {rank}] init_process_group(gloo, init_method={method}, world_size={world}, "
              f"timeout={a.pg_timeout}s)", flush=True)
        dist.init_process_group("gloo", init_method=method, rank=rank, world_size=world, timeout=timeout)
    else:
        print(f"[rank {rank}] init_process_group(gloo, env://, world_size={world}, {addr}:{port}, "
              f"timeout={a.pg_timeout}s)", flush=True)
        dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timeout)


def spawn_worker(rank: int, a) -> None:
    a.data = os.path.abspath(a.data)
    init_pg(rank, a.nprocs, a)
    train_loop(rank, a.nprocs, a)


def spawn_main(a) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    print(f"starting {a.nprocs} processes with torch.multiprocessing.spawn", flush=True)
    torch.multiprocessing.spawn(spawn_worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all ranks finished", flush=True)


def ddp_main(a) -> None:
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    print(f"[rank {rank}] init_process_group(gloo, env://, world_size={world})", flush=True)
    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
    train_loop(rank, world, a)


# -------------------------------------------------------------------------------------------------- Lightning
class ReadingStream(torch.utils.data.IterableDataset):
    def __init__(self, data: str, batch: int, steps: int):
        self.data, self.batch, self.steps = data, batch, steps
        self.epoch = 0

    def __iter__(self):
        rank = dist.get_rank() if dist.is_initialized() else 0
        stats = json.load(open(os.path.join(self.data, "site_stats.json")))
        x, _ = load_split(os.path.join(self.data, f"train-{rank % SHARDS:05d}.npz"), stats)
        g = torch.Generator().manual_seed(1000 * self.epoch + rank)
        self.epoch += 1
        for _ in range(self.steps):
            yield x[torch.randint(0, len(x), (self.batch,), generator=g)]


def pl_main(a) -> None:
    import lightning as L
    from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint

    class LitFlow(L.LightningModule):
        def __init__(self, lr: float, layers: int, hidden: int):
            super().__init__()
            self.save_hyperparameters()
            self.flow = RealNVP(layers, hidden)

        def training_step(self, batch, i):
            loss = self.flow.nll(batch).mean()
            self.log("train_nll", loss, sync_dist=True)
            if self.global_rank == 0 and self.global_step % a.log_every == 0:
                print(f"[rank 0] step {self.global_step}: nll {loss.item():.4f} "
                      f"({loss.item() / (DIM * math.log(2)):.3f} bits/dim)", flush=True)
            return loss

        def validation_step(self, batch, i):
            vx, va = batch
            m = evaluate(self.flow, vx, va.bool())
            self.log("val_bpd", m["bpd"], sync_dist=True)
            self.log("val_auroc", m["auroc"], sync_dist=True)

        def on_validation_epoch_end(self):
            if self.global_rank == 0 and not self.trainer.sanity_checking:
                m = self.trainer.callback_metrics
                print(f"[rank 0] epoch {self.current_epoch}: val {float(m['val_bpd']):.3f} bits/dim, fault AUROC "
                      f"{float(m['val_auroc']):.3f}", flush=True)

        def configure_optimizers(self):
            opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
            return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs)}

    L.seed_everything(0)
    stats = json.load(open(os.path.join(a.data, "site_stats.json")))
    vx, va = load_split(os.path.join(a.data, "val.npz"), stats)
    tl = torch.utils.data.DataLoader(ReadingStream(a.data, a.batch, a.steps), batch_size=None)
    vl = torch.utils.data.DataLoader(torch.utils.data.TensorDataset(vx, va), batch_size=len(vx))
    trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", max_epochs=a.epochs,
                        callbacks=[ModelCheckpoint(dirpath=a.ckpt, monitor="val_bpd", mode="min", save_last=True),
                                   LearningRateMonitor()],
                        log_every_n_steps=10, enable_progress_bar=False)
    trainer.fit(LitFlow(a.lr, a.layers, a.hidden), tl, vl)
    if trainer.global_rank == 0:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path} "
              f"(val_bpd {float(trainer.checkpoint_callback.best_model_score):.3f})", flush=True)


# ------------------------------------------------------------------------------------------------------- Ray
def ray_loop(cfg: dict) -> None:
    import tempfile

    import ray.train
    import ray.train.torch

    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    stats = json.load(open(os.path.join(cfg["data"], "site_stats.json")))
    x, _ = load_split(os.path.join(cfg["data"], f"train-{rank % SHARDS:05d}.npz"), stats)
    vx, va = load_split(os.path.join(cfg["data"], "val.npz"), stats)
    torch.manual_seed(0)
    model = ray.train.torch.prepare_model(RealNVP(cfg["layers"], cfg["hidden"]))
    inner = model.module if hasattr(model, "module") else model
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    start = 1
    ck = ray.train.get_checkpoint()
    if ck:
        with ck.as_directory() as d:
            st = torch.load(os.path.join(d, "state.pt"))
        inner.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"[worker {rank}] resumed from checkpoint at epoch {st['epoch']}", flush=True)
    g = torch.Generator().manual_seed(100 + rank)
    step = 0
    for ep in range(start, cfg["epochs"] + 1):
        tot = 0.0
        for _ in range(cfg["steps"]):
            z, ld = model(x[torch.randint(0, len(x), (cfg["batch"],), generator=g)])
            loss = -(-0.5 * (z.pow(2).sum(1) + DIM * math.log(2 * math.pi)) + ld).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            step += 1
            if step % 20 == 0:
                print(f"[worker {rank}] epoch {ep} step {step}: nll {loss.item():.4f}", flush=True)
        m = evaluate(inner, vx, va)
        metrics = {"epoch": ep, "train_nll": tot / cfg["steps"], "val_bpd": m["bpd"], "val_auroc": m["auroc"]}
        with tempfile.TemporaryDirectory() as d:
            ckpt = None
            if rank == 0:
                torch.save({"model": inner.state_dict(), "opt": opt.state_dict(), "epoch": ep},
                           os.path.join(d, "state.pt"))
                ckpt = ray.train.Checkpoint.from_directory(d)
            ray.train.report(metrics, checkpoint=ckpt)


def ray_main(a) -> None:
    import ray
    from ray.train import CheckpointConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    ray.init(address=os.environ["RAY_ADDRESS"])
    sc = dict(num_workers=2, resources_per_worker={"CPU": 0.5})
    if a.accelerator_type:
        sc["accelerator_type"] = a.accelerator_type
    trainer = TorchTrainer(ray_loop, train_loop_config={"data": os.path.abspath(a.data), "lr": a.lr,
                                                         "epochs": a.epochs, "steps": a.steps, "batch": a.batch,
                                                         "layers": a.layers, "hidden": a.hidden},
                           scaling_config=ScalingConfig(**sc),
                           run_config=RunConfig(name="realnvp-sensors", storage_path=os.path.abspath(a.storage),
                                                checkpoint_config=CheckpointConfig(num_to_keep=2)))
    result = trainer.fit()
    print(f"training finished: {result.metrics}, checkpoint {result.checkpoint}", flush=True)


def tune_trainable(cfg: dict) -> None:
    from ray import tune

    stats = json.load(open(os.path.join(cfg["data"], "site_stats.json")))
    x, _ = load_split(os.path.join(cfg["data"], "train-00000.npz"), stats)
    vx, va = load_split(os.path.join(cfg["data"], "val.npz"), stats)
    torch.manual_seed(0)
    model = RealNVP(cfg["layers"], cfg["hidden"])
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    g = torch.Generator().manual_seed(0)
    for ep in range(1, cfg["epochs"] + 1):
        for _ in range(cfg["steps"]):
            loss = model.nll(x[torch.randint(0, len(x), (cfg["batch"],), generator=g)]).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
        m = evaluate(model, vx, va)
        tune.report({"epoch": ep, "train_nll": loss.item(), "val_bpd": m["bpd"], "val_auroc": m["auroc"]})


def tune_main(a) -> None:
    import ray
    from ray import tune

    ray.init(address=os.environ["RAY_ADDRESS"])
    tuner = tune.Tuner(tune.with_resources(tune_trainable, {"cpu": 1}),
                       param_space={"layers": tune.grid_search([4, 6, 8]), "lr": a.lr, "epochs": a.epochs,
                                    "steps": a.steps, "batch": a.batch, "hidden": a.hidden,
                                    "data": os.path.abspath(a.data)},
                       tune_config=tune.TuneConfig(metric="val_bpd", mode="min"),
                       run_config=tune.RunConfig(name="realnvp-depth-sweep", storage_path=os.path.abspath("results")))
    best = tuner.fit().get_best_result()
    print(f"best depth {best.config['layers']}: val {best.metrics['val_bpd']:.3f} bits/dim, AUROC "
          f"{best.metrics['val_auroc']:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "spawn", "ddp", "pl", "ray", "tune"])
    ap.add_argument("--out", default="data")
    ap.add_argument("--data", default="data")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--n-val", type=int, default=4000)
    ap.add_argument("--new-sites", type=int, default=0)
    ap.add_argument("--shard", type=int, default=-1)
    ap.add_argument("--dead-channel", type=int, default=-1)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--steps", type=int, default=40)
    ap.add_argument("--batch", type=int, default=256)
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--clip", type=float, default=0.0)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--log-all-ranks", action="store_true")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt", default="ckpt")
    ap.add_argument("--ddp", action="store_true")
    ap.add_argument("--unclamped", action="store_true")
    ap.add_argument("--check-finite", action="store_true")
    ap.add_argument("--site-embed", action="store_true")
    ap.add_argument("--bootstrap", type=int, default=0)
    ap.add_argument("--calib-samples", type=int, default=0)
    ap.add_argument("--calib-range", type=float, default=0.0)
    ap.add_argument("--calib-keep", type=int, default=10000)
    ap.add_argument("--profile-dir", default="")
    ap.add_argument("--run-registry", action="store_true")
    ap.add_argument("--rundir-per-rank", action="store_true")
    ap.add_argument("--init-file", default="")
    ap.add_argument("--run", default="run1")
    ap.add_argument("--storage", default="results")
    ap.add_argument("--accelerator-type", default="")
    a = ap.parse_args()
    {"make": make, "spawn": spawn_main, "ddp": ddp_main, "pl": pl_main, "ray": ray_main, "tune": tune_main}[a.mode](a)


if __name__ == "__main__":
    main()
