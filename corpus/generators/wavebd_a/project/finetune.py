"""Fine-tune a trained KWS checkpoint on a new speaker set (older script, kept from the v1 repo).

Written for `python -m torch.distributed.launch --nproc_per_node 2 finetune.py ...` (the launcher passes the
local rank as an argument)."""
import argparse
import logging
import os
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from kws import FeatureDataset, KWSNet, read_keywords

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                    level=logging.INFO)
logger = logging.getLogger("finetune")

parser = argparse.ArgumentParser()
parser.add_argument("--local_rank", type=int, default=0)
parser.add_argument("--init", default="checkpoints/checkpoint_epoch3.pth")
parser.add_argument("--data_dir", default="data")
parser.add_argument("--epochs", type=int, default=2)
parser.add_argument("--batch_size", type=int, default=32)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--step_delay", type=float, default=0.0)
args = parser.parse_args()


def main():
    dist.init_process_group("gloo", init_method="env://")
    rank = dist.get_rank()
    logger.info("local rank %d, rank %d", args.local_rank, rank)
    keywords = read_keywords(os.path.join(args.data_dir, "keywords.txt"))
    ds = FeatureDataset(args.data_dir, "train", keywords)
    sampler = DistributedSampler(ds)
    loader = DataLoader(ds, batch_size=args.batch_size, sampler=sampler, num_workers=2)
    model = KWSNet(len(keywords))
    if os.path.exists(args.init):
        model.load_state_dict(torch.load(args.init, map_location="cpu")["model"])
    model = DDP(model)
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        for i, (x, y) in enumerate(loader):
            loss = nn.functional.cross_entropy(model(x), y)
            opt.zero_grad()
            loss.backward()
            opt.step()
            if rank == 0 and i % 10 == 0:
                print("epoch %d iter %d loss %.4f" % (epoch, i, loss.item()))
            time.sleep(args.step_delay)
        if rank == 0:
            torch.save(model.module.state_dict(), "finetuned_epoch%d.pth" % epoch)


if __name__ == "__main__":
    main()
