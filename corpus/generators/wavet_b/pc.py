"""PointNet-style 3-D point-cloud shape classifier on synthetic scans (sphere, cube, cylinder, cone, torus, plane).

    python pc.py make --out data --n 2400 [--degenerate I] [--var-points] [--rare CLASS]
    python pc.py spawn --nprocs 2 --epochs 6 [...]      # torch.multiprocessing.spawn, DDP over gloo
    python pc.py pl --devices 2 --epochs 6 [...]         # Lightning Trainer, strategy ddp
    python pc.py ray --epochs 5 [...]                   # Ray Train TorchTrainer (RAY_ADDRESS)
    python pc.py tune [...]                             # Ray Tune lr sweep (RAY_ADDRESS)
"""
from __future__ import annotations

import argparse
import datetime
import fcntl
import json
import math
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

CLASSES = ["sphere", "cube", "cylinder", "cone", "torus", "plane"]
NPTS = 256


# ---------------------------------------------------------------------------------------------------------- data
def _shape(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    u, v = rng.random(n), rng.random(n)
    if kind == "sphere":
        p = rng.normal(size=(n, 3))
        p /= np.linalg.norm(p, axis=1, keepdims=True)
    elif kind == "cube":
        p = rng.uniform(-1, 1, size=(n, 3))
        ax = rng.integers(0, 3, n)
        p[np.arange(n), ax] = np.sign(rng.uniform(-1, 1, n))
    elif kind == "cylinder":
        t = 2 * math.pi * u
        p = np.stack([np.cos(t), np.sin(t), 2 * v - 1], 1)
    elif kind == "cone":
        t, h = 2 * math.pi * u, v
        p = np.stack([(1 - h) * np.cos(t), (1 - h) * np.sin(t), 2 * h - 1], 1)
    elif kind == "torus":
        t, s = 2 * math.pi * u, 2 * math.pi * v
        p = np.stack([(1 + 0.35 * np.cos(s)) * np.cos(t), (1 + 0.35 * np.cos(s)) * np.sin(t), 0.35 * np.sin(s)], 1)
    else:
        p = np.stack([2 * u - 1, 2 * v - 1, 0.02 * rng.normal(size=n)], 1)
    q, _ = np.linalg.qr(rng.normal(size=(3, 3)))
    p = p @ q * rng.uniform(0.5, 3.0) + rng.normal(0, 5, size=3)
    return (p + rng.normal(0, 0.02, size=p.shape)).astype(np.float32)


def make(a) -> None:
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    ys, clouds = [], []
    for i in range(a.n):
        c = i % len(CLASSES)
        if a.rare and CLASSES[c] == a.rare and i >= len(CLASSES):
            c = (c + 1) % len(CLASSES)
        n = int(rng.integers(300, 600)) if a.var_points else NPTS
        if a.var_points and i == a.short_at:
            n = 180
        p = _shape(CLASSES[c], n, rng)
        if i == a.degenerate:  # a failed scan: the sensor returned every point at the origin
            p[:] = 0.0
        clouds.append(p)
        ys.append(c)
    if a.var_points:
        arr = np.empty(len(clouds), dtype=object)
        arr[:] = clouds
        np.save(os.path.join(a.out, "train_x.npy"), arr, allow_pickle=True)
    else:
        np.save(os.path.join(a.out, "train_x.npy"), np.stack(clouds))
    np.save(os.path.join(a.out, "train_y.npy"), np.array(ys, dtype=np.int64))
    ev = np.random.default_rng(a.seed + 1)
    ex, ey = [], []
    for i in range(240):
        ex.append(_shape(CLASSES[i % 6], NPTS, ev))
        ey.append(i % 6)
    np.save(os.path.join(a.out, "val_x.npy"), np.stack(ex))
    np.save(os.path.join(a.out, "val_y.npy"), np.array(ey, dtype=np.int64))
    print(f"wrote {a.n} training clouds ({'variable' if a.var_points else NPTS} points) and 240 validation clouds "
          f"to {a.out}/", flush=True)


def normalise(p: np.ndarray) -> np.ndarray:
    p = p - p.mean(0, keepdims=True)
    return p / np.linalg.norm(p, axis=1).max()


class Clouds(torch.utils.data.Dataset):
    def __init__(self, root: str, split: str = "train", mmap: bool = False, augment: bool = True, seed: int = 0):
        xs = np.load(os.path.join(root, f"{split}_x.npy"), mmap_mode="r" if mmap else None, allow_pickle=True)
        self.x, self.y = xs, np.load(os.path.join(root, f"{split}_y.npy"))
        self.augment, self.rng = augment, np.random.default_rng(seed)

    def __len__(self) -> int:
        return len(self.y)

    def __getitem__(self, i: int):
        p = np.asarray(self.x[i], dtype=np.float32)
        if len(p) != NPTS:  # variable-size scans: subsample NPTS points without repetition
            p = p[self.rng.choice(len(p), NPTS, replace=False)]
        p = normalise(p)
        if self.augment:
            t = self.rng.uniform(0, 2 * math.pi)
            r = np.array([[math.cos(t), -math.sin(t), 0], [math.sin(t), math.cos(t), 0], [0, 0, 1]], np.float32)
            p = p @ r + self.rng.normal(0, 0.01, size=p.shape).astype(np.float32)
        return torch.from_numpy(np.ascontiguousarray(p, dtype=np.float32)), int(self.y[i])


class PointNet(nn.Module):
    def __init__(self, n_classes: int = 6, width: int = 64):
        super().__init__()
        self.feat = nn.Sequential(nn.Conv1d(3, 32, 1), nn.BatchNorm1d(32), nn.ReLU(),
                                  nn.Conv1d(32, width, 1), nn.BatchNorm1d(width), nn.ReLU(),
                                  nn.Conv1d(width, 128, 1))
        self.head = nn.Sequential(nn.Linear(128, 64), nn.ReLU(), nn.Dropout(0.2), nn.Linear(64, n_classes))

    def forward(self, x):  # x: (B, N, 3)
        return self.head(self.feat(x.transpose(1, 2)).max(dim=2).values)


def evaluate(model, loader) -> tuple[float, float]:
    model.eval()
    n = correct = 0
    tot = 0.0
    with torch.no_grad():
        for x, y in loader:
            out = model(x)
            tot += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    model.train()
    return tot / max(n, 1), correct / max(n, 1)


# --------------------------------------------------------------------------------------------- mp.spawn trainer
def spawn_worker(rank: int, a) -> None:
    world = a.world_size or a.nprocs
    if a.preempt_handler:
        def on_term(sig, frame):
            print(f"[rank {rank}] received SIGTERM at step {STATE['step']}: writing ckpt/preempt-rank{rank}.pt "
                  "and exiting", flush=True)
            os.makedirs("ckpt", exist_ok=True)
            torch.save({"step": STATE["step"]}, f"ckpt/preempt-rank{rank}.pt")
            sys.exit(143)
        signal.signal(signal.SIGTERM, on_term)
    print(f"[rank {rank}] init_process_group(gloo, world_size={world}, "
          f"{os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')})", flush=True)
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=a.pg_timeout))
    torch.manual_seed(0)
    ds = Clouds(a.data, mmap=a.mmap, seed=rank)
    ys = ds.y[rank::world]
    n_classes = len(np.unique(ys)) if a.classes_from_shard else len(CLASSES)
    if rank == 0 or a.classes_from_shard:
        print(f"[rank {rank}] {len(ds)} clouds, shard {len(ys)}, {n_classes} classes", flush=True)
    model = nn.parallel.DistributedDataParallel(PointNet(n_classes))
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    sampler = torch.utils.data.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True)
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch, sampler=sampler)
    vl = torch.utils.data.DataLoader(Clouds(a.data, "val", augment=False), batch_size=120)
    if rank == 0:
        print(f"[rank 0] PointNet: {sum(p.numel() for p in model.parameters())} parameters, Adam lr {a.lr}, "
              f"batch {a.batch} x {world} ranks, {len(loader)} steps/epoch", flush=True)
    if a.cache_dir and rank == 0:
        os.makedirs(a.cache_dir, exist_ok=True)
        print(f"[rank 0] writing preprocessed clouds to {a.cache_dir}/ (float32 + normals, 4 augmentations)",
              flush=True)
        for k in range(4):
            arr = np.stack([np.concatenate([normalise(np.asarray(p)), np.zeros((NPTS, 3), np.float32)], 1)
                            for p in ds.x]).astype(np.float32)
            path = os.path.join(a.cache_dir, f"clouds-aug{k}.f32")
            with open(path, "wb") as f:
                f.write(arr.tobytes())
            print(f"[rank 0]   {path}: {os.path.getsize(path) / 2**20:.1f} MiB", flush=True)
    if a.cache_dir:
        dist.barrier()
    t0 = time.time()
    for ep in range(1, a.epochs + 1):
        sampler.set_epoch(ep)
        tot, steps = 0.0, 0
        for x, y in loader:
            STATE["step"] += 1
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            steps += 1
            if rank == 0 and STATE["step"] % a.log_every == 0:
                print(f"[rank 0] epoch {ep} step {STATE['step']}: loss {loss.item():.4f} "
                      f"({STATE['step'] * a.batch * world / (time.time() - t0):.0f} clouds/s)", flush=True)
            if a.step_sleep:
                time.sleep(a.step_sleep)
        if rank == 0:
            vloss, acc = evaluate(model.module, vl)
            print(f"[rank 0] epoch {ep}: train loss {tot / steps:.4f} val loss {vloss:.4f} val acc {acc:.3f}",
                  flush=True)
            os.makedirs("ckpt", exist_ok=True)
            torch.save({"model": model.module.state_dict(), "epoch": ep}, f"ckpt/epoch{ep}.pt")
            print(f"[rank 0] saved ckpt/epoch{ep}.pt", flush=True)
    dist.barrier()
    print(f"[rank {rank}] done", flush=True)
    dist.destroy_process_group()


