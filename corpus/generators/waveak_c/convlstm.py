"""ConvLSTM video frame prediction on synthetic bouncing-shape clips (10 frames in, 5 frames out).

Clips: squares and discs of random size and grey level bouncing inside the frame; later objects are drawn over
earlier ones (occlusion). Model: an encoder-forecaster ConvLSTM (strided conv stem, encoder ConvLSTM over the context
frames, forecaster ConvLSTM started from the encoder state and fed its own previous prediction plus a learned
horizon embedding, transposed-conv decoder). Loss: MSE + 0.5 x (1 - SSIM) (uniform 5x5 window), or MS-SSIM over three
scales. Validation: PSNR over the predicted frames, summed and all-reduced over ranks. Rank 0 writes ckpt/last.pt
(and ckpt/best.pt) and sample frames as samples/epoch-NN.npy.

    python convlstm.py make --out data [--shards N] [--size 32] ...      # clip shards
    torchrun --nproc-per-node 2 convlstm.py ddp [options]               # also: mpirun ... convlstm.py mpi
    python convlstm.py spawn [options]                                  # torch.multiprocessing.spawn
    accelerate launch ... convlstm.py accelerate [options]
    python convlstm.py lightning [options] | python convlstm.py fabric [options]
"""
from __future__ import annotations

import argparse
import ctypes
import datetime
import faulthandler
import glob
import logging
import math
import os
import pickle
import random
import signal
import sys
import threading
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import ConcatDataset, DataLoader, Dataset, DistributedSampler

faulthandler.enable()


# ----------------------------------------------------------------------------------------------------------------
# data
# ----------------------------------------------------------------------------------------------------------------
def render_clips(n, size=32, frames=15, seed=0, n_obj=3, min_size=2.0, max_size=6.0, supersample=1, ids=False):
    """n clips of `frames` frames; returns frames (n, T, size, size) float32 in [0, 1] (+ id maps and areas)."""
    rng = np.random.default_rng(seed)
    s = size * supersample
    grid = (np.arange(s, dtype=np.float64) + 0.5) / supersample
    yy, xx = grid[None, :, None], grid[None, None, :]
    kind = rng.integers(0, 2, (n, n_obj))  # 0 square, 1 disc
    r = rng.uniform(min_size, max_size, (n, n_obj))
    pos = rng.uniform(0, 1, (n, n_obj, 2)) * (size - 2 * r[..., None]) + r[..., None]
    vel = rng.uniform(-1.6, 1.6, (n, n_obj, 2))
    level = rng.uniform(0.35, 1.0, (n, n_obj))
    out = np.zeros((n, frames, s, s), dtype=np.float64)
    idmap = np.zeros((n, frames, size, size), dtype=np.uint8) if ids else None
    area = np.zeros((n, frames, n_obj), dtype=np.int32) if ids else None
    for t in range(frames):
        for k in range(n_obj):
            cy, cx, rk = pos[:, k, 0, None, None], pos[:, k, 1, None, None], r[:, k, None, None]
            disc = (yy - cy) ** 2 + (xx - cx) ** 2 <= rk ** 2
            square = (np.abs(yy - cy) <= rk) & (np.abs(xx - cx) <= rk)
            mask = np.where(kind[:, k, None, None] == 1, disc, square)
            out[:, t] = np.where(mask, level[:, k, None, None], out[:, t])
            if ids:
                idmap[:, t][mask] = k + 1
                area[:, t, k] = mask.sum(axis=(1, 2))
        pos += vel
        for d in range(2):  # bounce off the walls
            lo, hi = r, size - r
            over = pos[..., d] > hi
            under = pos[..., d] < lo
            pos[..., d] = np.where(over, 2 * hi - pos[..., d], np.where(under, 2 * lo - pos[..., d], pos[..., d]))
            vel[..., d] = np.where(over | under, -vel[..., d], vel[..., d])
    if supersample > 1:  # box-filter antialiasing
        out = out.reshape(n, frames, size, supersample, size, supersample).mean(axis=(3, 5))
    return out.astype(np.float32), idmap, area


