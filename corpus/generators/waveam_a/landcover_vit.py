"""Land-cover classification of multispectral satellite tiles with a small vision transformer, trained data-parallel
with MosaicML Composer on CPU processes (gloo). Launch with ``composer -n N landcover_vit.py ...`` or ``torchrun``.
"""
import argparse
import ctypes
import faulthandler
import glob
import json
import os
import shutil
import signal
import sys
import time
from multiprocessing import shared_memory

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, DistributedSampler

from composer import Callback, Event, Trainer
from composer.algorithms import EMA, LabelSmoothing
from composer.callbacks import LRMonitor, SpeedMonitor
from composer.models import ComposerClassifier
from composer.optim import CosineAnnealingWithWarmupScheduler, DecoupledAdamW
from composer.utils import dist
from torchmetrics.classification import MulticlassAccuracy

CLASSES = ["water", "forest", "grassland", "cropland", "urban", "bare_soil", "wetland", "snow_ice"]


def parse_args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--config", default="", help="json file with defaults for these options")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--global-batch-size", type=int, default=64)
    ap.add_argument("--device-microbatch-size", type=int, default=0)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--weight-decay", type=float, default=1e-4)
    ap.add_argument("--bands", type=int, default=8)
    ap.add_argument("--patch-size", type=int, default=4)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--depth", type=int, default=3)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--head", choices=("linear", "cosine"), default="linear")
    ap.add_argument("--logit-scale", type=float, default=10.0, help="temperature of the cosine head")
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--ema", action="store_true")
    ap.add_argument("--save-folder", default="checkpoints")
    ap.add_argument("--save-interval", default="1ep")
    ap.add_argument("--keep-checkpoints", type=int, default=2)
    ap.add_argument("--run-name", default="landcover-vit")
    ap.add_argument("--autoresume", action="store_true")
    ap.add_argument("--dist-timeout", type=float, default=300.0)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--num-workers", type=int, default=0)
    ap.add_argument("--stage-to", default="", help="copy the shards to node-local scratch first")
    ap.add_argument("--shared-cache", action="store_true", help="local ranks share one decoded copy in /dev/shm")
    ap.add_argument("--balanced-batches", action="store_true", help="every batch holds every class")
    ap.add_argument("--indices", default="", help="spectral indices appended as channels, e.g. ndvi,ndwi,ndsi")
    ap.add_argument("--cloud-mask", choices=("none", "otsu"), default="none")
    ap.add_argument("--class-report", action="store_true", help="per-class report after each evaluation (rank 0)")
    ap.add_argument("--save-on-sigterm", action="store_true")
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args()
    if a.config:
        with open(a.config) as f:
            cfg = json.load(f)
        for k, v in cfg.items():
            setattr(a, k.replace("-", "_"), v)
    return a


# ----------------------------------------------------------------------------------------------------------- data
INDICES = {"ndvi": (5, 3), "ndwi": (2, 5), "ndsi": (2, 6), "nbr": (5, 7)}  # normalised differences (a-b)/(a+b)


class Tiles(Dataset):
    def __init__(self, x, y, cloud_lib=None, indices=()):
        self.x, self.y, self.cloud_lib, self.indices = x, y, cloud_lib, indices

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        x = np.ascontiguousarray(self.x[i], dtype=np.float32)
        if self.cloud_lib is not None:
            bands, h, w = x.shape
            mask = np.zeros(h * w, np.uint8)
            self.cloud_lib.otsu_cloud_mask(x.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), bands, h, w,
                                           mask.ctypes.data_as(ctypes.POINTER(ctypes.c_ubyte)))
            x = x * (1 - mask.reshape(1, h, w))  # cloudy pixels zeroed
        if self.indices:
            extra = [(x[i] - x[j]) / (x[i] + x[j]) for i, j in (INDICES[k] for k in self.indices)]
            x = np.concatenate([x, np.stack(extra)])
        return torch.from_numpy(x), int(self.y[i])


def load_split(folder, split):
    xs, ys = [], []
    for path in sorted(glob.glob(os.path.join(folder, f"{split}-*.npz"))):
        with np.load(path) as z:
            xs.append(z["x"])
            ys.append(z["y"])
    return np.concatenate(xs), np.concatenate(ys)


