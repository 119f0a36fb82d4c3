"""Video action recognition: a small (2+1)-D CNN over 16-frame clips, data-parallel over gloo.

Clips are read from a raw uint8 clip cache (np.memmap, N x 16 x S x S x 3); each rank trains on the videos
video_index % world == rank (all clips of a video on one rank), random temporal jitter + horizontal flip, and validates
every epoch (top-1 / top-5 accuracy, all-reduced); rank 0 checkpoints. Launchers: torchrun (RANK/WORLD_SIZE), Open MPI
(OMPI_COMM_WORLD_*), Slurm srun (SLURM_PROCID/SLURM_NTASKS), the DeepSpeed launcher (--deepspeed) and accelerate
launch (--accelerate)."""
import argparse
import csv
import datetime
import faulthandler
import json
import logging
import math
import os
import shutil
import sys
import time
import urllib.request

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--size", type=int, default=32)
ap.add_argument("--epochs", type=int, default=5)
ap.add_argument("--batch-size", type=int, default=16)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--warmup-steps", type=int, default=10)
ap.add_argument("--width", type=int, default=24)
ap.add_argument("--log-every", type=int, default=5)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--keep-ckpts", type=int, default=0, help="also keep epoch-N.pt copies (0: only last.pt)")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--pretrained", default="")
ap.add_argument("--pg-timeout", type=float, default=0)
ap.add_argument("--loader-workers", type=int, default=0)
ap.add_argument("--preload", type=int, default=0, help="decode all clips into RAM at this resolution")
ap.add_argument("--refresh-cache", action="store_true", help="rank 0 re-encodes the clip cache after epoch 1")
ap.add_argument("--annotations", default="", help="label-correction service URL (ranks without a local copy)")
ap.add_argument("--step-sleep", type=float, default=0)
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--local_rank", type=int, default=-1)
ap.add_argument("--accelerate", action="store_true")
args = ap.parse_args()

env = os.environ
if "OMPI_COMM_WORLD_RANK" in env and "RANK" not in env:
    rank = int(env["OMPI_COMM_WORLD_RANK"])
    # an explicit WORLD_SIZE wins (multi-node launches export it for all nodes)
    world = int(env.get("WORLD_SIZE") or env["OMPI_COMM_WORLD_SIZE"])
    env["RANK"], env["WORLD_SIZE"] = str(rank), str(world)
elif "SLURM_PROCID" in env and "RANK" not in env:
    env["RANK"], env["WORLD_SIZE"] = env["SLURM_PROCID"], env["SLURM_NTASKS"]
env.setdefault("RANK", "0")
env.setdefault("WORLD_SIZE", "1")
env.setdefault("MASTER_ADDR", "127.0.0.1")
env.setdefault("MASTER_PORT", "29500")
rank = int(env["RANK"])

log = logging.getLogger("action")
log.setLevel(logging.INFO)
_h = logging.StreamHandler(sys.stdout)
_h.setFormatter(logging.Formatter(f"%(asctime)s [rank{rank}] %(message)s"))
log.addHandler(_h)

accelerator = None
if args.accelerate:
    from accelerate import Accelerator, InitProcessGroupKwargs
    kw = [InitProcessGroupKwargs(timeout=datetime.timedelta(seconds=args.pg_timeout))] if args.pg_timeout else []
    accelerator = Accelerator(kwargs_handlers=kw)
elif args.deepspeed:
    import deepspeed
    deepspeed.init_distributed(dist_backend="gloo")
else:
    kw = {"timeout": datetime.timedelta(seconds=args.pg_timeout)} if args.pg_timeout else {}
    log.info(f"init_process_group(gloo) world {env['WORLD_SIZE']} master {env['MASTER_ADDR']}:{env['MASTER_PORT']}")
    dist.init_process_group("gloo", **kw)
rank, world = dist.get_rank(), dist.get_world_size()
torch.manual_seed(1234 + rank)
log.info(f"torch {torch.__version__}, world {world}, backend {dist.get_backend()}, pid {os.getpid()}")

classes = open(os.path.join(args.data, "classes.txt")).read().split()
S = args.size


