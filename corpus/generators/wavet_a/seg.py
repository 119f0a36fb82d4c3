"""Semantic segmentation U-Net trainer (synthetic shapes scenes), data parallel on gloo (CPU).

Rank/world come from torchrun/DeepSpeed/accelerate (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*) or Slurm
(SLURM_PROCID, SLURM_NTASKS); rendezvous is env:// at MASTER_ADDR:MASTER_PORT. Loss: cross-entropy (optionally
class-weighted) + soft Dice; evaluation: confusion matrix over each rank's slice of the validation set, all-reduced,
per-class IoU and mIoU, pixel accuracy. Rank 0 keeps the last --keep checkpoints.
"""
import argparse
import ctypes
import datetime
import json
import os
import shutil
import socket
import sys
import tempfile
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--classes", default="", help="comma-separated class names (default: data/classes.json)")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=16)
    ap.add_argument("--dice-weight", type=float, default=0.5)
    ap.add_argument("--class-weights", choices=["none", "inverse-freq"], default="none")
    ap.add_argument("--eval-every", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--keep", type=int, default=2)
    ap.add_argument("--resume", default="")
    ap.add_argument("--timeout-s", type=float, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--step-sleep", type=float, default=0.0)
    ap.add_argument("--find-unused", action="store_true")
    ap.add_argument("--aux-head", action="store_true")
    ap.add_argument("--confirm-overwrite", action="store_true", help="ask before overwriting checkpoints in --ckpt-dir")
    ap.add_argument("--eval-rank0-only", action="store_true")
    ap.add_argument("--overlay-dir", default="", help="rank 0 writes prediction overlays (PPM) after each evaluation")
    ap.add_argument("--overlay-scale", type=int, default=8)
    ap.add_argument("--keep-probs", action="store_true", help="keep upsampled class probabilities for calibration")
    ap.add_argument("--eval-scale", type=int, default=1, help="evaluate at this upsampling factor")
    ap.add_argument("--postproc-ccl", default="", help="native connected-component filter (shared library)")
    ap.add_argument("--min-component", type=int, default=64)
    ap.add_argument("--atomic-save", action="store_true", help="save checkpoints to a temp file first, then move")
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="ds_config.json")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--local_rank", "--local-rank", type=int, default=0)
    return ap.parse_args()


def ranks():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ[w]), r
    return 0, 1, "default"


