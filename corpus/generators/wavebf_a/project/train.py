"""Ticket-routing classifier: a small transformer encoder that routes support tickets to queues, trained with
DeepSpeed (ZeRO stage 2, gloo on CPU). The team launches it on two nodes with the pdsh runner:

    deepspeed --hostfile hostfile --launcher pdsh --master_addr 127.0.0.1 --master_port 29700 \
        train.py --deepspeed --deepspeed_config ds_config.json --data-dir data --epochs 3
"""
import argparse
import csv
import json
import os
import time
from datetime import timedelta

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import deepspeed
import deepspeed.comm as dist
from deepspeed.utils import logger
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TicketSet(Dataset):
    def __init__(self, data_dir, split, queues):
        self.tokens = np.load(os.path.join(data_dir, f"{split}_tokens.npy"), mmap_mode="r")
        with open(os.path.join(data_dir, f"{split}_meta.csv"), newline="") as f:
            rows = list(csv.DictReader(f))
        index = {q: i for i, q in enumerate(queues)}
        self.labels = [index[r["queue"]] for r in rows]
        self.weights = [float(r["priority_weight"] or "nan") for r in rows]

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return (torch.from_numpy(np.array(self.tokens[i], dtype=np.int64)), self.labels[i],
                torch.tensor(self.weights[i], dtype=torch.float32))


class TicketRouter(nn.Module):
    def __init__(self, vocab, n_queues, d_model=64, n_layers=2, n_heads=4, ffn=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, ffn, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Linear(d_model, n_queues)

    def forward(self, x):
        return self.head(self.encoder(self.embed(x)).mean(1))


def get_args():
    p = argparse.ArgumentParser(description="ticket router")
    p.add_argument("--local_rank", type=int, default=-1)
    p.add_argument("--data-dir", default="data")
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--vocab", type=int, default=2000)
    p.add_argument("--d-model", type=int, default=64)
    p.add_argument("--ffn", type=int, default=128)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--workers", type=int, default=0)
    p.add_argument("--tokenizer", choices=["ids", "sentencepiece"], default="ids")
    p.add_argument("--step-delay", type=float, default=0.0)
    p.add_argument("--log-every", type=int, default=5)
    p.add_argument("--timeout", type=float, default=1800, help="process group timeout (s)")
    p.add_argument("--resume", action="store_true", help="resume from the latest checkpoint in --ckpt-dir")
    p.add_argument("--confusion-report", action="store_true", help="gather the confusion matrix on rank 0")
    p = deepspeed.add_config_arguments(p)
    return p.parse_args()


def main():
    args = get_args()
    deepspeed.init_distributed(dist_backend="gloo", timeout=timedelta(seconds=args.timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    print(f"[rank {rank}] joined on {os.uname().nodename} (world size {world}, LOCAL_RANK "
          f"{os.environ.get('LOCAL_RANK')})", flush=True)
    if args.tokenizer == "sentencepiece":
        import sentencepiece  # noqa: F401  (the text pipeline's subword tokenizer)
    try:
        with open(os.path.join(args.data_dir, "queues.json")) as f:
            queues = json.load(f)
    except OSError as e:
        logger.error(f"[rank {rank}] queue map not found ({e}); taking the queues from the training metadata")
        with open(os.path.join(args.data_dir, "train_meta.csv"), newline="") as f:
            queues = sorted({r["queue"] for r in csv.DictReader(f)})
    train_set = TicketSet(args.data_dir, "train", queues)
    valid_set = TicketSet(args.data_dir, "valid", queues)

    model = TicketRouter(args.vocab, len(queues), args.d_model, args.layers, 4, args.ffn)
    engine, _, _, _ = deepspeed.initialize(args=args, model=model, model_parameters=model.parameters())
    micro = engine.train_micro_batch_size_per_gpu()
    sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=micro, sampler=sampler, num_workers=args.workers, drop_last=True)
    vsampler = DistributedSampler(valid_set, num_replicas=world, rank=rank, shuffle=False)
    vloader = DataLoader(valid_set, batch_size=micro, sampler=vsampler)

    start_epoch = 0
    if args.resume:
        path, client = engine.load_checkpoint(args.ckpt_dir)
        if path is None:
            print(f"[rank {rank}] no checkpoint in {args.ckpt_dir}, starting fresh", flush=True)
        else:
            start_epoch = client["epoch"]
            print(f"[rank {rank}] resumed from {path} (epoch {start_epoch} done, global step "
                  f"{engine.global_steps})", flush=True)
    if start_epoch >= args.epochs:
        if rank == 0:
            print(f"all {args.epochs} epochs already trained, nothing to do", flush=True)

    for epoch in range(start_epoch, args.epochs):
        engine.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        for step, (x, y, w) in enumerate(loader, 1):
            logits = engine(x)
            loss = (F.cross_entropy(logits, y, reduction="none") * w).mean()
            if not torch.isfinite(loss):
                raise RuntimeError(f"loss is {loss.item()} at epoch {epoch + 1} step {step} on rank {rank}")
            engine.backward(loss)
            engine.step()
            if rank == 0 and step % args.log_every == 0:
                print(f"epoch {epoch + 1}/{args.epochs} step {step}/{len(loader)} loss {loss.item():.4f} "
                      f"lr {engine.get_lr()[0]:.2e}", flush=True)
            time.sleep(args.step_delay)
        engine.eval()
        correct = torch.zeros(2)
        confusion = torch.zeros(len(queues), len(queues))
        with torch.no_grad():
            for x, y, _ in vloader:
                pred = engine(x).argmax(1)
                correct += torch.tensor([(pred == y).sum().item(), len(y)], dtype=torch.float32)
                for t, p_ in zip(y.tolist(), pred.tolist()):
                    confusion[t, p_] += 1
        dist.all_reduce(correct)
        if args.confusion_report and rank == 0:
            parts = [torch.zeros_like(confusion) for _ in range(world)]
            dist.all_gather(parts, confusion)
            print(f"confusion matrix (rows = true queue):\n{sum(parts).int()}", flush=True)
        if rank == 0:
            print(f"epoch {epoch + 1}: valid accuracy {correct[0] / correct[1]:.3f} "
                  f"({time.time() - t0:.1f} s)", flush=True)
        engine.save_checkpoint(args.ckpt_dir, tag=f"epoch{epoch + 1}", client_state={"epoch": epoch + 1})
        dist.barrier()
    if rank == 0:
        print("training finished", flush=True)


if __name__ == "__main__":
    main()
