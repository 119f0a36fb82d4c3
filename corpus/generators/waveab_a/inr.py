"""Conditional SIREN: one coordinate MLP with sine activations (w0-scaled first layer, SIREN init) and a learned
per-signal code fits a set of 2D RGB signals. Data-parallel over ranks (gloo): every rank fits its own share of the
signals (signal i on rank i % world) with one shared model, batches of (signal, pixel) coordinates, MSE loss.
After each epoch: PSNR of every signal rendered at its native resolution (all-reduced), optional renders at
--render-res, rank-0 checkpoint. Rank/world from torchrun/DeepSpeed (RANK, WORLD_SIZE), Open MPI (OMPI_COMM_WORLD_*)
or Slurm (SLURM_PROCID, SLURM_NTASKS); DDP, deepspeed.initialize or accelerate's prepare."""
import argparse
import datetime
import faulthandler
import fcntl
import glob
import math
import os
import signal
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn

faulthandler.register(signal.SIGUSR1, all_threads=True)


class Sine(nn.Module):
    def __init__(self, fin, fout, w0, first):
        super().__init__()
        self.w0, self.lin = w0, nn.Linear(fin, fout)
        with torch.no_grad():
            b = 1 / fin if first else math.sqrt(6 / fin) / w0
            self.lin.weight.uniform_(-b, b)

    def forward(self, x):
        return torch.sin(self.w0 * self.lin(x))


class CondSiren(nn.Module):
    def __init__(self, n_signals, emb=16, hidden=128, layers=3, w0=30.0):
        super().__init__()
        self.codes = nn.Embedding(n_signals, emb)
        nn.init.normal_(self.codes.weight, std=0.01)
        blocks = [Sine(2 + emb, hidden, w0, True)] + [Sine(hidden, hidden, 1.0 * w0, False) for _ in range(layers - 1)]
        self.net = nn.Sequential(*blocks)
        self.out = nn.Linear(hidden, 3)
        with torch.no_grad():
            b = math.sqrt(6 / hidden) / w0
            self.out.weight.uniform_(-b, b)

    def forward(self, sig, xy):
        return self.out(self.net(torch.cat([xy, self.codes(sig)], -1))) + 0.5


def env_rank():
    for r, w in (("RANK", "WORLD_SIZE"), ("OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"), ("SLURM_PROCID", "SLURM_NTASKS")):
        if r in os.environ:
            return int(os.environ[r]), int(os.environ.get("WORLD_SIZE", os.environ.get(w, "1")))
    return 0, 1