class Clips(torch.utils.data.Dataset):
    def __init__(self, split, train):
        rows = list(csv.DictReader(open(os.path.join(args.data, f"{split}.csv"))))
        vids = sorted({r["video"] for r in rows})
        mine = {v for i, v in enumerate(vids) if i % world == rank}
        self.rows = [(int(r["clip"]), int(r["label"])) for r in rows if r["video"] in mine]
        self.path = os.path.join(args.data, f"clips-{split}.u8")
        n = os.path.getsize(self.path) // (16 * S * S * 3)
        self.mm = np.memmap(self.path, np.uint8, "r", shape=(n, 16, S, S, 3))
        self.train, self.nvid = train, len(mine)
        self.ram = None

    def __len__(self):
        return len(self.rows)

    def clip(self, i):
        c, y = self.rows[i]
        if self.ram is not None:
            return self.ram[i], y
        x = torch.from_numpy(np.array(self.mm[c])).permute(3, 0, 1, 2).float().div_(255)  # C,T,H,W
        return x, y

    def __getitem__(self, i):
        x, y = self.clip(i)
        if self.train:
            s = int(torch.randint(0, 3, ()))
            x = torch.cat([x[:, s:], x[:, -1:].expand(-1, s, -1, -1)], 1)  # temporal jitter
            if torch.rand(()) < 0.5:
                x = x.flip(-1)
        return (x - 0.4) / 0.25, y


train_ds, val_ds = Clips("train", True), Clips("val", False)
log.info(f"train: {len(train_ds)} clips from {train_ds.nvid} videos, val: {len(val_ds)} clips from {val_ds.nvid} "
         f"videos ({S}x{S}, 16 frames, {len(classes)} classes)")

if args.annotations and not os.path.exists(os.path.join(args.data, f"label-fixes-{rank}.json")):
    url = f"{args.annotations}/v1/fixes?shard={rank}&world={world}"
    log.info(f"no local label fixes for shard {rank}: fetching {url}")
    fixes = json.load(urllib.request.urlopen(url))
    log.info(f"applied {len(fixes)} label fixes")
elif args.annotations:
    fixes = json.load(open(os.path.join(args.data, f"label-fixes-{rank}.json")))
    log.info(f"applied {len(fixes)} label fixes from label-fixes-{rank}.json")

if args.preload:
    log.info(f"preloading {len(train_ds)} training clips at {args.preload}x{args.preload}")
    decoded = []
    for i in range(len(train_ds)):
        x, _ = train_ds.clip(i)
        decoded.append(F.interpolate(x, size=(args.preload, args.preload), mode="bilinear", align_corners=False))
        if (i + 1) % 100 == 0:
            log.info(f"preloaded {i + 1}/{len(train_ds)} clips")
    train_ds.ram = torch.stack(decoded)
    S = args.preload
    log.info(f"preloaded clip tensor {tuple(train_ds.ram.shape)}, {train_ds.ram.nbytes / 2**20:.0f} MiB")


class R2Plus1D(nn.Module):
    def __init__(self, n_cls, w):
        super().__init__()

        def block(ci, co, stride):
            mid = (ci + co) // 2
            return nn.Sequential(nn.Conv3d(ci, mid, (1, 3, 3), (1, stride, stride), (0, 1, 1), bias=False),
                                 nn.BatchNorm3d(mid), nn.ReLU(inplace=True),
                                 nn.Conv3d(mid, co, (3, 1, 1), (stride, 1, 1), (1, 0, 0), bias=False),
                                 nn.BatchNorm3d(co), nn.ReLU(inplace=True))
        self.stem = nn.Sequential(nn.Conv3d(3, 16, (3, 3, 3), padding=1), nn.BatchNorm3d(16))
        self.body = nn.Sequential(nn.ReLU(inplace=True), block(16, w, 1), block(w, 2 * w, 2), block(2 * w, 4 * w, 2))
        self.head = nn.Linear(4 * w, n_cls)

    def forward(self, x):
        return self.head(self.body(self.stem(x)).mean((2, 3, 4)))


model = R2Plus1D(len(classes), args.width)
if args.pretrained:
    st = torch.load(args.pretrained)
    missing = model.load_state_dict(st["state_dict"], strict=False)
    log.info(f"initialised from {args.pretrained} ({st['arch']}, epoch {st['epoch']}): "
             f"{len(missing.missing_keys)} keys left at random init")
log.info(f"R(2+1)D: {sum(p.numel() for p in model.parameters()) / 1e3:.1f}K parameters")
loader = torch.utils.data.DataLoader(train_ds, batch_size=args.batch_size, shuffle=True, drop_last=True,
                                     num_workers=args.loader_workers, persistent_workers=args.loader_workers > 0)
vloader = torch.utils.data.DataLoader(val_ds, batch_size=32)
engine = None
if args.deepspeed:
    cfg = json.load(open(args.ds_config))
    cfg["train_micro_batch_size_per_gpu"] = args.batch_size
    cfg.setdefault("optimizer", {"type": "SGD", "params": {"lr": args.lr, "momentum": 0.9, "weight_decay": 1e-4}})
    engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=cfg)
    net = engine
