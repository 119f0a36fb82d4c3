"""Turbine fault detection with PyTorch DDP under Spark's TorchDistributor: Spark builds the SCADA window features
and writes them as parquet (one folder per turbine); TorchDistributor runs the training function in a barrier stage,
one gloo DDP process per task; each process reads its turbines, trains a small MLP, reports loss and validation AUC,
and rank 0 saves checkpoints and the model."""
import argparse
import os
import time

from pyspark.ml.torch.distributor import TorchDistributor
from pyspark.sql import SparkSession

import scada_features

ap = argparse.ArgumentParser()
ap.add_argument("--data", default="data")
ap.add_argument("--epochs", type=int, default=6)
ap.add_argument("--batch-size", type=int, default=256)
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--holdout-days", type=int, default=4)
ap.add_argument("--num-processes", type=int, default=2)
ap.add_argument("--turbine-embedding", type=int, default=0, help="learned per-turbine embedding of this size")
ap.add_argument("--loader-workers", type=int, default=0)
ap.add_argument("--dist-timeout", type=int, default=1800)
ap.add_argument("--fault-report", action="store_true", help="rank 0 prints a per-turbine alarm report every epoch")
ap.add_argument("--out", default="models")
a = ap.parse_args()

spark = SparkSession.builder.appName("turbine-fault-ddp").getOrCreate()
spark.sparkContext.setLogLevel("WARN")
print(f"spark {spark.version} master={spark.sparkContext.master}")
print(f"args: {vars(a)}", flush=True)
t0 = time.time()
df, cols = scada_features.build(scada_features.load(spark, a.data))
train, valid = scada_features.split(df, a.holdout_days)
feat_dir = os.path.abspath("features")
keep = ["turbine", "fault_24h"] + cols
train.select(keep).write.mode("overwrite").partitionBy("turbine").parquet(f"{feat_dir}/train")
valid.select(keep).write.mode("overwrite").partitionBy("turbine").parquet(f"{feat_dir}/valid")
print(f"features: {len(cols)} columns written to {feat_dir} [{time.time() - t0:.1f}s]", flush=True)