def cmd_make(a):
    os.makedirs(a.out, exist_ok=True)
    for i in range(a.first_shard, a.first_shard + a.shards):
        seed = a.seed + 1000 * i + (500 if a.split == "val" else 0)
        fr, ids, area = render_clips(a.per_shard, a.size, a.frames, seed, min_size=a.min_size, ids=a.ids)
        if a.scale_255:
            fr = fr * 255.0
            arr = fr
        else:
            arr = np.round(fr * 255).astype(np.uint8)
        rec = {"frames": arr}
        if a.ids:
            rec.update(ids=ids, area=area)
        path = os.path.join(a.out, f"{a.split}-{i:02d}.{a.format}")
        if a.format == "pkl":
            with open(path, "wb") as f:
                pickle.dump(rec, f)
        else:
            np.savez(path, **rec)
        print(f"wrote {path}: {arr.shape} {arr.dtype}")


def read_shard(path):
    if path.endswith(".pkl"):
        with open(path, "rb") as f:
            rec = pickle.load(f)
    else:
        with np.load(path) as z:
            rec = {k: z[k] for k in z.files}
    fr = rec["frames"]
    fr = fr.astype(np.float32) / 255.0 if fr.dtype == np.uint8 else fr.astype(np.float32)
    return fr, rec.get("ids"), rec.get("area")


_OCC = None


def occlusion_weights(ids, area, lib):
    """Per-frame loss weights from the share of each object left visible (C helper)."""
    global _OCC
    if _OCC is None:
        _OCC = ctypes.CDLL(os.path.abspath(lib))
        _OCC.occlusion_pct.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int,
                                       ctypes.c_void_p]
        _OCC.occlusion_pct.restype = None
    T, H, W = ids.shape
    n_obj = area.shape[1]
    ids = np.ascontiguousarray(ids, dtype=np.uint8)
    area = np.ascontiguousarray(area, dtype=np.int32)
    pct = np.zeros((T, n_obj), dtype=np.int32)
    _OCC.occlusion_pct(ids.ctypes.data, area.ctypes.data, T, H * W, n_obj, pct.ctypes.data)
    return 1.0 + (100 - pct.min(axis=1)).astype(np.float32) / 100.0


class Clips(Dataset):
    def __init__(self, frames, ids=None, area=None, occl_lib=None):
        self.frames, self.ids, self.area, self.occl_lib = frames, ids, area, occl_lib

    def __len__(self):
        return len(self.frames)

    def __getitem__(self, i):
        x = torch.from_numpy(self.frames[i]).unsqueeze(1)  # (T, 1, H, W)
        if self.occl_lib:
            w = occlusion_weights(self.ids[i], self.area[i], self.occl_lib)
            return x, torch.from_numpy(w)
        return x, torch.ones(x.shape[0])


def build_datasets(a, rank, world):
    """This rank's train/val datasets: shards `data/<split>-NN.*` with NN % world == rank, or clips rendered here."""
    if a.data:
        out = []
        for split in ("train", "val"):
            paths = sorted(glob.glob(os.path.join(a.data, f"{split}-*.npz")) + glob.glob(os.path.join(a.data, f"{split}-*.pkl")))
            mine = [p for p in paths if int(os.path.basename(p).split("-")[1].split(".")[0]) % world == rank]
            parts = []
            for p in mine:
                fr, ids, area = read_shard(p)
                parts.append(Clips(fr, ids, area, a.occlusion_lib))
            out.append(ConcatDataset(parts))
            print(f"[rank {rank}] {split}: {len(out[-1])} clips from {len(mine)} shard(s) "
                  f"{[os.path.basename(p) for p in mine]}", flush=True)
        train, val = out
        clip_len = train.datasets[0].frames.shape[1]
    else:
        t0 = time.time()
        fr, _, _ = render_clips(a.train_clips, a.size, a.context + a.horizon, a.seed + 7919 * rank, supersample=a.supersample)
        vf, _, _ = render_clips(a.val_clips, a.size, a.context + a.horizon, a.seed + 104729 + 7919 * rank,
                                supersample=a.supersample)
        train, val = Clips(fr), Clips(vf)
        clip_len = fr.shape[1]
        print(f"[rank {rank}] rendered {len(fr)} train / {len(vf)} val clips of {clip_len} frames "
              f"{a.size}x{a.size} in {time.time() - t0:.1f}s", flush=True)
    return train, val, clip_len


