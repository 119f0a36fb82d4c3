"""Claims-risk FT-Transformer, DDP over gloo, started with torch.multiprocessing.spawn or mp.Process."""
import argparse
import datetime
import faulthandler
import os
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP

import tab_core as tc


def log(rank, msg):
    print(f"{time.strftime('%H:%M:%S')} [rank {rank}] {msg}", flush=True)


def worker(rank, a):
    faulthandler.enable()
    torch.set_num_threads(1)
    world = int(os.environ.get("WORLD_SIZE", a.nprocs))
    os.environ["RANK"] = str(rank)
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=a.pg_timeout))
    log(rank, f"process group up: world {world}, backend {dist.get_backend()}")
    torch.manual_seed(0)
    enc, (num, cat, y), (vnum, vcat, vy) = tc.build(income_sentinel=a.raw_export)
    if rank == 0:
        log(rank, f"train rows {len(y)} (claim rate {y.mean():.3f}), val rows {len(vy)}; numeric columns:\n"
                  + tc.summary(num))
    xn, xc = enc.transform(num, cat)
    yt = torch.from_numpy(y)
    cache = None
    if a.feature_cache:
        cache_path = os.path.join(a.feature_cache, "train_num.npy")
        if rank == 0:
            os.makedirs(a.feature_cache, exist_ok=True)
            np.save(cache_path, xn.numpy())
        dist.barrier()
        cache = np.load(cache_path, mmap_mode="r")
        log(rank, f"feature cache mapped: {cache_path} {cache.shape} {cache.dtype}")
    model = DDP(tc.FTTransformer(len(tc.NUM_COLS), enc.cards()))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    n = len(yt)
    idx_all = torch.arange(rank, n, world)
    best, bad_epochs = -1.0, 0
    step = 0
    t0 = time.time()
    for epoch in range(a.epochs):
        g = torch.Generator().manual_seed(epoch)
        idx = idx_all[torch.randperm(len(idx_all), generator=g)]
        if cache is not None and epoch == a.refresh_at and rank == 0:
            # refresh the cache with deduplicated rows before the next epoch
            uniq = np.unique(np.asarray(cache), axis=0)[: len(cache) // 2]
            np.save(cache_path, uniq)
            log(rank, f"feature cache refreshed: {uniq.shape[0]} rows")
        model.train()
        for b in range(0, len(idx), a.batch):
            bi = idx[b:b + a.batch]
            x_num = torch.from_numpy(np.ascontiguousarray(cache[bi.numpy()])) if cache is not None else xn[bi]
            logits = model(x_num, xc[bi])
            loss = F.binary_cross_entropy_with_logits(logits, yt[bi])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % 10 == 0:
                log(rank, f"epoch {epoch} step {step} loss {loss.item():.4f} "
                          f"({step * a.batch * world / (time.time() - t0):.0f} rows/s)")
        if a.early_stop_rank0:
            if rank == 0:
                vxn, vxc = enc.transform(vnum, vcat)
                model.eval()
                with torch.no_grad():
                    s = model.module(vxn, vxc)
                v = tc.auc(s.numpy(), vy)
                log(rank, f"epoch {epoch} val AUC {v:.4f} (best {best:.4f})")
                if v < best + a.min_delta:
                    bad_epochs += 1
                    if bad_epochs >= a.patience:
                        log(rank, f"early stopping at epoch {epoch}")
                        break
                else:
                    best, bad_epochs = v, 0
            continue
        vxn, vxc = enc.transform(vnum, vcat)
        model.eval()
        part = slice(rank, len(vy), world)
        with torch.no_grad():
            s = model.module(vxn[part], vxc[part])
            vloss = F.binary_cross_entropy_with_logits(s, torch.from_numpy(vy[part]), reduction="sum")
        tot = torch.tensor([vloss.item(), float(len(s))])
        dist.all_reduce(tot)
        scores = [None] * world
        dist.all_gather_object(scores, (s.numpy().tolist(), vy[part].tolist()))
        if rank == 0:
            sc = sum((x for x, _ in scores), [])
            lb = sum((l for _, l in scores), [])
            log(rank, f"epoch {epoch} val loss {tot[0] / tot[1]:.4f} AUC {tc.auc(sc, lb):.4f} "
                      f"({time.time() - t0:.1f}s)")
    dist.barrier()
    if rank == 0:
        torch.save(model.module.state_dict(), "ft_claims.pt")
        log(rank, "saved ft_claims.pt")
    dist.destroy_process_group()
    log(rank, "done")


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--launcher", choices=["spawn", "process"], default="spawn")
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=3e-3)
    ap.add_argument("--pg-timeout", type=int, default=120)
    ap.add_argument("--raw-export", action="store_true", help="read the raw warehouse export (no cleaning)")
    ap.add_argument("--feature-cache", default="")
    ap.add_argument("--refresh-at", type=int, default=-1)
    ap.add_argument("--early-stop-rank0", action="store_true")
    ap.add_argument("--patience", type=int, default=1)
    ap.add_argument("--min-delta", type=float, default=0.005)
    a = ap.parse_args()
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    print(f"launching {a.nprocs} workers with {a.launcher} (MASTER_PORT={os.environ.get('MASTER_PORT')})", flush=True)
    if a.launcher == "spawn":
        mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    else:
        ctx = mp.get_context("spawn")
        procs = [ctx.Process(target=worker, args=(r, a)) for r in range(a.nprocs)]
        for p in procs:
            p.start()
        for r, p in enumerate(procs):
            p.join()
            print(f"worker {r} exited with code {p.exitcode}", flush=True)
        if any(p.exitcode for p in procs):
            raise SystemExit(1)
    print("all workers finished", flush=True)
