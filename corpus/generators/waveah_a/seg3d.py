"""3-D lesion segmenter: a small 3-D U-Net over 32^3 CT-like volumes (background, spherical lesion, ellipsoidal lesion),
trained data-parallel over gloo under torchrun, Open MPI, the DeepSpeed launcher or accelerate launch. Rank r reads
data/vol-NN.npy / seg-NN.npy for NN % world == r; HU window [-160, 240] scaled to [0, 1]; loss: soft Dice + cross
entropy (or generalized Dice); validation Dice per class all-reduced as counts; rank 0 writes ckpt/last.pt and
ckpt/best.pt."""
import argparse
import ctypes
import datetime
import faulthandler
import glob
import json
import os
import queue
import signal
import sys
import threading
import time
import warnings

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
CLASSES = ("background", "sphere", "ellipsoid")


def log(msg):
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def window(v):
    return np.clip((v + 160.0) / 400.0, 0.0, 1.0).astype(np.float32)


class Volumes(torch.utils.data.Dataset):
    def __init__(self, vol, seg, augment=False, rank=0):
        for _ in range(30):
            if os.path.exists(vol):
                break
            if _ == 0:
                log(f"rank {rank}: waiting for {vol}")
            time.sleep(0.1)
        self.v = np.load(vol, mmap_mode="r")
        self.s = np.load(seg, mmap_mode="r")
        self.augment = augment
        if augment:
            import aug3d
            self.aug = aug3d.RandomAffine3D(max_rotate=10, max_scale=0.1, seed=rank)

    def __len__(self):
        return len(self.v)

    def __getitem__(self, i):
        v, s = window(np.asarray(self.v[i])), np.asarray(self.s[i]).astype(np.int64)
        if self.augment:
            v, s = self.aug(v, s)
        return torch.from_numpy(v)[None], torch.from_numpy(s)


def block(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1), nn.InstanceNorm3d(cout, affine=True), nn.LeakyReLU(0.01),
                         nn.Conv3d(cout, cout, 3, padding=1), nn.InstanceNorm3d(cout, affine=True), nn.LeakyReLU(0.01))


class UNet3D(nn.Module):
    def __init__(self, base=8, n_cls=3):
        super().__init__()
        c = [base, base * 2, base * 4, base * 8]
        self.enc = nn.ModuleList([block(1, c[0]), block(c[0], c[1]), block(c[1], c[2]), block(c[2], c[3])])
        self.up = nn.ModuleList([nn.ConvTranspose3d(c[i + 1], c[i], 2, stride=2) for i in range(3)])
        self.dec = nn.ModuleList([block(2 * c[i], c[i]) for i in range(3)])
        self.head = nn.Conv3d(c[0], n_cls, 1)

    def forward(self, x):
        skips = []
        for i, e in enumerate(self.enc):
            x = e(x if i == 0 else F.max_pool3d(x, 2))
            skips.append(x)
        x = skips.pop()
        for i in reversed(range(3)):
            x = self.dec[i](torch.cat([self.up[i](x), skips[i]], dim=1))
        return self.head(x)


def dice_ce(logits, y, eps=1e-5):
    p = logits.softmax(1)
    g = F.one_hot(y, len(CLASSES)).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    dice = (2 * (p * g).sum(dims) + eps) / (p.sum(dims) + g.sum(dims) + eps)
    return 1 - dice[1:].mean() + F.cross_entropy(logits, y)


def generalized_dice(logits, y):
    """Sudre et al. 2017: class weights 1 / (sum of the class's ground truth)^2."""
    p = logits.softmax(1)
    g = F.one_hot(y, len(CLASSES)).permute(0, 4, 1, 2, 3).float()
    dims = (0, 2, 3, 4)
    w = 1.0 / g.sum(dims) ** 2
    return 1 - 2 * (w * (p * g).sum(dims)).sum() / (w * (p + g).sum(dims)).sum()


def hd95_exact(pred, gt, scale):
    """95th percentile Hausdorff distance, exact: all foreground voxels at `scale`x resolution, full distance matrix."""
    if scale > 1:
        pred = F.interpolate(pred[None, None].float(), scale_factor=scale, mode="nearest")[0, 0] > 0.5
        gt = F.interpolate(gt[None, None].float(), scale_factor=scale, mode="nearest")[0, 0] > 0.5
    a, b = pred.nonzero().float() / scale, gt.nonzero().float() / scale
    if len(a) == 0 or len(b) == 0:
        return float("nan")
    d = torch.cdist(a, b)
    return max(float(d.min(1).values.quantile(0.95)), float(d.min(0).values.quantile(0.95)))


