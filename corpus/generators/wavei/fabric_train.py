"""A Lightning Fabric training script (CPU, DDP over gloo), launched with ``fabric run``. Two tasks:

- ``--task exprs``: classify code expressions (from ``make_code_data.py``) by the sign of their value. The dataset
  parses each expression into a tree with a recursive-descent parser on first access (the recursion limit is raised
  because scraped code nests deeply), keeps a per-rank JSON-lines cache of the parsed trees, and turns each tree into
  a small feature vector (counts of each function, depth, leaves) for an MLP classifier.
- ``--task regress``: a tabular regression MLP trained with SGD + momentum; the learning rate follows the linear
  scaling rule (``--base-lr`` x global batch / 256, global batch = batch x accumulation x world size) after a linear
  warmup; ``--nan-check`` stops the run with an error when the loss is not finite.

Both use gradient accumulation (``fabric.no_backward_sync`` on the micro-steps) and log one line per rank every
``--log-every`` optimizer steps. Nothing is injected: the data and the arguments decide what happens.
"""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import re
import sys
import time

import torch
from lightning.fabric import Fabric
from torch.utils.data import DataLoader, Dataset, TensorDataset

sys.setrecursionlimit(1_000_000)  # parse() recurses once per nesting level and scraped code nests deeply

log = logging.getLogger("train")
FUNCS = ("add", "sub", "mul", "neg", "abs")
TOKEN = re.compile(r"\s*(-?\d+|[a-z]+|[(),])")


def tokenize(s: str) -> list[str]:
    return TOKEN.findall(s)


def parse(tokens: list[str], i: int = 0):
    """(tree, next index); a tree is an int or [func, child, ...]."""
    tok = tokens[i]
    if tok in FUNCS:
        args, i = [], i + 2  # skip '('
        while True:
            node, i = parse(tokens, i)
            args.append(node)
            if tokens[i] == ",":
                i += 1
                continue
            return [tok, *args], i + 1  # skip ')'
    return int(tok), i + 1


def features(tree) -> list[float]:
    counts = dict.fromkeys(FUNCS, 0)
    leaves, total, depth, stack = 0, 0, 0, [(tree, 1)]
    while stack:
        node, d = stack.pop()
        depth = max(depth, d)
        if isinstance(node, int):
            leaves += 1
            total += node
            continue
        counts[node[0]] += 1
        stack.extend((c, d + 1) for c in node[1:])
    return [counts[f] / 8 for f in FUNCS] + [math.log1p(depth), math.log1p(leaves), total / 20,
                                            float(counts["neg"] % 2), float(counts["mul"] > 0)]


