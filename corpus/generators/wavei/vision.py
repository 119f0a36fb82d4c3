"""An image-classification job for ``torchrun`` (gloo, CPU): a small CNN on synthetic 32x32 images, DDP, the
augmentation pipeline from ``augment.py`` (torchvision transforms), one log line per rank every ``--log-every`` steps.
It imports ``augment`` (and with it torchvision) after the process group is up, as projects that keep their data code
in a module of their own do.
"""
from __future__ import annotations

import argparse
import logging
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

log = logging.getLogger("train")


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--log-every", type=int, default=10)
    a = p.parse_args()
    dist.init_process_group("gloo")
    rank, world = dist.get_rank(), dist.get_world_size()
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s")
    log.info("process group ready: rank %d of %d (gloo), torch %s, python %s", rank, world, torch.__version__,
             sys.version.split()[0])
    from augment import build_train_transform, SyntheticImages  # torchvision lives behind this import

    ds = SyntheticImages(4096, transform=build_train_transform())
    sampler = torch.utils.data.distributed.DistributedSampler(ds, world, rank)
    loader = torch.utils.data.DataLoader(ds, batch_size=a.batch_size, sampler=sampler)
    model = DDP(torch.nn.Sequential(torch.nn.Conv2d(3, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
                                    torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(),
                                    torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(32, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    t0, step = time.time(), 0
    for epoch in range(a.epochs):
        sampler.set_epoch(epoch)
        for x, y in loader:
            loss = torch.nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            if step % a.log_every == 0:
                log.info("epoch %d step %d loss %.4f (%.1f img/s)", epoch, step, loss.item(),
                         step * a.batch_size / (time.time() - t0))
    log.info("done after %d steps", step)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
