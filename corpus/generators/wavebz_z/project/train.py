"""ticket-intent: a tiny bag-of-embeddings intent classifier trained on a local Hugging Face `datasets` corpus under
torch.distributed (gloo, CPU, plain DistributedDataParallel). Every rank loads the JSON Lines (or Parquet) shards
with `load_dataset`, takes its part with `datasets.distributed.split_dataset_by_node`, tokenises with `.map` (a
hand-made word vocabulary, cache under --cache-dir), `.with_format("torch")`, and trains with a DataLoader.

An optional team hook module `data_hooks.py` (absent unless a run adds it) is called from the tokenise function
(`on_example(rank, example)`) and after every optimizer step (`on_step(rank, step, model, batch)`).
"""
import argparse
import datetime
import math
import os
import socket
import time

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP
from torch.utils.data import DataLoader

import datasets
from datasets import ClassLabel, Features, Value, load_dataset
from datasets.distributed import split_dataset_by_node

try:
    import data_hooks
except ImportError:
    data_hooks = None

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data/tickets")
ap.add_argument("--format", default="json", choices=["json", "parquet"])
ap.add_argument("--streaming", action="store_true")
ap.add_argument("--cache-dir", default="hf-cache")
ap.add_argument("--num-proc", type=int, default=None)
ap.add_argument("--workers", type=int, default=1)
ap.add_argument("--batch-size", type=int, default=16)
ap.add_argument("--seq-len", type=int, default=32)
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--lr", type=float, default=0.05)
ap.add_argument("--out", default="ckpt")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--pg-timeout", type=float, default=1800)
ap.add_argument("--log-every", type=int, default=10)
args = ap.parse_args()

rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=args.pg_timeout))
torch.manual_seed(0)
host = socket.gethostname()
if rank == 0:
    print(f"[rank0] datasets {datasets.__version__} torch {torch.__version__} world_size {world}", flush=True)

FEATURES = Features({"id": Value("int64"), "text": Value("string"),
                     "label": ClassLabel(names=["billing", "account", "shipping", "app"])})
ext = "jsonl" if args.format == "json" else "parquet"
files = sorted(os.path.join(args.data, f) for f in os.listdir(args.data) if f.endswith(ext))
ds = load_dataset(args.format, data_files={"train": files}, split="train", features=FEATURES,
                  cache_dir=args.cache_dir, streaming=args.streaming)
ds = split_dataset_by_node(ds, rank=rank, world_size=world)
if not args.streaming:
    print(f"[rank{rank}@{host}] shard: {len(ds)} examples of {ds.info.splits['train'].num_examples if ds.info.splits else '?'}",
          flush=True)
else:
    print(f"[rank{rank}@{host}] streaming shard: {ds.num_shards} file shards", flush=True)

VOCAB = {}
for ws in ["billing account shipping app"] + [
        "refund charge invoice billing payment card money back overcharged receipt login password reset account "
        "locked two factor email verify access shipping delivery package tracking courier late address parcel arrived "
        "crash error app freeze bug update screen slow broken install the my a please i we your it is was not and to "
        "for with on help thanks today again"]:
    for w in ws.split():
        VOCAB.setdefault(w, len(VOCAB) + 2)  # 0 pad, 1 unk


def tokenize(ex):
    if data_hooks is not None and hasattr(data_hooks, "on_example"):
        data_hooks.on_example(rank, ex)
    ids = [VOCAB.get(w, 1) for w in ex["text"].lower().split()][: args.seq_len]
    return {"input_ids": ids + [0] * (args.seq_len - len(ids)), "n_tokens": len(ids)}


if args.streaming:
    ds = ds.map(tokenize, remove_columns=["text"])
else:
    ds = ds.map(tokenize, remove_columns=["text"], num_proc=args.num_proc, desc=f"Tokenizing (rank {rank})")
ds = ds.with_format("torch")
if data_hooks is not None and hasattr(data_hooks, "on_dataset"):
    data_hooks.on_dataset(rank, ds)


class BagClassifier(nn.Module):
    def __init__(self, vocab, dim=32, classes=4):
        super().__init__()
        self.emb = nn.EmbeddingBag(vocab, dim, mode="mean", padding_idx=0)
        self.head = nn.Sequential(nn.Linear(dim, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, ids):
        return self.head(self.emb(ids))


model = DDP(BagClassifier(len(VOCAB) + 2))
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
start_epoch = 0
ckpt_path = os.path.join(args.out, "last.pt")
if args.resume and os.path.exists(ckpt_path):
    state = torch.load(ckpt_path, map_location="cpu")
    model.module.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    start_epoch = state["epoch"] + 1
    print(f"[rank{rank}] resumed from {ckpt_path} (epoch {state['epoch']}, step {state['step']})", flush=True)

loader = DataLoader(ds, batch_size=args.batch_size, num_workers=args.workers,
                    shuffle=False if args.streaming else True, drop_last=True)
lossf = nn.CrossEntropyLoss()
step = 0
t0 = time.time()
for epoch in range(start_epoch, args.epochs):
    if args.streaming:
        ds.set_epoch(epoch)
    model.train()
    tot, n = 0.0, 0
    for batch in loader:
        logits = model(batch["input_ids"])
        loss = lossf(logits, batch["label"])
        opt.zero_grad()
        loss.backward()
        opt.step()
        step += 1
        lv = loss.item()
        if not math.isfinite(lv):
            raise FloatingPointError(f"rank {rank}: loss is {lv} at epoch {epoch} step {step}; stopping")
        tot += lv
        n += 1
        if data_hooks is not None and hasattr(data_hooks, "on_step"):
            data_hooks.on_step(rank, step, model, batch)
        if rank == 0 and step % args.log_every == 0:
            print(f"epoch {epoch} step {step} loss {lv:.4f} ({time.time() - t0:.1f}s)", flush=True)
    mean = torch.tensor([tot, float(n)])
    dist.all_reduce(mean)
    if rank == 0:
        print(f"epoch {epoch} done: mean train loss {mean[0] / max(mean[1], 1):.4f} over {int(mean[1])} batches",
              flush=True)
        os.makedirs(args.out, exist_ok=True)
        torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "step": step},
                   ckpt_path)
        print(f"saved checkpoint {ckpt_path}", flush=True)
    dist.barrier()
if rank == 0:
    print("training finished", flush=True)
dist.destroy_process_group()
