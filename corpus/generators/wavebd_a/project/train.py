"""Keyword spotting (wake-word team): train the small conv KWS model on exported log-mel features.

Launch (2 processes, gloo on the CPU box):
    python -m torch.distributed.launch --nproc_per_node 2 --use-env train.py --data-dir data ...
The script also still accepts --local-rank / --local_rank for launches without --use-env."""
import argparse
import logging
import math
import os
import sys
import time
from datetime import timedelta

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from kws import FeatureDataset, KWSNet, latest_checkpoint, read_keywords

logger = logging.getLogger("train")


def get_args():
    p = argparse.ArgumentParser(description="KWS training")
    p.add_argument("--data-dir", default="data")
    p.add_argument("--keywords", default="data/keywords.txt")
    p.add_argument("--save-dir", default="checkpoints")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=64, help="global batch size (all ranks, all accumulation steps)")
    p.add_argument("--micro-batch", type=int, default=32, help="per-rank batch size")
    p.add_argument("--grad-accum", type=int, default=1)
    p.add_argument("--lr", type=float, default=3e-3)
    p.add_argument("--weight-decay", type=float, default=1e-4)
    p.add_argument("--width", type=int, default=8)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--augment", choices=["none", "specaugment"], default="none")
    p.add_argument("--log-interval", type=int, default=4)
    p.add_argument("--step-delay", type=float, default=0.0, help="seconds to sleep each step (pacing)")
    p.add_argument("--pg-timeout", type=float, default=1800, help="process group timeout, seconds")
    p.add_argument("--resume", default="", help="checkpoint path, or 'auto' for the latest in --save-dir")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--confusion-matrix", action="store_true", help="log the validation confusion matrix each epoch")
    p.add_argument("--local-rank", "--local_rank", dest="local_rank", type=int, default=-1)
    return p.parse_args()


def setup_logging(rank):
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        level=logging.INFO if rank == 0 else logging.WARNING)


def build_augment(name):
    if name == "specaugment":
        import torchaudio.transforms as T
        return nn.Sequential(T.FrequencyMasking(8), T.TimeMasking(12))
    return None


def main():
    args = get_args()
    local_rank = int(os.environ.get("LOCAL_RANK", args.local_rank))
    dist.init_process_group("gloo", timeout=timedelta(seconds=args.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    setup_logging(rank)
    torch.manual_seed(args.seed)
    logger.info("rank %d/%d (local rank %d) initialised, backend %s", rank, world, local_rank, dist.get_backend())
    if rank == 0:
        logger.info("args: %s", vars(args))
    if args.batch_size != args.micro_batch * args.grad_accum * world:
        raise ValueError(f"--batch-size {args.batch_size} != --micro-batch {args.micro_batch} * --grad-accum "
                         f"{args.grad_accum} * world size {world}")

    keywords = read_keywords(args.keywords)
    augment = build_augment(args.augment)
    train_set = FeatureDataset(args.data_dir, "train", keywords, augment)
    valid_set = FeatureDataset(args.data_dir, "valid", keywords)
    train_sampler = DistributedSampler(train_set, shuffle=True, seed=args.seed)
    valid_sampler = DistributedSampler(valid_set, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.micro_batch, sampler=train_sampler,
                              num_workers=args.workers, drop_last=True, persistent_workers=args.workers > 0)
    valid_loader = DataLoader(valid_set, batch_size=2 * args.micro_batch, sampler=valid_sampler,
                              num_workers=args.workers)
    logger.info("train clips %d, valid clips %d, %d keywords, %d steps/epoch", len(train_set), len(valid_set),
                len(keywords), len(train_loader) // args.grad_accum)

    model = KWSNet(len(keywords), args.width)
    model = DDP(model)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    criterion = nn.CrossEntropyLoss()
    start_epoch = 0
    if args.resume:
        path = latest_checkpoint(args.save_dir) if args.resume == "auto" else args.resume
        if path is None:
            logger.info("no checkpoint in %s, starting from scratch", args.save_dir)
        else:
            ckpt = torch.load(path, map_location="cpu")
            model.module.load_state_dict(ckpt["model"])
            optimizer.load_state_dict(ckpt["optimizer"])
            start_epoch = ckpt["epoch"]
            logger.info("resumed from %s (epoch %d, best acc %.4f)", path, start_epoch, ckpt.get("acc", 0.0))
    if start_epoch >= args.epochs:
        logger.info("checkpoint is already at epoch %d of %d, nothing to train", start_epoch, args.epochs)

    os.makedirs(args.save_dir, exist_ok=True)
    steps_per_epoch = len(train_loader) // args.grad_accum
    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        optimizer.zero_grad()
        for i, (x, y) in enumerate(train_loader):
            loss = criterion(model(x), y) / args.grad_accum
            loss.backward()
            if (i + 1) % args.grad_accum:
                continue
            step = (i + 1) // args.grad_accum
            optimizer.step()
            optimizer.zero_grad()
            value = loss.item() * args.grad_accum
            if math.isnan(value) or math.isinf(value):
                logger.error("epoch %d step %d: loss is %s", epoch + 1, step, value)
                raise FloatingPointError(f"Loss is {value}, stopping training")
            if rank == 0 and step % args.log_interval == 0:
                print(f"Epoch [{epoch + 1}/{args.epochs}] Step [{step}/{steps_per_epoch}] loss {value:.4f} "
                      f"lr {optimizer.param_groups[0]['lr']:.6f} ({(time.time() - t0) / step:.3f}s/step)",
                      flush=True)
            if args.step_delay:
                time.sleep(args.step_delay)

        model.eval()
        stats = torch.zeros(3)
        with torch.no_grad():
            for x, y in valid_loader:
                out = model(x)
                stats += torch.tensor([criterion(out, y).item() * len(y), (out.argmax(1) == y).sum().item(), len(y)])
        dist.all_reduce(stats)
        acc = (stats[1] / stats[2]).item()
        if rank == 0:
            logger.info("epoch %d: valid loss %.4f, valid acc %.4f (%d clips), %.1fs", epoch + 1,
                        (stats[0] / stats[2]).item(), acc, int(stats[2]), time.time() - t0)
            path = os.path.join(args.save_dir, f"checkpoint_epoch{epoch + 1}.pth")
            torch.save({"epoch": epoch + 1, "model": model.module.state_dict(), "optimizer": optimizer.state_dict(),
                        "acc": acc, "keywords": keywords}, path)
            logger.info("saved checkpoint %s", path)
            if args.confusion_matrix:
                log_confusion(model, valid_loader, keywords, world)
        dist.barrier()

    if rank == 0:
        print("Training finished.", flush=True)
    dist.destroy_process_group()


def log_confusion(model, loader, keywords, world):
    """Gather every rank's validation predictions and log the confusion matrix."""
    preds, labels = [], []
    with torch.no_grad():
        for x, y in loader:
            preds.append(model(x).argmax(1))
            labels.append(y)
    local = torch.stack([torch.cat(preds), torch.cat(labels)])
    gathered = [torch.zeros_like(local) for _ in range(world)]
    dist.all_gather(gathered, local)
    both = torch.cat(gathered, dim=1)
    cm = torch.zeros(len(keywords), len(keywords), dtype=torch.long)
    cm.index_put_((both[1], both[0]), torch.ones(both.shape[1], dtype=torch.long), accumulate=True)
    logger.info("confusion matrix (rows: true %s):\n%s", ",".join(keywords), cm)


if __name__ == "__main__":
    main()
