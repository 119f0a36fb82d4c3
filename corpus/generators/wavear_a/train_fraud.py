"""Mule-account detection on a payments graph with PyTorch Geometric, data-parallel (DDP over gloo) on CPU.

Each rank trains on its own share of the labelled seed accounts; mini-batches are sampled neighbourhoods
(fan-out per hop) built in DataLoader worker processes. Rank 0 evaluates on the validation accounts (F1, AUC)
and saves the model. Launch with torchrun, with --spawn N (torch.multiprocessing.spawn) or one process per rank
with RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT set (run_ranks.sh)."""
import argparse
import ctypes
import datetime
import os
import time

import numpy as np
import pandas as pd
import torch
import torch.distributed as dist
import torch.nn.functional as F
import torch_geometric
import torch_geometric.transforms as T
from torch.nn.parallel import DistributedDataParallel as DDP
from torch_geometric.data import Data, InMemoryDataset
from torch_geometric.nn import GAT, GCN, GraphSAGE


LIB = None


def helper():
    global LIB
    if LIB is None:
        LIB = ctypes.CDLL(os.path.abspath("libbuckets.so"))
    return LIB


class PaymentsGraph(InMemoryDataset):
    """accounts.csv + merchants.csv + transfers.csv -> one homogeneous graph (merchants after the accounts)."""

    def __init__(self, root, transform=None, pre_transform=None):
        super().__init__(root, transform, pre_transform)
        self.load(self.processed_paths[0])

    @property
    def raw_file_names(self):
        return ["accounts.csv", "merchants.csv", "transfers.csv"]

    @property
    def processed_file_names(self):
        return ["payments.pt"]

    def download(self):
        raise RuntimeError(f"raw exports missing in {self.raw_dir}")

    def process(self):
        acc = pd.read_csv(os.path.join(self.raw_dir, "accounts.csv"))
        mer = pd.read_csv(os.path.join(self.raw_dir, "merchants.csv"))
        tr = pd.read_csv(os.path.join(self.raw_dir, "transfers.csv"))
        n_acc, n_mer = len(acc), len(mer)
        xa = np.c_[np.log1p(acc.age_days), acc.kyc_level / 3.0, np.eye(4)[acc.region], np.log1p(acc.avg_balance) / 10,
                   np.log1p(acc.devices), np.ones(n_acc), np.zeros(n_acc)]
        xm = np.c_[np.zeros((n_mer, 1)), np.zeros((n_mer, 1)), np.zeros((n_mer, 4)), np.log1p(mer.avg_ticket) / 10,
                   np.zeros((n_mer, 1)), np.zeros(n_mer), np.ones(n_mer)]
        x = torch.tensor(np.r_[xa, xm], dtype=torch.float)
        y = torch.tensor(np.r_[acc.is_mule.values, -np.ones(n_mer, dtype=np.int64)], dtype=torch.long)
        edge_index = torch.tensor(np.stack([tr.src.values, tr.dst.values]), dtype=torch.long)
        edge_attr = torch.tensor(np.log1p(tr.amount.values), dtype=torch.float).view(-1, 1)
        amount = torch.tensor(tr.amount.values, dtype=torch.double)
        region = torch.tensor(np.r_[acc.region.values, -np.ones(n_mer, dtype=np.int64)])
        data = Data(x=x, edge_index=edge_index, edge_attr=edge_attr, amount=amount, y=y, region=region,
                    num_nodes=n_acc + n_mer)
        if self.pre_transform is not None:
            data = self.pre_transform(data)
        self.save([data], self.processed_paths[0])


