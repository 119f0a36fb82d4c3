"""Self-supervised pretraining of a small CNN with Lightly (SimCLR, BYOL or MoCo) under torch.distributed.run:
plain DistributedDataParallel over gloo, DistributedSampler, DataLoader workers, Lightly's dataset, transforms,
heads, losses (gathered across ranks) and momentum updates. Rank 0 saves a checkpoint at the end of every epoch."""
import argparse
import copy
import datetime
import importlib.util
import math
import os
import socket
import time

import torch
import torch.distributed as dist
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader, DistributedSampler

from lightly.data import LightlyDataset
from lightly.loss import NegativeCosineSimilarity, NTXentLoss
from lightly.models.modules import (BYOLPredictionHead, BYOLProjectionHead, MoCoProjectionHead,
                                    SimCLRProjectionHead)
from lightly.models.utils import deactivate_requires_grad, update_momentum
from lightly.transforms import BYOLTransform, MoCoV2Transform, SimCLRTransform
from lightly.utils.scheduler import cosine_schedule

p = argparse.ArgumentParser()
p.add_argument("--method", default="simclr", choices=("simclr", "byol", "moco"))
p.add_argument("--data", default="data/shapes")
p.add_argument("--epochs", type=int, default=6)
p.add_argument("--batch-size", type=int, default=16, help="per rank")
p.add_argument("--lr", type=float, default=0.06)
p.add_argument("--workers", type=int, default=1)
p.add_argument("--memory-bank", type=int, default=512)
p.add_argument("--temperature", type=float, default=0.5)
p.add_argument("--ckpt-dir", default="checkpoints")
p.add_argument("--resume", default="")
p.add_argument("--log-every", type=int, default=2)
p.add_argument("--pg-timeout", type=float, default=1800)
args = p.parse_args()

dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
rank, world = dist.get_rank(), dist.get_world_size()
local_rank = int(os.environ["LOCAL_RANK"])
torch.manual_seed(0)
hooks = None
if os.path.exists("ssl_hooks.py"):
    spec = importlib.util.spec_from_file_location("ssl_hooks", "ssl_hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)
print(f"[rank {rank}/{world}] host {socket.gethostname()} local_rank {local_rank} pid {os.getpid()} "
      f"method {args.method}", flush=True)


def backbone():
    return nn.Sequential(
        nn.Conv2d(3, 16, 3, 2, 1), nn.BatchNorm2d(16), nn.ReLU(),
        nn.Conv2d(16, 32, 3, 2, 1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.Conv2d(32, 64, 3, 2, 1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten())


class SimCLR(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = backbone()
        self.projection_head = SimCLRProjectionHead(64, 128, 32)

    def forward(self, x):
        return self.projection_head(self.backbone(x))


class BYOL(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = backbone()
        self.projection_head = BYOLProjectionHead(64, 128, 32)
        self.prediction_head = BYOLPredictionHead(32, 128, 32)
        self.backbone_momentum = copy.deepcopy(self.backbone)
        self.projection_head_momentum = copy.deepcopy(self.projection_head)
        deactivate_requires_grad(self.backbone_momentum)
        deactivate_requires_grad(self.projection_head_momentum)

    def forward(self, x):
        return self.prediction_head(self.projection_head(self.backbone(x)))

    def forward_momentum(self, x):
        return self.projection_head_momentum(self.backbone_momentum(x)).detach()


class MoCo(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = backbone()
        self.projection_head = MoCoProjectionHead(64, 128, 32)
        self.backbone_momentum = copy.deepcopy(self.backbone)
        self.projection_head_momentum = copy.deepcopy(self.projection_head)
        deactivate_requires_grad(self.backbone_momentum)
        deactivate_requires_grad(self.projection_head_momentum)

    def forward(self, x):
        return self.projection_head(self.backbone(x))

    def forward_momentum(self, x):
        return self.projection_head_momentum(self.backbone_momentum(x)).detach()


if args.method == "simclr":
    model, transform = SimCLR(), SimCLRTransform(input_size=32, gaussian_blur=0.0, min_scale=0.3)
    criterion = NTXentLoss(temperature=args.temperature, gather_distributed=True)
elif args.method == "byol":
    model = BYOL()
    transform = BYOLTransform(view_1_transform=None, view_2_transform=None)
    from lightly.transforms import BYOLView1Transform, BYOLView2Transform
    transform = BYOLTransform(view_1_transform=BYOLView1Transform(input_size=32, gaussian_blur=0.0),
                              view_2_transform=BYOLView2Transform(input_size=32, gaussian_blur=0.0))
    criterion = NegativeCosineSimilarity()
else:
    model, transform = MoCo(), MoCoV2Transform(input_size=32, gaussian_blur=0.0)
    criterion = NTXentLoss(temperature=0.2, memory_bank_size=(args.memory_bank, 32), gather_distributed=True)

dataset = LightlyDataset(input_dir=args.data, transform=transform)
sampler = DistributedSampler(dataset, num_replicas=world, rank=rank, shuffle=True, drop_last=True)
loader = DataLoader(dataset, batch_size=args.batch_size, sampler=sampler, num_workers=args.workers, drop_last=True)
ddp = DDP(model)
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
start_epoch = 0
if args.resume:
    ck = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ck["model"])
    opt.load_state_dict(ck["optimizer"])
    start_epoch = ck["epoch"]
    if rank == 0:
        print(f"resumed from {args.resume} (epoch {start_epoch}, loss {ck['loss']:.4f})", flush=True)
if rank == 0:
    print(f"{len(dataset)} images in {args.data}, {world} ranks x batch {args.batch_size} = global batch "
          f"{world * args.batch_size}, {len(loader)} steps/epoch, {args.epochs} epochs, lr {args.lr}", flush=True)
    os.makedirs(args.ckpt_dir, exist_ok=True)

steps = args.epochs * len(loader)
for epoch in range(start_epoch, args.epochs):
    sampler.set_epoch(epoch)
    t0, total = time.time(), 0.0
    for step, (views, _, _) in enumerate(loader):
        x0, x1 = views[0], views[1]
        gstep = epoch * len(loader) + step
        if args.method == "simclr":
            loss = criterion(ddp(x0), ddp(x1))
        elif args.method == "byol":
            m = cosine_schedule(gstep, steps, 0.99, 1.0)
            update_momentum(model.backbone, model.backbone_momentum, m=m)
            update_momentum(model.projection_head, model.projection_head_momentum, m=m)
            p0, p1 = ddp(x0), ddp(x1)
            loss = 0.5 * (criterion(p0, model.forward_momentum(x1)) + criterion(p1, model.forward_momentum(x0)))
        else:
            m = cosine_schedule(gstep, steps, 0.99, 1.0)
            update_momentum(model.backbone, model.backbone_momentum, m=m)
            update_momentum(model.projection_head, model.projection_head_momentum, m=m)
            loss = criterion(ddp(x0), model.forward_momentum(x1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        lv = loss.item()
        if not math.isfinite(lv):
            raise FloatingPointError(f"rank {rank}: loss is {lv} at epoch {epoch} step {step}")
        total += lv
        if hooks is not None:
            hooks.on_step(rank, epoch, step, views, loss)
        if rank == 0 and step % args.log_every == 0:
            print(f"epoch {epoch} step {step}/{len(loader)} loss {lv:.4f}", flush=True)
    avg = torch.tensor([total / len(loader)])
    dist.all_reduce(avg)
    avg = avg.item() / world
    if rank == 0:
        path = os.path.join(args.ckpt_dir, f"{args.method}-epoch{epoch + 1}.pt")
        torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch + 1, "loss": avg},
                   path)
        print(f"epoch {epoch} done: mean loss {avg:.4f} ({time.time() - t0:.1f} s), saved {path}", flush=True)
    dist.barrier()
if rank == 0:
    print("training finished", flush=True)
dist.destroy_process_group()
