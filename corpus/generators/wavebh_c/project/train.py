"""Surface-defect classifier for the inspection line, after torchvision's references/classification/train.py."""
import datetime
import logging
import math
import os
import sys
import time
import warnings

import numpy as np
import torch
import torch.utils.data
from PIL import Image
from torch import nn

import utils

logger = logging.getLogger("defects")
EXTS = (".png", ".jpg", ".jpeg")


class ImageFolder(torch.utils.data.Dataset):
    def __init__(self, root, crop_size, train, skip_bad=False):
        self.classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
        self.samples = []
        for ci, c in enumerate(self.classes):
            for f in sorted(os.listdir(os.path.join(root, c))):
                if f.lower().endswith(EXTS):
                    self.samples.append((os.path.join(root, c, f), ci))
        self.crop_size = crop_size
        self.train = train
        self.skip_bad = skip_bad

    def __len__(self):
        return len(self.samples)

    def load(self, path):
        with open(path, "rb") as f:
            img = Image.open(f)
            return img.convert("RGB")

    def __getitem__(self, index):
        path, target = self.samples[index]
        try:
            img = self.load(path)
        except OSError:
            if not self.skip_bad:
                raise
            logger.warning("skipping unreadable image %s", path, exc_info=True)
            return self[(index + 1) % len(self)]
        if img.size != (self.crop_size, self.crop_size):
            img = img.resize((self.crop_size, self.crop_size), Image.BILINEAR)
        if self.train and torch.rand(1).item() < 0.5:
            img = img.transpose(Image.FLIP_LEFT_RIGHT)
        x = torch.from_numpy(np.asarray(img, dtype=np.float32).copy()).permute(2, 0, 1) / 255.0
        x = (x - 0.45) / 0.25
        return x, target


class DecodedCache(torch.utils.data.Dataset):
    """Pre-decoded uint8 crops (prep_data.py --cache), memory-mapped so every rank shares the page cache."""

    def __init__(self, root, classes):
        self.images = np.load(os.path.join(root, "train_u8.npy"), mmap_mode="r")
        self.labels = np.load(os.path.join(root, "train_labels.npy"))
        self.classes = classes

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, index):
        x = torch.from_numpy(np.array(self.images[index], dtype=np.float32)).permute(2, 0, 1) / 255.0
        return (x - 0.45) / 0.25, int(self.labels[index])


class DefectNet(nn.Module):
    def __init__(self, num_classes, width=32):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
            nn.Conv2d(width, width * 2, 3, padding=1, stride=2), nn.BatchNorm2d(width * 2), nn.ReLU(inplace=True),
            nn.Conv2d(width * 2, width * 4, 3, padding=1, stride=2), nn.BatchNorm2d(width * 4), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(width * 4, num_classes)

    def forward(self, x):
        return self.fc(torch.flatten(self.features(x), 1))


def build_model(args, num_classes):
    if args.model == "defectnet":
        return DefectNet(num_classes, args.width)
    import torchvision

    return torchvision.models.get_model(args.model, weights=None, num_classes=num_classes)


def train_one_epoch(model, criterion, optimizer, data_loader, device, epoch, args, model_ema=None, scaler=None):
    model.train()
    metric_logger = utils.MetricLogger(delimiter="  ")
    metric_logger.add_meter("lr", utils.SmoothedValue(window_size=1, fmt="{value}"))
    metric_logger.add_meter("img/s", utils.SmoothedValue(window_size=10, fmt="{value}"))

    header = f"Epoch: [{epoch}]"
    for i, (image, target) in enumerate(metric_logger.log_every(data_loader, args.print_freq, header)):
        start_time = time.time()
        image, target = image.to(device), target.to(device)
        output = model(image)
        loss = criterion(output, target)
        if not math.isfinite(loss.item()):
            print(f"Loss is {loss.item()}, stopping training", force=True)
            sys.exit(1)

        optimizer.zero_grad()
        loss.backward()
        if args.clip_grad_norm is not None:
            nn.utils.clip_grad_norm_(model.parameters(), args.clip_grad_norm)
        optimizer.step()

        if model_ema and i % args.model_ema_steps == 0:
            model_ema.update_parameters(model)
            if epoch < args.lr_warmup_epochs:
                model_ema.n_averaged.fill_(0)

        acc1, acc2 = utils.accuracy(output, target, topk=(1, 2))
        batch_size = image.shape[0]
        metric_logger.update(loss=loss.item(), lr=optimizer.param_groups[0]["lr"])
        metric_logger.meters["acc1"].update(acc1.item(), n=batch_size)
        metric_logger.meters["acc2"].update(acc2.item(), n=batch_size)
        metric_logger.meters["img/s"].update(batch_size / (time.time() - start_time))


