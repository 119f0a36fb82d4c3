"""ESPCN-style single-image super-resolution on synthetic textures, data-parallel over gloo.

HR crops are taken from the rendered textures, LR inputs made with antialiased bicubic downsampling; the model is
conv5x5(64)-tanh, conv3x3(32)-tanh, conv3x3(3*s*s) + pixel shuffle; L1 loss. After each epoch: PSNR/SSIM of the model
and of the bicubic baseline on the validation set (all-reduced), rank-0 checkpoint.
"""
import argparse
import datetime
import faulthandler
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

faulthandler.register(signal.SIGUSR1, all_threads=True)


def env_rank():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ and w in os.environ:
            return int(os.environ[r]), int(os.environ[w])
    return 0, 1


class ESPCN(nn.Module):
    def __init__(self, scale, ch=3):
        super().__init__()
        self.c1 = nn.Conv2d(ch, 64, 5, padding=2)
        self.c2 = nn.Conv2d(64, 32, 3, padding=1)
        self.c3 = nn.Conv2d(32, ch * scale * scale, 3, padding=1)
        self.ps = nn.PixelShuffle(scale)

    def forward(self, x):
        return self.ps(self.c3(torch.tanh(self.c2(torch.tanh(self.c1(x))))))


def downscale(hr, s):
    return F.interpolate(hr, scale_factor=1 / s, mode="bicubic", antialias=True, align_corners=False).clamp(0, 1)


def psnr(a, b):
    mse = ((a - b) ** 2).flatten(1).mean(1)
    return 10 * torch.log10(1.0 / mse)