def shared_copy(name, arr, create):
    """One copy of the decoded training tiles per node in shared memory, shared by the local ranks."""
    if create:
        shm = shared_memory.SharedMemory(name=name, create=True, size=arr.nbytes)
        view = np.ndarray(arr.shape, arr.dtype, buffer=shm.buf)
        view[:] = arr
    else:
        shm = shared_memory.SharedMemory(name=name)
        view = np.ndarray(arr.shape, arr.dtype, buffer=shm.buf)
    return shm, view


class BalancedBatchSampler(DistributedSampler):
    """Draws batches until each holds at least one tile of every class (rare classes are not starved)."""

    def __init__(self, labels, batch_size, num_classes, seed, rank, world):
        self.labels, self.bs, self.k = labels, batch_size, num_classes
        self.rng = np.random.default_rng(seed + rank)
        self.mine = np.array_split(np.arange(len(labels)), world)[rank]  # contiguous: whole shards per rank
        self.n_batches = len(self.mine) // batch_size

    def __len__(self):
        return self.n_batches

    def __iter__(self):
        for _ in range(self.n_batches):
            while True:
                b = self.rng.choice(self.mine, self.bs, replace=False)
                if len(np.unique(self.labels[b])) == self.k:
                    break
            yield b.tolist()


# ---------------------------------------------------------------------------------------------------------- model
class Block(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))

    def forward(self, x):
        h = self.n1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.n2(x))


class TileViT(nn.Module):
    def __init__(self, bands, size, patch, dim, depth, heads, num_classes, head, logit_scale):
        super().__init__()
        self.num_classes = num_classes
        self.embed = nn.Conv2d(bands, dim, patch, stride=patch)
        n = (size // patch) ** 2
        self.cls = nn.Parameter(torch.zeros(1, 1, dim))
        self.pos = nn.Parameter(torch.randn(1, n + 1, dim) * 0.02)
        self.blocks = nn.ModuleList([Block(dim, heads) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim)
        self.head_kind, self.logit_scale = head, logit_scale
        if head == "cosine":
            self.prototypes = nn.Parameter(torch.randn(num_classes, dim))
        else:
            self.fc = nn.Linear(dim, num_classes)

    def forward(self, x):
        x = self.embed(x).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(len(x), -1, -1), x], 1) + self.pos
        for b in self.blocks:
            x = b(x)
        z = self.norm(x[:, 0])
        if self.head_kind == "cosine":
            return self.logit_scale * F.normalize(z, dim=-1) @ F.normalize(self.prototypes, dim=-1).t()
        return self.fc(z)


def smoothed_cross_entropy(logits, target):
    """Cross entropy against (possibly smoothed) soft targets, written out as -sum(t * log p)."""
    if target.dim() == 1:
        target = F.one_hot(target, logits.shape[-1]).float()
    probs = torch.softmax(logits, dim=-1)
    return -(target * probs.log()).sum(-1).mean()


# ------------------------------------------------------------------------------------------------------ callbacks
class StepPrinter(Callback):
    def __init__(self, every):
        self.every = every

    def batch_end(self, state, logger):
        step = int(state.timestamp.batch)
        loss = float(state.loss) if not isinstance(state.loss, dict) else float(state.loss["total"])
        if not np.isfinite(loss):
            print(f"[rank {dist.get_global_rank()}] step {step}: non-finite loss {loss}", flush=True)
            raise FloatingPointError(f"loss is {loss} at step {step}")
        if step % self.every == 0 and dist.get_global_rank() == 0:
            print(f"epoch {int(state.timestamp.epoch) + 1} step {step} loss {loss:.4f}", flush=True)

    def eval_end(self, state, logger):
        if dist.get_global_rank() == 0:
            acc = state.eval_metric_values.get("MulticlassAccuracy")
            print(f"eval after epoch {int(state.timestamp.epoch)}: top-1 accuracy {acc:.4f}", flush=True)


