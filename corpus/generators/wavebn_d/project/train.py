"""Support-ticket intent classifier (bag-of-embeddings + MLP) trained with Hugging Face Accelerate across nodes."""
import argparse
import importlib.util
import json
import logging
import math
import os
import socket
import time

import torch
import torch.nn as nn
from accelerate import Accelerator
from accelerate.logging import get_logger
from accelerate.utils import set_seed
from torch.utils.data import DataLoader, Dataset

ap = argparse.ArgumentParser()
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--batch", type=int, default=32)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-every", type=int, default=40)
ap.add_argument("--output-dir", default="outputs")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--step-delay", type=float, default=0.05)
ap.add_argument("--dim", type=int, default=64)
args = ap.parse_args()

logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                    level=logging.INFO)
logger = get_logger(__name__)
accelerator = Accelerator(project_dir=args.output_dir)
set_seed(1234)
host = socket.gethostname()
logger.info(accelerator.state, main_process_only=False)
rank = accelerator.process_index


class Tickets(Dataset):
    def __init__(self, path, vocab=None):
        rows = [json.loads(line) for line in open(path)]
        self.labels = sorted({r["intent"] for r in rows})
        self.vocab = vocab or {w: i + 1 for i, w in enumerate(sorted({w for r in rows for w in r["text"].split()}))}
        self.x = [[self.vocab.get(w, 0) for w in r["text"].split()][:16] for r in rows]
        self.y = [self.labels.index(r["intent"]) for r in rows]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        ids = self.x[i] + [0] * (16 - len(self.x[i]))
        return torch.tensor(ids), torch.tensor(self.y[i])


ds = Tickets("data/tickets.jsonl")
n_val = len(ds) // 10
train_ds, val_ds = torch.utils.data.random_split(ds, [len(ds) - n_val, n_val], generator=torch.Generator().manual_seed(0))
logger.info(f"{len(ds)} tickets, {len(ds.labels)} intents, vocab {len(ds.vocab)}; train {len(train_ds)} val {len(val_ds)}")


class IntentNet(nn.Module):
    def __init__(self, v, d, k):
        super().__init__()
        self.emb = nn.EmbeddingBag(v + 1, d, mode="mean", padding_idx=0)
        self.mlp = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, k))

    def forward(self, x):
        return self.mlp(self.emb(x))


model = IntentNet(len(ds.vocab), args.dim, len(ds.labels))
opt = torch.optim.AdamW(model.parameters(), lr=args.lr)
train_dl = DataLoader(train_ds, batch_size=args.batch, shuffle=True)
val_dl = DataLoader(val_ds, batch_size=128)
model, opt, train_dl, val_dl = accelerator.prepare(model, opt, train_dl, val_dl)
loss_fn = nn.CrossEntropyLoss()

hooks = None
if os.path.exists("data/hooks.py"):
    spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
    hooks = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hooks)

step = 0
start_epoch = 0
ckpt_root = os.path.join(args.output_dir, "checkpoints")
if args.resume and os.path.isdir(ckpt_root) and os.listdir(ckpt_root):
    last = sorted(os.listdir(ckpt_root), key=lambda s: int(s.split("_")[-1]))[-1]
    accelerator.load_state(os.path.join(ckpt_root, last))
    step = int(last.split("_")[-1])
    start_epoch = step // len(train_dl)
    logger.info(f"Resumed from checkpoint {os.path.join(ckpt_root, last)} at step {step}")

steps_per_epoch = len(train_dl)
total = args.epochs * steps_per_epoch
logger.info(f"***** Running training ***** epochs={args.epochs} steps/epoch={steps_per_epoch} total={total} "
            f"world_size={accelerator.num_processes}")
t0 = time.time()
for epoch in range(start_epoch, args.epochs):
    model.train()
    for x, y in train_dl:
        if step >= (epoch + 1) * steps_per_epoch:
            break
        step += 1
        loss = loss_fn(model(x), y)
        accelerator.backward(loss)
        opt.step()
        opt.zero_grad()
        if hooks:
            hooks.on_step(step, rank, {"label_map": {k: i for i, k in enumerate(ds.labels)}})
        time.sleep(args.step_delay)
        if step % args.log_every == 0:
            avg = accelerator.reduce(loss.detach(), reduction="mean").item()
            if not math.isfinite(avg):
                raise ValueError(f"Non-finite loss {avg} at step {step} (epoch {epoch}); stopping")
            logger.info(f"epoch {epoch} step {step}/{total} loss {avg:.4f} lr {args.lr:g} "
                        f"{(time.time() - t0) / step:.2f}s/it")
        if step % args.ckpt_every == 0:
            out = os.path.join(ckpt_root, f"checkpoint_{step}")
            accelerator.save_state(out)
            logger.info(f"Saved checkpoint to {out}")
    model.eval()
    correct = n = 0
    for x, y in val_dl:
        with torch.no_grad():
            pred = model(x).argmax(-1)
        pred, y = accelerator.gather_for_metrics((pred, y))
        correct += (pred == y).sum().item()
        n += y.numel()
    logger.info(f"epoch {epoch} eval accuracy {correct / n:.4f} ({n} tickets)")
accelerator.wait_for_everyone()
logger.info(f"[{host}] rank {rank} done: {step} steps in {time.time() - t0:.1f}s", main_process_only=False)
accelerator.end_training()
