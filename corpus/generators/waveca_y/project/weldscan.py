"""weldscan: the team's weld-seam defect classifier, trained with timm's building blocks under torchrun (gloo, CPU).

timm pieces used: create_model, create_dataset/create_loader (ImageFolder, DataLoader workers, DistributedSampler),
Mixup + SoftTargetCrossEntropy, create_optimizer_v2, create_scheduler_v2, ModelEmaV3, CheckpointSaver,
resume_checkpoint, distribute_bn, reduce_tensor, accuracy, init_distributed_device, setup_default_logging.
An optional ``train_hooks.py`` (the team's per-update audit) is called after every update when present.
"""
import argparse
import functools
import importlib.util
import logging
import math
import os
import socket
import time
from datetime import timedelta

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

import timm
from timm.data import Mixup, create_dataset, create_loader, resolve_data_config
from timm.loss import SoftTargetCrossEntropy
from timm.models import resume_checkpoint
from timm.optim import create_optimizer_v2
from timm.scheduler import create_scheduler_v2
from timm.utils import (AverageMeter, CheckpointSaver, ModelEmaV3, accuracy, distribute_bn,
                        init_distributed_device, reduce_tensor, setup_default_logging)

_logger = logging.getLogger("weldscan")

p = argparse.ArgumentParser("weldscan")
p.add_argument("--data", default="data/welds")
p.add_argument("--model", default="mobilenetv3_small_050")
p.add_argument("--num-classes", type=int, default=4)
p.add_argument("--img-size", type=int, default=64)
p.add_argument("--global-batch", type=int, default=32, help="split evenly over the ranks")
p.add_argument("--epochs", type=int, default=4)
p.add_argument("--opt", default="adamw")
p.add_argument("--lr", type=float, default=2e-3)
p.add_argument("--weight-decay", type=float, default=0.02)
p.add_argument("--sched", default="cosine")
p.add_argument("--warmup-epochs", type=int, default=1)
p.add_argument("--mixup", type=float, default=0.2)
p.add_argument("--cutmix", type=float, default=0.0)
p.add_argument("--smoothing", type=float, default=0.1)
p.add_argument("--ema-decay", type=float, default=0.9)
p.add_argument("--dist-bn", default="reduce", choices=("broadcast", "reduce", ""))
p.add_argument("--dist-timeout", type=int, default=0, help="process group timeout in seconds (0: torch default)")
p.add_argument("--workers", type=int, default=1)
p.add_argument("--log-interval", type=int, default=4)
p.add_argument("--output", default="output/weldscan")
p.add_argument("--keep", type=int, default=2)
p.add_argument("--resume", default="")
p.add_argument("--seed", type=int, default=17)
p.add_argument("--device", default="cpu")


