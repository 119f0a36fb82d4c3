"""Masked-autoencoder (MAE) pretraining of a tiny ViT on synthetic images, data-parallel over gloo.

Images are cut into p x p patches, 75% of them are masked at random per image, the encoder sees only the visible
patches and a light decoder reconstructs the pixels of the masked ones (MSE on masked patches, optionally on
per-patch normalised pixels). After every epoch: reconstruction loss on the validation set and a linear probe
(a logistic-regression head trained on the frozen, mean-pooled encoder features gathered from all ranks). Rank 0
checkpoints. Launchers: torchrun (RANK/WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*), Slurm srun
(SLURM_PROCID/SLURM_NTASKS), the DeepSpeed launcher (--deepspeed) and accelerate launch (--accelerate)."""
import argparse
import datetime
import faulthandler
import json
import logging
import math
import os
import signal
import sys
import threading
import time
import urllib.request

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

faulthandler.enable()
faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 <pid>` dumps every thread's stack

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--img", type=int, default=32)
ap.add_argument("--patch", type=int, default=4)
ap.add_argument("--dim", type=int, default=64)
ap.add_argument("--depth", type=int, default=3)
ap.add_argument("--dec-dim", type=int, default=48)
ap.add_argument("--mask-ratio", type=float, default=0.75)
ap.add_argument("--epochs", type=int, default=4)
ap.add_argument("--batch-size", type=int, default=32)
ap.add_argument("--lr", type=float, default=1.5e-3)
ap.add_argument("--warmup-steps", type=int, default=10)
ap.add_argument("--norm-pix-loss", action="store_true")
ap.add_argument("--pos-embed", choices=["learned", "sincos"], default="learned")
ap.add_argument("--log-every", type=int, default=5)
ap.add_argument("--ckpt-dir", default="ckpt")
ap.add_argument("--resume", default="")
ap.add_argument("--async-ckpt", action="store_true", help="write checkpoints from a background thread")
ap.add_argument("--upload", default="", help="PUT each checkpoint to this URL (rank 0)")
ap.add_argument("--viz-dir", default="", help="save reconstruction previews (npz) after each eval")
ap.add_argument("--views", type=int, default=0, help="precompute this many augmented views per image")
ap.add_argument("--object-mask", type=int, default=0, help="mask object patches first: segment at this resolution")
ap.add_argument("--pg-timeout", type=float, default=0)
ap.add_argument("--probe-steps", type=int, default=100)
ap.add_argument("--max-steps", type=int, default=0)
ap.add_argument("--deepspeed", action="store_true")
ap.add_argument("--ds-config", default="")
ap.add_argument("--local_rank", type=int, default=-1)
ap.add_argument("--accelerate", action="store_true")
args = ap.parse_args()

env = os.environ
if "OMPI_COMM_WORLD_RANK" in env and "RANK" not in env:
    env["RANK"], env["WORLD_SIZE"] = env["OMPI_COMM_WORLD_RANK"], env["OMPI_COMM_WORLD_SIZE"]
elif "SLURM_PROCID" in env and "RANK" not in env:
    env["RANK"], env["WORLD_SIZE"] = env["SLURM_PROCID"], env["SLURM_NTASKS"]
env.setdefault("RANK", "0")
env.setdefault("WORLD_SIZE", "1")
env.setdefault("MASTER_ADDR", "127.0.0.1")
env.setdefault("MASTER_PORT", "29500")
rank = int(env["RANK"])

log = logging.getLogger("mae")
log.setLevel(logging.INFO)
_h = logging.StreamHandler(sys.stdout)
_h.setFormatter(logging.Formatter(f"%(asctime)s [rank{rank}] %(levelname)s %(message)s"))
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
log.info(f"torch {torch.__version__}, numpy {np.__version__}, world {world}, backend {dist.get_backend()}, pid {os.getpid()}")

P, S = args.patch, args.img
N = (S // P) ** 2
classes = open(os.path.join(args.data, "classes.txt")).read().split()


def shard(split):
    x = np.load(os.path.join(args.data, f"{split}-images.npy"), mmap_mode="r")
    y = np.load(os.path.join(args.data, f"{split}-labels.npy"))
    idx = np.arange(rank, len(x), world)
    return x, y, idx


def background(img, res):
    """Background mask by flood fill from the top-left corner (pixels close to the corner colour)."""
    up = torch.from_numpy(np.ascontiguousarray(img)).permute(2, 0, 1)[None].float()
    up = F.interpolate(up, size=(res, res), mode="nearest")[0].permute(1, 2, 0).numpy()
    ref, seen = up[0, 0], np.zeros((res, res), bool)
    sys.setrecursionlimit(max(sys.getrecursionlimit(), 4 * res * res))  # a large background region recurses deeply

    def fill(i, j):
        if i < 0 or j < 0 or i >= res or j >= res or seen[i, j] or np.abs(up[i, j] - ref).max() > 60:
            return 0
        seen[i, j] = True
        return 1 + sum(fill(a, b) for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)))

    fill(0, 0)
    return seen


class Images(torch.utils.data.Dataset):
    def __init__(self, split, train):
        self.x, self.y, self.idx = shard(split)
        self.train = train
        self.views = None
        self.fg = None

    def __len__(self):
        return len(self.idx)

    def load(self, i):
        x = torch.from_numpy(np.array(self.x[self.idx[i]])).permute(2, 0, 1).float().div_(255)
        if S != x.shape[-1]:
            x = F.interpolate(x[None], size=(S, S), mode="bilinear", align_corners=False)[0]
        return x

    def augment(self, x):
        s = int(torch.randint(int(0.6 * S), S + 1, ()))
        i, j = (int(torch.randint(0, S - s + 1, ())) for _ in range(2))
        x = F.interpolate(x[None, :, i:i + s, j:j + s], size=(S, S), mode="bilinear", align_corners=False)[0]
        return x.flip(-1) if torch.rand(()) < 0.5 else x

    def __getitem__(self, i):
        if self.views is not None:
            x = self.views[i, int(torch.randint(0, self.views.shape[1], ()))]
        else:
            x = self.load(i)
            x = self.augment(x) if self.train else x
        return (x - 0.5) / 0.25, int(self.y[self.idx[i]])


train_ds, val_ds = Images("train", True), Images("val", False)
log.info(f"train shard: {len(train_ds)} images, val shard: {len(val_ds)} images ({S}x{S}, patch {P}, {N} patches, "
         f"{len(classes)} probe classes)")
if args.views:
    log.info(f"precomputing {args.views} augmented views for each of {len(train_ds)} images")
    views = []
    for i in range(len(train_ds)):
        x = train_ds.load(i)
        views.append(torch.stack([train_ds.augment(x) for _ in range(args.views)]))
        if (i + 1) % 128 == 0:
            log.info(f"views: {i + 1}/{len(train_ds)} images")
    train_ds.views = torch.stack(views)
    log.info(f"view bank {tuple(train_ds.views.shape)}, {train_ds.views.nbytes / 2**20:.0f} MiB")
if args.object_mask:
    log.info(f"segmenting {len(train_ds)} images at {args.object_mask}x{args.object_mask} for object-aware masking")
    t = time.time()
    train_ds.fg = [~background(train_ds.x[k], args.object_mask) for k in train_ds.idx]
    log.info(f"segmented {len(train_ds.fg)} images in {time.time() - t:.1f} s")


class Block(nn.TransformerEncoderLayer):
    def __init__(self, d):
        super().__init__(d, max(2, d // 32), 4 * d, dropout=0.0, activation="gelu", batch_first=True, norm_first=True)


class MAE(nn.Module):
    def __init__(self):
        super().__init__()
        D, Dd = args.dim, args.dec_dim
        self.embed = nn.Linear(P * P * 3, D)
        self.cls = nn.Parameter(torch.zeros(1, 1, D))
        if args.pos_embed == "sincos":
            from pos_embed import get_2d_sincos_pos_embed
            pe = torch.from_numpy(get_2d_sincos_pos_embed(D, S // P)).float()[None]
            self.pos = nn.Parameter(pe, requires_grad=False)
        else:
            self.pos = nn.Parameter(0.02 * torch.randn(1, N, D))
        self.enc = nn.Sequential(*[Block(D) for _ in range(args.depth)])
        self.norm = nn.LayerNorm(D)
        self.dec_embed = nn.Linear(D, Dd)
        self.mask_token = nn.Parameter(torch.zeros(1, 1, Dd))
        self.dec_pos = nn.Parameter(0.02 * torch.randn(1, N + 1, Dd))
        self.dec = nn.Sequential(Block(Dd))
        self.pred = nn.Linear(Dd, P * P * 3)

    def encode(self, p, keep=None):
        h = self.embed(p) + self.pos
        if keep is not None:
            h = torch.gather(h, 1, keep[..., None].expand(-1, -1, h.shape[-1]))
        h = torch.cat([self.cls.expand(len(h), -1, -1), h], 1)
        return self.norm(self.enc(h))

    def forward(self, x, fg=None):
        p = patchify(x)
        B = len(p)
        n_keep = int(N * (1 - args.mask_ratio))
        noise = torch.rand(B, N)
        if fg is not None:
            noise = noise - fg  # object patches are masked first
        order = noise.argsort(1)
        keep, restore = order[:, :n_keep], order.argsort(1)
        h = self.dec_embed(self.encode(p, keep))
        h = torch.cat([h[:, 1:], self.mask_token.expand(B, N - n_keep, -1)], 1)
        h = torch.gather(h, 1, restore[..., None].expand(-1, -1, h.shape[-1]))
        h = self.dec(torch.cat([h[:, :1] * 0, h], 1) + self.dec_pos)
        pred = self.pred(h[:, 1:])
        target = p
        if args.norm_pix_loss:
            mean, var = target.mean(-1, keepdim=True), target.var(-1, keepdim=True)
            target = (target - mean) / var.sqrt()
        mask = torch.ones(B, N)
        mask[:, :n_keep] = 0
        mask = torch.gather(mask, 1, restore)
        loss = (((pred - target) ** 2).mean(-1) * mask).sum() / mask.sum()
        return loss, pred, mask


def patchify(x):
    B = x.shape[0]
    x = x.reshape(B, 3, S // P, P, S // P, P).permute(0, 2, 4, 3, 5, 1)
    return x.reshape(B, N, P * P * 3)


model = MAE()
log.info(f"MAE ViT: encoder {sum(p.numel() for n, p in model.named_parameters() if not n.startswith(('dec', 'mask', 'pred'))) / 1e3:.1f}K "
         f"+ decoder {sum(p.numel() for n, p in model.named_parameters() if n.startswith(('dec', 'mask', 'pred'))) / 1e3:.1f}K parameters, "
         f"mask ratio {args.mask_ratio}, {args.pos_embed} position embeddings")
if args.resume:
    st = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(st["model"])
    log.info(f"resumed weights from {args.resume} (epoch {st['epoch']}, val recon {st['val_loss']:.4f})")


def collate(batch):
    xs, ys = zip(*batch)
    return torch.stack(xs), torch.tensor(ys)


loader = torch.utils.data.DataLoader(list(range(len(train_ds))), batch_size=args.batch_size, shuffle=True, drop_last=True)
engine = None
if args.deepspeed:
    cfg = json.load(open(args.ds_config))
    cfg["train_micro_batch_size_per_gpu"] = args.batch_size
    cfg.setdefault("optimizer", {"type": "AdamW", "params": {"lr": args.lr, "betas": [0.9, 0.95], "weight_decay": 0.05}})
    engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=[p for p in model.parameters() if p.requires_grad],
                                             config=cfg)
    net = engine
else:
    opt = torch.optim.AdamW([p for p in model.parameters() if p.requires_grad], lr=args.lr, betas=(0.9, 0.95), weight_decay=0.05)
    if accelerator:
        net, opt = accelerator.prepare(model, opt)
    else:
        net = nn.parallel.DistributedDataParallel(model)


def batch(ids):
    items = [train_ds[int(i)] for i in ids]
    fg = None
    if train_ds.fg is not None:
        fg = torch.stack([torch.from_numpy(patch_fraction(train_ds.fg[int(i)])) for i in ids]).float()
    return collate(items)[0], fg


def patch_fraction(m):
    g = S // P
    r = m.shape[0] // g
    return m[: g * r, : g * r].reshape(g, r, g, r).mean((1, 3)).reshape(-1)


@torch.no_grad()
def features(ds):
    f, ys = [], []
    for k in range(0, len(ds), 64):
        xs, y = collate([ds[i] for i in range(k, min(k + 64, len(ds)))])
        f.append(model.encode(patchify(xs))[:, 1:].mean(1))
        ys.append(y)
    return torch.cat(f), torch.cat(ys)


def gather(t):
    n = torch.tensor([len(t)])
    ns = [torch.zeros_like(n) for _ in range(world)]
    dist.all_gather(ns, n)
    m = int(max(ns))
    pad = torch.zeros((m,) + tuple(t.shape[1:]), dtype=t.dtype)
    pad[: len(t)] = t
    out = [torch.zeros_like(pad) for _ in range(world)]
    dist.all_gather(out, pad)
    return torch.cat([o[: int(k)] for o, k in zip(out, ns)])


def linear_probe():
    ftr, ytr = features(train_ds)
    fva, yva = features(val_ds)
    ftr, ytr, fva, yva = gather(ftr), gather(ytr), gather(fva), gather(yva)
    mu, sd = ftr.mean(0), ftr.std(0) + 1e-6
    ftr, fva = (ftr - mu) / sd, (fva - mu) / sd
    g = torch.Generator().manual_seed(0)
    head = nn.Linear(ftr.shape[1], len(classes))
    with torch.no_grad():
        head.weight.copy_(0.01 * torch.randn(head.weight.shape, generator=g))
        head.bias.zero_()
    o = torch.optim.Adam(head.parameters(), lr=0.05)
    for _ in range(args.probe_steps):
        o.zero_grad()
        l = F.cross_entropy(head(ftr), ytr)
        l.backward()
        o.step()
    with torch.no_grad():
        acc = (head(fva).argmax(1) == yva).float().mean().item()
    return acc, l.item()


@torch.no_grad()
def evaluate(epoch):
    net.eval()
    torch.manual_seed(99)
    s = torch.zeros(2, dtype=torch.float64)
    first = None
    for k in range(0, len(val_ds), 64):
        xs, _ = collate([val_ds[i] for i in range(k, min(k + 64, len(val_ds)))])
        loss, pred, mask = model(xs)
        s += torch.tensor([loss.item() * len(xs), len(xs)], dtype=torch.float64)
        if first is None:
            first = (xs, pred, mask)
    dist.all_reduce(s)
    with torch.enable_grad():
        acc, probe_loss = linear_probe()
    if args.viz_dir and rank == 0:
        os.makedirs(args.viz_dir, exist_ok=True)
        xs, pred, mask = first
        path = os.path.join(args.viz_dir, f"recon-epoch{epoch:03d}.npz")
        np.savez(path, image=xs.numpy(), pred=pred.numpy(), mask=mask.numpy())
        log.info(f"wrote reconstruction preview {path} ({os.path.getsize(path) / 2**20:.1f} MiB)")
    torch.manual_seed(1234 + rank + 1000 * epoch)
    net.train()
    return (s[0] / s[1]).item(), acc, probe_loss


class AsyncCheckpointer:
    def __init__(self):
        self.lock = threading.Lock()
        self.thread = None

    def _write(self, state, path, url):
        with self.lock:
            torch.save(state, path + ".tmp")
            os.replace(path + ".tmp", path)
        if url:
            upload(path, url)  # off the training thread: the upload no longer stalls the ranks

    def wait(self):
        with self.lock:  # the previous write has finished once its lock is free
            if self.thread is not None:
                self.thread.join()

    def save(self, state, path, url=""):
        with self.lock:
            if self.thread is not None and self.thread.is_alive():
                self.wait()
            self.thread = threading.Thread(target=self._write, args=(state, path, url), daemon=True)
            self.thread.start()


def upload(path, url):
    t = time.time()
    data = open(path, "rb").read()
    log.info(f"uploading {path} ({len(data) / 2**20:.1f} MiB) to {url}")
    req = urllib.request.Request(f"{url}/{os.path.basename(path)}", data=data, method="PUT")
    with urllib.request.urlopen(req) as r:
        r.read()
    log.info(f"uploaded {path} ({len(data) / 2**20:.1f} MiB) to {url} in {time.time() - t:.1f} s")


stop = {"sig": None}


def on_term(signum, frame):
    stop["sig"] = signum
    log.warning(f"received {signal.Signals(signum).name}: will checkpoint and stop after this step")


signal.signal(signal.SIGTERM, on_term)

n_steps = torch.tensor([len(loader)])
dist.all_reduce(n_steps, op=dist.ReduceOp.MIN)
steps_per_epoch = int(n_steps)
if args.max_steps:
    steps_per_epoch = min(steps_per_epoch, args.max_steps)
total = args.epochs * steps_per_epoch
log.info(f"pretraining {args.epochs} epochs x {steps_per_epoch} steps/rank, batch {args.batch_size}/rank, global batch "
         f"{args.batch_size * world}, base lr {args.lr}, warmup {args.warmup_steps} steps, cosine decay")
os.makedirs(args.ckpt_dir, exist_ok=True)
ck = os.path.join(args.ckpt_dir, "last.pt")
ckpt = AsyncCheckpointer() if args.async_ckpt else None
step, t0, bad = 0, time.time(), 0
for epoch in range(1, args.epochs + 1):
    seen, te = 0, time.time()
    for i, ids in enumerate(loader):
        if i == steps_per_epoch:
            break
        lr = args.lr * min(1.0, (step + 1) / args.warmup_steps) * 0.5 * (1 + math.cos(math.pi * step / total))
        for g in opt.param_groups:
            g["lr"] = lr
        x, fg = batch(ids)
        loss, _, _ = net(x, fg)
        if not torch.isfinite(loss):
            bad += 1
            log.warning(f"epoch {epoch} step {i + 1}: loss is {loss.item()}, skipping step ({bad} so far)")
            if bad >= 8:
                raise FloatingPointError(f"reconstruction loss is {loss.item()} for {bad} steps, aborting")
        if engine is not None:
            engine.backward(loss)
            engine.step()
        else:
            opt.zero_grad(set_to_none=True)
            (accelerator.backward(loss) if accelerator else loss.backward())
            if torch.isfinite(loss):
                opt.step()
        step += 1
        seen += x.shape[0]
        if (i + 1) % args.log_every == 0 and rank == 0:
            log.info(f"epoch {epoch} step {i + 1}/{steps_per_epoch} recon loss {loss.item():.4f} lr {lr:.3e} "
                     f"{seen * world / (time.time() - te):.1f} img/s")
        if stop["sig"]:
            break
    if stop["sig"]:
        if rank == 0:
            torch.save({"model": model.state_dict(), "epoch": epoch - 1, "val_loss": float("nan"), "step": step}, ck)
            log.warning(f"saved {ck} at step {step} before exiting on signal {stop['sig']}")
        sys.exit(128 + stop["sig"])
    val_loss, acc, probe_loss = evaluate(epoch)
    log.info(f"eval epoch {epoch}: val recon {val_loss:.4f}, linear probe top-1 {acc:.3f} (probe loss {probe_loss:.3f}), "
             f"{time.time() - te:.1f} s")
    if rank == 0:
        state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "val_loss": val_loss}
        if ckpt:
            log.info(f"checkpoint epoch {epoch} -> {ck} (async)")
            ckpt.save(state, ck, args.upload)
        else:
            torch.save(state, ck)
            log.info(f"saved {ck}")
            if args.upload:
                upload(ck, args.upload)
if ckpt:
    ckpt.wait()
dist.barrier()
log.info(f"done: {args.epochs} epochs, {step} steps, {time.time() - t0:.1f} s")
dist.destroy_process_group()