def evaluate(model, criterion, data_loader, device, print_freq=100, log_suffix=""):
    model.eval()
    metric_logger = utils.MetricLogger(delimiter="  ")
    header = f"Test: {log_suffix}"

    num_processed_samples = 0
    with torch.inference_mode():
        for image, target in metric_logger.log_every(data_loader, print_freq, header):
            output = model(image.to(device))
            loss = criterion(output, target)
            acc1, acc2 = utils.accuracy(output, target, topk=(1, 2))
            batch_size = image.shape[0]
            metric_logger.update(loss=loss.item())
            metric_logger.meters["acc1"].update(acc1.item(), n=batch_size)
            metric_logger.meters["acc2"].update(acc2.item(), n=batch_size)
            num_processed_samples += batch_size
    num_processed_samples = utils.reduce_across_processes(num_processed_samples)
    if (hasattr(data_loader.dataset, "__len__") and len(data_loader.dataset) != num_processed_samples
            and torch.distributed.get_rank() == 0):
        warnings.warn(
            f"It looks like the dataset has {len(data_loader.dataset)} samples, but {num_processed_samples} "
            "samples were used for the validation, which might bias the results. "
            "Try adjusting the batch size and / or the world size. "
            "Setting the world size to 1 is always a safe bet."
        )
    metric_logger.synchronize_between_processes()
    print(f"{header} Acc@1 {metric_logger.acc1.global_avg:.3f} Acc@2 {metric_logger.acc2.global_avg:.3f}")
    return metric_logger.acc1.global_avg


def main(args):
    if args.output_dir:
        utils.mkdir(args.output_dir)
    utils.init_distributed_mode(args)
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s %(name)s [rank {utils.get_rank()}]: %(message)s")
    print(args)

    if args.global_batch_size:
        expected = args.batch_size * args.accum_steps * utils.get_world_size()
        if args.global_batch_size != expected:
            raise ValueError(
                f"global batch size {args.global_batch_size} != batch_size ({args.batch_size}) * accum_steps "
                f"({args.accum_steps}) * world_size ({utils.get_world_size()})"
            )

    device = torch.device(args.device)
    torch.manual_seed(args.seed)

    print("Loading data")
    st = time.time()
    dataset = ImageFolder(os.path.join(args.data_path, "train"), args.train_crop_size, True, args.skip_bad_images)
    if args.decoded_cache:
        dataset = DecodedCache(args.data_path, dataset.classes)
    dataset_test = ImageFolder(os.path.join(args.data_path, "val"), args.val_crop_size, False)
    print("Took", time.time() - st)
    print(f"Creating data loaders: {len(dataset)} train / {len(dataset_test)} val images, classes {dataset.classes}")
    if args.distributed:
        train_sampler = torch.utils.data.distributed.DistributedSampler(dataset)
        test_sampler = torch.utils.data.distributed.DistributedSampler(dataset_test, shuffle=False)
    else:
        train_sampler = torch.utils.data.RandomSampler(dataset)
        test_sampler = torch.utils.data.SequentialSampler(dataset_test)
    data_loader = torch.utils.data.DataLoader(dataset, batch_size=args.batch_size, sampler=train_sampler,
                                              num_workers=args.workers, pin_memory=False)
    data_loader_test = torch.utils.data.DataLoader(dataset_test, batch_size=args.batch_size, sampler=test_sampler,
                                                   num_workers=args.workers, pin_memory=False)

    print("Creating model")
    model = build_model(args, len(dataset.classes)).to(device)
    criterion = nn.CrossEntropyLoss(label_smoothing=args.label_smoothing)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, weight_decay=args.weight_decay)
    scaler = torch.cuda.amp.GradScaler() if args.amp else None
    lr_scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    model_without_ddp = model
    if args.distributed:
        model = torch.nn.parallel.DistributedDataParallel(model)
        model_without_ddp = model.module

    model_ema = None
    if args.model_ema:
        adjust = utils.get_world_size() * args.batch_size * args.model_ema_steps / args.epochs
        alpha = 1.0 - args.model_ema_decay
        alpha = min(1.0, alpha * adjust)
        model_ema = utils.ExponentialMovingAverage(model_without_ddp, device=device, decay=1.0 - alpha)

    if args.resume:
        checkpoint = torch.load(args.resume, map_location="cpu", weights_only=False)
        model_without_ddp.load_state_dict(checkpoint["model"])
        optimizer.load_state_dict(checkpoint["optimizer"])
        lr_scheduler.load_state_dict(checkpoint["lr_scheduler"])
        args.start_epoch = checkpoint["epoch"] + 1
        if model_ema:
            try:
                model_ema.load_state_dict(checkpoint["model_ema"])
            except KeyError:
                logger.exception("checkpoint %s has no EMA weights; EMA restarts from the current model", args.resume)
        print(f"Resumed from {args.resume} at epoch {args.start_epoch}")

    print("Start training")
    start_time = time.time()
    for epoch in range(args.start_epoch, args.epochs):
        if args.distributed:
            train_sampler.set_epoch(epoch)
        train_one_epoch(model, criterion, optimizer, data_loader, device, epoch, args, model_ema, scaler)
        lr_scheduler.step()
        evaluate(model, criterion, data_loader_test, device=device)
        if model_ema:
            evaluate(model_ema, criterion, data_loader_test, device=device, log_suffix="EMA")
        if args.output_dir:
            checkpoint = {
                "model": model_without_ddp.state_dict(),
                "optimizer": optimizer.state_dict(),
                "lr_scheduler": lr_scheduler.state_dict(),
                "epoch": epoch,
                "args": args,
            }
            if model_ema:
                checkpoint["model_ema"] = model_ema.state_dict()
            utils.save_on_master(checkpoint, os.path.join(args.output_dir, f"model_{epoch}.pth"))
            utils.save_on_master(checkpoint, os.path.join(args.output_dir, "checkpoint.pth"))

    total_time = time.time() - start_time
    total_time_str = str(datetime.timedelta(seconds=int(total_time)))
    print(f"Training time {total_time_str}")
    if args.distributed:
        torch.distributed.destroy_process_group()


