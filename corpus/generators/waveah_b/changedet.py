"""Siamese change detector for pairs of synthetic multispectral satellite tiles (two dates of one place).

Each sample is two 5-band 64x64 tiles (blue, green, red, NIR, SWIR) of one place at dates t0 and t1: buildings
appear, fields change crop colour, clouds drift over either date as a nuisance. The target is the mask of the
pixels that really changed (buildings + fields), not the clouds. Model: a shared conv encoder applied to both
dates, absolute feature difference, a small decoder to a change logit map; BCE + soft Dice loss; IoU of the
changed pixels on validation.

Modes: ddp (under torchrun), spawn (torch.multiprocessing.spawn), lightning (Trainer, ddp on CPU),
hf (transformers Trainer under torchrun), tune (Ray Tune sweep), raytrain (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import os
import sys
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

BANDS = ("blue", "green", "red", "nir", "swir")
SENSOR_BANDS = {"S2": 5, "L8": 5, "L7": 4}  # L7 archive tiles come without the SWIR band in this product
T = 64


def smooth_blob(rng, size, n, sigma):
    yy, xx = np.mgrid[0:size, 0:size]
    out = np.zeros((size, size), np.float32)
    for _ in range(n):
        cy, cx = rng.uniform(0, size, 2)
        s = rng.uniform(sigma / 2, sigma)
        out += np.exp(-((yy - cy) ** 2 + (xx - cx) ** 2) / (2 * s * s)).astype(np.float32)
    return out


def make_pair(rng, args, bands=5):
    """Two dates of one place + the change mask."""
    base = np.zeros((5, T, T), np.float32)
    # soil/vegetation background with field parcels
    refl = {"veg": [0.04, 0.08, 0.05, 0.45, 0.2], "soil": [0.1, 0.14, 0.18, 0.28, 0.35],
            "crop": [0.05, 0.12, 0.08, 0.55, 0.25], "roof": [0.25, 0.27, 0.3, 0.32, 0.38]}
    base[:] = np.array(refl["veg"], np.float32)[:, None, None]
    fields = []
    for _ in range(int(rng.integers(2, 6))):
        y, x = rng.integers(0, T - 16, 2)
        h, w = rng.integers(8, 24, 2)
        kind = "soil" if rng.random() < 0.5 else "crop"
        base[:, y:y + h, x:x + w] = np.array(refl[kind], np.float32)[:, None, None]
        fields.append((y, x, h, w, kind))
    a = base.copy()
    b = base.copy()
    change = np.zeros((T, T), np.float32)
    for (y, x, h, w, kind) in fields:  # some fields switch crop/soil between the dates
        if rng.random() < 0.3:
            other = "crop" if kind == "soil" else "soil"
            b[:, y:y + h, x:x + w] = np.array(refl[other], np.float32)[:, None, None]
            change[y:y + h, x:x + w] = 1
    for _ in range(int(rng.integers(0, 4))):  # new buildings at date 1
        y, x = rng.integers(0, T - 8, 2)
        h, w = rng.integers(3, 8, 2)
        b[:, y:y + h, x:x + w] = np.array(refl["roof"], np.float32)[:, None, None]
        change[y:y + h, x:x + w] = 1
    if rng.random() < args.nodata_prob:  # date 1 acquired outside the swath: the product fills it with nodata (0)
        b[:] = 0
        change[:] = 0
        return a[:bands], b[:bands], change
    for img in (a, b):  # clouds: bright, white in all bands, saturating at cloud_max
        if rng.random() < args.cloud_prob:
            c = smooth_blob(rng, T, int(rng.integers(1, 4)), 14) * rng.uniform(0.5, 2.0)
            img += c[None] * 0.9
        img += rng.normal(0, 0.01, img.shape).astype(np.float32)
        np.clip(img, 0, args.cloud_max, out=img)
    return a[:bands], b[:bands], change


def shadow_offset(sun_elevation_deg, cloud_height_px=6.0):
    """Pixels between a cloud and its shadow for the scene's sun elevation (from the scene metadata)."""
    return int(cloud_height_px / np.tan(np.radians(sun_elevation_deg)))


def normalise(img, mode):
    if mode == "tile":  # per-tile standardisation (each band by its own statistics)
        m = img.mean(axis=(1, 2), keepdims=True)
        s = img.std(axis=(1, 2), keepdims=True)
        return (img - m) / s
    return (img - 0.2) / 0.15