def ssim(a, b, win=7):
    g = torch.exp(-((torch.arange(win) - win // 2) ** 2) / (2 * 1.5 ** 2))
    g = (g / g.sum())
    k = (g[:, None] * g[None, :]).expand(a.shape[1], 1, win, win).contiguous()
    f = lambda t: F.conv2d(t, k, groups=a.shape[1])
    mu_a, mu_b = f(a), f(b)
    saa, sbb, sab = f(a * a) - mu_a ** 2, f(b * b) - mu_b ** 2, f(a * b) - mu_a * mu_b
    c1, c2 = 0.01 ** 2, 0.03 ** 2
    m = ((2 * mu_a * mu_b + c1) * (2 * sab + c2)) / ((mu_a ** 2 + mu_b ** 2 + c1) * (saa + sbb + c2))
    return m.flatten(1).mean(1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--scale", type=int, default=2)
    ap.add_argument("--crop", type=int, default=48)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--optim", default="adam", choices=["adam", "sgd"])
    ap.add_argument("--scale-lr", action="store_true", help="linear scaling rule: lr * world * batch / 16")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--save-state", action="store_true", help="accelerate save_state each epoch")
    ap.add_argument("--patch-bank", type=int, default=0, help="pre-extract all crops with this stride")
    ap.add_argument("--self-ensemble", type=int, default=0, help="rank 0: x8 self-ensemble on N full-size references")
    ap.add_argument("--gather-psnr", action="store_true", help="gather per-image PSNR for percentiles")
    ap.add_argument("--edsr-loader", action="store_true", help="move batches with the EDSR-PyTorch loader helpers")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="")
    ap.add_argument("--accelerate", action="store_true")
    ap.add_argument("--local_rank", type=int, default=-1)
    a = ap.parse_args()

    acc = None
    if a.accelerate:
        from accelerate import Accelerator
        acc = Accelerator(cpu=True)
        rank, world = acc.process_index, acc.num_processes
    else:
        rank, world = env_rank()
        if a.deepspeed:
            import deepspeed
            deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
        else:
            dist.init_process_group("gloo", rank=rank, world_size=world, timeout=datetime.timedelta(seconds=a.pg_timeout))
    torch.manual_seed(0)
    log = lambda *m: print(f"[rank{rank}] " + " ".join(map(str, m)), flush=True)
    if rank == 0:
        log(f"world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")

    if a.edsr_loader:
        from edsr_utils import move_to
    else:
        move_to = lambda b, d: b

    tr = np.load(os.path.join(a.data, "train_hr.npy"), mmap_mode="r")
    va = np.load(os.path.join(a.data, "val_hr.npy"))
    mine = np.arange(rank, len(tr), world)
    log(f"train images {len(mine)}/{len(tr)} ({tr.shape[2]}x{tr.shape[3]}), val {len(va[rank::world])}/{len(va)}, "
        f"scale x{a.scale}, crop {a.crop}")

    bank = None
    if a.patch_bank:
        side = tr.shape[2]
        offs = range(0, side - a.crop + 1, a.patch_bank)
        n = len(mine) * len(offs) ** 2
        log(f"building patch bank: {n} crops of {a.crop}px (stride {a.patch_bank}), "
            f"{n * 3 * a.crop * a.crop * 4 / 2**30:.2f} GiB")
        chunks = []
        for j, i in enumerate(mine):
            img = torch.from_numpy(np.asarray(tr[i], np.float32) / 255.0)
            p = img.unfold(1, a.crop, a.patch_bank).unfold(2, a.crop, a.patch_bank)
            chunks.append(p.permute(1, 2, 0, 3, 4).reshape(-1, 3, a.crop, a.crop).contiguous())
            if j % 200 == 0:
                log(f"  patch bank {j}/{len(mine)} images")
        bank = torch.cat(chunks)
        log(f"patch bank ready: {tuple(bank.shape)}")

    model = ESPCN(a.scale)
    nparam = sum(p.numel() for p in model.parameters())
    lr = a.lr * (world * a.batch / 16 if a.scale_lr else 1)
    if rank == 0:
        log(f"ESPCN x{a.scale}: {nparam / 1e3:.1f}K parameters, optimizer {a.optim}, lr {lr:g}")
    steps_per_epoch = len(mine) // a.batch
    if a.deepspeed:
        import deepspeed
        engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=a.ds_config)
        net = engine
    else:
        opt = (torch.optim.Adam(model.parameters(), lr=lr) if a.optim == "adam"
               else torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9))
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, a.epochs)
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model) if world > 1 else model
        engine = None

    stop = {"sig": None}

    def on_term(signum, frame):
        stop["sig"] = signum
        log(f"received signal {signum} ({signal.Signals(signum).name}): will checkpoint and stop after this step")

    signal.signal(signal.SIGTERM, on_term)

    def save(epoch, step):
        if a.save_state:
            path = os.path.join(a.ckpt_dir, f"epoch_{epoch}")
            acc.save_state(path)
            if rank == 0:
                log(f"saved state {path}")
        elif rank == 0:
            os.makedirs(a.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": epoch, "step": step}, os.path.join(a.ckpt_dir, "last.pt"))
            log(f"checkpoint epoch {epoch} step {step} -> {a.ckpt_dir}/last.pt")

    rng = np.random.default_rng(100 + rank)
    step = 0
    t_start = time.time()
    for epoch in range(1, a.epochs + 1):
        if engine is None:
            sched.step() if epoch > 1 else None
        net.train()
        order = rng.permutation(len(bank) if bank is not None else len(mine))
        t0, seen, run_loss = time.time(), 0, 0.0
        for b in range(steps_per_epoch):
            idx = order[b * a.batch:(b + 1) * a.batch]
            if bank is not None:
                hr = bank[torch.from_numpy(idx)]
            else:
                side = tr.shape[2]
                crops = []
                for i in idx:
                    y, x = rng.integers(0, side - a.crop + 1, 2)
                    crops.append(np.asarray(tr[mine[i], :, y:y + a.crop, x:x + a.crop], np.float32) / 255.0)
                hr = torch.from_numpy(np.stack(crops))
            if rng.random() < 0.5:
                hr = hr.flip(3)
            lr_img = downscale(hr, a.scale)
            lr_img, hr = move_to((lr_img, hr), "cpu")
            sr = net(lr_img)
            loss = F.l1_loss(sr, hr)
            if not torch.isfinite(loss):
                log(f"epoch {epoch} step {step}: loss is {loss.item()}, aborting")
                sys.exit(3)
            if engine is not None:
                engine.backward(loss)
                engine.step()
            elif acc is not None:
                opt.zero_grad()
                acc.backward(loss)
                opt.step()
            else:
                opt.zero_grad()
                loss.backward()
                opt.step()
            step += 1
            seen += len(idx)
            run_loss += loss.item()
            if step % a.log_every == 0:
                log(f"epoch {epoch} step {step} l1 {run_loss / (b + 1):.4f} "
                    f"{seen * world / (time.time() - t0):.0f} img/s lr {opt.param_groups[0]['lr']:.2e}")
            if stop["sig"] is not None:
                save(epoch, step)
                log(f"stopped on signal at epoch {epoch} step {step}")
                sys.exit(0)
        # validation
        net.eval()
        with torch.no_grad():
            hr = torch.from_numpy(va[rank::world].astype(np.float32) / 255.0)
            lr_img = downscale(hr, a.scale)
            sr = net(lr_img).clamp(0, 1)
            base = F.interpolate(lr_img, scale_factor=a.scale, mode="bicubic", align_corners=False).clamp(0, 1)
            p, s, pb = psnr(sr, hr), ssim(sr, hr), psnr(base, hr)
            tot = torch.tensor([p.sum().item(), s.sum().item(), pb.sum().item(), float(len(p))], dtype=torch.float64)
            if world > 1:
                dist.all_reduce(tot)
            extra = ""
            if a.gather_psnr and world > 1:
                allp = [torch.zeros_like(p) for _ in range(world)]
                dist.all_gather(allp, p)
                allp = torch.cat(allp)
                extra = f" psnr p10/p50/p90 {allp.quantile(0.1):.2f}/{allp.median():.2f}/{allp.quantile(0.9):.2f}"
            n = tot[3].item()
            if rank == 0:
                log(f"eval epoch {epoch}: PSNR {tot[0] / n:.2f} dB SSIM {tot[1] / n:.4f} "
                    f"(bicubic {tot[2] / n:.2f} dB) on {int(n)} images{extra}")
            if a.self_ensemble and rank == 0:
                refs = torch.from_numpy(va[:a.self_ensemble].astype(np.float32) / 255.0)
                refs = F.interpolate(refs, size=(512, 512), mode="bilinear", align_corners=False)
                lr_ref = downscale(refs, a.scale)
                t1 = time.time()
                outs = []
                for k in range(8):
                    x = torch.rot90(lr_ref.flip(3) if k >= 4 else lr_ref, k % 4, (2, 3))
                    y = torch.cat([net(c) for c in x.split(8)])
                    y = torch.rot90(y, -(k % 4), (2, 3))
                    outs.append(y.flip(3) if k >= 4 else y)
                ens = torch.stack(outs).mean(0).clamp(0, 1)
                log(f"self-ensemble x8 on {len(refs)} references {tuple(refs.shape[2:])}: PSNR "
                    f"{psnr(ens, refs).mean():.2f} dB ({time.time() - t1:.0f} s)")
        save(epoch, step)
    if rank == 0:
        log(f"done: {a.epochs} epochs, {step} steps, {time.time() - t_start:.0f} s")
    if acc is None and engine is None and world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