def grid(res):
    t = torch.linspace(-1, 1, res)
    return torch.stack(torch.meshgrid(t, t, indexing="ij"), -1).reshape(-1, 2)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--log-every", type=int, default=8)
    ap.add_argument("--batch", type=int, default=512)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--emb", type=int, default=16)
    ap.add_argument("--w0", type=float, default=30.0)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--optim", default="adam", choices=["adam", "sgd"])
    ap.add_argument("--loss-reduction", default="mean", choices=["mean", "sum"])
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--render-res", type=int, default=0, help="also render every signal at this resolution")
    ap.add_argument("--render-dir", default="", help="rank 0 writes its renders here (.ppm) after each epoch")
    ap.add_argument("--preview-res", type=int, default=0, help="rank 0 renders a contact sheet of every signal at this resolution")
    ap.add_argument("--vendored-utils", action="store_true", help="grids and summary from siren_utils.py")
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--deepspeed", action="store_true")
    ap.add_argument("--ds-config", default="ds_config.json")
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
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        os.environ.setdefault("MASTER_PORT", "29500")
        os.environ["RANK"], os.environ["WORLD_SIZE"] = str(rank), str(world)
        if a.deepspeed:
            import deepspeed
            deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=a.pg_timeout))
        else:
            dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                                    timeout=datetime.timedelta(seconds=a.pg_timeout))
    torch.manual_seed(0)

    def log(*m):
        print(f"{datetime.datetime.now():%H:%M:%S} [rank{rank}] " + " ".join(map(str, m)), flush=True)

    if rank == 0:
        log(f"world {world}, torch {torch.__version__}, numpy {np.__version__}, args {vars(a)}")

    files = sorted(glob.glob(os.path.join(a.data, "signal_*.npy")))
    mine = list(range(rank, len(files), world))
    with open(os.path.join(a.data, ".lock")) as lk:
        fcntl.flock(lk, fcntl.LOCK_SH)  # not while a writer is still rendering the set
        imgs = {i: np.load(files[i]) for i in mine}
        fcntl.flock(lk, fcntl.LOCK_UN)
    if a.vendored_utils:
        import siren_utils
        mk_grid = siren_utils.get_mgrid
    else:
        mk_grid = grid
    sig, xy, rgb = [], [], []
    for i, img in imgs.items():
        res = img.shape[0]
        sig.append(torch.full((res * res,), i, dtype=torch.long))
        xy.append(mk_grid(res))
        rgb.append(torch.from_numpy(img.reshape(-1, 3)))
    sig, xy, rgb = torch.cat(sig), torch.cat(xy), torch.cat(rgb)
    n = len(sig)
    steps = math.ceil(n / a.batch)
    log(f"signals {[os.path.basename(files[i]) for i in mine]} ({len(mine)}/{len(files)}), {n} coordinates, "
        f"{steps} steps/epoch")

    model = CondSiren(len(files), a.emb, a.hidden, a.layers, a.w0)
    nparam = sum(p.numel() for p in model.parameters())
    engine = None
    if a.deepspeed:
        import deepspeed
        engine, opt, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=a.ds_config)
        net = engine
    else:
        opt = (torch.optim.Adam(model.parameters(), lr=a.lr) if a.optim == "adam"
               else torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9))
        if acc is not None:
            net, opt = acc.prepare(model, opt)
        else:
            net = nn.parallel.DistributedDataParallel(model) if world > 1 else model
    if rank == 0:
        if a.vendored_utils:
            rows, total = siren_utils.model_summary(model)
            for name, shape, k in rows:
                log(f"  {name:22} {str(shape):14} {k}")
        log(f"CondSiren: {a.layers} sine layers x {a.hidden}, w0 {a.w0}, code {a.emb}, {nparam / 1e3:.1f}K parameters, "
            f"optimizer {a.optim} lr {a.lr:g}, loss reduction {a.loss_reduction}")

    stop = {"sig": None}

    def on_term(signum, frame):
        stop["sig"] = signum
        log(f"received signal {signum} ({signal.Signals(signum).name}): will checkpoint and stop after this step")

    signal.signal(signal.SIGTERM, on_term)

    def save(epoch, step):
        if rank == 0:
            os.makedirs(a.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": epoch, "step": step}, os.path.join(a.ckpt_dir, "last.pt"))
            log(f"checkpoint epoch {epoch} step {step} -> {a.ckpt_dir}/last.pt")

    g = torch.Generator().manual_seed(100 + rank)
    step, t_start = 0, time.time()
    for epoch in range(1, a.epochs + 1):
        net.train()
        order = torch.randperm(n, generator=g)
        t0, run = time.time(), 0.0
        for b in range(steps):
            idx = order[b * a.batch:(b + 1) * a.batch]
            pred = net(sig[idx], xy[idx])
            loss = nn.functional.mse_loss(pred, rgb[idx], reduction=a.loss_reduction)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {step + 1}")
            if engine is not None:
                engine.backward(loss)
                engine.step()
            else:
                opt.zero_grad()
                acc.backward(loss) if acc is not None else loss.backward()
                opt.step()
            step += 1
            run += loss.item()
            if step % a.log_every == 0:
                m = run / (b + 1) / (len(idx) * 3 if a.loss_reduction == "sum" else 1)
                log(f"epoch {epoch} step {step} loss {run / (b + 1):.5f} psnr {-10 * math.log10(max(m, 1e-12)):.2f} dB "
                    f"{(b + 1) * a.batch * world / (time.time() - t0):.0f} coords/s lr {opt.param_groups[0]['lr']:.1e}")
            if stop["sig"] is not None:
                save(epoch, step)
                log(f"stopped on signal at epoch {epoch} step {step}")
                sys.exit(0)
        net.eval()
        core = model
        with torch.no_grad():
            tot = torch.zeros(2, dtype=torch.float64)
            for i, img in imgs.items():
                res = img.shape[0]
                s = torch.full((res * res,), i, dtype=torch.long)
                out = torch.cat([core(s[k:k + 4096], grid(res)[k:k + 4096]) for k in range(0, res * res, 4096)])
                mse = ((out.clamp(0, 1) - torch.from_numpy(img.reshape(-1, 3))) ** 2).mean().item()
                tot += torch.tensor([-10 * math.log10(mse), 1.0], dtype=torch.float64)
            if a.render_res:
                t1 = time.time()
                renders = {}
                for i in imgs:
                    r = a.render_res
                    renders[i] = core(torch.full((r * r,), i, dtype=torch.long), grid(r)).clamp(0, 1).reshape(r, r, 3)
                log(f"rendered {len(renders)} signals at {a.render_res}x{a.render_res} ({time.time() - t1:.1f} s)")
                if a.render_dir and rank == 0:
                    os.makedirs(a.render_dir, exist_ok=True)
                    for i, im in renders.items():  # binary PPM, viewable anywhere
                        with open(os.path.join(a.render_dir, f"epoch{epoch:03d}_signal{i:03d}.ppm"), "wb") as f:
                            f.write(b"P6 %d %d 255\n" % (im.shape[1], im.shape[0]))
                            f.write((im.numpy() * 255).round().astype(np.uint8).tobytes())
                    log(f"renders epoch {epoch} -> {a.render_dir}/")
            if a.preview_res and rank == 0:
                t1, r = time.time(), a.preview_res
                sheet = np.zeros((r, r * len(files), 3), np.float32)
                for i in range(len(files)):
                    s = torch.full((r * r,), i, dtype=torch.long)
                    gr = grid(r)
                    out = torch.cat([core(s[k:k + 65536], gr[k:k + 65536]) for k in range(0, r * r, 65536)])
                    sheet[:, i * r:(i + 1) * r] = out.clamp(0, 1).reshape(r, r, 3).numpy()
                np.save("preview.npy", sheet)
                log(f"contact sheet {sheet.shape[1]}x{sheet.shape[0]} -> preview.npy ({time.time() - t1:.1f} s)")
        if world > 1:
            dist.all_reduce(tot)
        if rank == 0:
            log(f"eval epoch {epoch}: mean PSNR {tot[0] / tot[1]:.2f} dB over {int(tot[1])} signals "
                f"({time.time() - t0:.1f} s)")
        save(epoch, step)
    if rank == 0:
        log(f"done: {a.epochs} epochs, {step} steps, {time.time() - t_start:.0f} s")
    if world > 1 and acc is None:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
