"""Card-transaction anomaly scorer: merchant / category embeddings + numeric features -> MLP -> fraud logit.
Data-parallel (DDP over gloo), launched by dlrover-run; DLRover Flash Checkpoint (DdpCheckpointer) saves the model
and optimizer to memory every --mem-every steps and persists to --ckpt-dir at the end of every epoch."""
import argparse
import functools
import json
import os
import sys
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

from dlrover.trainer.torch.flash_checkpoint.checkpointer import StorageType
from dlrover.trainer.torch.flash_checkpoint.ddp import DdpCheckpointer


class Scorer(nn.Module):
    def __init__(self, n_num, merchants, categories, emb, hidden):
        super().__init__()
        self.merchant = nn.Embedding(merchants, emb)
        self.category = nn.Embedding(categories, emb // 2)
        self.net = nn.Sequential(nn.Linear(n_num + emb + emb // 2, hidden), nn.ReLU(), nn.Linear(hidden, hidden),
                                 nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, x, m, c):
        return self.net(torch.cat([x, self.merchant(m), self.category(c)], 1)).squeeze(1)


def auc(scores, labels):
    order = np.argsort(scores)
    ranks = np.empty(len(scores))
    ranks[order] = np.arange(1, len(scores) + 1)
    pos = labels > 0.5
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return (ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / max(n_pos * n_neg, 1)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--global-batch", type=int, default=512)
    ap.add_argument("--micro-batch", type=int, default=256)
    ap.add_argument("--grad-accum", type=int, default=1)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--optimizer", default="adam", choices=["adam", "sgd"])
    ap.add_argument("--emb-dim", type=int, default=16)
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--mem-every", type=int, default=20)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--pg-timeout", type=int, default=120)
    ap.add_argument("--merchant-history", type=int, default=0, help="days of per-merchant history kept in memory")
    ap.add_argument("--score-report", type=int, default=0, help="rank 0 scores N bootstrap resamples after each epoch")
    ap.add_argument("--step-delay", type=float, default=0.0)
    a = ap.parse_args()

    dist.init_process_group("gloo", timeout=timedelta(seconds=a.pg_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    if rank == 0:
        print(f"args: {vars(a)}", flush=True)
        print(f"world size {world}, MASTER_ADDR={os.environ.get('MASTER_ADDR')} MASTER_PORT={os.environ.get('MASTER_PORT')}",
              flush=True)
    if a.global_batch != a.micro_batch * a.grad_accum * world:
        raise ValueError(f"global batch {a.global_batch} != micro batch {a.micro_batch} * grad accum {a.grad_accum}"
                         f" * world size {world}")

    meta = json.load(open(os.path.join(a.data, "meta.json")))
    d = np.load(os.path.join(a.data, f"tx-{rank:02d}.npz"))
    x, m, c, y = (torch.from_numpy(d[k]) for k in ("x", "merchant", "category", "label"))
    v = np.load(os.path.join(a.data, "val.npz"))
    vx, vm, vc, vy = (torch.from_numpy(v[k]) for k in ("x", "merchant", "category", "label"))
    print(f"[rank{rank}] loaded {len(y)} transactions (fraud rate {y.mean():.4f}), {len(vy)} validation", flush=True)
    parents = {int(k): v for k, v in json.load(open(os.path.join(a.data, "merchant_groups.json"))).items()}
    sys.setrecursionlimit(1_000_000)  # long franchise chains

    @functools.lru_cache(maxsize=None)
    def group_of(mid):
        p = parents.get(mid)
        return mid if p is None else group_of(p)

    groups = torch.tensor([group_of(int(i)) for i in m.unique()])
    print(f"[rank{rank}] {len(groups)} merchants in {len(groups.unique())} groups", flush=True)
    history = []
    if a.merchant_history:
        for day in range(a.merchant_history):
            history.append(torch.randn(meta["merchants"], 24 * 60 // 8, dtype=torch.float64))
            if day % 10 == 9:
                print(f"[rank{rank}] merchant history: {day + 1} days", flush=True)

    model = Scorer(x.shape[1], meta["merchants"], meta["categories"], a.emb_dim, a.hidden)
    ddp = DDP(model)
    opt = (torch.optim.Adam(ddp.parameters(), lr=a.lr) if a.optimizer == "adam"
           else torch.optim.SGD(ddp.parameters(), lr=a.lr, momentum=0.9))
    pos_weight = torch.tensor((1 - y.mean()) / y.mean())
    lossf = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    ckpt = DdpCheckpointer(a.ckpt_dir)
    start_step = 0
    state = ckpt.load_checkpoint()
    if state and "model" in state:
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["optimizer"])
        start_step = state["step"]
        print(f"[rank{rank}] resumed from flash checkpoint step {start_step}", flush=True)

    steps_per_epoch = len(y) // (a.micro_batch * a.grad_accum)
    step = start_step
    g = torch.Generator().manual_seed(rank)
    for epoch in range(start_step // steps_per_epoch + 1, a.epochs + 1):
        perm = torch.randperm(len(y), generator=g)
        ddp.train()
        t0 = time.time()
        for s in range(steps_per_epoch):
            opt.zero_grad()
            tot = 0.0
            for k in range(a.grad_accum):
                idx = perm[(s * a.grad_accum + k) * a.micro_batch:(s * a.grad_accum + k + 1) * a.micro_batch]
                loss = lossf(ddp(x[idx], m[idx], c[idx]), y[idx]) / a.grad_accum
                loss.backward()
                tot += loss.item()
            if not np.isfinite(tot):
                raise FloatingPointError(f"loss is {tot} at epoch {epoch} step {s + 1} (global step {step + 1})")
            opt.step()
            step += 1
            if a.step_delay:
                time.sleep(a.step_delay)
            if (s + 1) % a.log_every == 0:
                print(f"[rank{rank}] epoch {epoch} step {s + 1}/{steps_per_epoch} loss {tot:.4f}", flush=True)
            if step % a.mem_every == 0:
                ckpt.save_checkpoint(step, {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step},
                                     storage_type=StorageType.MEMORY)
        ddp.eval()
        with torch.no_grad():
            bounds = np.linspace(0, len(vy), world + 1).astype(int)
            sl = slice(bounds[rank], bounds[rank + 1])
            sc = torch.sigmoid(model(vx[sl], vm[sl], vc[sl]))
            vloss = nn.functional.binary_cross_entropy(sc, vy[sl]).reshape(1)
            all_sc = [torch.zeros_like(sc) for _ in range(world)]
            dist.all_gather(all_sc, sc)
            dist.all_reduce(vloss)
        if rank == 0:
            val_auc = auc(torch.cat(all_sc).numpy(), vy.numpy())
            print(f"epoch {epoch} done in {time.time() - t0:.1f}s: val loss {vloss.item() / world:.4f} "
                  f"val AUC {val_auc:.4f}", flush=True)
            if a.score_report:
                boots = [auc(*[z[i] for z in (torch.cat(all_sc).numpy(), vy.numpy())])
                         for i in (np.random.default_rng(b).integers(0, len(vy), len(vy))
                                   for b in range(a.score_report))]
                print(f"epoch {epoch} bootstrap AUC 90% interval [{np.quantile(boots, 0.05):.4f}, "
                      f"{np.quantile(boots, 0.95):.4f}]", flush=True)
        path = os.path.join(a.ckpt_dir, str(step), f"rank_{rank}.pt")
        ckpt.save_checkpoint(step, {"model": model.state_dict(), "optimizer": opt.state_dict(), "step": step}, path,
                             storage_type=StorageType.DISK)
        print(f"[rank{rank}] flash checkpoint step {step} -> {path}", flush=True)
        dist.barrier()
    if rank == 0:
        print(f"finished {a.epochs} epochs, {step} steps", flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