class ClassReport(Callback):
    """Rank 0 writes a per-class report after each evaluation: accuracy on the training tiles and the GLCM contrast
    (texture) of the tiles the model gets wrong, to see which textures confuse it."""

    def __init__(self, x, y):
        self.x, self.y = x, y

    @staticmethod
    def glcm_contrast(band, levels=64):
        """Mean GLCM contrast over the four standard offsets (0, 45, 90 and 135 degrees)."""
        q = np.minimum((band * levels).astype(int), levels - 1).tolist()
        h, w = len(q), len(q[0])
        out = []
        for dr, dc in ((0, 1), (-1, 1), (-1, 0), (-1, -1)):
            glcm = [[0] * levels for _ in range(levels)]
            for r in range(max(0, -dr), h - max(0, dr)):
                for c in range(max(0, -dc), w - max(0, dc)):
                    glcm[q[r][c]][q[r + dr][c + dc]] += 1
            n = sum(map(sum, glcm))
            out.append(sum(glcm[i][j] * (i - j) ** 2 for i in range(levels) for j in range(levels)) / max(n, 1))
        return sum(out) / len(out)

    def eval_end(self, state, logger):
        if dist.get_global_rank() != 0:
            return
        model = state.model.module if isinstance(state.model, nn.parallel.DistributedDataParallel) else state.model
        net = model.module
        t0 = time.time()
        rows = []
        with torch.no_grad():
            for c, name in enumerate(CLASSES):
                idx = np.flatnonzero(self.y == c)
                pred = net(torch.from_numpy(self.x[idx].astype(np.float32))).argmax(-1).numpy()
                contrast = [np.mean([self.glcm_contrast(self.x[i, b]) for b in range(self.x.shape[1])])
                            for i in idx]
                wrong = pred != c
                rows.append((name, len(idx), float((~wrong).mean()),
                             float(np.mean(np.array(contrast)[wrong])) if wrong.any() else 0.0))
        os.makedirs("reports", exist_ok=True)
        with open(f"reports/epoch-{int(state.timestamp.epoch):02d}.tsv", "w") as f:
            for r in rows:
                f.write("%s\t%d\t%.4f\t%.4f\n" % r)
        print(f"class report written in {time.time() - t0:.1f} s: " +
              ", ".join(f"{r[0]} {r[2]:.2f}" for r in rows), flush=True)


class StopOnSignal(Callback):
    """Save a checkpoint and stop at the next batch boundary after SIGTERM (spot/preemption notice)."""

    def __init__(self):
        self.got = None
        signal.signal(signal.SIGTERM, self._handler)

    def _handler(self, signum, frame):
        self.got = signum
        print(f"[rank {dist.get_global_rank()}] received signal {signum}; will checkpoint and stop", flush=True)

    def batch_end(self, state, logger):
        flag = torch.tensor([1 if self.got else 0])
        dist.all_reduce(flag)
        if int(flag) > 0:
            state.stop_training()