class TileDir:
    """Scene list: lines 'scene_id sensor n_tiles' read from a text file, tiles numbered within scenes."""

    def __init__(self, path):
        self.scenes = []
        with open(path) as f:
            for ln in f:
                if ln.strip() and not ln.startswith("#"):
                    sid, sensor, n = ln.split()
                    self.scenes.append((sid, sensor, int(n)))


class PairSet(torch.utils.data.Dataset):
    def __init__(self, n, seed, args, rank=0, world=1):
        self.args, self.seed = args, seed
        self.items = []
        if args.scenes:
            k = 0
            for sid, sensor, cnt in TileDir(args.scenes).scenes:
                for i in range(cnt):
                    if k % world == rank:
                        self.items.append((sid, sensor, i))
                    k += 1
        else:
            self.items = [("synthetic", "S2", i) for i in range(rank, n, world)]
        self.native = None
        if args.cloud_lib:
            self.native = ctypes.CDLL(os.path.abspath(args.cloud_lib))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, k):
        sid, sensor, i = self.items[k]
        rng = np.random.default_rng(self.seed * 1_000_003 + hash(sid) % 10007 * 131 + i)
        a, b, ch = make_pair(rng, self.args, SENSOR_BANDS[sensor])
        if self.native is not None:  # compiled cloud-shadow mask: marks shadowed pixels in place
            for img in (a, b):
                buf = np.ascontiguousarray(img)
                self.native.shadow_mask(buf.ctypes.data_as(ctypes.c_void_p), ctypes.c_int(buf.shape[1]),
                                        ctypes.c_long(shadow_offset(self.args.sun_elevation)))
        a, b = normalise(a, self.args.norm), normalise(b, self.args.norm)
        return {"t0": torch.from_numpy(np.ascontiguousarray(a)), "t1": torch.from_numpy(np.ascontiguousarray(b)),
                "labels": torch.from_numpy(ch)[None]}


class Siamese(nn.Module):
    def __init__(self, width=16, bands=5):
        super().__init__()

        def block(i, o):
            return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(),
                                 nn.Conv2d(o, o, 3, padding=1), nn.ReLU())

        self.enc1 = block(bands, width)
        self.enc2 = block(width, 2 * width)
        self.dec = nn.Sequential(nn.Conv2d(3 * width, width, 3, padding=1), nn.ReLU(), nn.Conv2d(width, 1, 1))

    def encode(self, x):
        f1 = self.enc1(x)
        f2 = self.enc2(F.max_pool2d(f1, 2))
        return f1, f2

    def forward(self, t0, t1, labels=None):
        a1, a2 = self.encode(t0)
        b1, b2 = self.encode(t1)
        d2 = F.interpolate((a2 - b2).abs(), scale_factor=2, mode="nearest")
        logits = self.dec(torch.cat([(a1 - b1).abs(), d2], 1))
        out = {"logits": logits}
        if labels is not None:
            p = logits.sigmoid()
            dice = 1 - (2 * (p * labels).sum() + 1) / (p.sum() + labels.sum() + 1)
            out["loss"] = F.binary_cross_entropy_with_logits(logits, labels) + dice
        return out


def iou_counts(logits, labels):
    pred = logits > 0
    tgt = labels > 0.5
    return torch.tensor([(pred & tgt).sum().item(), (pred | tgt).sum().item()], dtype=torch.float64)


def polygonise(mask, scale=4):
    """Trace change polygons (boundary pixels of each connected region) at `scale`x resolution, pure Python."""
    up = np.kron(mask.astype(np.uint8), np.ones((scale, scale), np.uint8)).tolist()
    n = len(up)
    seen = [[False] * n for _ in range(n)]
    polys = []
    for y in range(n):
        for x in range(n):
            if up[y][x] and not seen[y][x]:
                stack, ring = [(y, x)], []
                seen[y][x] = True
                while stack:
                    cy, cx = stack.pop()
                    edge = False
                    for dy, dx in ((1, 0), (-1, 0), (0, 1), (0, -1)):
                        ny, nx = cy + dy, cx + dx
                        if 0 <= ny < n and 0 <= nx < n and up[ny][nx]:
                            if not seen[ny][nx]:
                                seen[ny][nx] = True
                                stack.append((ny, nx))
                        else:
                            edge = True
                    if edge:
                        ring.append([cx / scale, cy / scale])
                polys.append(ring)
    return polys