# ----------------------------------------------------------------------------------------------------------------
# model and loss
# ----------------------------------------------------------------------------------------------------------------
class ConvLSTMCell(nn.Module):
    def __init__(self, cin, ch, k=3):
        super().__init__()
        self.ch = ch
        self.conv = nn.Conv2d(cin + ch, 4 * ch, k, padding=k // 2)

    def forward(self, x, state):
        h, c = state
        i, f, o, g = self.conv(torch.cat([x, h], 1)).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        h = torch.sigmoid(o) * torch.tanh(c)
        return h, c


class EncoderForecaster(nn.Module):
    def __init__(self, hidden=32, stem=16, n_out=5):
        super().__init__()
        self.hidden, self.n_out = hidden, n_out
        self.stem = nn.Sequential(nn.Conv2d(1, stem, 3, stride=2, padding=1), nn.LeakyReLU(0.2))
        self.enc = ConvLSTMCell(stem, hidden)
        self.fore = ConvLSTMCell(stem, hidden)
        self.horizon = nn.Parameter(torch.zeros(n_out, stem, 1, 1))
        self.head = nn.Sequential(nn.ConvTranspose2d(hidden, stem, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
                                  nn.Conv2d(stem, 1, 3, padding=1))
        nn.init.zeros_(self.head[-1].weight)  # start from "copy the last frame"
        nn.init.zeros_(self.head[-1].bias)

    def forward(self, x):  # x: (B, T_in, 1, H, W) -> (B, n_out, 1, H, W)
        B, T, _, H, W = x.shape
        h = x.new_zeros(B, self.hidden, (H + 1) // 2, (W + 1) // 2)
        c = torch.zeros_like(h)
        for t in range(T):
            h, c = self.enc(self.stem(x[:, t]), (h, c))
        last, outs = x[:, -1], []
        for k in range(self.n_out):
            h, c = self.fore(self.stem(last) + self.horizon[k], (h, c))
            y = last + self.head(h)  # residual on the previous frame
            outs.append(y)
            last = y
        return torch.stack(outs, 1)


C1, C2 = 0.01 ** 2, 0.03 ** 2


def _ssim_parts(x, y, win=5):
    mu_x, mu_y = F.avg_pool2d(x, win, 1, win // 2), F.avg_pool2d(y, win, 1, win // 2)
    sxx = F.avg_pool2d(x * x, win, 1, win // 2) - mu_x ** 2
    syy = F.avg_pool2d(y * y, win, 1, win // 2) - mu_y ** 2
    sxy = F.avg_pool2d(x * y, win, 1, win // 2) - mu_x * mu_y
    lum = (2 * mu_x * mu_y + C1) / (mu_x ** 2 + mu_y ** 2 + C1)
    cs = (2 * sxy + C2) / (sxx + syy + C2)
    return lum, cs


def ssim(x, y):
    lum, cs = _ssim_parts(x, y)
    return (lum * cs).mean(dim=(1, 2, 3))


MS_WEIGHTS = torch.tensor([0.0448, 0.2856, 0.3001, 0.2363, 0.1333])


def ms_ssim(x, y, scales=3):
    """Multi-scale SSIM (Wang et al. 2003): contrast-structure at the finer scales, full SSIM at the coarsest."""
    w = MS_WEIGHTS[:scales] / MS_WEIGHTS[:scales].sum()
    mcs = []
    for s in range(scales):
        lum, cs = _ssim_parts(x, y, win=3)
        if s < scales - 1:
            mcs.append(cs.mean(dim=(1, 2, 3)))
            x, y = F.avg_pool2d(x, 2), F.avg_pool2d(y, 2)
        else:
            mcs.append((lum * cs).mean(dim=(1, 2, 3)))
    mcs = torch.stack(mcs, 0)  # (scales, N)
    return torch.prod(mcs ** w.to(mcs)[:, None], dim=0)


def frame_loss(pred, target, weights, kind):
    """pred/target (B, T, 1, H, W); weights (B, T)."""
    B, T = pred.shape[:2]
    p, t = pred.flatten(0, 1), target.flatten(0, 1)
    mse = ((p - t) ** 2).mean(dim=(1, 2, 3))
    sim = ms_ssim(p, t) if kind == "mse+msssim" else ssim(p, t)
    per = mse + 0.5 * (1 - sim)
    w = weights.flatten()
    return (per * w).sum() / w.sum(), mse.mean()


def psnr_sum(pred, target):
    mse = ((pred - target) ** 2).mean(dim=(1, 2, 3, 4)).clamp_min(1e-10)
    return (10 * torch.log10(1.0 / mse)).sum()


class LARS(torch.optim.Optimizer):
    """SGD with momentum and a layer-wise trust ratio ||w|| / ||g + wd w|| (You et al., 2017) for large batches."""

    def __init__(self, params, lr, momentum=0.9, weight_decay=1e-4, trust=0.02):
        super().__init__(params, dict(lr=lr, momentum=momentum, weight_decay=weight_decay, trust=trust))

    @torch.no_grad()
    def step(self):
        for g in self.param_groups:
            for p in g["params"]:
                if p.grad is None:
                    continue
                d = p.grad + g["weight_decay"] * p
                local_lr = g["trust"] * p.norm() / d.norm()
                buf = self.state[p].setdefault("momentum", torch.zeros_like(p))
                buf.mul_(g["momentum"]).add_(d, alpha=float(g["lr"]) * local_lr.item())
                p.sub_(buf)


# ----------------------------------------------------------------------------------------------------------------
# checkpoints
# ----------------------------------------------------------------------------------------------------------------
class CheckpointManager:
    """Rank 0's checkpoint writer. The lock keeps the SIGTERM handler and the epoch-end save from writing at once."""

    def __init__(self, out="ckpt", keep_last=0, keep_best=False):
        self.out, self.keep_last, self.keep_best = out, keep_last, keep_best
        self.lock = threading.Lock()
        self.best = -math.inf
        self.history = []
        os.makedirs(out, exist_ok=True)

    def _state(self, model, opt, epoch, psnr):
        m = model.module if hasattr(model, "module") else model
        return {"model": m.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val_psnr": psnr}

    def save(self, model, opt, epoch, psnr):
        with self.lock:
            state = self._state(model, opt, epoch, psnr)
            if self.keep_last:
                path = os.path.join(self.out, f"epoch-{epoch:02d}.pt")
                torch.save(state, path)
                old = sorted(glob.glob(os.path.join(self.out, "epoch-*.pt")))[:-self.keep_last]
                for p in old:
                    os.remove(p)
            else:
                path = os.path.join(self.out, "last.pt")
                torch.save(state, path)
            self.history.append((epoch, psnr))
            if self.keep_best and psnr > self.best:
                self.save_best(model, opt, epoch, psnr)
        print(f"saved {path}", flush=True)

    def save_best(self, model, opt, epoch, psnr):  # called by save() with the lock held
        self.best = psnr
        torch.save(self._state(model, opt, epoch, psnr), os.path.join(self.out, "best.pt"))
        print(f"new best val psnr {psnr:.2f} dB -> {self.out}/best.pt", flush=True)


def dump_samples(model, val, epoch, context, out="samples", n=4):
    os.makedirs(out, exist_ok=True)
    x = torch.stack([val[i][0] for i in range(min(n, len(val)))])
    with torch.no_grad():
        m = model.module if hasattr(model, "module") else model
        pred = m(x[:, :context])
    arr = torch.cat([x, torch.cat([x[:, :context], pred], 1)], 2)  # (n, T, 2, H, W): truth | prediction
    path = os.path.join(out, f"epoch-{epoch:02d}.npy")
    np.save(path, (arr.clamp(0, 1) * 255).round().to(torch.uint8).numpy())
    return path


class AsyncSampleWriter:
    """Writes the last training batch's frames and predictions in a background thread, so that rank 0 does not hold
    the other ranks up at the end of an epoch. One write at a time."""

    def __init__(self, out="samples"):
        self.out = out
        os.makedirs(out, exist_ok=True)
        self.idle = threading.Event()
        self.idle.set()

    def submit(self, epoch, x, pred):
        self.idle.wait()
        self.idle.clear()
        path = os.path.join(self.out, f"train-epoch-{epoch:02d}.npy")
        threading.Thread(target=self._write, args=(path, x, pred), daemon=True).start()
        return path

    def _write(self, path, x, pred):
        try:
            arr = np.concatenate([x.numpy(), np.concatenate([x[:, :-pred.shape[1]].numpy(), pred.numpy()], 1)], 2)
            np.save(path, (np.clip(arr, 0, 1) * 255).round().astype(np.uint8))
            self.idle.set()
        except Exception as e:  # a preview must never stop training
            logging.getLogger("samples").debug("sample write failed: %s", e)


# ----------------------------------------------------------------------------------------------------------------
# training loop shared by ddp / mpi / spawn / accelerate / fabric
# ----------------------------------------------------------------------------------------------------------------
class Plain:
    """torch.distributed + DDP."""

    def __init__(self, rank, world):
        self.rank, self.world = rank, world

    def wrap(self, model, opt):
        from torch.nn.parallel import DistributedDataParallel as DDP
        if self.world > 1:
            model = DDP(model)
        return model, opt

    def loader(self, ds, batch, shuffle):
        return DataLoader(ds, batch_size=batch, shuffle=shuffle, num_workers=0, drop_last=shuffle)

    def backward(self, loss):
        loss.backward()

    def all_sum(self, t):
        if self.world > 1:
            dist.all_reduce(t)
        return t


class Accel(Plain):
    def __init__(self, acc):
        super().__init__(acc.process_index, acc.num_processes)
        self.acc = acc

    def wrap(self, model, opt):
        return self.acc.prepare(model, opt)

    def backward(self, loss):
        self.acc.backward(loss)

    def all_sum(self, t):
        return self.acc.reduce(t, reduction="sum")


class FabricCtx(Plain):
    def __init__(self, fabric):
        super().__init__(fabric.global_rank, fabric.world_size)
        self.fabric = fabric

    def wrap(self, model, opt):
        return self.fabric.setup(model, opt)

    def backward(self, loss):
        self.fabric.backward(loss)

    def all_sum(self, t):
        return self.fabric.all_reduce(t, reduce_op="sum")


def train(ctx, a):
    rank, world = ctx.rank, ctx.world
    torch.manual_seed(a.seed)
    train_ds, val_ds, clip_len = build_datasets(a, rank, world)
    n_out = clip_len - a.context if a.horizon_auto else a.horizon
    model = EncoderForecaster(a.hidden, n_out=n_out)
    if a.channels_last:
        model = model.to(memory_format=torch.channels_last)
    if a.optimizer == "lars":
        opt = LARS(model.parameters(), lr=a.lr)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    start = 0
    if a.resume and os.path.exists(a.resume):
        st = torch.load(a.resume, map_location="cpu")
        model.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start = st["epoch"] + 1
        print(f"[rank {rank}] resumed from {a.resume} (epoch {st['epoch']}, val psnr {st['val_psnr']:.2f} dB)", flush=True)
    if rank == 0:
        print(f"model: EncoderForecaster hidden={a.hidden} context={a.context} horizon={n_out} "
              f"params={sum(p.numel() for p in model.parameters())}", flush=True)
    model, opt = ctx.wrap(model, opt)
    tl = ctx.loader(train_ds, a.batch, True)
    vl = ctx.loader(val_ds, a.batch, False)
    ckpt = CheckpointManager("ckpt", a.keep_last, a.keep_best) if rank == 0 else None
    writer = AsyncSampleWriter() if rank == 0 and a.async_samples else None
    stop = {"flag": False}

    def on_term(signum, frame):
        print(f"[rank {rank}] received signal {signum}, stopping after this step", flush=True)
        stop["flag"] = True

    if a.save_on_term:
        signal.signal(signal.SIGTERM, on_term)
    if rank == 0:
        print(f"{len(tl)} steps/epoch, batch {a.batch} x {world} ranks, loss {a.loss}", flush=True)
    for epoch in range(start, a.epochs):
        model.train()
        t0, run, bad = time.time(), 0.0, 0
        for step, (x, w) in enumerate(tl):
            if a.channels_last:
                x = x.contiguous()
            inp, tgt = x[:, :a.context], x[:, a.context:]
            pred = model(inp)
            loss, mse = frame_loss(pred, tgt, w[:, a.context:], a.loss)
            if mse.item() > 1.0:  # frames are in [0, 1]: this cannot happen. TODO remove once the bad clips are found
                breakpoint()
            opt.zero_grad(set_to_none=True)
            ctx.backward(loss)
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), a.clip)
            opt.step()
            run += loss.item()
            bad = 0 if math.isfinite(loss.item()) else bad + 1
            if bad >= 20:
                raise FloatingPointError(f"loss is {loss.item()} for {bad} consecutive steps (epoch {epoch} step {step})")
            if step % a.log_every == 0:
                print(f"[rank {rank}] epoch {epoch} step {step}/{len(tl)} loss {loss.item():.4f} mse {mse.item():.5f} "
                      f"grad_norm {gn.item():.3f}", flush=True)
            if stop["flag"]:
                break
        x_train, pred_train = x, pred
        flag = ctx.all_sum(torch.tensor([1.0 if stop["flag"] else 0.0]))
        model.eval()
        tot = torch.zeros(2)
        with torch.no_grad():
            for x, _ in vl:
                pred = model(x[:, :a.context])
                tot += torch.stack([psnr_sum(pred, x[:, a.context:]), torch.tensor(float(len(x)))])
        tot = ctx.all_sum(tot)
        psnr = (tot[0] / tot[1]).item()
        if rank == 0:
            print(f"epoch {epoch} train loss {run / max(1, step + 1):.4f} val psnr {psnr:.2f} dB "
                  f"({int(tot[1].item())} clips) {time.time() - t0:.1f}s", flush=True)
            if writer is not None:
                path = writer.submit(epoch, x_train, pred_train)
            else:
                path = dump_samples(model, val_ds, epoch, a.context)
            print(f"wrote {path}", flush=True)
            ckpt.save(model, opt, epoch, psnr)
        if flag.item() > 0:
            print(f"[rank {rank}] stopping at epoch {epoch} after a signal; exiting with 143", flush=True)
            sys.exit(143)
    ctx.all_sum(torch.zeros(1))
    if rank == 0:
        print(f"done: {a.epochs} epochs, final val psnr {psnr:.2f} dB", flush=True)


# ----------------------------------------------------------------------------------------------------------------
# launchers
# ----------------------------------------------------------------------------------------------------------------
def init_pg(a, rank, world):
    dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=a.pg_timeout))


def run_ddp(a):
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    init_pg(a, rank, world)
    train(Plain(rank, world), a)
    dist.destroy_process_group()


def run_mpi(a):
    rank, world = int(os.environ["OMPI_COMM_WORLD_RANK"]), int(os.environ["OMPI_COMM_WORLD_SIZE"])
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    if "MASTER_PORT" not in os.environ:  # pick one so that two jobs on a node do not collide
        os.environ["MASTER_PORT"] = str(random.randint(29845, 29859))
    print(f"[rank {rank}] world {world}, rendezvous at {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
          flush=True)
    init_pg(a, rank, world)
    train(Plain(rank, world), a)
    dist.destroy_process_group()


def _spawn_worker(rank, a):
    init_pg(a, rank, a.nprocs)
    train(Plain(rank, a.nprocs), a)
    dist.destroy_process_group()


def run_spawn(a):
    import torch.multiprocessing as mp
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ["MASTER_PORT"] = str(a.port)
    mp.spawn(_spawn_worker, args=(a,), nprocs=a.nprocs, join=True)


def run_accelerate(a):
    from accelerate import Accelerator
    from accelerate.utils import InitProcessGroupKwargs
    acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=a.pg_timeout))])
    print(f"[rank {acc.process_index}] accelerator: {acc.state.distributed_type}, {acc.num_processes} processes",
          flush=True)
    train(Accel(acc), a)