STATE = {"step": 0}


def spawn_main(a) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    print(f"{a.tag}starting {a.nprocs} processes with torch.multiprocessing.spawn", flush=True)
    torch.multiprocessing.spawn(spawn_worker, args=(a,), nprocs=a.nprocs, join=True)
    print(f"{a.tag}all ranks finished", flush=True)


# -------------------------------------------------------------------------------------------------- Lightning
def pl_main(a) -> None:
    import lightning as L
    from lightning.pytorch.callbacks import LearningRateMonitor, ModelCheckpoint

    class LitPointNet(L.LightningModule):
        def __init__(self, lr: float):
            super().__init__()
            self.save_hyperparameters()
            self.net = PointNet()

        def setup(self, stage: str) -> None:
            if not a.cache_lock:
                return
            os.makedirs("cache", exist_ok=True)
            with open("cache/.lock", "w") as lk:
                print(f"[rank {self.global_rank}] waiting for cache lock", flush=True)
                fcntl.flock(lk, fcntl.LOCK_EX)
                print(f"[rank {self.global_rank}] building point cache in cache/", flush=True)
                if self.global_rank == 0:
                    np.save("cache/val_norm.npy", np.stack([normalise(p) for p in np.load(f"{a.data}/val_x.npy")]))
                self.trainer.strategy.barrier("point-cache")
            print(f"[rank {self.global_rank}] point cache ready", flush=True)

        def training_step(self, batch, i):
            x, y = batch
            loss = F.cross_entropy(self.net(x), y)
            self.log("train_loss", loss, prog_bar=True)
            if self.global_rank == 0 and self.global_step % a.log_every == 0:
                print(f"[rank 0] step {self.global_step}: loss {loss.item():.4f}", flush=True)
            return loss

        def validation_step(self, batch, i):
            x, y = batch
            out = self.net(x)
            self.log("val_loss", F.cross_entropy(out, y), sync_dist=True, prog_bar=True)
            self.log("val_acc", (out.argmax(1) == y).float().mean(), sync_dist=True, prog_bar=True)

        def on_validation_epoch_end(self):
            if self.global_rank == 0 and not self.trainer.sanity_checking:
                m = self.trainer.callback_metrics
                print(f"[rank 0] epoch {self.current_epoch}: val_loss {float(m['val_loss']):.4f} "
                      f"val_acc {float(m['val_acc']):.3f}", flush=True)

        def configure_optimizers(self):
            opt = torch.optim.Adam(self.parameters(), lr=self.hparams.lr)
            return {"optimizer": opt, "lr_scheduler": torch.optim.lr_scheduler.StepLR(opt, 4, 0.5)}

    L.seed_everything(0)
    tl = torch.utils.data.DataLoader(Clouds(a.data), batch_size=a.batch, shuffle=True, num_workers=a.workers)
    vl = torch.utils.data.DataLoader(Clouds(a.data, "val", augment=False), batch_size=60)
    kw = dict(max_epochs=a.epochs, callbacks=[ModelCheckpoint(dirpath="ckpt", monitor="val_acc", mode="max",
                                                              save_last=True), LearningRateMonitor()],
              log_every_n_steps=10, enable_progress_bar=not a.no_bar)
    if a.legacy_args:  # the arguments as the script was written for PyTorch Lightning 1.x
        kw.update(gpus=0, num_processes=a.devices, accelerator="ddp_cpu", progress_bar_refresh_rate=20)
        trainer = L.Trainer(**kw)
    else:
        trainer = L.Trainer(accelerator="cpu", devices=a.devices, strategy="ddp", **kw)
    trainer.fit(LitPointNet(a.lr), tl, vl, ckpt_path=a.resume)
    if trainer.global_rank == 0:
        print(f"best checkpoint: {trainer.checkpoint_callback.best_model_path} "
              f"(val_acc {float(trainer.checkpoint_callback.best_model_score):.3f})", flush=True)


