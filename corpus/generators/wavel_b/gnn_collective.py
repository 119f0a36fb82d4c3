"""Data-parallel GraphSAGE-style node classifier on a synthetic citation graph, with Ray actors in a placement group
synchronising gradients through ``ray.util.collective`` (gloo backend): each actor trains on its partition's
target nodes and all-reduces the gradients every step.

    python gnn_collective.py --workers 2 --epochs 30
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import ray
import ray.util.collective as col
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy


def make_graph(nodes: int, feats: int, classes: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, nodes)
    centers = rng.normal(0, 1, (classes, feats))
    x = (centers[y] + rng.normal(0, 2.0, (nodes, feats))).astype(np.float32)
    src = rng.integers(0, nodes, nodes * 8)
    same = rng.uniform(0, 1, nodes * 8) < 0.7  # homophily: most edges stay in the class
    dst = np.where(same, rng.permutation(np.arange(nodes))[src % nodes], rng.integers(0, nodes, nodes * 8))
    by_class = [np.flatnonzero(y == c) for c in range(classes)]
    dst[same] = [rng.choice(by_class[y[s]]) for s in src[same]]
    return x, y, np.stack([src, dst])


@ray.remote(num_cpus=1)
class GNNWorker:
    def __init__(self, rank: int, world: int, cfg: dict):
        import torch
        torch.set_num_threads(1)
        self.rank, self.world, self.cfg = rank, world, cfg
        x, y, edges = make_graph(cfg["nodes"], cfg["feats"], cfg["classes"])
        # this partition's nodes; node types outside the partition are dropped from its label space
        if cfg["partition"] == "community":  # METIS-like: communities (which follow the labels) stay together
            part = np.flatnonzero((y * world) // cfg["classes"] == rank)
        else:
            part = np.arange(cfg["nodes"])[np.arange(cfg["nodes"]) % world == rank]
        self.classes = int(y[part].max()) + 1 if cfg["partition_label_space"] else cfg["classes"]
        self.x, self.y = torch.tensor(x), torch.tensor(y)
        self.edges = torch.tensor(edges)
        self.train_idx = torch.tensor(part[: int(len(part) * 0.8)])
        self.val_idx = torch.tensor(part[int(len(part) * 0.8):])
        self.cache = []
        import torch.nn as nn

        class SAGE(nn.Module):
            def __init__(self, fin, hid, out):
                super().__init__()
                self.l1, self.l2 = nn.Linear(2 * fin, hid), nn.Linear(2 * hid, out)

            def agg(self, h, edges):
                deg = torch.zeros(h.shape[0]).index_add_(0, edges[1], torch.ones(edges.shape[1])).clamp(min=1)
                m = torch.zeros_like(h).index_add_(0, edges[1], h[edges[0]])
                return m / deg[:, None]

            def forward(self, x, edges):
                h = torch.relu(self.l1(torch.cat([x, self.agg(x, edges)], -1)))
                return self.l2(torch.cat([h, self.agg(h, edges)], -1)), h

        torch.manual_seed(0)
        self.model = SAGE(cfg["feats"], cfg["hidden"], self.classes)
        self.opt = torch.optim.Adam(self.model.parameters(), lr=cfg["lr"])
        print(f"[worker {rank}] partition {len(part)} nodes, {len(self.train_idx)} train, {self.classes} classes, "
              f"{sum(p.numel() for p in self.model.parameters())} params", flush=True)

    def setup(self, group: str) -> str:
        col.init_collective_group(self.world, self.rank, backend="gloo", group_name=group)
        self.group = group
        return f"worker {self.rank} joined collective group {group}"

    def epoch(self, e: int) -> dict:
        import torch
        import torch.nn.functional as F
        self.model.train()
        logits, h = self.model(self.x, self.edges)
        loss = F.cross_entropy(logits[self.train_idx], self.y[self.train_idx])
        self.opt.zero_grad()
        loss.backward()
        for p in self.model.parameters():
            col.allreduce(p.grad, group_name=self.group)
            p.grad /= self.world
        self.opt.step()
        if self.cfg["keep_embeddings"]:  # embedding snapshots for the drift report, one per epoch
            self.cache.append([h.detach().clone() for _ in range(self.cfg["keep_embeddings"])])
        with torch.no_grad():
            acc = (logits[self.val_idx].argmax(-1) == self.y[self.val_idx]).float().mean().item()
        return {"rank": self.rank, "epoch": e, "loss": round(loss.item(), 4), "val_acc": round(acc, 4)}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--feats", type=int, default=64)
    ap.add_argument("--classes", type=int, default=12)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--partition", choices=["round-robin", "community"], default="round-robin")
    ap.add_argument("--partition-label-space", action="store_true")
    ap.add_argument("--keep-embeddings", type=int, default=0)
    a = ap.parse_args()
    ray.init()
    pg = placement_group([{"CPU": 1}] * a.workers, strategy="PACK")
    ray.get(pg.ready(), timeout=60)
    print(f"placement group ready: {a.workers} bundles")
    cfg = vars(a)
    workers = [GNNWorker.options(scheduling_strategy=PlacementGroupSchedulingStrategy(
        placement_group=pg, placement_group_bundle_index=i)).remote(i, a.workers, cfg) for i in range(a.workers)]
    for msg in ray.get([w.setup.remote("sage-grads") for w in workers]):
        print(msg)
    t0 = time.time()
    for e in range(a.epochs):
        res = ray.get([w.epoch.remote(e) for w in workers])
        loss = sum(r["loss"] for r in res) / len(res)
        acc = sum(r["val_acc"] for r in res) / len(res)
        print(f"epoch {e:3d} loss {loss:.4f} val_acc {acc:.4f} ({time.time() - t0:.1f}s)", flush=True)
    print("training finished")


if __name__ == "__main__":
    main()
