"""Task demand-fcst-v4: next-day unit sales per store/SKU family from the last 28 days, a small GRU trained with
PyTorch DDP (gloo) under Spark's TorchDistributor on the team's standalone cluster. The driver builds the windows
with Spark SQL and writes them as parquet (one file per rank); each barrier task runs one torch process."""
import argparse
import os
import time

from pyspark.ml.torch.distributor import TorchDistributor
from pyspark.sql import SparkSession, Window
from pyspark.sql import functions as F

ap = argparse.ArgumentParser()
ap.add_argument("--num-processes", type=int, default=2)
ap.add_argument("--epochs", type=int, default=3)
ap.add_argument("--batch-size", type=int, default=64)
ap.add_argument("--lr", type=float, default=2e-3)
ap.add_argument("--optim", choices=["adam", "sgd"], default="adam")
ap.add_argument("--hidden", type=int, default=48)
ap.add_argument("--log-every", type=int, default=10)
ap.add_argument("--ckpt-every", type=int, default=50)
ap.add_argument("--ckpt-dir", default="checkpoints/demand-fcst-v4")
ap.add_argument("--resume", action="store_true")
ap.add_argument("--dist-timeout", type=int, default=1800)
a = ap.parse_args()

spark = SparkSession.builder.appName("demand-fcst-v4").getOrCreate()
spark.sparkContext.setLogLevel("WARN")
print(f"spark {spark.version} master={spark.sparkContext.master} app={spark.sparkContext.applicationId}", flush=True)
print(f"args: {vars(a)}", flush=True)
t0 = time.time()
W = 28
sales = spark.read.csv("data/sales.csv", header=True, inferSchema=True)
w = Window.partitionBy("store", "family").orderBy("day")
df = sales.withColumn("y", F.log1p("units")).withColumn("hist", F.collect_list("y").over(w.rowsBetween(-W, -1)))
df = df.where(F.size("hist") == W).select("store", "region", "family", "day", "promo", "price", "y", "hist")
cols = ["hist"]
feat = os.path.abspath("features/windows")
df.repartition(a.num_processes, "store").write.mode("overwrite").parquet(feat)
print(f"features: {df.count()} windows of {W} days written to {feat} [{time.time() - t0:.1f}s]", flush=True)