# ------------------------------------------------------------------------------------------------------- Ray
def ray_loop(cfg: dict) -> None:
    import ray.train
    import ray.train.torch

    ctx = ray.train.get_context()
    rank, world = ctx.get_world_rank(), ctx.get_world_size()
    torch.manual_seed(0)
    ds = Clouds(cfg["data"], seed=rank)
    loader = ray.train.torch.prepare_data_loader(torch.utils.data.DataLoader(ds, batch_size=cfg["batch"],
                                                                             shuffle=True))
    vl = torch.utils.data.DataLoader(Clouds(cfg["data"], "val", augment=False), batch_size=120)
    model = ray.train.torch.prepare_model(PointNet())
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    step = 0
    for ep in range(1, cfg["epochs"] + 1):
        if world > 1:
            loader.sampler.set_epoch(ep)
        tot = 0.0
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            step += 1
            if step % 10 == 0:
                print(f"[worker {rank}] epoch {ep} step {step}: loss {loss.item():.4f}", flush=True)
        vloss, acc = evaluate(model.module if hasattr(model, "module") else model, vl)
        ray.train.report({"epoch": ep, "train_loss": tot / len(loader), "val_loss": vloss, "val_acc": acc})


def ray_main(a) -> None:
    import ray
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    ray.init(address=os.environ["RAY_ADDRESS"])
    trainer = TorchTrainer(ray_loop, train_loop_config={"data": os.path.abspath(a.data), "lr": a.lr,
                                                         "batch": a.batch, "epochs": a.epochs},
                           scaling_config=ScalingConfig(num_workers=2, resources_per_worker={"CPU": 0.5}),
                           run_config=RunConfig(name="pointnet", storage_path=os.path.abspath("results")))
    result = trainer.fit()
    print(f"training finished: results in {result.path}, error: {result.error}", flush=True)


