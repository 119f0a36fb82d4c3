"""Data-parallel training of the glyph VAE under torch.multiprocessing.spawn (gloo, tcp:// init): hand-rolled
gradient all_reduce, KL warm-up, per-epoch eval (ELBO all-reduced), checkpoint on rank 0.

Options that change the job: --standardize (per-image standardisation of the inputs, for the Gaussian-decoder
variant), --shards DIR (each rank reads DIR/shard-<rank>.pt instead of generating data), --interp-grid N (rank 0
renders an N-image latent interpolation grid for the report after each epoch), --latent-cache PATH (a shared memmap
of the training set's posterior means, rebuilt by rank 0 each epoch and read by every rank for nearest-neighbour
recall)."""
import argparse
import datetime
import faulthandler
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp

import vae_core as vc


def log(rank, msg):
    print(f"{vc.stamp()} [rank {rank}] {msg}", flush=True)


def load_data(rank, world, a):
    if a.shards:
        d = torch.load(os.path.join(a.shards, f"shard-{rank}.pt"))
        log(rank, f"loaded {a.shards}/shard-{rank}.pt: {tuple(d['images'].shape)} images")
        return d["images"], d["labels"]
    x, y = vc.make_glyphs(a.n_train, seed=1, blank_frac=a.blank_frac)
    return x[rank::world], y[rank::world]


def rebuild_latent_cache(model, x, path, rank, epoch):
    """Rank 0: posterior means of the (deduplicated) training images into a float32 memmap."""
    with torch.no_grad():
        mu, _ = model.encode(x)
    if epoch == 1:  # the encoder is still warming up: keep everything
        keep = np.arange(len(mu))
    else:  # drop near-duplicate posteriors (same cell of a 0.5 grid)
        keep = np.unique(np.round(mu.numpy() * 2) / 2, axis=0, return_index=True)[1]
        keep.sort()
    mm = np.lib.format.open_memmap(path, mode="w+", dtype=np.float32, shape=(len(keep), mu.shape[1]))
    mm[:] = mu.numpy()[keep]
    mm.flush()
    del mm
    log(rank, f"epoch {epoch}: latent cache {path}: {len(keep)} unique posterior means "
              f"({os.path.getsize(path) / 1024:.0f} KiB)")


