"""pix2pix-style image-to-image GAN on synthetic paired images (label maps -> shaded renderings).

U-Net generator with skip connections, PatchGAN discriminator on (input, output) pairs, adversarial + L1 loss,
two Adam optimizers, gradients averaged over the ranks by hand (one flat gloo all_reduce per model and step),
validation L1/PSNR and a feature-statistics distance (FID-like, random conv features), sample grids saved as .npy.

Modes: spawn (torch.multiprocessing.spawn), ddp (under torchrun), lightning (Trainer, ddp on CPU, manual
optimization), raytrain (Ray Train TorchTrainer).
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import random
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F

# ----------------------------------------------------------------------------------------------------------------- data


def make_pair(idx: int, size: int, split: str) -> tuple[torch.Tensor, torch.Tensor]:
    """A label map (3 one-hot-ish channels: background, disc, box) and its shaded colour rendering."""
    g = torch.Generator().manual_seed(idx * 7919 + (0 if split == "train" else 10_000_019))
    yy, xx = torch.meshgrid(torch.linspace(0, 1, size), torch.linspace(0, 1, size), indexing="ij")
    label = torch.zeros(3, size, size)
    label[0] = 1.0
    target = torch.zeros(3, size, size)
    sky = torch.rand(3, generator=g) * 0.4
    target += sky[:, None, None] * (1 - yy)[None]
    for _ in range(int(torch.randint(1, 4, (1,), generator=g))):
        kind = int(torch.randint(1, 3, (1,), generator=g))
        cx, cy = torch.rand(2, generator=g) * 0.8 + 0.1
        r = float(torch.rand(1, generator=g)) * 0.25 + 0.08
        if kind == 1:
            m = ((xx - cx) ** 2 + (yy - cy) ** 2) < r * r
        else:
            m = ((xx - cx).abs() < r) & ((yy - cy).abs() < r * 0.7)
        col = torch.rand(3, generator=g)
        shade = 0.6 + 0.4 * (1 - ((xx - cx + 0.1 * r) ** 2 + (yy - cy + 0.1 * r) ** 2).sqrt() / (2 * r)).clamp(0, 1)
        label[:, m] = 0.0
        label[kind, m] = 1.0
        target[:, m] = (col[:, None] * shade[m][None])
    return label * 2 - 1, target.clamp(0, 1) * 2 - 1


class PairSet(torch.utils.data.Dataset):
    def __init__(self, n: int, size: int, split: str, jitter: int = 0, rank: int = 0, world: int = 1) -> None:
        self.idx = list(range(rank, n, world))
        self.size, self.split, self.jitter = size, split, jitter
        self.cache: dict[int, tuple[torch.Tensor, torch.Tensor]] = {}

    def __len__(self) -> int:
        return len(self.idx)

    def __getitem__(self, i: int):
        k = self.idx[i]
        if k not in self.cache:
            self.cache[k] = make_pair(k, self.size, self.split)
        x, y = self.cache[k]
        if self.jitter:  # pix2pix random jitter: resize up to `jitter`, random crop back to `size`, random mirror
            xy = F.interpolate(torch.cat([x, y])[None], size=(self.jitter, self.jitter), mode="bilinear",
                               align_corners=False)[0]
            ox = int(torch.randint(0, self.jitter - self.size + 1, (1,)))
            oy = int(torch.randint(0, self.jitter - self.size + 1, (1,)))
            xy = xy[:, oy:oy + self.size, ox:ox + self.size]
            if random.random() < 0.5:
                xy = xy.flip(-1)
            x, y = xy[:3], xy[3:]
        return x, y


# --------------------------------------------------------------------------------------------------------------- models


class Down(nn.Module):
    def __init__(self, cin: int, cout: int, norm: bool = True) -> None:
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 4, 2, 1, bias=not norm)
        self.norm = nn.BatchNorm2d(cout) if norm else nn.Identity()

    def forward(self, x):
        return F.leaky_relu(self.norm(self.conv(x)), 0.2)


class Up(nn.Module):
    def __init__(self, cin: int, cout: int, dropout: bool = False) -> None:
        super().__init__()
        self.conv = nn.ConvTranspose2d(cin, cout, 4, 2, 1, bias=False)
        self.norm = nn.BatchNorm2d(cout)
        self.drop = nn.Dropout(0.5) if dropout else nn.Identity()

    def forward(self, x, skip):
        return torch.cat([self.drop(F.relu(self.norm(self.conv(x)))), skip], 1)


class UNetGenerator(nn.Module):
    def __init__(self, ngf: int = 16) -> None:
        super().__init__()
        self.d1, self.d2, self.d3 = Down(3, ngf, norm=False), Down(ngf, ngf * 2), Down(ngf * 2, ngf * 4)
        self.d4 = Down(ngf * 4, ngf * 4)
        self.u1 = Up(ngf * 4, ngf * 4, dropout=True)
        self.u2, self.u3 = Up(ngf * 8, ngf * 2), Up(ngf * 4, ngf)
        self.out = nn.ConvTranspose2d(ngf * 2, 3, 4, 2, 1)

    def forward(self, x):
        e1 = self.d1(x)
        e2 = self.d2(e1)
        e3 = self.d3(e2)
        b = self.d4(e3)
        h = self.u1(b, e3)
        h = self.u2(h, e2)
        h = self.u3(h, e1)
        return torch.tanh(self.out(h))


class PatchDiscriminator(nn.Module):
    def __init__(self, ndf: int = 16) -> None:
        super().__init__()
        self.net = nn.Sequential(Down(6, ndf, norm=False), Down(ndf, ndf * 2), nn.Conv2d(ndf * 2, ndf * 4, 3, 1, 1),
                                 nn.BatchNorm2d(ndf * 4), nn.LeakyReLU(0.2), nn.Conv2d(ndf * 4, 1, 3, 1, 1))

    def forward(self, x, y):
        return self.net(torch.cat([x, y], 1))


def init_weights(m: nn.Module) -> None:
    if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
        nn.init.normal_(m.weight, 0.0, 0.02)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.BatchNorm2d):
        nn.init.normal_(m.weight, 1.0, 0.02)
        nn.init.zeros_(m.bias)


class ImagePool:
    """History of generated images (Shrivastava et al. 2017): D sees a mix of current and earlier fakes."""

    def __init__(self, size: int) -> None:
        self.size, self.images = size, []

    def query(self, images: torch.Tensor) -> torch.Tensor:
        if self.size == 0:
            return images
        out = []
        for im in images:
            if len(self.images) < self.size:
                self.images.append(im)
                out.append(im)
            elif random.random() < 0.5:
                j = random.randrange(self.size)
                out.append(self.images[j])
                self.images[j] = im
            else:
                out.append(im)
        return torch.stack(out)


# ---------------------------------------------------------------------------------------------------------- utilities


def average_grads(model: nn.Module, world: int) -> None:
    if world == 1:
        return
    grads = [p.grad for p in model.parameters() if p.grad is not None]
    flat = torch.cat([g.reshape(-1) for g in grads])
    dist.all_reduce(flat)
    flat /= world
    off = 0
    for g in grads:
        n = g.numel()
        g.copy_(flat[off:off + n].view_as(g))
        off += n


def adv_loss(logits: torch.Tensor, real: bool, kind: str) -> torch.Tensor:
    if kind == "bce":
        t = torch.ones_like(logits) if real else torch.zeros_like(logits)
        return F.binary_cross_entropy_with_logits(logits, t)
    if kind == "lsgan":
        return ((logits - (1.0 if real else 0.0)) ** 2).mean()
    # "bce-manual": the textbook formula on sigmoid outputs
    p = torch.sigmoid(logits)
    return -(torch.log(p).mean() if real else torch.log(1 - p).mean())


def feature_net(seed: int = 1234) -> nn.Module:
    torch.manual_seed(seed)
    net = nn.Sequential(nn.Conv2d(3, 32, 3, 1, 1), nn.ReLU(), nn.AvgPool2d(2), nn.Conv2d(32, 64, 3, 1, 1), nn.ReLU(),
                        nn.AvgPool2d(2), nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
                        nn.Flatten())
    for p in net.parameters():
        p.requires_grad_(False)
    return net.eval()


def sqrtm_newton_schulz(a: torch.Tensor, iters: int) -> torch.Tensor:
    n = a.shape[0]
    norm = a.norm()
    y = a / norm
    i = torch.eye(n, dtype=a.dtype)
    z = torch.eye(n, dtype=a.dtype)
    for _ in range(iters):
        t = 0.5 * (3.0 * i - z @ y)
        y, z = y @ t, t @ z
    return y * norm.sqrt()


def frechet_distance(f1: torch.Tensor, f2: torch.Tensor, iters: int) -> float:
    mu1, mu2 = f1.mean(0), f2.mean(0)
    c1, c2 = torch.cov(f1.T), torch.cov(f2.T)
    covmean = sqrtm_newton_schulz(c1 @ c2, iters)
    return float(((mu1 - mu2) ** 2).sum() + torch.trace(c1 + c2 - 2 * covmean))


def log(rank: int, msg: str) -> None:
    print(f"{time.strftime('%H:%M:%S')} [rank {rank}] {msg}", flush=True)


# ------------------------------------------------------------------------------------------------------------ training


def train(rank: int, world: int, args, report=None) -> None:
    torch.manual_seed(args.seed + rank)
    random.seed(args.seed + rank)
    train_set = PairSet(args.n_train, args.size, "train", args.jitter, rank, world)
    val_set = PairSet(args.n_val, args.eval_size or args.size, "val", 0, rank, world)
    loader = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True,
                                         num_workers=args.workers)
    torch.manual_seed(args.seed)
    G, D = UNetGenerator(args.ngf), PatchDiscriminator(args.ndf)
    G.apply(init_weights)
    D.apply(init_weights)
    nG = sum(p.numel() for p in G.parameters())
    nD = sum(p.numel() for p in D.parameters())
    if rank == 0:
        log(rank, f"generator: U-Net ngf={args.ngf} ({nG:,} params); discriminator: 16x16 PatchGAN ndf={args.ndf} "
                  f"({nD:,} params)")
        log(rank, f"data: {args.n_train} train / {args.n_val} val pairs at {args.size}x{args.size}, batch "
                  f"{args.batch_size} per rank x {world} ranks, jitter {args.jitter or 'off'}")
        log(rank, f"loss: {args.gan_loss} adversarial + {args.l1_weight:g} x L1; lr G {args.lr_g:g} D {args.lr_d:g} "
                  f"betas (0.5, 0.999); image pool {args.pool_size}")
    optG = torch.optim.Adam(G.parameters(), lr=args.lr_g, betas=(0.5, 0.999))
    optD = torch.optim.Adam(D.parameters(), lr=args.lr_d, betas=(0.5, 0.999))
    decay_from = int(args.steps * 0.5)
    lam = lambda s: 1.0 if s < decay_from else max(0.0, 1.0 - (s - decay_from) / (args.steps - decay_from + 1))
    schG = torch.optim.lr_scheduler.LambdaLR(optG, lam)
    schD = torch.optim.lr_scheduler.LambdaLR(optD, lam)
    pool = ImagePool(args.pool_size)
    step = 0
    ckpt = os.path.join(args.ckpt_dir, "last.pt")
    if args.resume and os.path.exists(ckpt):
        st = torch.load(ckpt, map_location="cpu")
        G.load_state_dict(st["G"])
        D.load_state_dict(st["D"])
        optG.load_state_dict(st["optG"])
        optD.load_state_dict(st["optD"])
        step = st["step"]
        schG.last_epoch = schD.last_epoch = step
        log(rank, f"resumed from {ckpt} at step {step}")
    t0, seen = time.time(), 0
    epoch = 0
    while step < args.steps:
        epoch += 1
        for x, y in loader:
            if step >= args.steps:
                break
            step += 1
            G.train(), D.train()
            fake = G(x)
            # --- discriminator
            fake_for_d = pool.query(fake if args.pool_keep_graph else fake.detach())
            d_real = D(x, y)
            d_fake = D(x, fake_for_d.detach())
            lossD = 0.5 * (adv_loss(d_real, True, args.gan_loss) + adv_loss(d_fake, False, args.gan_loss))
            skip_d = args.d_skip_below > 0 and lossD.item() < args.d_skip_below
            if skip_d:
                log(rank, f"step {step}: D loss {lossD.item():.3f} < {args.d_skip_below}, skipping D update")
            else:
                optD.zero_grad(set_to_none=True)
                lossD.backward()
                average_grads(D, world)
                optD.step()
            # --- generator
            d_gen = D(x, fake)
            lossG_adv = adv_loss(d_gen, True, args.gan_loss)
            lossL1 = F.l1_loss(fake, y)
            lossG = lossG_adv + args.l1_weight * lossL1
            optG.zero_grad(set_to_none=True)
            lossG.backward()
            average_grads(G, world)
            optG.step()
            schG.step()
            schD.step()
            seen += x.shape[0]
            if not torch.isfinite(lossG) or not torch.isfinite(lossD):
                log(rank, f"step {step}: non-finite loss (D {lossD.item()}, G adv {lossG_adv.item()}, "
                          f"L1 {lossL1.item()}); stopping")
                raise FloatingPointError(f"non-finite loss at step {step}")
            if step % args.log_every == 0:
                dt = time.time() - t0
                log(rank, f"epoch {epoch} step {step:5d}/{args.steps} | D {lossD.item():.4f} (real "
                          f"{torch.sigmoid(d_real).mean().item():.2f} fake {torch.sigmoid(d_fake).mean().item():.2f})"
                          f" | G adv {lossG_adv.item():.4f} L1 {lossL1.item():.4f} | lr {schG.get_last_lr()[0]:.2e}"
                          f" | {seen * world / dt:.0f} img/s")
                if args.pool_size:
                    log(rank, f"image pool {len(pool.images)}/{args.pool_size}")
            if step % args.eval_every == 0 or step == args.steps:
                evaluate(rank, world, args, G, val_set, step)
                if rank == 0:
                    os.makedirs(args.ckpt_dir, exist_ok=True)
                    tmp = ckpt + ".tmp"
                    torch.save({"G": G.state_dict(), "D": D.state_dict(), "optG": optG.state_dict(),
                                "optD": optD.state_dict(), "step": step}, tmp)
                    os.replace(tmp, ckpt)
                    log(rank, f"saved {ckpt} (step {step})")
                if report is not None:
                    report({"step": step, "loss_d": lossD.item(), "loss_g_l1": lossL1.item()})
                if world > 1:
                    dist.barrier()
    log(rank, f"training finished: {step} steps, {time.time() - t0:.1f} s")


@torch.no_grad()
def evaluate(rank: int, world: int, args, G: nn.Module, val_set: PairSet, step: int) -> None:
    G.eval()
    l1_sum, mse_sum, n = 0.0, 0.0, 0
    outs = []
    for i in range(0, len(val_set), 32):
        xs, ys = zip(*(val_set[j] for j in range(i, min(i + 32, len(val_set)))))
        x, y = torch.stack(xs), torch.stack(ys)
        f = G(x)
        l1_sum += float((f - y).abs().mean((1, 2, 3)).sum())
        mse_sum += float((((f - y) / 2) ** 2).mean((1, 2, 3)).clamp_min(1e-10).log10().sum())
        n += x.shape[0]
        if i == 0:
            outs.append(torch.cat([x[:8], f[:8], y[:8]]))
    t = torch.tensor([l1_sum, mse_sum, float(n)], dtype=torch.float64)
    if world > 1:
        dist.all_reduce(t)
    l1, psnr = t[0] / t[2], -10 * t[1] / t[2]
    if rank == 0:
        log(rank, f"eval step {step}: val L1 {l1:.4f} | PSNR {psnr:.2f} dB | {int(t[2])} pairs")
        os.makedirs(args.sample_dir, exist_ok=True)
        grid = ((outs[0] + 1) / 2).clamp(0, 1).numpy()
        np.save(os.path.join(args.sample_dir, f"grid_step{step:06d}.npy"), grid)
        log(rank, f"sample grid -> {args.sample_dir}/grid_step{step:06d}.npy ({grid.shape[0]} tiles)")
        if args.fid_samples:
            t1 = time.time()
            feat = feature_net()
            reals, fakes = [], []
            for i in range(0, args.fid_samples, 64):
                xs, ys = zip(*(make_pair(100_000 + j, args.size, "val") for j in range(i, min(i + 64,
                                                                                           args.fid_samples))))
                x, y = torch.stack(xs), torch.stack(ys)
                reals.append(feat(y))
                fakes.append(feat(G(x)))
            fd = frechet_distance(torch.cat(reals).double(), torch.cat(fakes).double(), args.fid_iters)
            log(rank, f"eval step {step}: FD (random-feature Frechet distance, {args.fid_samples} samples) {fd:.3f}"
                      f" in {time.time() - t1:.1f} s")
    G.train()


# ---------------------------------------------------------------------------------------------------------- launchers


def spawn_worker(rank: int, world: int, args) -> None:
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.pg_timeout))
    log(rank, f"process group ready: gloo, world size {world}, pid {os.getpid()}")
    train(rank, world, args)
    dist.destroy_process_group()


def run_lightning(args) -> None:
    import lightning as L
    from lightning.pytorch.loggers import CSVLogger

    class Pix2Pix(L.LightningModule):
        def __init__(self) -> None:
            super().__init__()
            self.automatic_optimization = False
            torch.manual_seed(args.seed)
            self.G, self.D = UNetGenerator(args.ngf), PatchDiscriminator(args.ndf)
            self.G.apply(init_weights)
            self.D.apply(init_weights)

        def configure_optimizers(self):
            return (torch.optim.Adam(self.G.parameters(), lr=args.lr_g, betas=(0.5, 0.999)),
                    torch.optim.Adam(self.D.parameters(), lr=args.lr_d, betas=(0.5, 0.999)))

        def training_step(self, batch, idx):
            x, y = batch
            optG, optD = self.optimizers()
            fake = self.G(x)
            lossD = 0.5 * (adv_loss(self.D(x, y), True, args.gan_loss)
                           + adv_loss(self.D(x, fake.detach()), False, args.gan_loss))
            optD.zero_grad()
            self.manual_backward(lossD)
            optD.step()
            lossG_adv = adv_loss(self.D(x, fake), True, args.gan_loss)
            l1 = F.l1_loss(fake, y)
            optG.zero_grad()
            self.manual_backward(lossG_adv + args.l1_weight * l1)
            optG.step()
            self.log_dict({"loss_d": lossD, "loss_g_adv": lossG_adv, "loss_l1": l1}, prog_bar=True)

        def validation_step(self, batch, idx):
            x, y = batch
            f = self.G(x)
            l1 = F.l1_loss(f, y)
            psnr = -10 * torch.log10((((f - y) / 2) ** 2).mean().clamp_min(1e-10))
            self.log_dict({"val_l1": l1, "val_psnr": psnr}, sync_dist=True, prog_bar=True)

        def on_validation_epoch_end(self):
            if self.trainer.is_global_zero and not self.trainer.sanity_checking:
                m = self.trainer.callback_metrics
                print(f"eval step {self.global_step}: val L1 {float(m['val_l1']):.4f} | PSNR "
                      f"{float(m['val_psnr']):.2f} dB", flush=True)

    train_set = PairSet(args.n_train, args.size, "train", args.jitter)
    val_set = PairSet(args.n_val, args.size, "val")
    tl = torch.utils.data.DataLoader(train_set, batch_size=args.batch_size, shuffle=True, drop_last=True,
                                     num_workers=args.workers, persistent_workers=args.workers > 0)
    vl = torch.utils.data.DataLoader(val_set, batch_size=32, num_workers=0)
    logger = CSVLogger(args.log_dir, name="pix2pix", flush_logs_every_n_steps=args.log_every)
    ckpt_cb = L.pytorch.callbacks.ModelCheckpoint(dirpath=args.ckpt_dir, save_last=True, save_top_k=1,
                                                  monitor="val_l1", mode="min")
    trainer = L.Trainer(accelerator="cpu", devices=2, strategy="ddp_find_unused_parameters_true", max_steps=args.steps,
                        val_check_interval=args.eval_every, check_val_every_n_epoch=None,
                        log_every_n_steps=args.log_every, logger=logger, callbacks=[ckpt_cb],
                        enable_progress_bar=False, enable_model_summary=True)
    trainer.fit(Pix2Pix(), tl, vl)
    if trainer.is_global_zero:
        print(f"fit finished: {trainer.global_step} steps, best val_l1 {float(ckpt_cb.best_model_score):.4f}",
              flush=True)


def run_raytrain(args) -> None:
    import ray
    import ray.train
    from ray.train import RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    def loop(config):
        ctx = ray.train.get_context()
        train(ctx.get_world_rank(), ctx.get_world_size(), args, report=ray.train.report)

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    res = {"CPU": args.cpus_per_worker}
    trainer = TorchTrainer(loop, scaling_config=ScalingConfig(num_workers=args.world, use_gpu=False,
                                                              resources_per_worker=res),
                           run_config=RunConfig(name="pix2pix", storage_path=os.path.abspath(args.ckpt_dir)))
    result = trainer.fit()
    print(f"ray train finished: {result.metrics}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "lightning", "raytrain"])
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--eval-every", type=int, default=250)
    ap.add_argument("--log-every", type=int, default=25)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--size", type=int, default=32)
    ap.add_argument("--eval-size", type=int, default=0, help="validation resolution (default: --size)")
    ap.add_argument("--n-train", type=int, default=2048)
    ap.add_argument("--n-val", type=int, default=256)
    ap.add_argument("--ngf", type=int, default=16)
    ap.add_argument("--ndf", type=int, default=16)
    ap.add_argument("--lr-g", type=float, default=2e-4)
    ap.add_argument("--lr-d", type=float, default=2e-4)
    ap.add_argument("--l1-weight", type=float, default=100.0)
    ap.add_argument("--gan-loss", choices=["bce", "lsgan", "bce-manual"], default="bce")
    ap.add_argument("--jitter", type=int, default=0)
    ap.add_argument("--pool-size", type=int, default=0)
    ap.add_argument("--pool-keep-graph", action="store_true")
    ap.add_argument("--d-skip-below", type=float, default=0.0)
    ap.add_argument("--fid-samples", type=int, default=0)
    ap.add_argument("--fid-iters", type=int, default=50)
    ap.add_argument("--workers", type=int, default=0)
    ap.add_argument("--world", type=int, default=2)
    ap.add_argument("--cpus-per-worker", type=float, default=1)
    ap.add_argument("--pg-timeout", type=float, default=300)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--sample-dir", default="samples")
    ap.add_argument("--log-dir", default="logs")
    ap.add_argument("--resume", action="store_true")
    args = ap.parse_args()
    torch.set_num_threads(1)
    print(f"pix2pix | torch {torch.__version__} | mode {args.mode} | {' '.join(sys.argv[1:])}", flush=True)
    if args.mode == "spawn":
        os.environ.setdefault("MASTER_PORT", "29650")
        torch.multiprocessing.spawn(spawn_worker, args=(args.world, args), nprocs=args.world, join=True)
        print("all ranks finished", flush=True)
    elif args.mode == "ddp":
        dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
        rank, world = dist.get_rank(), dist.get_world_size()
        log(rank, f"process group ready: gloo, world size {world}, pid {os.getpid()}")
        train(rank, world, args)
        dist.barrier()
        if rank == 0:
            print("all ranks finished", flush=True)
        dist.destroy_process_group()
    elif args.mode == "lightning":
        run_lightning(args)
    else:
        run_raytrain(args)


if __name__ == "__main__":
    main()