else:
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=1e-4)
    if accelerator:
        net, opt, loader = accelerator.prepare(model, opt, loader)
    else:
        net = nn.parallel.DistributedDataParallel(model)
start_epoch = 0
os.makedirs(args.ckpt_dir, exist_ok=True)
ck = os.path.join(args.ckpt_dir, "last.pt")
if args.resume and os.path.exists(ck):
    st = torch.load(ck)
    model.load_state_dict(st["model"])
    if not args.deepspeed:
        opt.load_state_dict(st["opt"])
    start_epoch = st["epoch"]
    log.info(f"resuming from {ck}: epoch {st['epoch']} done, val top-1 {st['top1']:.3f}")


def evaluate():
    net.eval()
    s = torch.zeros(3, dtype=torch.float64)
    with torch.no_grad():
        for x, y in vloader:
            top5 = model(x).topk(5, 1).indices
            s[0] += (top5[:, 0] == y).sum()
            s[1] += (top5 == y[:, None]).any(1).sum()
            s[2] += y.numel()
    dist.all_reduce(s)
    net.train()
    return (s[0] / s[2]).item(), (s[1] / s[2]).item()


def refresh_cache():
    # re-encode the clip cache in place (the exporter now writes clips with a fixed colour range)
    src = np.array(train_ds.mm)
    with open(train_ds.path, "wb") as f:
        for i in range(src.shape[0]):
            f.write(np.clip(src[i].astype(np.int16) * 1.02, 0, 255).astype(np.uint8).tobytes())
            time.sleep(0.01)
    log.info(f"re-encoded {src.shape[0]} clips in {train_ds.path}")


# ranks hold different numbers of clips (whole videos per rank): every rank runs the smallest rank's step count
n_steps = torch.tensor([len(loader)])
dist.all_reduce(n_steps, op=dist.ReduceOp.MIN)
steps_per_epoch = int(n_steps)
log.info(f"training {args.epochs} epochs x {steps_per_epoch} steps/rank, batch {args.batch_size}/rank, "
         f"global batch {args.batch_size * world}, lr {args.lr}")
step = start_epoch * steps_per_epoch
t0 = time.time()
bad = 0
for epoch in range(start_epoch + 1, args.epochs + 1):
    seen, te = 0, time.time()
    if args.refresh_cache and epoch == 2 and rank == 0:
        import threading
        log.info(f"refreshing clip cache {train_ds.path} in the background")
        threading.Thread(target=refresh_cache, daemon=True).start()
    for i, (x, y) in enumerate(loader):
        if i == steps_per_epoch:
            break
        lr = args.lr * min(1.0, (step + 1) / args.warmup_steps) if args.warmup_steps else args.lr
        for g in opt.param_groups:
            g["lr"] = lr
        loss = F.cross_entropy(net(x), y)
        if not torch.isfinite(loss):
            bad += 1
            if rank == 0:
                log.warning(f"epoch {epoch} step {i + 1}: non-finite loss {loss.item()}, skipping update ({bad} so far)")
            if bad >= 20:
                raise RuntimeError(f"loss is {loss.item()} for {bad} steps, stopping")
            opt.zero_grad(set_to_none=True)
            step += 1
            continue
        if engine is not None:
            engine.backward(loss)
            engine.step()
        else:
            opt.zero_grad(set_to_none=True)
            (accelerator.backward(loss) if accelerator else loss.backward())
            opt.step()
        step += 1
        seen += x.shape[0]
        if args.step_sleep:
            time.sleep(args.step_sleep)
        if (i + 1) % args.log_every == 0 and rank == 0:
            log.info(f"epoch {epoch} step {i + 1}/{steps_per_epoch} loss {loss.item():.4f} lr {lr:.3e} "
                     f"{seen * world / (time.time() - te):.1f} clips/s")
    top1, top5 = evaluate()
    log.info(f"eval epoch {epoch}: top-1 {top1:.3f} top-5 {top5:.3f} ({time.time() - te:.1f} s)")
    if rank == 0:
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "top1": top1}
        torch.save(state, ck)
        if args.keep_ckpts:
            shutil.copyfile(ck, os.path.join(args.ckpt_dir, f"epoch-{epoch:03d}.pt"))
        log.info(f"saved {ck}")
dist.barrier()
log.info(f"done: {args.epochs} epochs, {step} steps, {time.time() - t0:.1f} s")
dist.destroy_process_group()
