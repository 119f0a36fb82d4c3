"""Tiny anchor-free object detector (CenterNet-style) on synthetic scenes, trained with DDP over gloo.

Scenes: 64x64 RGB images with 1-5 objects of 3 classes (square, disc, bar) on a noisy background, boxes in pixels.
Model: a 4-stage CNN backbone (stride 4) with a heatmap head (focal loss), a size head and an offset head (L1 at the
object centres). Evaluation: top-k peak decoding, per-class AP at IoU 0.5 (all-point interpolation), mAP over ranks.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Lightning Trainer, ddp), ray (Ray Train).
"""
from __future__ import annotations

import argparse
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

CLASSES = ("square", "disc", "bar")
IMG, STRIDE = 64, 4
OUT = IMG // STRIDE


def log(rank, msg):
    print(f"[rank{rank}] {time.strftime('%H:%M:%S')} {msg}", flush=True)


# ----------------------------------------------------------------------------------------------------------- data
def make_scene(rng, args, max_objs=None):
    img = rng.normal(0.1, 0.05, (3, IMG, IMG)).astype(np.float32)
    n = rng.integers(args.min_objs, (max_objs or args.max_objs) + 1)
    boxes, labels = [], []
    for _ in range(n):
        c = int(rng.integers(0, 3))
        w = int(rng.integers(8, 22))
        h = w if c < 2 else int(rng.integers(4, 8))
        x1 = int(rng.integers(-w - 2, IMG + 2)) if args.edge_objects else int(rng.integers(0, IMG - w))
        y1 = int(rng.integers(0, IMG - h))
        color = np.array([[0.9, 0.2, 0.2], [0.2, 0.9, 0.2], [0.2, 0.3, 0.9]][c], np.float32)[:, None, None]
        yy, xx = np.mgrid[0:IMG, 0:IMG]
        if c == 1:
            m = ((xx - (x1 + w / 2)) ** 2 + (yy - (y1 + h / 2)) ** 2) <= (w / 2) ** 2
        else:
            m = (xx >= x1) & (xx < x1 + w) & (yy >= y1) & (yy < y1 + h)
        img = np.where(m[None], color + rng.normal(0, 0.03, (3, IMG, IMG)).astype(np.float32), img)
        bx1, bx2 = max(x1, 0), min(x1 + w, IMG)
        if args.edge_objects:  # the exporter clips boxes to the image but keeps slivers at the border
            bx1, bx2 = min(max(x1, 0), IMG), max(min(x1 + w, IMG), 0)
        boxes.append([bx1, y1, bx2, y1 + h])
        labels.append(c)
    return img, np.array(boxes, np.float32).reshape(-1, 4), np.array(labels, np.int64)


def gaussian_radius(h, w, min_overlap=0.7):  # CenterNet's radius for a box of this size
    a1, b1, c1 = 1, h + w, w * h * (1 - min_overlap) / (1 + min_overlap)
    r1 = (b1 + math.sqrt(b1 ** 2 - 4 * a1 * c1)) / 2
    a2, b2, c2 = 4, 2 * (h + w), (1 - min_overlap) * w * h
    r2 = (b2 + math.sqrt(b2 ** 2 - 4 * a2 * c2)) / 2
    a3, b3, c3 = 4 * min_overlap, -2 * min_overlap * (h + w), (min_overlap - 1) * w * h
    r3 = (b3 + math.sqrt(b3 ** 2 - 4 * a3 * c3)) / 2
    return min(r1, r2, r3)