# ------------------------------------------------------------------------------------------------------------ main
def main():
    a = parse_args()
    faulthandler.enable()
    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    local_rank, local_world = int(os.environ.get("LOCAL_RANK", 0)), int(os.environ.get("LOCAL_WORLD_SIZE", 1))
    if rank == 0:
        print(f"landcover-vit: torch {torch.__version__}, world size {world}, args {vars(a)}", flush=True)
    if a.global_batch_size % world != 0:
        raise ValueError(f"Global batch size {a.global_batch_size} is not divisible by world size {world}; "
                         f"device batch size = global batch size / world size must be an integer")
    device_bs = a.global_batch_size // world
    torch.manual_seed(a.seed)
    dist.initialize_dist("cpu", timeout=a.dist_timeout)

    data = a.data
    if a.stage_to:
        data = os.path.join(a.stage_to, "landcover-tiles")
        if local_rank == 0:
            t0 = time.time()
            os.makedirs(data, exist_ok=True)
            for p in sorted(glob.glob(os.path.join(a.data, "*.npz"))):
                shutil.copy(p, data)
            print(f"[rank {rank}] staged {a.data} to {data} in {time.time() - t0:.1f} s", flush=True)
        dist.barrier()

    xtr, ytr = load_split(data, "train")
    xva, yva = load_split(data, "val")
    shm = None
    if a.shared_cache:
        name = f"landcover-train-{os.environ.get('MASTER_PORT', '0')}"
        if local_rank == 0:
            shm, xtr = shared_copy(name, xtr, True)
            print(f"[rank {rank}] shared tile cache {name}: {xtr.nbytes / 2**20:.0f} MiB", flush=True)
        dist.barrier()
        if local_rank != 0:
            shm, xtr = shared_copy(name, xtr, False)
    if rank == 0:
        print(f"train tiles {len(ytr)} ({xtr.shape[1]} bands {xtr.shape[2]}x{xtr.shape[3]}), val tiles {len(yva)}, "
              f"classes {len(CLASSES)}, device batch {device_bs}", flush=True)

    lib = None
    if a.cloud_mask == "otsu":
        lib = ctypes.CDLL(os.path.abspath("libotsu.so"))
        lib.otsu_cloud_mask.restype = ctypes.c_int
    indices = [k for k in a.indices.split(",") if k]
    train_ds, val_ds = Tiles(xtr, ytr, lib, indices), Tiles(xva, yva, lib, indices)
    if a.balanced_batches:
        train_dl = DataLoader(train_ds, batch_sampler=BalancedBatchSampler(ytr, device_bs, len(CLASSES), a.seed,
                                                                           rank, world), num_workers=a.num_workers)
    else:
        train_dl = DataLoader(train_ds, batch_size=device_bs, num_workers=a.num_workers, drop_last=True,
                              sampler=dist.get_sampler(train_ds, shuffle=True, drop_last=True, seed=a.seed))
    val_dl = DataLoader(val_ds, batch_size=device_bs, sampler=dist.get_sampler(val_ds, shuffle=False))

    net = TileViT(a.bands + len(indices), xtr.shape[-1], a.patch_size, a.dim, a.depth, a.heads, len(CLASSES), a.head,
                  a.logit_scale)
    model = ComposerClassifier(net, num_classes=len(CLASSES), loss_fn=smoothed_cross_entropy,
                               train_metrics=MulticlassAccuracy(len(CLASSES), average="micro"),
                               val_metrics=MulticlassAccuracy(len(CLASSES), average="micro"))
    if rank == 0:
        print(f"model: {sum(p.numel() for p in net.parameters())} parameters, {a.depth} blocks, patch {a.patch_size}",
              flush=True)
    algorithms = [LabelSmoothing(smoothing=a.label_smoothing)] if a.label_smoothing else []
    if a.ema:
        algorithms.append(EMA(half_life="20ba"))
    callbacks = [SpeedMonitor(window_size=20), LRMonitor(), StepPrinter(a.log_every)]
    if a.class_report:
        callbacks.append(ClassReport(xtr, ytr))
    if a.save_on_sigterm:
        callbacks.append(StopOnSignal())
    trainer = Trainer(
        model=model,
        train_dataloader=train_dl,
        eval_dataloader=val_dl,
        max_duration=f"{a.epochs}ep",
        eval_interval="1ep",
        optimizers=DecoupledAdamW(net.parameters(), lr=a.lr, weight_decay=a.weight_decay),
        schedulers=CosineAnnealingWithWarmupScheduler(t_warmup="0.1dur"),
        algorithms=algorithms,
        callbacks=callbacks,
        device="cpu",
        device_train_microbatch_size=a.device_microbatch_size or device_bs,
        save_folder=a.save_folder,
        save_interval=a.save_interval,
        save_num_checkpoints_to_keep=a.keep_checkpoints,
        save_overwrite=not a.autoresume,
        autoresume=a.autoresume,
        run_name=a.run_name,
        progress_bar=False,
        log_to_console=True,
        console_log_interval=f"{a.log_every * 2}ba",
        dist_timeout=a.dist_timeout,
        seed=a.seed,
    )
    trainer.fit()
    stopped = any(isinstance(c, StopOnSignal) and c.got for c in callbacks)
    if stopped:
        trainer.save_checkpoint(os.path.join(a.save_folder, "preempted-rank{rank}.pt"))
        if rank == 0:
            print(f"stopped at batch {int(trainer.state.timestamp.batch)} after a signal; checkpoint saved", flush=True)
        trainer.close()
        sys.exit(143)
    if rank == 0:
        print(f"done: {a.epochs} epochs, final checkpoint in {a.save_folder}", flush=True)
    trainer.close()
    if shm is not None:
        shm.close()
        if local_rank == 0:
            shm.unlink()


if __name__ == "__main__":
    main()