def tune_trainable(cfg: dict) -> None:
    from ray import tune

    ds = Clouds(cfg["data"])
    loader = torch.utils.data.DataLoader(ds, batch_size=64, shuffle=True)
    vl = torch.utils.data.DataLoader(Clouds(cfg["data"], "val", augment=False), batch_size=120)
    model = PointNet()
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
    for ep in range(1, cfg["epochs"] + 1):
        for x, y in loader:
            loss = F.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
        vloss, acc = evaluate(model, vl)
        tune.report({"epoch": ep, "val_loss": vloss, "val_acc": acc})


def tune_main(a) -> None:
    import ray
    from ray import tune

    ray.init(address=os.environ["RAY_ADDRESS"])
    res = {"cpu": 1}
    if a.trial_memory_gb:
        res["memory"] = a.trial_memory_gb * 2**30
    tuner = tune.Tuner(tune.with_resources(tune_trainable, res),
                       param_space={"lr": tune.grid_search([1e-3, 3e-3]), "epochs": a.epochs,
                                    "data": os.path.abspath(a.data)},
                       tune_config=tune.TuneConfig(metric="val_acc", mode="max"),
                       run_config=tune.RunConfig(name="pointnet-sweep", storage_path=os.path.abspath("results")))
    best = tuner.fit().get_best_result()
    print(f"best lr {best.config['lr']}: val_acc {best.metrics['val_acc']:.3f}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["make", "spawn", "pl", "ray", "tune"])
    ap.add_argument("--out", default="data")
    ap.add_argument("--data", default="data")
    ap.add_argument("--n", type=int, default=2400)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--degenerate", type=int, default=-1)
    ap.add_argument("--var-points", action="store_true")
    ap.add_argument("--short-at", type=int, default=-1)
    ap.add_argument("--rare", default="")
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--world-size", type=int, default=0)
    ap.add_argument("--devices", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--mmap", action="store_true")
    ap.add_argument("--classes-from-shard", action="store_true")
    ap.add_argument("--cache-dir", default="")
    ap.add_argument("--cache-lock", action="store_true")
    ap.add_argument("--preempt-handler", action="store_true")
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--legacy-args", action="store_true")
    ap.add_argument("--resume", default=None)
    ap.add_argument("--no-bar", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--trial-memory-gb", type=int, default=0)
    ap.add_argument("--tag", default="")
    a = ap.parse_args()
    if a.tag:
        a.tag = f"[{a.tag}] "
    {"make": make, "spawn": spawn_main, "pl": pl_main, "ray": ray_main, "tune": tune_main}[a.mode](a)


if __name__ == "__main__":
    main()