def encode(boxes, labels, args):
    hm = np.zeros((3, OUT, OUT), np.float32)
    wh = np.zeros((args.max_objs, 2), np.float32)
    off = np.zeros((args.max_objs, 2), np.float32)
    ind = np.zeros((args.max_objs,), np.int64)
    mask = np.zeros((args.max_objs,), np.float32)
    for k, (b, c) in enumerate(zip(boxes, labels)):
        w, h = (b[2] - b[0]) / STRIDE, (b[3] - b[1]) / STRIDE
        r = max(0, int(gaussian_radius(math.ceil(h), math.ceil(w))))
        cx, cy = (b[0] + b[2]) / 2 / STRIDE, (b[1] + b[3]) / 2 / STRIDE
        ix, iy = min(int(cx), OUT - 1), min(int(cy), OUT - 1)
        d = 2 * r + 1
        sigma = d / 6
        ys, xs = np.ogrid[-r:r + 1, -r:r + 1]
        g = np.exp(-(xs * xs + ys * ys) / (2 * sigma * sigma))
        l, ri, t, bo = min(ix, r), min(OUT - ix, r + 1), min(iy, r), min(OUT - iy, r + 1)
        hm[c, iy - t:iy + bo, ix - l:ix + ri] = np.maximum(hm[c, iy - t:iy + bo, ix - l:ix + ri],
                                                           g[r - t:r + bo, r - l:r + ri])
        wh[k] = (np.log(w), np.log(h)) if args.log_size else (w, h)
        off[k] = (cx - ix, cy - iy)
        ind[k] = iy * OUT + ix
        mask[k] = 1
    return hm, wh, off, ind, mask


class Scenes(torch.utils.data.Dataset):
    def __init__(self, n, seed, args, max_objs=None, keep=None):
        rng = np.random.default_rng(seed)
        self.items = [make_scene(rng, args, max_objs) for _ in range(n)]
        if keep is not None:
            self.items = self.items[keep]
        self.args = args

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        img, boxes, labels = self.items[i]
        hm, wh, off, ind, mask = encode(boxes, labels, self.args)
        return img, hm, wh, off, ind, mask


# ---------------------------------------------------------------------------------------------------------- model
def block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class CenterNet(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.backbone = nn.Sequential(block(3, width // 2, 1), block(width // 2, width, 2), block(width, width, 1),
                                      block(width, width * 2, 2), block(width * 2, width * 2, 1))
        self.hm = nn.Sequential(block(width * 2, width, 1), nn.Conv2d(width, 3, 1))
        self.wh = nn.Sequential(block(width * 2, width, 1), nn.Conv2d(width, 2, 1))
        self.off = nn.Sequential(block(width * 2, width, 1), nn.Conv2d(width, 2, 1))
        self.hm[-1].bias.data.fill_(-2.19)

    def forward(self, x):
        f = self.backbone(x)
        return self.hm(f), self.wh(f), self.off(f)


def focal_loss(pred, gt):
    p = pred.sigmoid().clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = (torch.log(p) * (1 - p) ** 2 * pos).sum()
    neg_loss = (torch.log(1 - p) * p ** 2 * (1 - gt) ** 4 * neg).sum()
    num_pos = pos.sum()
    return -neg_loss if num_pos == 0 else -(pos_loss + neg_loss) / num_pos


def gather_feat(x, ind):
    b, c = x.shape[:2]
    x = x.view(b, c, -1).permute(0, 2, 1)
    return x.gather(1, ind.unsqueeze(2).expand(-1, -1, c))


def compute_loss(model, batch):
    img, hm, wh, off, ind, mask = batch
    phm, pwh, poff = model(img)
    lh = focal_loss(phm, hm)
    m = mask.unsqueeze(2)
    n = m.sum() + 1e-4
    lwh = (F.l1_loss(gather_feat(pwh, ind) * m, wh * m, reduction="sum")) / n
    loff = (F.l1_loss(gather_feat(poff, ind) * m, off * m, reduction="sum")) / n
    return lh + 0.1 * lwh + loff, lh, lwh, loff


# ------------------------------------------------------------------------------------------------------------ eval
def decode(phm, pwh, poff, args, k=20):
    b = phm.shape[0]
    heat = phm.sigmoid()
    keep = (F.max_pool2d(heat, 3, 1, 1) == heat).float()
    heat = heat * keep
    scores, idx = heat.view(b, -1).topk(k)
    cls = idx // (OUT * OUT)
    pix = idx % (OUT * OUT)
    ys, xs = (pix // OUT).float(), (pix % OUT).float()
    wh = gather_feat(pwh, pix)
    if args.log_size:
        wh = wh.exp()
    off = gather_feat(poff, pix)
    cx, cy = (xs + off[..., 0]) * STRIDE, (ys + off[..., 1]) * STRIDE
    w, h = wh[..., 0] * STRIDE, wh[..., 1] * STRIDE
    return torch.stack([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2], -1), scores, cls


def iou(a, b):
    x1, y1 = np.maximum(a[0], b[:, 0]), np.maximum(a[1], b[:, 1])
    x2, y2 = np.minimum(a[2], b[:, 2]), np.minimum(a[3], b[:, 3])
    inter = np.clip(x2 - x1, 0, None) * np.clip(y2 - y1, 0, None)
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1]) - inter + 1e-9)