def train_fn(feat_dir, cols, epochs, batch_size, lr, hidden, emb, loader_workers, dist_timeout, report, out):
    import datetime
    import glob
    import math

    import numpy as np
    import pandas as pd
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP
    from torch.utils.data import DataLoader, TensorDataset

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=dist_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    turbines = sorted(os.path.basename(p).split("=")[1] for p in glob.glob(f"{feat_dir}/train/turbine=*"))
    mine = turbines[rank::world]
    print(f"[rank {rank}/{world}] host pid {os.getpid()} turbines {','.join(mine)}", flush=True)

    def read(split):
        parts = []
        for t in mine:
            p = pd.read_parquet(f"{feat_dir}/{split}/turbine={t}")
            p["turbine"] = t
            parts.append(p)
        return pd.concat(parts, ignore_index=True)

    tr, va = read("train"), read("valid")
    mu, sd = tr[cols].mean(), tr[cols].std() + 1e-6
    stats = torch.tensor(np.stack([mu.to_numpy(), sd.to_numpy()]), dtype=torch.float64)
    dist.all_reduce(stats)
    stats /= world
    mu, sd = stats[0].numpy(), stats[1].numpy()
    codes = {t: i for i, t in enumerate(sorted(tr["turbine"].unique()))}

    def tensors(p):
        x = torch.tensor(((p[cols].to_numpy() - mu) / sd), dtype=torch.float32)
        tid = torch.tensor(p["turbine"].map(codes).to_numpy(), dtype=torch.long)
        return x, tid, torch.tensor(p["fault_24h"].to_numpy(), dtype=torch.float32)

    xtr, ttr, ytr = tensors(tr)
    xva, tva, yva = tensors(va)

    class FaultNet(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(len(codes), emb) if emb else None
            self.mlp = torch.nn.Sequential(torch.nn.Linear(len(cols) + emb, hidden), torch.nn.ReLU(),
                                           torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                           torch.nn.Linear(hidden, 1))

        def forward(self, x, t):
            if self.emb is not None:
                x = torch.cat([x, self.emb(t)], 1)
            return self.mlp(x).squeeze(1)

    model = DDP(FaultNet())
    opt = torch.optim.Adam(model.parameters(), lr=lr)
    pos_weight = torch.tensor([(ytr == 0).sum().item() / max(1, (ytr == 1).sum().item())])
    lossf = torch.nn.BCEWithLogitsLoss(pos_weight=pos_weight)
    n = torch.tensor([len(ytr)])
    dist.all_reduce(n, op=dist.ReduceOp.MIN)
    steps = int(n.item()) // batch_size
    loader = DataLoader(TensorDataset(xtr, ttr, ytr), batch_size=batch_size, shuffle=True, drop_last=True,
                        num_workers=loader_workers)
    print(f"[rank {rank}] train rows {len(ytr)} valid rows {len(yva)} steps/epoch {steps}", flush=True)

    def auc(score, y):
        order = np.argsort(score)
        r = np.empty(len(score))
        r[order] = np.arange(1, len(score) + 1)
        npos = y.sum()
        return (r[y == 1].sum() - npos * (npos + 1) / 2) / (npos * (len(y) - npos))

    os.makedirs(out, exist_ok=True)
    for ep in range(1, epochs + 1):
        model.train()
        t0, tot = time.time(), 0.0
        it = iter(loader)
        for step in range(1, steps + 1):
            xb, tb, yb = next(it)
            loss = lossf(model(xb, tb), yb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            tot += loss.item()
            if step % 20 == 0 and rank == 0:
                print(f"epoch {ep} step {step}/{steps} loss {loss.item():.4f}", flush=True)
            if not math.isfinite(loss.item()):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {ep} step {step} on rank {rank}")
        model.eval()
        with torch.no_grad():
            sv = torch.sigmoid(model(xva, tva)).numpy()
        if report and rank == 0:
            st = torch.sigmoid(model(xtr, ttr)).detach().numpy()
            for t in sorted(codes):
                m = (tr["turbine"] == t).to_numpy()
                s_t, y_t = st[m], ytr.numpy()[m]
                # readings raising an alarm although more than a day of alarms came before them and no fault followed
                late = sum(1 for i in range(len(s_t)) if sum(s_t[j] > 0.5 for j in range(i)) > 144
                           and s_t[i] > 0.5 and not y_t[i])
                print(f"  alarm report {t}: {int((s_t > 0.5).sum())} alarm readings, {late} false-alarm readings",
                      flush=True)
        gathered = [None] * world
        dist.all_gather_object(gathered, (sv.tolist(), yva.numpy().tolist()))
        s = np.concatenate([g[0] for g in gathered])
        y = np.concatenate([g[1] for g in gathered])
        ltot = torch.tensor([tot / steps])
        dist.all_reduce(ltot)
        if rank == 0:
            print(f"epoch {ep} train loss {ltot.item() / world:.4f} valid AUC {auc(s, y):.4f} "
                  f"[{time.time() - t0:.1f}s]", flush=True)
            torch.save({"epoch": ep, "model": model.module.state_dict(), "opt": opt.state_dict()},
                       f"{out}/checkpoint-epoch{ep}.pt")
            print(f"saved checkpoint {out}/checkpoint-epoch{ep}.pt", flush=True)
    if rank == 0:
        torch.save(model.module.state_dict(), f"{out}/turbine_fault.pt")
        print(f"saved model {out}/turbine_fault.pt", flush=True)
    dist.destroy_process_group()
    return "ok"


res = TorchDistributor(num_processes=a.num_processes, local_mode=False, use_gpu=False).run(
    train_fn, feat_dir, cols, a.epochs, a.batch_size, a.lr, a.hidden, a.turbine_embedding, a.loader_workers,
    a.dist_timeout, a.fault_report, os.path.abspath(a.out))
print(f"training returned {res}", flush=True)
spark.stop()