def log(rank, msg):
    print(f"[{datetime.datetime.now():%Y-%m-%d %H:%M:%S}] [rank{rank}] {msg}", flush=True)


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, n_classes, w=16, aux=False):
        super().__init__()
        self.e1, self.e2, self.e3 = block(3, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.mid = block(4 * w, 8 * w)
        self.u3, self.d3 = nn.ConvTranspose2d(8 * w, 4 * w, 2, 2), block(8 * w, 4 * w)
        self.u2, self.d2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, 2), block(4 * w, 2 * w)
        self.u1, self.d1 = nn.ConvTranspose2d(2 * w, w, 2, 2), block(2 * w, w)
        self.head = nn.Conv2d(w, n_classes, 1)
        if aux:  # deep-supervision head on the bottleneck (its loss term: --aux-weight)
            self.aux = nn.Conv2d(8 * w, n_classes, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(F.max_pool2d(e1, 2))
        e3 = self.e3(F.max_pool2d(e2, 2))
        m = self.mid(F.max_pool2d(e3, 2))
        d3 = self.d3(torch.cat([self.u3(m), e3], 1))
        d2 = self.d2(torch.cat([self.u2(d3), e2], 1))
        d1 = self.d1(torch.cat([self.u1(d2), e1], 1))
        return self.head(d1)


def dice_loss(logits, target, n):
    p = logits.softmax(1)
    oh = F.one_hot(target.clamp(0, n - 1), n).permute(0, 3, 1, 2).float()
    inter = (p * oh).sum((0, 2, 3))
    return 1 - ((2 * inter + 1) / (p.sum((0, 2, 3)) + oh.sum((0, 2, 3)) + 1)).mean()


PALETTE = [(0, 0, 0), (230, 25, 75), (60, 180, 75), (0, 130, 200), (245, 130, 48)]


def write_overlay(path, img, pred, scale):
    """Naive PPM writer: image blended with the class colours, nearest-neighbour upscaled."""
    h, w = pred.shape
    with open(path, "w") as f:
        f.write(f"P3\n{w * scale} {h * scale}\n255\n")
        for y in range(h * scale):
            row = []
            for x in range(w * scale):
                c = PALETTE[int(pred[y // scale, x // scale]) % len(PALETTE)]
                px = img[:, y // scale, x // scale]
                row.append(" ".join(str(int(0.5 * int(px[k]) + 0.5 * c[k])) for k in range(3)))
            f.write(" ".join(row) + "\n")


def evaluate(net, images, masks, n_cls, rank, world, a, ccl):
    lo, hi = rank * len(images) // world, (rank + 1) * len(images) // world
    conf = torch.zeros(n_cls, n_cls, dtype=torch.int64)
    probs_kept, preds = [], []
    with torch.no_grad():
        chunk = 64 if a.eval_scale == 1 else 16
        for i in range(lo, hi, chunk):
            x = torch.from_numpy(images[i:min(i + chunk, hi)]).float() / 255.0
            y = torch.from_numpy(masks[i:min(i + chunk, hi)]).long()
            logits = net(x)
            if a.eval_scale > 1:
                logits = F.interpolate(logits, scale_factor=a.eval_scale, mode="bilinear", align_corners=False)
                y = F.interpolate(y[:, None].float(), scale_factor=a.eval_scale, mode="nearest")[:, 0].long()
            p = logits.softmax(1)
            if a.keep_probs:
                probs_kept.append(p)
            pred = p.argmax(1)
            if ccl is not None:
                for j in range(len(pred)):
                    arr = np.ascontiguousarray(pred[j].numpy().astype(np.int32))
                    removed = ccl.remove_small_components(arr.ctypes.data_as(ctypes.POINTER(ctypes.c_int)),
                                                          arr.shape[0], arr.shape[1], a.min_component)
                    pred[j] = torch.from_numpy(arr)
            valid = y < n_cls
            conf += torch.bincount(y[valid] * n_cls + pred[valid], minlength=n_cls * n_cls).view(n_cls, n_cls)
            preds.append(pred)
    if probs_kept:
        probs = torch.cat(probs_kept)
        log(rank, f"kept class probabilities for calibration: {tuple(probs.shape)} "
                  f"({probs.numel() * 4 / 2**20:.0f} MiB)")
    dist.all_reduce(conf)
    return conf, (torch.cat(preds) if preds else None), hi - lo


def main():
    a = parse()
    rank, world, src = ranks()
    if a.accelerate:
        from accelerate import Accelerator, InitProcessGroupKwargs
        acc = Accelerator(cpu=True, kwargs_handlers=[InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=a.timeout_s))])
        rank, world = acc.process_index, acc.num_processes
    else:
        acc = None
    log(rank, f"host {socket.gethostname()} pid {os.getpid()} rank {rank}/{world} (from {src}) torch {torch.__version__}"
              f" master {os.environ.get('MASTER_ADDR')}:{os.environ.get('MASTER_PORT')}")
    if a.confirm_overwrite and rank == 0 and os.path.isdir(a.ckpt_dir) and os.listdir(a.ckpt_dir):
        old = sorted(os.listdir(a.ckpt_dir))
        log(rank, f"{a.ckpt_dir}/ already holds {len(old)} checkpoint(s): {', '.join(old)}")
        ans = input(f"Overwrite checkpoints in {a.ckpt_dir}/? [y/N] ")
        if ans.strip().lower() != "y":
            log(rank, "not overwriting; exiting")
            sys.exit(2)
    timeout = datetime.timedelta(seconds=a.timeout_s)
    if a.deepspeed:
        import deepspeed
        if src != "RANK":
            dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
        deepspeed.init_distributed(dist_backend="gloo", timeout=timeout)
    elif acc is None:
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world, timeout=timeout)
    log(rank, f"process group ready: backend {dist.get_backend()}, world {dist.get_world_size()}")
    torch.manual_seed(a.seed)
    tr, va = np.load(os.path.join(a.data, "train.npz")), np.load(os.path.join(a.data, "val.npz"))
    tr_x, tr_y, va_x, va_y = tr["images"], tr["masks"], va["images"], va["masks"]
    if a.classes:
        names = a.classes.split(",")
    else:
        with open(os.path.join(a.data, "classes.json")) as f:
            names = json.load(f)
    n_cls = len(names)
    if rank == 0:
        log(rank, f"data: {len(tr_x)} train / {len(va_x)} val images {tr_x.shape[2]}x{tr_x.shape[3]}, "
                  f"{n_cls} classes {names}, mask values {sorted(np.unique(tr_y[:64]).tolist())}")
    weight = None
    if a.class_weights == "inverse-freq":
        counts = torch.from_numpy(np.bincount(tr_y.ravel(), minlength=n_cls)[:n_cls].astype(np.float64))
        weight = counts.sum() / (n_cls * counts)
        weight = (weight / weight.sum()).float()
        if rank == 0:
            log(rank, "class pixel counts: " + ", ".join(f"{n} {int(c)}" for n, c in zip(names, counts)))
            log(rank, "class weights (inverse frequency, normalised): " +
                ", ".join(f"{n} {w:.4f}" for n, w in zip(names, weight.tolist())))
    model = UNet(n_cls, a.width, a.aux_head)
    nparams = sum(p.numel() for p in model.parameters())
    start_epoch, step = 1, 0
    if a.resume and os.path.exists(a.resume):
        ck = torch.load(a.resume)
        model.load_state_dict(ck["model"])
        start_epoch, step = ck["epoch"] + 1, ck["step"]
        log(rank, f"resumed from {a.resume}: epoch {ck['epoch']}, step {step}, val mIoU {ck.get('miou', 0):.4f}")
    if rank == 0:
        log(rank, f"UNet width {a.width}: {nparams} parameters, batch {a.batch}/rank x {world} ranks, lr {a.lr}, "
                  f"loss CE{'(weighted)' if weight is not None else ''} + {a.dice_weight} x Dice")
    ccl = None
    if a.postproc_ccl:
        ccl = ctypes.CDLL(os.path.abspath(a.postproc_ccl))
        ccl.remove_small_components.restype = ctypes.c_int
        log(rank, f"post-processing: {a.postproc_ccl} remove_small_components(min {a.min_component} px)")
    engine = None
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    if a.deepspeed:
        with open(a.ds_config) as f:
            ds_cfg = json.load(f)
        log(rank, f"deepspeed config: {json.dumps(ds_cfg)}")
        engine, opt, _, _ = deepspeed.initialize(model=model, optimizer=opt, config=ds_cfg)
        net = engine
    elif acc is not None:
        net, opt = acc.prepare(model, opt)
    else:
        net = nn.parallel.DistributedDataParallel(model, find_unused_parameters=a.find_unused)
    if start_epoch > 1 and a.resume:
        opt.load_state_dict(ck["opt"])
    ds = torch.utils.data.TensorDataset(torch.from_numpy(tr_x), torch.from_numpy(tr_y))
    sampler = torch.utils.data.distributed.DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=True,
                                                              seed=a.seed, drop_last=True)
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch, sampler=sampler, drop_last=True)
    if rank == 0:
        log(rank, f"{len(loader)} steps/epoch, epochs {start_epoch}..{a.epochs}, eval every {a.eval_every}")
    os.makedirs(a.ckpt_dir, exist_ok=True)
    t0, seen = time.time(), 0
    for epoch in range(start_epoch, a.epochs + 1):
        sampler.set_epoch(epoch)
        net.train()
        for xb, yb in loader:
            step += 1
            x, y = xb.float() / 255.0, yb.long()
            logits = net(x)
            loss = F.cross_entropy(logits, y, weight=weight) + a.dice_weight * dice_loss(logits, y, n_cls)
            if not torch.isfinite(loss):
                log(rank, f"epoch {epoch} step {step}: non-finite loss {loss.item()}")
                raise FloatingPointError(f"Loss is {loss.item()} at step {step} on rank {rank}")
            if engine is not None:
                engine.backward(loss)
                engine.step()
                gn = engine.get_global_grad_norm() or 0.0
            else:
                opt.zero_grad(set_to_none=True)
                (acc.backward(loss) if acc is not None else loss.backward())
                gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0).item()
                opt.step()
            seen += len(x)
            if a.step_sleep:
                time.sleep(a.step_sleep)
            if step % a.log_every == 0 or step == 1:
                acc_px = (logits.argmax(1) == y).float().mean().item()
                log(rank, f"epoch {epoch} step {step} loss {loss.item():.4f} pixel_acc {acc_px:.3f} "
                          f"grad_norm {float(gn):.3f} {seen / (time.time() - t0):.0f} img/s")
        if epoch % a.eval_every == 0 or epoch == a.epochs:
            if a.eval_rank0_only and rank != 0:
                continue
            net.eval()
            conf, preds, n_local = evaluate(net, va_x, va_y, n_cls, rank, world if not a.eval_rank0_only else 1, a, ccl)
            iou = conf.diag().float() / (conf.sum(0) + conf.sum(1) - conf.diag()).clamp(min=1).float()
            log(rank, f"eval @ epoch {epoch}: {n_local} local images")
            miou = iou.mean().item()
            if rank == 0:
                log(rank, f"eval @ epoch {epoch}: mIoU {miou:.4f} pixel_acc {conf.diag().sum().item() / conf.sum().item():.4f} "
                          + " ".join(f"{n}={v:.3f}" for n, v in zip(names, iou.tolist())))
                if a.overlay_dir:
                    d = os.path.join(a.overlay_dir, f"epoch{epoch:03d}")
                    os.makedirs(d, exist_ok=True)
                    t1 = time.time()
                    for j in range(len(preds)):
                        write_overlay(os.path.join(d, f"val{j:04d}.ppm"), va_x[j], preds[j].numpy(), a.overlay_scale)
                    log(rank, f"wrote {len(preds)} overlays to {d} in {time.time() - t1:.1f} s")
            if engine is not None:
                engine.save_checkpoint(a.ckpt_dir, tag=f"epoch{epoch}")
                log(rank, f"saved deepspeed checkpoint {a.ckpt_dir}/epoch{epoch}")
            elif rank == 0:
                path = os.path.join(a.ckpt_dir, f"unet-epoch{epoch:03d}.pt")
                state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step, "miou": miou}
                if a.atomic_save:
                    fd, tmp = tempfile.mkstemp(suffix=".pt")
                    with os.fdopen(fd, "wb") as f:
                        torch.save(state, f)
                    shutil.move(tmp, path)
                else:
                    torch.save(state, path)
                old = sorted(f for f in os.listdir(a.ckpt_dir) if f.startswith("unet-"))[:-a.keep]
                for f in old:
                    os.remove(os.path.join(a.ckpt_dir, f))
                log(rank, f"saved {path}" + (f", removed {', '.join(old)}" if old else ""))
    dist.barrier()
    log(rank, f"done: {a.epochs} epochs, {step} steps in {time.time() - t0:.1f} s")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