# ---------------------------------------------------------------------------------------------------------------------
def train_loop(rank, world, args, resume=None):
    torch.manual_seed(args.seed)
    ddp = world > 1
    model = Siamese(args.width)
    if rank == 0:
        n = sum(p.numel() for p in model.parameters())
        print(f"Siamese change detector: {n / 1e3:.1f}k parameters, bands={','.join(BANDS)}, tile {T}x{T}, "
              f"norm={args.norm}", flush=True)
    start_epoch = 0
    ck = os.path.join(args.ckpt_dir, "last.pt")
    if args.resume and os.path.exists(ck):
        state = torch.load(ck)
        model.load_state_dict(state["model"])
        start_epoch = state["epoch"] + 1
        print(f"[rank {rank}] resumed from {ck} (epoch {state['epoch']}, IoU {state['iou']:.4f})", flush=True)
    if ddp:
        model = nn.parallel.DistributedDataParallel(model)
    train = PairSet(args.train_pairs, args.seed, args, rank, world)
    val = PairSet(args.val_pairs, args.seed + 7, argparse.Namespace(**{**vars(args), "scenes": ""}), rank, world)
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                     drop_last=True)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, num_workers=0)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    print(f"[rank {rank}] {len(train)} train pairs, {len(val)} val pairs, {len(tl)} steps/epoch", flush=True)
    best, step, res = -1.0, start_epoch * len(tl), {}
    os.makedirs(args.ckpt_dir, exist_ok=True)
    steps = args.epochs * len(tl)
    for epoch in range(start_epoch, args.epochs):
        if args.flaky_once and rank == 1 and epoch == 1 and not os.path.exists(".tile_cache_ok"):
            open(".tile_cache_ok", "w").close()
            path = "tiles/cache/epoch1.idx"
            raise OSError(5, "Input/output error", path)
        model.train()
        t0, seen = time.time(), 0
        for batch in tl:
            out = model(batch["t0"], batch["t1"], batch["labels"])
            loss = out["loss"]
            opt.zero_grad()
            loss.backward()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            opt.step()
            step += 1
            seen += len(batch["t0"])
            if step % args.log_every == 0 and rank == 0:
                print(f"epoch {epoch} step {step}/{steps} loss {loss.item():.4f} grad_norm {gn.item():.3f} "
                      f"{seen * world / (time.time() - t0):.0f} pairs/s", flush=True)
        model.eval()
        acc = torch.zeros(3, dtype=torch.float64)  # intersection, union, val loss
        nb = 0
        masks = []
        with torch.no_grad():
            for batch in vl:
                out = model(batch["t0"], batch["t1"], batch["labels"])
                acc[:2] += iou_counts(out["logits"], batch["labels"])
                acc[2] += out["loss"].item()
                nb += 1
                masks += list((out["logits"][:, 0] > 0).numpy())
        acc[2] /= max(nb, 1)
        if args.export_polygons and rank == world - 1:  # the last rank writes the GeoJSON, rank 0 the checkpoints
            feats = []
            for k, m in enumerate(masks):
                for ring in polygonise(m, args.export_scale):
                    feats.append({"type": "Feature", "properties": {"tile": k, "epoch": epoch},
                                  "geometry": {"type": "MultiPoint", "coordinates": ring}})
            os.makedirs("exports", exist_ok=True)
            with open(f"exports/changes_epoch{epoch}.geojson", "w") as f:
                json.dump({"type": "FeatureCollection", "features": feats}, f)
            print(f"[rank {rank}] exported {len(feats)} change polygons", flush=True)
        if ddp:
            if args.monitored_barrier:
                dist.monitored_barrier(timeout=timedelta(seconds=args.monitored_barrier), wait_all_ranks=True)
            dist.all_reduce(acc)
            acc[2] /= world
        iou = (acc[0] / acc[1].clamp(min=1)).item()
        res = {"iou": iou, "val_loss": acc[2].item(), "epoch": epoch}
        if rank == 0:
            print(f"epoch {epoch} val_loss {acc[2].item():.4f} IoU {iou:.4f} ({time.time() - t0:.1f} s)", flush=True)
            raw = model.module if ddp else model
            torch.save({"model": raw.state_dict(), "epoch": epoch, "iou": iou}, ck)
            if iou > best:
                best = iou
                torch.save({"model": raw.state_dict(), "epoch": epoch, "iou": iou},
                           os.path.join(args.ckpt_dir, "best.pt"))
                print(f"saved best.pt (IoU {iou:.4f})", flush=True)
    return res