def average_precision(dets, gts, c):
    """dets: [(img, score, box, cls)], gts: {img: (boxes, labels)} -> AP@0.5 for class c."""
    d = sorted([x for x in dets if x[3] == c], key=lambda x: -x[1])
    npos = sum(int((lab == c).sum()) for _, lab in gts.values())
    used = {k: np.zeros(len(v[0]), bool) for k, v in gts.items()}
    tp = np.zeros(len(d))
    for i, (im, s, box, _) in enumerate(d):
        gb, gl = gts[im]
        sel = np.where(gl == c)[0]
        if len(sel):
            o = iou(box, gb[sel])
            j = int(o.argmax())
            if o[j] >= 0.5 and not used[im][sel[j]]:
                tp[i], used[im][sel[j]] = 1, True
    if npos == 0:
        return 0.0
    ctp = np.cumsum(tp)
    rec, prec = ctp / npos, ctp / np.arange(1, len(d) + 1)
    mrec, mpre = np.concatenate([[0], rec, [1]]), np.concatenate([[0], prec, [0]])
    for i in range(len(mpre) - 2, -1, -1):
        mpre[i] = max(mpre[i], mpre[i + 1])
    return float(np.sum((mrec[1:] - mrec[:-1]) * mpre[1:]))


@torch.no_grad()
def evaluate(model, val, rank, world, args, step):
    model.eval()
    dets, gts = [], {}
    for i in range(0, len(val.items), 32):
        chunk = val.items[i:i + 32]
        img = torch.from_numpy(np.stack([c[0] for c in chunk]))
        boxes, scores, cls = decode(*model(img), args)
        for j, (_, gb, gl) in enumerate(chunk):
            key = (rank, i + j)
            gts[key] = (gb, gl)
            for b, s, c in zip(boxes[j].numpy(), scores[j].numpy(), cls[j].numpy()):
                if s > 0.05:
                    dets.append((key, float(s), b, int(c)))
    if args.viz and rank == 0:  # draw this rank's predictions into PPM files for a look
        os.makedirs("viz", exist_ok=True); log(rank, f"drawing predictions on {args.viz} validation images")
        for i, (im, gb, gl) in enumerate(val.items[:args.viz]):
            canvas = [[[int(255 * min(max(v, 0), 1)) for v in im[:, y // 4, x // 4]] for x in range(IMG * 4)
                       for _ in range(1)] for y in range(IMG * 4) for _ in range(1)]
            for (k, s, b, c) in dets:
                if k == (rank, i) and s > 0.3:
                    for x in range(max(int(b[0]), 0), min(int(b[2]), IMG)):
                        canvas[min(max(int(b[1]) * 4, 0), IMG * 4 - 1)][x * 4] = [255, 255, 0]
            with open(f"viz/step{step:05d}_{i:03d}.ppm", "w") as f:
                f.write(f"P3 {IMG * 4} {IMG * 4} 255\n" + "\n".join(" ".join(map(str, p)) for r in canvas for p in r))
        log(rank, f"wrote {args.viz} visualisations to viz/")
    # gather detections and ground truth of every rank (padded tensors: boxes, score, class, image id)
    per_img = args.max_objs if not args.pad_from_data else max(len(g[1]) for g in gts.values())
    n_img = len(val.items)
    det_t = torch.full((n_img, 20, 6), -1.0)
    gt_t = torch.full((n_img, per_img, 5), -1.0)
    cnt = {}
    for (key, s, b, c) in dets:
        k = cnt.get(key[1], 0)
        if k < 20:
            det_t[key[1], k] = torch.tensor([*b, s, c])
            cnt[key[1]] = k + 1
    for (_, i), (gb, gl) in gts.items():
        for k, (b, c) in enumerate(zip(gb, gl)):
            gt_t[i, k] = torch.tensor([*b, c])
    if world > 1:
        all_det = [torch.empty_like(det_t) for _ in range(world)]
        all_gt = [torch.empty_like(gt_t) for _ in range(world)]
        dist.all_gather(all_det, det_t)
        dist.all_gather(all_gt, gt_t)
    else:
        all_det, all_gt = [det_t], [gt_t]
    dets, gts = [], {}
    for r in range(world):
        for i in range(n_img):
            g = all_gt[r][i]
            g = g[g[:, 4] >= 0]
            gts[(r, i)] = (g[:, :4].numpy(), g[:, 4].long().numpy())
            for d in all_det[r][i]:
                if d[4] >= 0:
                    dets.append(((r, i), float(d[4]), d[:4].numpy(), int(d[5])))
    if args.vectorized_ap:  # all detection/ground-truth IoUs at once instead of per image
        D = torch.tensor(np.array([d[2] for d in dets]), dtype=torch.float64)[:, None, :]
        G = torch.tensor(np.concatenate([g[0] for g in gts.values()]), dtype=torch.float64)[None, :, :]
        log(rank, f"IoU matrix {D.shape[0]} x {G.shape[1]}")
        iw = (torch.minimum(D[..., 2], G[..., 2]) - torch.maximum(D[..., 0], G[..., 0])).clamp(min=0)
        ih = (torch.minimum(D[..., 3], G[..., 3]) - torch.maximum(D[..., 1], G[..., 1])).clamp(min=0)
        inter = iw * ih
        area = (D[..., 2] - D[..., 0]) * (D[..., 3] - D[..., 1]) + (G[..., 2] - G[..., 0]) * (G[..., 3] - G[..., 1])
        ious = inter / (area - inter)
        log(rank, f"mean best IoU {ious.max(1).values.mean():.3f}")
    aps = [average_precision(dets, gts, c) for c in range(3)]
    model.train()
    return aps


# ------------------------------------------------------------------------------------------------------- training
def train(rank, world, args, report=None):
    torch.manual_seed(0)
    # shards: rank r reads train/shard-r; the crowded-scene export (up to 8 objects per image) went to one shard
    train_set = Scenes(args.train_images, 1000 + rank, args, max_objs=8 if rank == args.crowded_shard else None)
    if args.val_split:  # one validation set split round-robin over the ranks
        val = Scenes(args.val_split, 5000, args, keep=slice(rank, None, world))
    else:
        val = Scenes(args.val_images, 5000 + rank, args)
    nb = sum(len(x[2]) for x in train_set.items)
    if rank == 0 or args.verbose_data:
        ws = np.concatenate([x[1][:, 2] - x[1][:, 0] for x in train_set.items])
        mo = max(len(x[2]) for x in train_set.items)
        log(rank, f"train shard: {len(train_set)} images, {nb} boxes, max {mo} per image (w min {ws.min():.0f} max {ws.max():.0f}), "
                  f"val shard: {len(val)} images")
    model = CenterNet(args.width)
    nparam = sum(p.numel() for p in model.parameters())
    if rank == 0:
        log(rank, f"model: CenterNet width={args.width} stride={STRIDE} classes={len(CLASSES)} params={nparam / 1e3:.1f}K "
                  f"size_target={'log' if args.log_size else 'linear'}")
    if world > 1:
        model = nn.parallel.DistributedDataParallel(model)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=args.lr, total_steps=args.steps + args.sched_first, pct_start=0.1)
    if args.sched_first:
        sched.step()
    loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch, shuffle=True, drop_last=True,
                                         num_workers=args.workers)
    step, t0, seen = 0, time.time(), 0
    stop = {"flag": False}
    if args.emergency_ckpt:
        def on_term(signum, frame):
            log(rank, f"received signal {signum}, will save an emergency checkpoint at the next step")
            stop["flag"] = True
        signal.signal(signal.SIGTERM, on_term)
    best = -1
    while step < args.steps:
        for batch in loader:
            loss, lh, lwh, loff = compute_loss(model, batch)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 10.0)
            opt.step()
            sched.step()
            step += 1
            seen += batch[0].shape[0]
            if args.hard_mining and step % args.hard_mining == 0:
                hard = [i for i in range(batch[0].shape[0]) if float(lh) > 0.8]
                if rank == 0:
                    got = torch.zeros(1, dtype=torch.long)
                    for src in range(1, world):
                        dist.recv(got, src)
                    log(rank, f"hard-example pool: {int(got)} images from other ranks")
                elif hard:
                    dist.send(torch.tensor([len(hard)]), 0)
            if step % args.log_every == 0 and rank == 0:
                el = time.time() - t0
                log(rank, f"step {step}/{args.steps} | loss {loss.item():.4f} | hm {lh.item():.4f} | wh {lwh.item():.4f} "
                          f"| off {loff.item():.4f} | lr {sched.get_last_lr()[0]:.2e} | {seen * world / el:.1f} img/s")
            if stop["flag"]:
                if rank == 0:
                    torch.save({"model": model.state_dict(), "step": step}, os.path.join(args.ckpt_dir, "emergency.pt"))
                    log(rank, f"emergency checkpoint written at step {step}, exiting")
                sys.exit(143)
            if step % args.eval_every == 0 or step == args.steps:
                aps = evaluate(model, val, rank, world, args, step)
                m = sum(aps) / 3
                if rank == 0:
                    log(rank, f"eval step {step}: mAP@0.5 {m:.4f} | " +
                        " ".join(f"AP_{c} {a:.3f}" for c, a in zip(CLASSES, aps)))
                    os.makedirs(args.ckpt_dir, exist_ok=True)
                    path = os.path.join(args.ckpt_dir, f"step-{step:05d}.pt")
                    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "step": step}, path)
                    log(rank, f"saved checkpoint {path}")
                    if args.results_dir:
                        os.makedirs(args.results_dir, exist_ok=True)
                        with open(os.path.join(args.results_dir, f"dets-step{step:05d}.json"), "w") as f:
                            json.dump(evaluate_dump(model, val, args), f, indent=1)
                        log(rank, f"wrote detections to {args.results_dir}/dets-step{step:05d}.json")
                if report is not None:
                    report({"step": step, "mAP": m, "loss": loss.item()})
                if world > 1:
                    dist.barrier()
            if step >= args.steps:
                break
    log(rank, f"done ({args.steps} steps, {time.time() - t0:.0f} s)")


