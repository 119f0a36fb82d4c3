"""Full-graph GraphSAGE-style node classifier, data-parallel over target nodes with ``torch.multiprocessing.spawn``
and DDP (gloo on CPU). Uses the synthetic citation graph of ``gnn_collective.py``.

    MASTER_PORT=29550 python gnn_spawn.py --nprocs 2 --epochs 40
"""
from __future__ import annotations

import argparse
import datetime
import os
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F

from gnn_collective import make_graph


class SAGE(nn.Module):
    def __init__(self, fin, hid, out):
        super().__init__()
        self.l1, self.l2 = nn.Linear(2 * fin, hid), nn.Linear(2 * hid, out)

    @staticmethod
    def agg(h, edges):
        deg = torch.zeros(h.shape[0]).index_add_(0, edges[1], torch.ones(edges.shape[1])).clamp(min=1)
        return torch.zeros_like(h).index_add_(0, edges[1], h[edges[0]]) / deg[:, None]

    def forward(self, x, edges):
        h = F.dropout(torch.relu(self.l1(torch.cat([x, self.agg(x, edges)], -1))), 0.3, self.training)
        return self.l2(torch.cat([h, self.agg(h, edges)], -1))


def worker(local_rank: int, a: argparse.Namespace) -> None:
    world = int(os.environ.get("WORLD_SIZE", a.nprocs))
    rank = int(os.environ.get("NODE_RANK", 0)) * a.nprocs + local_rank
    torch.set_num_threads(1)
    print(f"[rank {rank}] init_process_group tcp://{a.master_addr}:{a.master_port} world_size={world}", flush=True)
    dist.init_process_group("gloo", init_method=f"tcp://{a.master_addr}:{a.master_port}", rank=rank,
                            world_size=world, timeout=datetime.timedelta(seconds=a.timeout_s))
    x, y, edges = make_graph(a.nodes, a.feats, a.classes)
    x, y, edges = torch.tensor(x), torch.tensor(y), torch.tensor(edges)
    idx = torch.arange(a.nodes)
    train_idx = idx[(idx % 10 < 8) & (idx % world == rank)]
    val_idx = idx[idx % 10 >= 8]
    torch.manual_seed(0)
    model = nn.parallel.DistributedDataParallel(SAGE(a.feats, a.hidden, a.classes))
    opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=5e-4)
    t0 = time.time()
    for epoch in range(a.epochs):
        model.train()
        loss = F.cross_entropy(model(x, edges)[train_idx], y[train_idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if epoch % 5 == 0 or epoch == a.epochs - 1:
            model.eval()
            with torch.no_grad():
                acc = (model(x, edges)[val_idx].argmax(-1) == y[val_idx]).float().mean()
            stats = torch.tensor([loss.item(), acc.item()])
            dist.all_reduce(stats)
            stats /= world
            if rank == 0:
                print(f"epoch {epoch:3d} loss {stats[0]:.4f} val_acc {stats[1]:.4f} ({time.time() - t0:.1f}s)",
                      flush=True)
    if rank == 0:
        torch.save(model.module.state_dict(), "sage.pt")
        print("saved sage.pt")
    dist.destroy_process_group()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--nodes", type=int, default=20000)
    ap.add_argument("--feats", type=int, default=64)
    ap.add_argument("--classes", type=int, default=12)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--timeout-s", type=int, default=300)
    ap.add_argument("--master-addr", default=os.environ.get("MASTER_ADDR", "127.0.0.1"))
    ap.add_argument("--master-port", type=int, default=int(os.environ.get("MASTER_PORT", 29550)))
    a = ap.parse_args()
    print(f"spawning {a.nprocs} processes")
    mp.spawn(worker, args=(a,), nprocs=a.nprocs, join=True)
    print("all processes finished")


if __name__ == "__main__":
    main()