class FanoutSampler:
    """Sampled k-hop neighbourhoods of a batch of seed accounts (fan-out per hop, -1 = every neighbour)."""

    def __init__(self, data, fanouts, buckets=False):
        self.data, self.fanouts, self.buckets = data, fanouts, buckets
        src, dst = data.edge_index
        perm = torch.argsort(dst)
        self.col = src[perm]
        self.amount = data.amount[perm] if buckets else None
        self.eid = perm
        self.ptr = torch.zeros(data.num_nodes + 1, dtype=torch.long)
        self.ptr[1:] = torch.cumsum(torch.bincount(dst, minlength=data.num_nodes), 0)

    def __call__(self, seeds):
        seeds = torch.as_tensor(seeds, dtype=torch.long)
        frontier, rows, cols, eids = seeds, [], [], []
        for k in self.fanouts:
            start = self.ptr[frontier]
            deg = self.ptr[frontier + 1] - start
            if k < 0:
                dst = torch.repeat_interleave(frontier, deg)
                off = torch.arange(int(deg.sum())) - torch.repeat_interleave(torch.cumsum(deg, 0) - deg, deg)
                pos = torch.repeat_interleave(start, deg) + off
                nbr = self.col[pos]
            else:
                keep = deg > 0
                f, s, d = frontier[keep], start[keep], deg[keep]
                off = (torch.rand(f.numel(), k) * d.view(-1, 1)).long()
                pos = (s.view(-1, 1) + off).view(-1)
                nbr = self.col[pos]
                dst = f.repeat_interleave(k)
            rows.append(nbr)
            cols.append(dst)
            if self.buckets:
                eids.append(self.eid[pos])
            frontier = torch.unique(nbr)
        others = torch.unique(torch.cat(rows))
        others = others[~torch.isin(others, seeds)]
        n_id = torch.cat([seeds, others])
        mapping = torch.full((self.data.num_nodes,), -1, dtype=torch.long)
        mapping[n_id] = torch.arange(n_id.numel())
        edge_index = torch.stack([mapping[torch.cat(rows)], mapping[torch.cat(cols)]])
        d = self.data
        x = d.x[n_id]
        if self.buckets:  # incoming amounts per decade, from the team's C helper
            amount = d.amount[torch.cat(eids)].contiguous()
            dst = edge_index[1].contiguous()
            hist = torch.zeros(n_id.numel(), 8, dtype=torch.long)
            helper().amount_buckets(ctypes.c_void_p(amount.data_ptr()), ctypes.c_void_p(dst.data_ptr()),
                               ctypes.c_long(amount.numel()), ctypes.c_void_p(hist.data_ptr()), ctypes.c_long(n_id.numel()))
            x = torch.cat([x, torch.log1p(hist.float())], 1)
        return Data(x=x, edge_index=edge_index, y=d.y[n_id], n_id=n_id, batch_size=seeds.numel())


def build_model(name, in_dim, hidden, layers, dropout):
    if name == "sage":
        return GraphSAGE(in_dim, hidden, num_layers=layers, out_channels=2, dropout=dropout)
    if name == "gcn":
        return GCN(in_dim, hidden, num_layers=layers, out_channels=2, dropout=dropout)
    if name == "gat":
        return GAT(in_dim, hidden, num_layers=layers, out_channels=2, dropout=dropout, heads=4)
    raise ValueError(name)


def auc_score(y, p):
    order = np.argsort(p)
    ranks = np.empty(len(p))
    ranks[order] = np.arange(1, len(p) + 1)
    pos = y == 1
    n_pos, n_neg = pos.sum(), (~pos).sum()
    return float((ranks[pos].sum() - n_pos * (n_pos + 1) / 2) / max(n_pos * n_neg, 1))


def evaluate(model, loader):
    model.eval()
    ys, ps = [], []
    with torch.no_grad():
        for b in loader:
            out = model(b.x, b.edge_index)[: b.batch_size]
            ps.append(out.softmax(-1)[:, 1])
            ys.append(b.y[: b.batch_size])
    y, p = torch.cat(ys).numpy(), torch.cat(ps).numpy()
    pred = p > 0.5
    tp = int((pred & (y == 1)).sum())
    f1 = 2 * tp / max(int(pred.sum()) + int((y == 1).sum()), 1)
    return f1, auc_score(y, p)