def load_hooks():
    if not os.path.exists("train_hooks.py"):
        return None
    spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main():
    setup_default_logging()
    args = p.parse_args()
    if args.dist_timeout:
        # the team's knob for a short process-group timeout; timm's init_distributed_device takes none
        dist.init_process_group = functools.partial(dist.init_process_group,
                                                    timeout=timedelta(seconds=args.dist_timeout))
    device = init_distributed_device(args)
    world, rank = args.world_size, args.rank
    _logger.info(f"rank {rank}/{world} local {args.local_rank} on {socket.gethostname()} device {device} "
                 f"backend {dist.get_backend() if args.distributed else 'none'} timm {timm.__version__}")
    torch.manual_seed(args.seed + rank)

    per_rank = args.global_batch // world
    if rank == 0:
        _logger.info(f"global batch {args.global_batch} over {world} ranks: {per_rank} per rank")

    model = timm.create_model(args.model, pretrained=False, num_classes=args.num_classes)
    if rank == 0:
        _logger.info(f"Model {args.model} created, param count: {sum(p.numel() for p in model.parameters())}")
    data_config = resolve_data_config({"input_size": (3, args.img_size, args.img_size)}, model=model)
    optimizer = create_optimizer_v2(model, opt=args.opt, lr=args.lr, weight_decay=args.weight_decay)
    start_epoch = 0
    if args.resume:
        start_epoch = resume_checkpoint(model, args.resume, optimizer=optimizer, log_info=rank == 0)
    model_ema = ModelEmaV3(model, decay=args.ema_decay)
    if args.resume:
        resume_checkpoint(model_ema.module, args.resume, log_info=False)
    if args.distributed:
        model = DDP(model, device_ids=None)

    ds_train = create_dataset("", root=os.path.join(args.data, "train"), is_training=True,
                              batch_size=per_rank, seed=args.seed)
    ds_val = create_dataset("", root=os.path.join(args.data, "val"), is_training=False, batch_size=per_rank)
    loader_train = create_loader(ds_train, input_size=data_config["input_size"], batch_size=per_rank,
                                 is_training=True, use_prefetcher=False, interpolation="bilinear",
                                 mean=data_config["mean"], std=data_config["std"], num_workers=args.workers,
                                 distributed=args.distributed, device=device, hflip=0.5, color_jitter=0.2,
                                 persistent_workers=False)
    loader_val = create_loader(ds_val, input_size=data_config["input_size"], batch_size=per_rank,
                               is_training=False, use_prefetcher=False, interpolation="bilinear",
                               mean=data_config["mean"], std=data_config["std"], num_workers=args.workers,
                               distributed=args.distributed, device=device, crop_pct=1.0,
                               persistent_workers=False)
    mixup_fn = Mixup(mixup_alpha=args.mixup, cutmix_alpha=args.cutmix, label_smoothing=args.smoothing,
                     num_classes=args.num_classes) if args.mixup or args.cutmix else None
    train_loss_fn = SoftTargetCrossEntropy() if mixup_fn else torch.nn.CrossEntropyLoss()
    val_loss_fn = torch.nn.CrossEntropyLoss()

    updates_per_epoch = len(loader_train)
    lr_scheduler, num_epochs = create_scheduler_v2(optimizer, sched=args.sched, num_epochs=args.epochs,
                                                   warmup_epochs=args.warmup_epochs, warmup_lr=args.lr * 0.1,
                                                   min_lr=args.lr * 0.01, updates_per_epoch=updates_per_epoch)
    if start_epoch:
        lr_scheduler.step(start_epoch)
    saver = None
    if rank == 0:
        os.makedirs(args.output, exist_ok=True)
        saver = CheckpointSaver(model=model, optimizer=optimizer, args=args, model_ema=model_ema,
                                checkpoint_dir=args.output, recovery_dir=args.output, decreasing=False,
                                max_history=args.keep)
        _logger.info(f"Scheduled epochs: {num_epochs}, {updates_per_epoch} updates per epoch, output {args.output}")
    hooks = load_hooks()

    for epoch in range(start_epoch, num_epochs):
        if args.distributed:
            loader_train.sampler.set_epoch(epoch)
        model.train()
        losses = AverageMeter()
        t0 = time.time()
        for batch_idx, (input, target) in enumerate(loader_train):
            if mixup_fn is not None:
                input, target = mixup_fn(input, target)
            output = model(input)
            loss = train_loss_fn(output, target)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            model_ema.update(model, step=epoch * updates_per_epoch + batch_idx)
            lr_scheduler.step_update(num_updates=epoch * updates_per_epoch + batch_idx + 1)
            if hooks is not None:
                hooks.on_update(rank, epoch, batch_idx, input, target, loss)
            if batch_idx % args.log_interval == 0 or batch_idx == updates_per_epoch - 1:
                reduced = reduce_tensor(loss.detach(), world) if args.distributed else loss.detach()
                losses.update(reduced.item(), input.size(0))
                if not math.isfinite(losses.val):
                    raise RuntimeError(f"Loss is {losses.val} at epoch {epoch} update {batch_idx}, stopping training")
                if rank == 0:
                    lr = optimizer.param_groups[0]["lr"]
                    _logger.info(f"Train: {epoch} [{batch_idx:>3d}/{updates_per_epoch}]  Loss: {losses.val:#.4g} "
                                 f"({losses.avg:#.4g})  LR: {lr:.3e}  Time: {time.time() - t0:.1f}s")
        if args.distributed and args.dist_bn:
            if rank == 0:
                _logger.info(f"Distributing BatchNorm running means and vars ({args.dist_bn})")
            distribute_bn(model, world, args.dist_bn == "reduce")
        model.eval()
        top1_m, vloss_m = AverageMeter(), AverageMeter()
        with torch.no_grad():
            for input, target in loader_val:
                output = model_ema.module(input)
                vloss = val_loss_fn(output, target)
                acc1, = accuracy(output, target, topk=(1,))
                if args.distributed:
                    vloss, acc1 = reduce_tensor(vloss, world), reduce_tensor(acc1, world)
                vloss_m.update(vloss.item(), input.size(0))
                top1_m.update(acc1.item(), input.size(0))
        lr_scheduler.step(epoch + 1, top1_m.avg)
        if rank == 0:
            _logger.info(f"Eval (EMA): {epoch}  Loss: {vloss_m.avg:.4f}  Acc@1: {top1_m.avg:.2f}")
            best, best_epoch = saver.save_checkpoint(epoch, metric=top1_m.avg)
            _logger.info(f"Saved checkpoint for epoch {epoch}; best Acc@1 {best:.2f} (epoch {best_epoch})")
    if rank == 0:
        _logger.info("Training finished")
    if args.distributed:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