def sliding_window(model, v, patch=16, stride=2):
    """Full-volume inference with overlapping patches, logits averaged."""
    out = torch.zeros((len(CLASSES),) + v.shape[1:])
    cnt = torch.zeros(v.shape[1:])
    starts = [list(range(0, n - patch + 1, stride)) for n in v.shape[1:]]
    coords = [(z, y, x) for z in starts[0] for y in starts[1] for x in starts[2]]
    for i in range(0, len(coords), 64):
        cs = coords[i:i + 64]
        xb = torch.stack([v[:, z:z + patch, y:y + patch, x:x + patch] for z, y, x in cs])
        lb = model(xb)
        for (z, y, x), l in zip(cs, lb):
            out[:, z:z + patch, y:y + patch, x:x + patch] += l
            cnt[z:z + patch, y:y + patch, x:x + patch] += 1
    return out / cnt


def lesions(mask):
    """Connected components (6-connectivity) of a binary mask: list of (voxel count, centroid)."""
    m = mask.copy()
    out = []
    for start in zip(*np.nonzero(m)):
        if not m[start]:
            continue
        q, pts = [start], []
        m[start] = False
        while q:
            p = q.pop()
            pts.append(p)
            for d in ((1, 0, 0), (-1, 0, 0), (0, 1, 0), (0, -1, 0), (0, 0, 1), (0, 0, -1)):
                n = (p[0] + d[0], p[1] + d[1], p[2] + d[2])
                if all(0 <= n[k] < m.shape[k] for k in range(3)) and m[n]:
                    m[n] = False
                    q.append(n)
        out.append((len(pts), np.mean(pts, 0)))
    return out