def main(local_rank=None, args=None):
    if local_rank is not None:  # torch.multiprocessing.spawn
        os.environ.update(RANK=str(local_rank), LOCAL_RANK=str(local_rank), WORLD_SIZE=str(args.spawn),
                          MASTER_ADDR="127.0.0.1", MASTER_PORT=str(args.port))
    rank, world = int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"])
    dist.init_process_group("gloo", rank=rank, world_size=world,
                            timeout=datetime.timedelta(seconds=args.dist_timeout))
    tag = f"[rank{rank}]"
    if rank == 0:
        print(f"{tag} torch {torch.__version__} torch_geometric {torch_geometric.__version__} world_size {world}", flush=True)
        print(f"{tag} args {vars(args)}", flush=True)
    torch.manual_seed(args.seed + rank)
    np.random.seed(args.seed + rank)

    if rank == 0:  # one rank processes the raw exports, the others wait and load the processed file
        ds = PaymentsGraph(args.data, pre_transform=T.ToUndirected())
        dist.barrier()
    else:
        dist.barrier()
        ds = PaymentsGraph(args.data, pre_transform=T.ToUndirected())
    data = ds[0]
    print(f"{tag} graph: {data.num_nodes} nodes, {data.num_edges} edges, "
          f"max in-degree {int(torch.bincount(data.edge_index[1]).max())}", flush=True)

    labelled = (data.y >= 0).nonzero().view(-1)
    g = torch.Generator().manual_seed(args.seed)
    labelled = labelled[torch.randperm(labelled.numel(), generator=g)]
    n_val = int(0.15 * labelled.numel())
    val_idx, train_idx = labelled[:n_val], labelled[n_val:]
    if args.shard_by == "region":  # each rank takes the accounts of its regions
        train_idx = train_idx[data.region[train_idx] % world == rank]
    else:
        train_idx = train_idx[rank::world]
    fanouts = [int(f) for f in args.fanout.split(",")]
    sampler = FanoutSampler(data, fanouts, args.amount_buckets)
    loader = torch.utils.data.DataLoader(train_idx, batch_size=args.batch_size, shuffle=True, collate_fn=sampler,
                                         num_workers=args.num_workers, persistent_workers=args.num_workers > 0)
    print(f"{tag} seed accounts {train_idx.numel()} ({int((data.y[train_idx] == 1).sum())} mules), "
          f"{len(loader)} batches/epoch, fanout {fanouts}, loader workers {args.num_workers}", flush=True)

    model = build_model(args.model, data.num_features + 8 * args.amount_buckets, args.hidden, len(fanouts), args.dropout)
    start_epoch = 1
    if args.resume:
        state = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        start_epoch = state["epoch"] + 1
        print(f"{tag} resumed from {args.resume} (epoch {state['epoch']}, val_auc {state['val_auc']:.4f})", flush=True)
    model = DDP(model)
    opt = (torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum) if args.optimizer == "sgd"
           else torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=5e-4))
    pos_weight = float((data.y[labelled] == 0).sum() / (data.y[labelled] == 1).sum().clamp(min=1))
    weight = torch.tensor([1.0, pos_weight])
    val_loader = None
    if rank == 0:
        val_loader = torch.utils.data.DataLoader(val_idx, batch_size=1024, collate_fn=FanoutSampler(data, fanouts, args.amount_buckets),
                                                 num_workers=args.num_workers)
        os.makedirs(args.ckpt_dir, exist_ok=True)

    for epoch in range(start_epoch, start_epoch + args.epochs):
        model.train()
        t0, total, n = time.time(), 0.0, 0
        for step, batch in enumerate(loader, 1):
            opt.zero_grad()
            out = model(batch.x, batch.edge_index)[: batch.batch_size]
            loss = F.cross_entropy(out, batch.y[: batch.batch_size], weight=weight)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {step}")
            loss.backward()
            opt.step()
            total, n = total + loss.item(), n + 1
            if step % args.log_every == 0 or step == len(loader):
                print(f"{tag} epoch {epoch} step {step}/{len(loader)} loss {loss.item():.4f}", flush=True)
        print(f"{tag} epoch {epoch} train_loss {total / max(n, 1):.4f} ({time.time() - t0:.1f} s)", flush=True)
        if rank == 0:
            f1, auc = evaluate(model.module, val_loader)
            print(f"{tag} epoch {epoch} val_f1 {f1:.4f} val_auc {auc:.4f}", flush=True)
            path = os.path.join(args.ckpt_dir, f"mule-{args.model}-epoch{epoch:03d}.pt")
            torch.save({"model": model.module.state_dict(), "epoch": epoch, "val_auc": auc, "args": vars(args)}, path)
            print(f"{tag} saved {path}", flush=True)
        dist.barrier()
    if rank == 0:
        print(f"{tag} finished {args.epochs} epochs", flush=True)
    dist.destroy_process_group()


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--model", default="sage", choices=["sage", "gcn", "gat"])
    ap.add_argument("--hidden", type=int, default=64)
    ap.add_argument("--dropout", type=float, default=0.2)
    ap.add_argument("--fanout", default="10,5")
    ap.add_argument("--batch-size", type=int, default=256)
    ap.add_argument("--num-workers", type=int, default=2)
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--lr", type=float, default=0.005)
    ap.add_argument("--optimizer", default="adam", choices=["adam", "sgd"])
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--amount-buckets", action="store_true", help="add incoming-amount histograms (C helper)")
    ap.add_argument("--shard-by", default="stride", choices=["stride", "region"])
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--resume", default="")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dist-timeout", type=int, default=300)
    ap.add_argument("--spawn", type=int, default=0)
    ap.add_argument("--port", type=int, default=29500)
    return ap.parse_args()


if __name__ == "__main__":
    args = parse()
    if args.spawn:
        torch.multiprocessing.spawn(main, args=(args,), nprocs=args.spawn, join=True)
    else:
        main(None, args)