class ExprDataset(Dataset):
    def __init__(self, path: str, cache_path: str) -> None:
        with open(path) as f:
            self.records = [json.loads(line) for line in f]
        self.cache_path = cache_path
        self.cache = open(cache_path, "a")
        self.feats: dict[int, list[float]] = {}

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int):
        if i not in self.feats:
            rec = self.records[i]
            tree, _ = parse(tokenize(rec["expr"]))
            self.cache.write(json.dumps({"id": rec["id"], "tree": tree}) + "\n")
            self.feats[i] = features(tree)
        return torch.tensor(self.feats[i]), torch.tensor(float(self.records[i]["label"]))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--task", choices=("exprs", "regress"), default="exprs")
    p.add_argument("--data", default="data/exprs.jsonl")
    p.add_argument("--epochs", type=int, default=2)
    p.add_argument("--batch-size", type=int, default=32)
    p.add_argument("--accum", type=int, default=2)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--base-lr", type=float, default=0.05)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--log-every", type=int, default=10)
    p.add_argument("--nan-check", action="store_true")
    p.add_argument("--cache-dir", default="cache")
    a = p.parse_args()

    fabric = Fabric()  # accelerator, strategy, devices and precision come from `fabric run`
    rank, world = fabric.global_rank, fabric.world_size
    logging.basicConfig(level=logging.INFO, format=f"%(asctime)s %(levelname)s [rank{rank}] %(name)s: %(message)s")
    log.info("fabric ready: world size %d, strategy %s, precision %s", world, type(fabric.strategy).__name__,
             type(fabric._precision).__name__)
    fabric.seed_everything(1234)

    if a.task == "exprs":
        os.makedirs(a.cache_dir, exist_ok=True)
        ds = ExprDataset(a.data, os.path.join(a.cache_dir, f"trees-rank{rank}.jsonl"))
        model = torch.nn.Sequential(torch.nn.Linear(10, 64), torch.nn.ReLU(), torch.nn.Linear(64, 64), torch.nn.ReLU(),
                                    torch.nn.Linear(64, 1))
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        lr_at = lambda step: a.lr  # noqa: E731
    else:
        g = torch.Generator().manual_seed(7)
        x = torch.randn(a.steps * a.batch_size * a.accum, 32, generator=g)
        w = torch.randn(32, 1, generator=g)
        ds = TensorDataset(x, (x @ w + 0.1 * torch.randn(len(x), 1, generator=g)).squeeze(1))
        model = torch.nn.Sequential(torch.nn.Linear(32, 128), torch.nn.ReLU(), torch.nn.Linear(128, 128),
                                    torch.nn.ReLU(), torch.nn.Linear(128, 1))
        peak = a.base_lr * a.batch_size * a.accum * world / 256
        log.info("lr: linear scaling rule: %.4g x (%d x %d x %d) / 256 = %.4g, linear warmup over %d steps",
                 a.base_lr, a.batch_size, a.accum, world, peak, a.warmup)
        opt = torch.optim.SGD(model.parameters(), lr=peak, momentum=0.9)
        loss_fn = torch.nn.MSELoss()
        lr_at = lambda step: peak * min(1.0, step / a.warmup)  # noqa: E731
    loader = DataLoader(ds, batch_size=a.batch_size, shuffle=True)
    model, opt = fabric.setup(model, opt)
    loader = fabric.setup_dataloaders(loader)
    log.info("%d samples, %d batches per epoch on this rank, accumulate %d", len(ds), len(loader), a.accum)

    step, t0, done = 0, time.time(), False
    for epoch in range(a.epochs):
        model.train()
        run_loss, n = 0.0, 0
        for i, (xb, yb) in enumerate(loader):
            accumulating = (i + 1) % a.accum != 0
            with fabric.no_backward_sync(model, enabled=accumulating):
                loss = loss_fn(model(xb).squeeze(1), yb)
                fabric.backward(loss / a.accum)
            run_loss, n = run_loss + loss.item(), n + 1
            if accumulating:
                continue
            step += 1
            for group in opt.param_groups:
                group["lr"] = lr_at(step)
            opt.step()
            opt.zero_grad()
            if step % a.log_every == 0:
                avg = run_loss / n
                log.info("epoch %d step %d loss %.4f lr %.4g (%.1f steps/s)", epoch, step, avg, lr_at(step),
                         step / (time.time() - t0))
                if a.nan_check and not math.isfinite(avg):
                    raise RuntimeError(f"loss is {avg} at step {step} (epoch {epoch}); stopping")
                run_loss, n = 0.0, 0
            if a.task == "regress" and step >= a.steps:
                done = True
                break
        if a.task == "exprs":
            model.eval()
            correct = torch.zeros(2)
            with torch.no_grad():
                for xb, yb in loader:
                    correct += torch.tensor([((model(xb).squeeze(1) > 0).float() == yb).sum().item(), len(yb)])
            correct = fabric.all_reduce(correct, reduce_op="sum")
            log.info("epoch %d done: train accuracy %.3f over %d samples", epoch, correct[0] / correct[1], int(correct[1]))
        if done:
            break
    fabric.save("model.ckpt", {"model": model, "step": step})  # every rank calls it; rank 0 writes
    log.info("training finished after %d optimizer steps", step)


if __name__ == "__main__":
    main()