def get_args_parser(add_help=True):
    import argparse

    parser = argparse.ArgumentParser(description="Surface-defect classification training", add_help=add_help)
    parser.add_argument("--data-path", default="data", type=str)
    parser.add_argument("--model", default="defectnet", type=str)
    parser.add_argument("--width", default=32, type=int)
    parser.add_argument("--device", default="cpu", type=str)
    parser.add_argument("-b", "--batch-size", default=32, type=int, help="images per process")
    parser.add_argument("--global-batch-size", default=0, type=int)
    parser.add_argument("--accum-steps", default=1, type=int)
    parser.add_argument("--epochs", default=6, type=int)
    parser.add_argument("-j", "--workers", default=2, type=int)
    parser.add_argument("--lr", default=0.05, type=float)
    parser.add_argument("--momentum", default=0.9, type=float)
    parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float, dest="weight_decay")
    parser.add_argument("--label-smoothing", default=0.0, type=float)
    parser.add_argument("--lr-warmup-epochs", default=0, type=int)
    parser.add_argument("--clip-grad-norm", default=None, type=float)
    parser.add_argument("--print-freq", default=2, type=int)
    parser.add_argument("--output-dir", default="output", type=str)
    parser.add_argument("--resume", default="", type=str)
    parser.add_argument("--start-epoch", default=0, type=int)
    parser.add_argument("--train-crop-size", default=32, type=int)
    parser.add_argument("--val-crop-size", default=32, type=int)
    parser.add_argument("--decoded-cache", action="store_true", help="read data/train_u8.npy instead of the PNGs")
    parser.add_argument("--skip-bad-images", action="store_true")
    parser.add_argument("--model-ema", action="store_true")
    parser.add_argument("--model-ema-steps", type=int, default=4)
    parser.add_argument("--model-ema-decay", type=float, default=0.998)
    parser.add_argument("--amp", action="store_true")
    parser.add_argument("--seed", default=0, type=int)
    parser.add_argument("--dist-url", default="env://", type=str)
    parser.add_argument("--dist-backend", default="gloo", type=str)
    parser.add_argument("--dist-timeout", default=1800, type=int)
    return parser


if __name__ == "__main__":
    args = get_args_parser().parse_args()
    main(args)