def run_fabric(a):
    from lightning.fabric import Fabric
    from lightning.fabric.strategies import DDPStrategy
    fabric = Fabric(accelerator="cpu", devices=a.nprocs, strategy=DDPStrategy(
        process_group_backend="gloo", timeout=datetime.timedelta(seconds=a.pg_timeout)))
    fabric.launch()
    train(FabricCtx(fabric), a)


def run_lightning(a):
    import lightning as L
    from lightning.pytorch.callbacks import ModelCheckpoint

    class DataModule(L.LightningDataModule):
        def setup(self, stage=None):
            self.train_ds, self.val_ds, self.clip_len = build_datasets(a, self.trainer.global_rank,
                                                                       self.trainer.world_size)

        def train_dataloader(self):
            return DataLoader(self.train_ds, batch_size=a.batch, shuffle=True, num_workers=a.workers, drop_last=True)

        def val_dataloader(self):
            return DataLoader(self.val_ds, batch_size=a.batch, num_workers=a.workers)

    class Predictor(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = EncoderForecaster(a.hidden, n_out=a.horizon)

        def training_step(self, batch, i):
            x, w = batch
            loss, mse = frame_loss(self.net(x[:, :a.context]), x[:, a.context:], w[:, a.context:], a.loss)
            self.log("train_loss", loss, prog_bar=False)
            if i % a.log_every == 0:
                print(f"[rank {self.global_rank}] epoch {self.current_epoch} step {i} loss {loss.item():.4f} "
                      f"mse {mse.item():.5f}", flush=True)
            return loss

        def validation_step(self, batch, i):
            x, _ = batch
            p = psnr_sum(self.net(x[:, :a.context]), x[:, a.context:]) / len(x)
            self.log("val_psnr", p, sync_dist=True, batch_size=len(x))

        def on_validation_epoch_end(self):
            if self.global_rank == 0 and not self.trainer.sanity_checking:
                print(f"epoch {self.current_epoch} val psnr {self.trainer.callback_metrics['val_psnr']:.2f} dB",
                      flush=True)

        def configure_optimizers(self):
            return torch.optim.Adam(self.parameters(), lr=a.lr)

    trainer = L.Trainer(accelerator="cpu", devices=a.nprocs, strategy="ddp", max_epochs=a.epochs,
                        callbacks=[ModelCheckpoint(dirpath="ckpt", monitor="val_psnr", mode="max", save_last=True)],
                        enable_progress_bar=False, log_every_n_steps=a.log_every, logger=False)
    trainer.fit(Predictor(), datamodule=DataModule())
    if trainer.global_rank == 0:
        print(f"fit finished: best {trainer.checkpoint_callback.best_model_path}", flush=True)


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest="mode", required=True)
    mk = sub.add_parser("make")
    mk.add_argument("--out", default="data")
    mk.add_argument("--split", default="train")
    mk.add_argument("--shards", type=int, default=2)
    mk.add_argument("--first-shard", type=int, default=0)
    mk.add_argument("--per-shard", type=int, default=192)
    mk.add_argument("--size", type=int, default=32)
    mk.add_argument("--frames", type=int, default=15)
    mk.add_argument("--min-size", type=float, default=2.0)
    mk.add_argument("--ids", action="store_true", help="also store object id maps and areas")
    mk.add_argument("--scale-255", action="store_true")
    mk.add_argument("--format", default="npz", choices=["npz", "pkl"])
    mk.add_argument("--seed", type=int, default=0)
    for name in ("ddp", "mpi", "spawn", "accelerate", "lightning", "fabric"):
        p = sub.add_parser(name)
        p.add_argument("--data", default="")
        p.add_argument("--train-clips", type=int, default=192)
        p.add_argument("--val-clips", type=int, default=48)
        p.add_argument("--size", type=int, default=32)
        p.add_argument("--supersample", type=int, default=1)
        p.add_argument("--context", type=int, default=10)
        p.add_argument("--horizon", type=int, default=5)
        p.add_argument("--horizon-auto", action="store_true", help="horizon = clip length - context")
        p.add_argument("--hidden", type=int, default=32)
        p.add_argument("--epochs", type=int, default=4)
        p.add_argument("--batch", type=int, default=8)
        p.add_argument("--lr", type=float, default=1e-3)
        p.add_argument("--clip", type=float, default=1.0)
        p.add_argument("--optimizer", default="adam", choices=["adam", "lars"])
        p.add_argument("--loss", default="mse+ssim", choices=["mse+ssim", "mse+msssim"])
        p.add_argument("--log-every", type=int, default=6)
        p.add_argument("--pg-timeout", type=float, default=1800)
        p.add_argument("--keep-last", type=int, default=0)
        p.add_argument("--keep-best", action="store_true")
        p.add_argument("--async-samples", action="store_true", help="dump training-batch predictions in the background")
        p.add_argument("--resume", default="")
        p.add_argument("--save-on-term", action="store_true")
        p.add_argument("--channels-last", action="store_true")
        p.add_argument("--occlusion-lib", default="")
        p.add_argument("--workers", type=int, default=0)
        p.add_argument("--nprocs", type=int, default=2)
        p.add_argument("--port", type=int, default=29811)
        p.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.mode == "make":
        return cmd_make(a)
    if int(os.environ.get("RANK", os.environ.get("OMPI_COMM_WORLD_RANK", "0"))) == 0:
        print("args: " + " ".join(f"{k}={v}" for k, v in vars(a).items()), flush=True)
    {"ddp": run_ddp, "mpi": run_mpi, "spawn": run_spawn, "accelerate": run_accelerate, "lightning": run_lightning,
     "fabric": run_fabric}[a.mode](a)


if __name__ == "__main__":
    main()