class Prefetcher:
    """Loads the next batches in a background thread while the current step runs."""

    def __init__(self, ds, batch, rng):
        self.ds, self.batch, self.rng = ds, batch, rng
        self.q = queue.Queue(maxsize=4)

    def __len__(self):
        return (len(self.ds) + self.batch - 1) // self.batch

    def _fill(self, order):
        for i in range(0, len(order) - self.batch + 1, self.batch):  # full batches only (InstanceNorm needs them)
            xs, ys = zip(*[self.ds[j] for j in order[i:i + self.batch]])
            self.q.put((torch.stack(xs), torch.stack(ys)))

    def __iter__(self):
        order = self.rng.permutation(len(self.ds)).tolist()
        threading.Thread(target=self._fill, args=(order,), daemon=True).start()
        for _ in range(len(self)):
            yield self.q.get()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=2)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--base", type=int, default=8)
    ap.add_argument("--loss", choices=("dice_ce", "gdl"), default="dice_ce")
    ap.add_argument("--log-every", type=int, default=4)
    ap.add_argument("--augment", action="store_true", help="random 3-D affine augmentation (aug3d.py)")
    ap.add_argument("--prefetch", action="store_true", help="background-thread batch prefetcher")
    ap.add_argument("--hd95", type=int, default=0, help="also report exact HD95 at this upsampling (0: off)")
    ap.add_argument("--sw-eval", action="store_true", help="rank 0 reports sliding-window Dice too")
    ap.add_argument("--lesion-f1", action="store_true", help="lesion-wise detection F1 over all ranks")
    ap.add_argument("--lesion-boxes", action="store_true", help="lesion bounding boxes via the libboxes C helper")
    ap.add_argument("--export-preds", default="", help="write predicted masks of the validation volumes here")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    torch.manual_seed(0)
    timeout = datetime.timedelta(seconds=a.pg_timeout)
    if "OMPI_COMM_WORLD_RANK" in os.environ:
        os.environ["RANK"] = os.environ["OMPI_COMM_WORLD_RANK"]
        os.environ["WORLD_SIZE"] = os.environ["OMPI_COMM_WORLD_SIZE"]
    acc = None
    if a.accelerate:
        from accelerate import Accelerator
        from accelerate.utils import InitProcessGroupKwargs
        acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(backend="gloo", timeout=timeout)])
    elif a.deepspeed:
        import deepspeed
        deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    else:
        dist.init_process_group("gloo", timeout=timeout)
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.set_num_threads(1)
    if rank == 0:
        log(f"seg3d 3-D U-Net: world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")
    shards = sorted(glob.glob(os.path.join(a.data, "seg-*.npy")))[rank::world]
    parts = [Volumes(s.replace("seg-", "vol-"), s, a.augment, rank) for s in shards]
    ds = torch.utils.data.ConcatDataset(parts)
    fg = np.mean([[(np.asarray(p.s) == c).mean() for c in (1, 2)] for p in parts], 0)
    log(f"rank {rank}: shards {[os.path.basename(s).replace('seg-', 'vol-') for s in shards]}, {len(ds)} volumes "
        f"{tuple(parts[0].v.shape[1:])}, foreground sphere {fg[0]:.4f} ellipsoid {fg[1]:.4f}")
    val = Volumes(os.path.join(a.data, "val-vol.npy"), os.path.join(a.data, "val-seg.npy"))
    vidx = list(range(rank, len(val), world))
    model = UNet3D(a.base)
    if rank == 0:
        log(f"model: 3-D U-Net, base {a.base}, {sum(p.numel() for p in model.parameters())} parameters, "
            f"classes {list(CLASSES)}, loss {a.loss}")
    if a.prefetch:
        loader = Prefetcher(ds, a.batch_size, np.random.default_rng(rank))
    else:
        loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, shuffle=True, drop_last=True,
                                             generator=torch.Generator().manual_seed(rank))
    if a.deepspeed:
        import deepspeed
        cfg = {"train_batch_size": a.batch_size * world, "train_micro_batch_size_per_gpu": a.batch_size,
               "gradient_accumulation_steps": 1, "steps_per_print": 20, "gradient_clipping": 1.0,
               "optimizer": {"type": "Adam", "params": {"lr": a.lr, "torch_adam": True}},
               "zero_optimization": {"stage": 0}}
        if a.ds_config:
            with open(a.ds_config) as f:
                cfg = json.load(f)
            log(f"rank {rank}: DeepSpeed config from {a.ds_config}: {cfg}")
        net, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    else:
        opt = torch.optim.Adam(model.parameters(), lr=a.lr)
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model)
    loss_fn = generalized_dice if a.loss == "gdl" else dice_ce
    boxes = None
    if a.lesion_boxes:
        boxes = ctypes.CDLL(os.path.abspath("libboxes.so"))
        boxes.lesion_boxes.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_void_p,
                                       ctypes.c_int]
        boxes.lesion_boxes.restype = ctypes.c_int

    def save(epoch, dice, best):
        os.makedirs(a.ckpt_dir, exist_ok=True)
        state = {"model": model.state_dict(), "optim": opt.state_dict(), "epoch": epoch, "dice": dice}
        torch.save(state, os.path.join(a.ckpt_dir, "last.pt"))
        msg = f"saved {a.ckpt_dir}/last.pt (epoch {epoch}, val Dice {dice:.4f})"
        if best:
            torch.save(state, os.path.join(a.ckpt_dir, "best.pt"))
            msg += ", new best"
        log(msg)

    stop = {"sig": 0}

    def on_term(sig, frame):
        stop["sig"] = sig
        log(f"rank {rank}: received {signal.Signals(sig).name}, will checkpoint and exit after this step")
    signal.signal(signal.SIGTERM, on_term)

    step = bad = 0
    best = -1.0
    epoch = 0
    for epoch in range(a.epochs):
        net.train()
        t0, run_loss, nb, nvol = time.time(), 0.0, 0, 0
        for x, y in loader:
            logits = net(x)
            loss = loss_fn(logits, y)
            if a.deepspeed:
                net.backward(loss)
                net.step()
                gn = None
            else:
                opt.zero_grad()
                (acc.backward(loss) if acc is not None else loss.backward())
                gn = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                opt.step()
            step += 1
            nb += 1
            nvol += len(y)
            run_loss += loss.item()
            bad = bad + 1 if not torch.isfinite(loss) else 0
            if step % a.log_every == 0 and rank == 0:
                log(f"epoch {epoch} step {step} loss {loss.item():.4f} "
                    f"{'' if gn is None else f'grad-norm {float(gn):.3f} '}"
                    f"lr {opt.param_groups[0]['lr']:.2e} {nvol * world / (time.time() - t0):.2f} vol/s")
            if bad >= 10:
                log(f"rank {rank}: loss not finite for {bad} steps (last {loss.item()}), stopping")
                sys.exit(3)
            if stop["sig"]:
                break
        if stop["sig"]:
            if rank == 0:
                save(epoch, float("nan"), False)
            log(f"rank {rank}: exiting on {signal.Signals(stop['sig']).name} at epoch {epoch} step {step}")
            sys.exit(143)
        net.eval()
        inter = torch.zeros(3, dtype=torch.float64)
        denom = torch.zeros(3, dtype=torch.float64)
        hds, found, n_box = [], [], 0
        if a.export_preds:
            os.makedirs(os.path.join(a.export_preds, f"epoch{epoch:02d}"), exist_ok=True)
        with torch.no_grad():
            for j in vidx:
                v, s = val[j]
                pred = model(v[None])[0].argmax(0)
                for c in range(3):
                    inter[c] += float(((pred == c) & (s == c)).sum())
                    denom[c] += float((pred == c).sum() + (s == c).sum())
                if a.hd95:
                    for c in (1, 2):
                        hds.append(hd95_exact(pred == c, s == c, a.hd95))
                    log(f"rank {rank}: val volume {j}: HD95 sphere {hds[-2]:.2f} ellipsoid {hds[-1]:.2f}")
                if a.lesion_f1:
                    for c in (1, 2):
                        found += [[float(c), float(n), *map(float, ctr)] for n, ctr in lesions((pred == c).numpy())]
                if boxes is not None:
                    lab = np.ascontiguousarray(pred.numpy().astype(np.uint8))
                    out = np.zeros((64, 7), np.int32)
                    n_box += boxes.lesion_boxes(lab.ctypes.data, *lab.shape, out.ctypes.data, 64)
                if a.export_preds:
                    np.save(os.path.join(a.export_preds, f"epoch{epoch:02d}", f"val-{j:03d}-pred.npy"),
                            pred.numpy().astype(np.uint8))
                    np.save(os.path.join(a.export_preds, f"epoch{epoch:02d}", f"val-{j:03d}-prob.npy"),
                            model(v[None])[0].softmax(0).numpy().astype(np.float16))
            if a.sw_eval and rank == 0:
                sw_inter = np.zeros(3)
                sw_den = np.zeros(3)
                for j in range(len(val)):
                    v, s = val[j]
                    pred = sliding_window(model, v).argmax(0)
                    for c in range(3):
                        sw_inter[c] += float(((pred == c) & (s == c)).sum())
                        sw_den[c] += float((pred == c).sum() + (s == c).sum())
                log(f"sliding-window Dice: " + " ".join(f"{CLASSES[c]} {2 * sw_inter[c] / max(1, sw_den[c]):.4f}"
                                                        for c in range(3)))
        if a.lesion_f1:
            mine = torch.tensor(found, dtype=torch.float32).reshape(-1, 5)
            allf = [torch.zeros_like(mine) for _ in range(world)]
            dist.all_gather(allf, mine)
            if rank == 0:
                log(f"lesion detection: {sum(len(t) for t in allf)} predicted lesions over the validation set")
        if boxes is not None:
            log(f"rank {rank}: {n_box} lesion boxes on {len(vidx)} validation volumes")
        part = torch.cat([inter, denom, torch.tensor([run_loss, float(nb)], dtype=torch.float64)])
        dist.all_reduce(part)
        inter, denom, (rl, nbs) = part[:3], part[3:6], part[6:].tolist()
        dice = (2 * inter / denom.clamp(min=1)).tolist()
        mean_fg = (dice[1] + dice[2]) / 2
        if rank == 0:
            hd = f" HD95 {np.nanmean(hds):.2f}" if a.hd95 else ""
            log(f"eval epoch {epoch}: train loss {rl / max(1.0, nbs):.4f} val Dice background {dice[0]:.4f} sphere "
                f"{dice[1]:.4f} ellipsoid {dice[2]:.4f} mean-fg {mean_fg:.4f}{hd} over {len(val)} volumes, epoch time "
                f"{time.time() - t0:.1f}s")
            save(epoch, mean_fg, mean_fg > best)
        best = max(best, mean_fg)
    if rank == 0:
        log(f"done: {epoch + 1} epochs, best val Dice {best:.4f}")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