def init_pg(rank, world, args):
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=timedelta(seconds=args.pg_timeout))


def spawn_worker(rank, world, args):
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    init_pg(rank, world, args)
    train_loop(rank, world, args)
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_spawn(args):
    print(f"spawning {args.nprocs} ranks (gloo), MASTER_ADDR={os.environ.get('MASTER_ADDR', '127.0.0.1')} "
          f"MASTER_PORT={os.environ.get('MASTER_PORT')}", flush=True)
    torch.multiprocessing.spawn(spawn_worker, args=(args.nprocs, args), nprocs=args.nprocs, join=True)


def main_ddp(args):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    init_pg(rank, world, args)
    if rank == 0:
        print(f"world size {world}, backend gloo, torch {torch.__version__}, restart "
              f"{os.environ.get('TORCHELASTIC_RESTART_COUNT', '0')}", flush=True)
    train_loop(rank, world, args)
    dist.barrier()
    if rank == 0:
        print("all ranks finished", flush=True)
    dist.destroy_process_group()


def main_lightning(args):
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint

    class LitChange(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = Siamese(args.width)

        def training_step(self, batch, _):
            loss = self.model(batch["t0"], batch["t1"], batch["labels"])["loss"]
            self.log("train_loss", loss, prog_bar=True)
            return loss

        def validation_step(self, batch, _):
            out = self.model(batch["t0"], batch["t1"], batch["labels"])
            c = iou_counts(out["logits"], batch["labels"])
            self.log("val_loss", out["loss"], sync_dist=True)
            self.log("val_iou", c[0] / c[1].clamp(min=1), sync_dist=True, prog_bar=True)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=args.lr)

    train = PairSet(args.train_pairs, args.seed, args)
    val = PairSet(args.val_pairs, args.seed + 7, args)
    tl = torch.utils.data.DataLoader(train, batch_size=args.batch, shuffle=True, num_workers=args.workers,
                                     persistent_workers=args.workers > 0)
    vl = torch.utils.data.DataLoader(val, batch_size=args.batch, num_workers=0)
    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_epochs=args.epochs,
                        log_every_n_steps=args.log_every, default_root_dir=args.ckpt_dir,
                        callbacks=[ModelCheckpoint(monitor="val_iou", mode="max", save_last=True)],
                        enable_progress_bar=False)
    trainer.fit(LitChange(), tl, vl, ckpt_path="last" if args.resume else None)
    if trainer.global_rank == 0:
        print(f"fit finished: {trainer.callback_metrics}", flush=True)


def main_hf(args):
    import transformers
    from transformers import Trainer, TrainingArguments

    rank = int(os.environ.get("RANK", 0))
    if rank == 0:
        print(f"transformers {transformers.__version__}, torch {torch.__version__}", flush=True)
    kw = dict(output_dir=args.ckpt_dir, per_device_train_batch_size=args.batch, per_device_eval_batch_size=args.batch,
              num_train_epochs=args.epochs, learning_rate=args.lr, logging_steps=args.log_every,
              save_strategy="epoch", eval_strategy="epoch", report_to=[], use_cpu=True, ddp_backend="gloo",
              remove_unused_columns=False, dataloader_num_workers=0, disable_tqdm=True, max_grad_norm=5.0)
    targs = TrainingArguments(**kw)
    model = Siamese(args.width)
    train = PairSet(args.train_pairs, args.seed, args)
    val = PairSet(args.val_pairs, args.seed + 7, args)
    trainer = Trainer(model=model, args=targs, train_dataset=train, eval_dataset=val)
    trainer.train()
    if trainer.is_world_process_zero():
        acc = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for batch in torch.utils.data.DataLoader(val, batch_size=args.batch):
                acc += iou_counts(model.eval()(batch["t0"], batch["t1"])["logits"], batch["labels"])
        print(f"final val IoU {(acc[0] / acc[1].clamp(min=1)).item():.4f}", flush=True)
        print("training finished", flush=True)