def train_fn(feat, cols, epochs, bs, lr, optim, hidden, log_every, ckpt_every, ckpt_dir, resume, dist_timeout, hooks_py):
    import datetime
    import glob
    import importlib.util
    import math
    import socket

    import numpy as np
    import pandas as pd
    import torch
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("gloo", timeout=datetime.timedelta(seconds=dist_timeout))
    rank, world = dist.get_rank(), dist.get_world_size()
    host = socket.gethostname()
    print(f"[rank {rank}/{world}] {host} pid {os.getpid()} torch {torch.__version__} backend gloo", flush=True)
    hooks = None
    if os.path.exists(hooks_py):
        spec = importlib.util.spec_from_file_location("hooks", hooks_py)
        hooks = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(hooks)
    files = sorted(glob.glob(f"{feat}/part-*.parquet"))
    df = pd.concat([pd.read_parquet(f) for f in files[rank::world]], ignore_index=True)
    regions = sorted(pd.concat([pd.read_parquet(f, columns=["region"]) for f in files])["region"].unique())
    region_index = {r: i for i, r in enumerate(regions)}
    x = torch.tensor(np.stack(df[cols[0]].to_numpy()), dtype=torch.float32).unsqueeze(-1)
    extra = torch.tensor(np.stack([df["promo"].to_numpy(), df["price"].to_numpy() - 2.5,
                                   (df["family"] == "DAIRY").to_numpy()], 1), dtype=torch.float32)
    reg = torch.tensor(df["region"].map(region_index).to_numpy(), dtype=torch.long)
    y = torch.tensor(df["y"].to_numpy(), dtype=torch.float32)
    n = torch.tensor([len(y)])
    dist.all_reduce(n, op=dist.ReduceOp.MIN)
    steps = int(n.item()) // bs
    print(f"[rank {rank}] {host}: {len(y)} windows from {len(files[rank::world])} file(s), {steps} steps/epoch", flush=True)

    class DemandGRU(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.gru = torch.nn.GRU(1, hidden, batch_first=True)
            self.reg = torch.nn.Embedding(len(regions), 4)
            self.head = torch.nn.Sequential(torch.nn.Linear(hidden + 7, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))

        def forward(self, x, e, r):
            _, h = self.gru(x)
            return self.head(torch.cat([h[-1], e, self.reg(r)], 1)).squeeze(1)

    torch.manual_seed(0)
    model = DDP(DemandGRU())
    opt = (torch.optim.Adam(model.parameters(), lr=lr) if optim == "adam"
           else torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9))
    start_epoch, step = 1, 0
    if resume:
        ck = sorted(glob.glob(f"{ckpt_dir}/epoch-*.pt"))
        if ck:
            state = torch.load(ck[-1], weights_only=False)
            model.module.load_state_dict(state["model"])
            opt.load_state_dict(state["opt"])
            start_epoch, step = state["epoch"] + 1, state["step"]
            print(f"[rank {rank}] resumed from {ck[-1]} (epoch {state['epoch']}, step {step})", flush=True)
    os.makedirs(ckpt_dir, exist_ok=True)

    def save(path, ep):
        torch.save({"model": model.module.state_dict(), "opt": opt.state_dict(), "epoch": ep, "step": step}, path)
        print(f"[rank 0] saved checkpoint {path}", flush=True)

    g = torch.Generator().manual_seed(rank)
    ctx = {"region_index": region_index, "remap": {"S-2": "S-3"}}
    last = float("nan")
    for ep in range(start_epoch, epochs + 1):
        t0, tot = time.time(), 0.0
        perm = torch.randperm(len(y), generator=g)
        for i in range(steps):
            idx = perm[i * bs:(i + 1) * bs]
            pred = model(x[idx], extra[idx], reg[idx])
            loss = torch.nn.functional.mse_loss(pred, y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            step += 1
            last = loss.item()
            tot += last
            if not math.isfinite(last):
                raise FloatingPointError(f"loss is {last} at epoch {ep} step {step} on rank {rank} ({host})")
            if hooks is not None:
                hooks.on_step(rank, step, ctx)
            if step % log_every == 0:
                if rank == 0:
                    print(f"epoch {ep} step {step:4d} | loss {last:.4f} | lr {lr:g} | {time.time() - t0:.1f}s", flush=True)
                elif step % (log_every * 5) == 0:
                    print(f"[rank {rank}] {host} step {step:4d} loss {last:.4f}", flush=True)
            if rank == 0 and step % ckpt_every == 0:
                save(f"{ckpt_dir}/step-{step:05d}.pt", ep - 1)
        m = torch.tensor([tot / steps, 1.0])
        dist.all_reduce(m)
        if rank == 0:
            print(f"epoch {ep} done: mean loss {m[0].item() / world:.4f} over {world} ranks [{time.time() - t0:.1f}s]",
                  flush=True)
            save(f"{ckpt_dir}/epoch-{ep:02d}.pt", ep)
        dist.barrier()
    dist.destroy_process_group()
    return {"rank": rank, "final_loss": last, "steps": step}


out = TorchDistributor(num_processes=a.num_processes, local_mode=False, use_gpu=False).run(
    train_fn, feat, cols, a.epochs, a.batch_size, a.lr, a.optim, a.hidden, a.log_every, a.ckpt_every,
    os.path.abspath(a.ckpt_dir), a.resume, a.dist_timeout, os.path.abspath("data/hooks.py"))
print(f"training complete: {out} [{time.time() - t0:.1f}s]", flush=True)
spark.stop()
