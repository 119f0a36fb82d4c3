"""1D-CNN promoter classifier (synthetic sequences), DDP over gloo, one process per Slurm task."""
import argparse
import csv
import datetime
import glob
import logging
import os
import sys
import time

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def get_args():
    p = argparse.ArgumentParser(description="promoter CNN")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64, help="global batch size")
    p.add_argument("--micro-batch", type=int, default=32, help="per-rank batch size")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--workers", type=int, default=1)
    p.add_argument("--step-delay", type=float, default=0.0)
    p.add_argument("--pg-timeout", type=int, default=1800, help="process group timeout (s)")
    p.add_argument("--resume", default="", help="'auto' or a checkpoint path")
    p.add_argument("--log-every", type=int, default=4)
    p.add_argument("--metrics-url", default="", help="push per-epoch metrics to the lab's dashboard")
    p.add_argument("--reference", default="", help="FASTA to draw extra negatives from")
    p.add_argument("--auprc-all-ranks", action="store_true", help="(debug) gather val scores")
    return p.parse_args()


class PromoterSet(Dataset):
    def __init__(self, data_dir, split):
        self.x = np.load(os.path.join(data_dir, f"{split}_seqs.npy"), mmap_mode="r")
        with open(os.path.join(data_dir, f"{split}_meta.tsv")) as f:
            rows = list(csv.DictReader(f, delimiter="\t"))
        self.y = np.array([int(r["label"]) for r in rows])
        self.w = np.array([float(r["qc_weight"]) for r in rows], dtype=np.float32)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        seq = torch.from_numpy(np.array(self.x[i], dtype=np.int64))
        return F.one_hot(seq, 4).T.float(), int(self.y[i]), self.w[i]


class PromoterCNN(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.conv1 = nn.Conv1d(4, width, 11, padding=5)
        self.conv2 = nn.Conv1d(width, width, 7, padding=3)
        self.conv3 = nn.Conv1d(width, width, 5, padding=2)
        self.head = nn.Linear(width, 2)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool1d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.conv3(x))
        return self.head(x.amax(dim=2))


def main():
    args = get_args()
    rank = int(os.environ["SLURM_PROCID"])
    world_size = int(os.environ.get("WORLD_SIZE", os.environ["SLURM_NTASKS"]))
    local_rank = int(os.environ["SLURM_LOCALID"])
    logging.basicConfig(level=logging.INFO,
                        format=f"%(asctime)s [rank{rank}] %(levelname)s %(name)s: %(message)s")
    log = logging.getLogger("promoter")
    if args.batch_size != args.micro_batch * world_size:
        raise ValueError(f"--batch-size {args.batch_size} must equal --micro-batch {args.micro_batch} x world size "
                         f"{world_size}")
    if args.reference:
        import pyfaidx  # noqa: F401
    dist.init_process_group("gloo", init_method=f"tcp://{os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}",
                            rank=rank, world_size=world_size,
                            timeout=datetime.timedelta(seconds=args.pg_timeout))
    log.info("rank %d/%d (local %d) on %s initialised, backend gloo", rank, world_size, local_rank,
             os.uname().nodename)
    torch.manual_seed(0)
    train_set, val_set = PromoterSet(args.data_dir, "train"), PromoterSet(args.data_dir, "val")
    sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True, seed=0)
    vsampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_dl = DataLoader(train_set, batch_size=args.micro_batch, sampler=sampler, num_workers=args.workers,
                          drop_last=True)
    val_dl = DataLoader(val_set, batch_size=args.micro_batch, sampler=vsampler, num_workers=args.workers)
    model = DDP(PromoterCNN(args.width))
    opt = torch.optim.Adam(model.parameters(), lr=args.lr)
    start_epoch = 0
    os.makedirs(args.ckpt_dir, exist_ok=True)
    if args.resume:
        path = args.resume
        if path == "auto":
            found = sorted(glob.glob(os.path.join(args.ckpt_dir, "epoch_*.pt")))
            path = found[-1] if found else ""
        if path:
            ck = torch.load(path, map_location="cpu")
            model.module.load_state_dict(ck["model"])
            opt.load_state_dict(ck["opt"])
            start_epoch = ck["epoch"]
            log.info("resumed from %s (epoch %d)", path, start_epoch)
        else:
            log.info("no checkpoint found in %s, starting from scratch", args.ckpt_dir)
    steps = len(train_dl)
    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for step, (x, y, w) in enumerate(train_dl, 1):
            loss = (F.cross_entropy(model(x), y, reduction="none") * w).mean()
            opt.zero_grad()
            loss.backward()
            opt.step()
            if step % args.log_every == 0 or step == steps:
                log.info("epoch %d/%d step %d/%d loss %.4f lr %.2e", epoch + 1, args.epochs, step, steps,
                         loss.item(), args.lr)
            if args.step_delay:
                time.sleep(args.step_delay)
        model.eval()
        correct = torch.zeros(2)
        scores = []
        with torch.no_grad():
            for x, y, _ in val_dl:
                out = model(x)
                correct += torch.tensor([(out.argmax(1) == y).sum().item(), len(y)], dtype=torch.float)
                scores.append(out.softmax(1)[:, 1])
        dist.all_reduce(correct)
        acc = (correct[0] / correct[1]).item()
        if rank == 0:
            if args.auprc_all_ranks:
                local = torch.cat(scores)
                gathered = [torch.zeros_like(local) for _ in range(world_size)]
                dist.all_gather(gathered, local)
                log.info("gathered %d validation scores", sum(len(g) for g in gathered))
            log.info("epoch %d done in %.1fs: val_acc %.4f", epoch + 1, time.time() - t0, acc)
            path = os.path.join(args.ckpt_dir, f"epoch_{epoch + 1:03d}.pt")
            torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch + 1}, path)
            log.info("saved checkpoint %s", path)
            if args.metrics_url:
                import urllib.request
                try:
                    urllib.request.urlopen(args.metrics_url, data=f"val_acc={acc}".encode(), timeout=5)
                except OSError as e:
                    log.error("could not push metrics to %s: %s", args.metrics_url, e)
        dist.barrier()
    if rank == 0:
        log.info("training complete")
    dist.destroy_process_group()


if __name__ == "__main__":
    sys.exit(main())