def trial_fn(config, args):
    import tempfile
    from ray import tune
    from ray.tune import Checkpoint

    a = argparse.Namespace(**vars(args))
    a.lr, a.width = config["lr"], config["width"]
    torch.set_num_threads(1)
    model = Siamese(a.width)
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr)
    train = PairSet(a.train_pairs, a.seed, a)
    val = PairSet(a.val_pairs, a.seed + 7, a)
    cache = []
    tl = torch.utils.data.DataLoader(train, batch_size=a.batch, shuffle=True)
    vl = torch.utils.data.DataLoader(val, batch_size=a.batch)
    for epoch in range(a.epochs):
        model.train()
        for i, batch in enumerate(tl):
            if a.cache_upsampled:  # keep every batch, upsampled x8, for the augmentation replay buffer
                cache.append(F.interpolate(torch.cat([batch["t0"], batch["t1"]], 1).double(), scale_factor=8))
            loss = model(batch["t0"], batch["t1"], batch["labels"])["loss"]
            opt.zero_grad()
            loss.backward()
            opt.step()
            if i % a.log_every == 0:
                print(f"epoch {epoch} batch {i} loss {loss.item():.4f}", flush=True)
        model.eval()
        acc = torch.zeros(2, dtype=torch.float64)
        with torch.no_grad():
            for batch in vl:
                acc += iou_counts(model(batch["t0"], batch["t1"])["logits"], batch["labels"])
        iou = (acc[0] / acc[1].clamp(min=1)).item()
        with tempfile.TemporaryDirectory() as d:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, os.path.join(d, "model.pt"))
            tune.report({"iou": iou, "epoch": epoch}, checkpoint=Checkpoint.from_directory(d))


def main_tune(args):
    import ray
    from ray import tune
    from ray.tune.schedulers import ASHAScheduler

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    space = {"lr": tune.loguniform(3e-4, 1e-2), "width": tune.choice([8, 12, 16])}
    tuner = tune.Tuner(tune.with_resources(tune.with_parameters(trial_fn, args=args), {"cpu": 1}), param_space=space,
                       tune_config=tune.TuneConfig(metric="iou", mode="max", num_samples=args.trials,
                                                   scheduler=ASHAScheduler(max_t=args.epochs, grace_period=1)),
                       run_config=tune.RunConfig(name="changedet_sweep", storage_path=os.path.abspath(args.storage),
                                                 verbose=1))
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best trial: {best.config} iou {best.metrics['iou']:.4f}", flush=True)


def main_raytrain(args):
    import ray
    import ray.train
    from ray.train.torch import TorchTrainer, prepare_model

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))

    def loop(config):
        torch.set_num_threads(1)
        ctx = ray.train.get_context()
        rank, world = ctx.get_world_rank(), ctx.get_world_size()
        model = prepare_model(Siamese(args.width))
        opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
        tl = torch.utils.data.DataLoader(PairSet(args.train_pairs, args.seed, args, rank, world),
                                         batch_size=args.batch, shuffle=True)
        for epoch in range(args.epochs):
            for i, batch in enumerate(tl):
                loss = model(batch["t0"], batch["t1"], batch["labels"])["loss"]
                opt.zero_grad()
                loss.backward()
                opt.step()
            ray.train.report({"loss": loss.item(), "epoch": epoch})

    trainer = TorchTrainer(loop, scaling_config=ray.train.ScalingConfig(
        num_workers=args.nprocs, resources_per_worker={"CPU": 1}),
        run_config=ray.train.RunConfig(name="changedet_train", storage_path=os.path.abspath(args.storage)))
    result = trainer.fit()
    print(f"result: {result.metrics}", flush=True)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "hf", "tune", "raytrain"])
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--train-pairs", type=int, default=512)
    ap.add_argument("--val-pairs", type=int, default=128)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--cloud-prob", type=float, default=0.3)
    ap.add_argument("--cloud-max", type=float, default=1.5)
    ap.add_argument("--norm", choices=["fixed", "tile"], default="fixed")
    ap.add_argument("--scenes", default="")
    ap.add_argument("--cloud-lib", default="")
    ap.add_argument("--sun-elevation", type=float, default=40.0)
    ap.add_argument("--nodata-prob", type=float, default=0.0)
    ap.add_argument("--export-polygons", action="store_true")
    ap.add_argument("--export-scale", type=int, default=4)
    ap.add_argument("--monitored-barrier", type=int, default=0)
    ap.add_argument("--flaky-once", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--cache-upsampled", action="store_true")
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--storage", default="ray_results")
    ap.add_argument("--trials", type=int, default=4)
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


if __name__ == "__main__":
    a = parse()
    torch.set_num_threads(1)
    {"spawn": main_spawn, "ddp": main_ddp, "lightning": main_lightning, "hf": main_hf, "tune": main_tune,
     "raytrain": main_raytrain}[a.mode](a)