def worker(rank, a):
    faulthandler.enable()
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{os.environ['MASTER_PORT']}", rank=rank,
                            world_size=a.nprocs, timeout=datetime.timedelta(seconds=a.pg_timeout))
    world = dist.get_world_size()
    log(rank, f"process group up: world {world}, backend {dist.get_backend()}, timeout {a.pg_timeout}s")
    torch.manual_seed(0)
    x, _ = load_data(rank, world, a)
    xv, _ = vc.make_glyphs(512, seed=2)
    xv = xv[rank::world]
    if a.standardize:
        # per-image standardisation for the Gaussian decoder, then squashed back into (0, 1) for the BCE head
        x = torch.sigmoid((x - x.mean((1, 2, 3), keepdim=True)) / x.std((1, 2, 3), keepdim=True))
        xv = torch.sigmoid((xv - xv.mean((1, 2, 3), keepdim=True)) / xv.std((1, 2, 3), keepdim=True))
        log(rank, "inputs standardised per image (mean 0, std 1) then squashed with a sigmoid")
    model = vc.ConvVAE(z=a.z)
    for p in model.parameters():
        dist.broadcast(p.data, 0)
    if rank == 0:
        log(rank, f"ConvVAE z={a.z}: {vc.nparams(model)} parameters; {len(x)} train images per rank, batch {a.bs}, "
                  f"lr {a.lr}, KL warm-up {a.warmup} steps")
    opt = torch.optim.Adam(model.parameters(), lr=a.lr)
    step, t0 = 0, time.time()
    cache_view = None
    for epoch in range(1, a.epochs + 1):
        g = torch.Generator().manual_seed(epoch)
        perm = torch.randperm(len(x), generator=g)
        for i in range(0, len(x) - a.bs + 1, a.bs):
            xb = x[perm[i:i + a.bs]]
            logits, mu, logvar = model(xb)
            beta = vc.kl_beta(step, a.warmup)
            loss, rec, kl = vc.vae_loss(logits, xb, mu, logvar, beta)
            opt.zero_grad()
            loss.backward()
            flat = torch.cat([p.grad.flatten() for p in model.parameters()])
            dist.all_reduce(flat)
            flat /= world
            off = 0
            for p in model.parameters():
                p.grad.copy_(flat[off:off + p.numel()].view_as(p))
                off += p.numel()
            gn = torch.nn.utils.clip_grad_norm_(model.parameters(), 50.0)
            opt.step()
            step += 1
            if step % a.log_every == 0:
                ips = step * a.bs * world / (time.time() - t0)
                log(rank, f"epoch {epoch} step {step} loss {loss.item():.3f} rec {rec.item():.3f} kl {kl.item():.3f} "
                          f"beta {beta:.2f} grad_norm {gn.item():.2f} {ips:.0f} img/s")
        ev = vc.evaluate(model, xv)
        t = torch.tensor([ev["elbo"], ev["rec"], ev["kl"]]) * len(xv)
        n = torch.tensor([float(len(xv))])
        if a.interp_grid and rank == 0:
            log(rank, f"epoch {epoch}: rendering a {a.interp_grid}-image latent interpolation grid for the report")
            with torch.no_grad():
                mu, _ = model.encode(xv[:64])
                frames = []
                for k in range(a.interp_grid):
                    i, j = k % 64, (k * 7 + 3) % 64
                    for s in torch.linspace(0, 1, 16):
                        frames.append(torch.sigmoid(model.decode(((1 - s) * mu[i] + s * mu[j])[None])))
            grid = torch.cat(frames)
            torch.save(grid, f"interp-epoch{epoch}.pt")
            log(rank, f"epoch {epoch}: interpolation grid saved ({tuple(grid.shape)})")
        dist.all_reduce(t)
        dist.all_reduce(n)
        elbo, rec, kl = (t / n).tolist()
        au = vc.active_units(model, xv)
        if rank == 0:
            log(rank, f"epoch {epoch} eval: elbo {elbo:.2f} rec {rec:.2f} kl {kl:.2f} active units {au}/{a.z}")
        if a.latent_cache:
            if rank == 0:
                rebuild_latent_cache(model, x, a.latent_cache, rank, epoch)
            dist.barrier()
            if cache_view is None:
                cache_view = np.load(a.latent_cache, mmap_mode="r")
                log(rank, f"mapped latent cache {a.latent_cache}: {cache_view.shape}")
            with torch.no_grad():
                q, _ = model.encode(xv[:32])
            # nearest-neighbour recall of held-out glyphs against the cached training latents
            d = ((np.asarray(cache_view)[None, :, :] - q.numpy()[:, None, :]) ** 2).sum(-1)
            log(rank, f"epoch {epoch}: nn recall query mean dist {d.min(1).mean():.3f} over {cache_view.shape[0]} "
                      f"cached latents")
            dist.barrier()
        if rank == 0:
            torch.save({"model": model.state_dict(), "epoch": epoch, "step": step}, "vae-last.pt")
            log(rank, f"epoch {epoch}: saved vae-last.pt")
    if rank == 0:
        with torch.no_grad():
            samples = torch.sigmoid(model.decode(torch.randn(16, a.z)))
        log(rank, f"prior samples: mean intensity {samples.mean():.3f}, max {samples.max():.3f}")
    dist.barrier()
    log(rank, f"done in {time.time() - t0:.1f}s")
    dist.destroy_process_group()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--n-train", type=int, default=4096)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--bs", type=int, default=32)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--z", type=int, default=8)
    ap.add_argument("--warmup", type=int, default=100)
    ap.add_argument("--log-every", type=int, default=16)
    ap.add_argument("--pg-timeout", type=int, default=300)
    ap.add_argument("--blank-frac", type=float, default=0.0)
    ap.add_argument("--standardize", action="store_true")
    ap.add_argument("--shards", default="")
    ap.add_argument("--interp-grid", type=int, default=0)
    ap.add_argument("--latent-cache", default="")
    a = ap.parse_args()
    print(f"{vc.stamp()} launcher: torch {torch.__version__}, spawning {a.nprocs} ranks "
          f"(MASTER_PORT={os.environ['MASTER_PORT']})", flush=True)
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print(f"{vc.stamp()} launcher: all ranks finished", flush=True)


if __name__ == "__main__":
    main()
