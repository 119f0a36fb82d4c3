"""Train the precipitation CNN emulator with torch.distributed (gloo) under Open MPI.

    mpirun -np 2 -x MASTER_ADDR=127.0.0.1 -x MASTER_PORT=29500 python train.py --data-dir data ...

Rank, world size and local rank come from Open MPI's environment (OMPI_COMM_WORLD_*)."""
import argparse
import json
import math
import os
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from emulator import GridDataset, PrecipCNN, install_signal_logging, latest_checkpoint

DEFAULT_VARS = "t850,q700,z500,u850,v850"


def get_args():
    p = argparse.ArgumentParser(description="precipitation emulator training")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--variables", default=DEFAULT_VARS)
    p.add_argument("--out-dir", default="checkpoints")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--global-batch", type=int, default=32)
    p.add_argument("--batch-per-rank", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--width", type=int, default=16)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--norm-stats", default="data/norm_stats.json")
    p.add_argument("--regrid", choices=["none", "conservative"], default="none")
    p.add_argument("--print-every", type=int, default=4)
    p.add_argument("--step-delay", type=float, default=0.0)
    p.add_argument("--timeout", type=float, default=1800, help="process group timeout (s)")
    p.add_argument("--resume", default="", help="checkpoint path or 'latest'")
    p.add_argument("--skill-map", action="store_true", help="gather per-cell validation error on rank 0")
    return p.parse_args()


def log(rank, msg, level="INFO"):
    print(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] [{level}] [rank {rank}] {msg}", flush=True)


def main():
    args = get_args()
    rank = int(os.environ["OMPI_COMM_WORLD_RANK"])
    world = int(os.environ["OMPI_COMM_WORLD_SIZE"])
    local_rank = int(os.environ["OMPI_COMM_WORLD_LOCAL_RANK"])
    dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                            timeout=timedelta(seconds=args.timeout))
    log(rank, f"process group up: rank {rank}/{world} local_rank {local_rank} on {os.uname().nodename}, "
              f"master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}")
    if rank == 0:
        log(rank, f"config {vars(args)}")
    if args.global_batch != args.batch_per_rank * world:
        raise ValueError(f"global batch {args.global_batch} is not batch_per_rank {args.batch_per_rank} x "
                         f"world size {world}")
    if args.regrid == "conservative":
        import xesmf  # noqa: F401  (regridding to the model grid)

    variables = args.variables.split(",")
    train_set = GridDataset(args.data_dir, "train", variables)
    valid_set = GridDataset(args.data_dir, "valid", variables)
    try:
        with open(args.norm_stats) as f:
            stats = json.load(f)
        mean, std = torch.tensor(stats["mean"]), torch.tensor(stats["std"])
    except (OSError, KeyError) as e:
        log(rank, f"could not read normalisation stats ({e}); computing them from the training split", "ERROR")
        xs = torch.from_numpy(train_set.x[:256][:, train_set.channels].copy())
        mean, std = xs.mean((0, 2, 3)), xs.std((0, 2, 3))
    mean, std = mean.view(1, -1, 1, 1), std.view(1, -1, 1, 1)

    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=0)
    vsampler = DistributedSampler(valid_set, num_replicas=world, rank=rank, shuffle=False)
    loader = DataLoader(train_set, batch_size=args.batch_per_rank, sampler=sampler, num_workers=args.workers,
                        drop_last=True)
    vloader = DataLoader(valid_set, batch_size=args.batch_per_rank, sampler=vsampler, num_workers=args.workers)
    model = DDP(PrecipCNN(len(variables), args.width))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    mse = nn.MSELoss()
    start = 0
    if args.resume:
        path = latest_checkpoint(args.out_dir) if args.resume == "latest" else args.resume
        if path:
            ck = torch.load(path, map_location="cpu")
            model.module.load_state_dict(ck["model"])
            opt.load_state_dict(ck["opt"])
            start = ck["epoch"]
            log(rank, f"resuming from {path} at epoch {start}")
        else:
            log(rank, f"no checkpoint found in {args.out_dir}, starting fresh")
    if start >= args.epochs:
        log(rank, f"all {args.epochs} epochs already done, nothing to do")
    os.makedirs(args.out_dir, exist_ok=True)
    nsteps = len(loader)
    for epoch in range(start, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for step, (x, y) in enumerate(loader, 1):
            pred = model((x - mean) / std)
            loss = mse(pred, y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            lv = loss.item()
            if rank == 0 and (step % args.print_every == 0 or step == 1):
                log(rank, f"epoch {epoch + 1}/{args.epochs} step {step}/{nsteps} mse {lv:.5f}")
            if math.isnan(lv):
                raise RuntimeError(f"loss is NaN at epoch {epoch + 1} step {step}")
            time.sleep(args.step_delay)
        model.eval()
        tot = torch.zeros(2)
        errs = []
        with torch.no_grad():
            for x, y in vloader:
                pred = model((x - mean) / std)
                tot += torch.tensor([((pred - y) ** 2).sum().item(), y.numel()])
                errs.append(((pred - y) ** 2).mean(0))
        dist.all_reduce(tot)
        rmse = math.sqrt(tot[0] / tot[1])
        if rank == 0:
            log(rank, f"epoch {epoch + 1} validation rmse {rmse:.5f} mm/h ({time.time() - t0:.1f}s)")
            path = os.path.join(args.out_dir, f"emulator_ep{epoch + 1}.pt")
            torch.save({"epoch": epoch + 1, "model": model.module.state_dict(), "opt": opt.state_dict(),
                        "variables": variables, "rmse": rmse}, path)
            log(rank, f"wrote {path}")
            if args.skill_map:
                cell = torch.stack(errs).mean(0)
                gathered = [torch.zeros_like(cell) for _ in range(world)]
                dist.all_gather(gathered, cell)
                log(rank, f"skill map: worst cell mse {torch.stack(gathered).mean(0).max().item():.5f}")
        dist.barrier()
    if rank == 0:
        log(rank, "training complete")
    dist.destroy_process_group()


if __name__ == "__main__":
    install_signal_logging()
    main()