@torch.no_grad()
def evaluate_dump(model, val, args):
    model.eval()
    out = []
    for i in range(0, len(val.items), 32):
        chunk = val.items[i:i + 32]
        img = torch.from_numpy(np.stack([c[0] for c in chunk]))
        boxes, scores, cls = decode(*model(img), args, k=100)
        for j in range(len(chunk)):
            for b, s, c in zip(boxes[j].tolist(), scores[j].tolist(), cls[j].tolist()):
                out.append({"image_id": i + j, "category": CLASSES[c], "score": s, "bbox": b})
    model.train()
    return out


def spawn_worker(rank, world, args):
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ.get('MASTER_PORT', '29600')}",
                            rank=rank, world_size=world, timeout=__import__("datetime").timedelta(seconds=args.pg_timeout))
    log(rank, f"process group ready: gloo world_size={world}")
    train(rank, world, args)
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("spawn", "ddp", "lightning", "ray"))
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=300)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--width", type=int, default=32)
    ap.add_argument("--train-images", type=int, default=1200)
    ap.add_argument("--val-images", type=int, default=160)
    ap.add_argument("--min-objs", type=int, default=1)
    ap.add_argument("--max-objs", type=int, default=5)
    ap.add_argument("--eval-every", type=int, default=100)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--results-dir", default="")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--log-size", action="store_true")
    ap.add_argument("--edge-objects", action="store_true")
    ap.add_argument("--pad-from-data", action="store_true")
    ap.add_argument("--viz", type=int, default=0)
    ap.add_argument("--hard-mining", type=int, default=0)
    ap.add_argument("--sched-first", action="store_true")
    ap.add_argument("--emergency-ckpt", action="store_true")
    ap.add_argument("--verbose-data", action="store_true")
    ap.add_argument("--placement", default="PACK")
    ap.add_argument("--crowded-shard", type=int, default=-1)
    ap.add_argument("--val-split", type=int, default=0)
    ap.add_argument("--vectorized-ap", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    if args.mode == "spawn":
        import torch.multiprocessing as mp
        print(f"launching {args.nprocs} ranks with torch.multiprocessing.spawn", flush=True)
        mp.spawn(spawn_worker, args=(args.nprocs, args), nprocs=args.nprocs, join=True)
        print("all ranks finished", flush=True)
    elif args.mode == "ddp":
        dist.init_process_group("gloo", timeout=__import__("datetime").timedelta(seconds=args.pg_timeout))
        rank, world = dist.get_rank(), dist.get_world_size()
        log(rank, f"process group ready: gloo world_size={world}")
        train(rank, world, args)
        dist.destroy_process_group()
    elif args.mode == "lightning":
        run_lightning(args)
    else:
        run_ray(args)


def run_lightning(args):
    import lightning as L

    class LitDet(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.model = CenterNet(args.width)

        def training_step(self, batch, i):
            loss, lh, lwh, loff = compute_loss(self.model, batch)
            self.log_dict({"loss": loss, "hm": lh, "wh": lwh}, prog_bar=True, sync_dist=False)
            if self.global_rank == 0 and self.global_step % 10 == 0:
                print(f"step {self.global_step} | loss {loss.item():.4f} | hm {lh.item():.4f} | wh {lwh.item():.4f} "
                      f"| off {loff.item():.4f}", flush=True)
            return loss

        def on_train_epoch_end(self):
            aps = evaluate(self.model, self.val, self.global_rank, self.trainer.world_size, args, self.global_step)
            if self.global_rank == 0:
                print(f"epoch {self.current_epoch} step {self.global_step}: mAP@0.5 {sum(aps) / 3:.4f} | " +
                      " ".join(f"AP_{c} {a:.3f}" for c, a in zip(CLASSES, aps)), flush=True)

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=args.lr, weight_decay=1e-4)
            return opt

        def setup(self, stage):
            self.val = Scenes(args.val_images, 5000 + self.global_rank, args)

        def train_dataloader(self):
            ds = Scenes(args.train_images, 1000 + self.global_rank, args,
                        max_objs=8 if self.global_rank == args.crowded_shard else None)
            return torch.utils.data.DataLoader(ds, batch_size=args.batch, shuffle=True, drop_last=True)

    trainer = L.Trainer(accelerator="cpu", devices=args.nprocs, strategy="ddp", max_steps=args.steps,
                        log_every_n_steps=10, default_root_dir=args.ckpt_dir, enable_progress_bar=False,
                        use_distributed_sampler=False)
    trainer.fit(LitDet())
    if trainer.global_rank == 0:
        print(f"fit finished at step {trainer.global_step}", flush=True)


def run_ray(args):
    import ray
    from ray import train as rt
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    def loop(cfg):
        a = argparse.Namespace(**cfg)
        ctx = rt.get_context()
        train(ctx.get_world_rank(), ctx.get_world_size(), a, report=lambda m: rt.report(m))

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    trainer = TorchTrainer(loop, train_loop_config=vars(args),
                           scaling_config=ScalingConfig(num_workers=args.nprocs, resources_per_worker={"CPU": 0.5},
                                                        placement_strategy=args.placement),
                           torch_config=TorchConfig(backend="gloo", timeout_s=args.pg_timeout),
                           run_config=RunConfig(name="det", storage_path=os.path.abspath(args.ckpt_dir)))
    result = trainer.fit()
    print(f"ray train finished: {result.metrics}", flush=True)


if __name__ == "__main__":
    main()
