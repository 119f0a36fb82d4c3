"""Next-day bread demand forecaster for the bakery chain: an MLP over store/product/weekday/weather/promotion features
predicting log(1 + next-day units) per store x product.

Lightning Fabric, DDP over gloo on CPU. Launched with the Fabric CLI:

    fabric run --accelerator cpu --devices 2 --main-port 33351 train_demand.py --epochs 3

(the strategy is built in code so the process-group timeout can be set; see --pg-timeout)."""
import argparse
import functools
import logging
import os
import sys
import time
from datetime import timedelta

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import torch.nn.functional as F
from lightning.fabric import Fabric
from lightning.fabric.loggers import CSVLogger
from lightning.fabric.strategies import DDPStrategy
from torch.utils.data import DataLoader, TensorDataset

log = logging.getLogger("bakery.demand")
FEATURES = ["weekday", "temp_c", "promo", "shelf_capacity", "units_sold"]


class DemandNet(nn.Module):
    def __init__(self, n_in: int, n_stores: int, n_products: int) -> None:
        super().__init__()
        self.store = nn.Embedding(n_stores, 8)
        self.product = nn.Embedding(n_products, 4)
        self.mlp = nn.Sequential(nn.Linear(n_in + 12, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x, s, p):
        return self.mlp(torch.cat([x, self.store(s), self.product(p)], 1)).squeeze(1)


def dough_depth(recipes: dict):
    @functools.lru_cache(maxsize=None)
    def depth(product: str) -> int:  # how many proofing stages the product's dough goes through
        base = recipes.get(product, "")
        return 0 if not base else 1 + depth(base)
    return depth


def load(path: str, recipes_path: str):
    df = pd.read_csv(path)
    bad = df[df["units_sold"] < 0]
    for _, r in bad.iterrows():
        log.error("store %s %s %s: negative units_sold %d (till refund?), row dropped", r["store"], r["product"],
                  r["date"], r["units_sold"])
    df = df[df["units_sold"] >= 0].reset_index(drop=True)
    rec = pd.read_csv(recipes_path, keep_default_na=False)
    depth = dough_depth(dict(zip(rec["product"], rec["base"])))
    df["dough_depth"] = [depth(p) for p in df["product"]]
    x = np.stack([
        df["weekday"].to_numpy() / 6.0,
        (df["temp_c"].to_numpy() - 12) / 6.0,
        df["promo"].to_numpy(),
        np.log(df["shelf_capacity"].to_numpy()) - 5.5,
        np.log1p(df["units_sold"].to_numpy()) - 3.0,
        df["dough_depth"].to_numpy() / 3.0,
    ], 1).astype(np.float32)
    stores = {s: i for i, s in enumerate(sorted(df["store"].unique()))}
    products = {p: i for i, p in enumerate(sorted(df["product"].unique()))}
    s = torch.tensor(df["store"].map(stores).to_numpy())
    p = torch.tensor(df["product"].map(products).to_numpy())
    y = torch.from_numpy(np.log1p(df["next_day_units"].to_numpy()).astype(np.float32))
    day = pd.to_datetime(df["date"])
    val = (day >= day.max() - pd.Timedelta(days=4)).to_numpy()
    return torch.from_numpy(x), s, p, y, torch.from_numpy(val), len(stores), len(products)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/daily_sales.csv")
    ap.add_argument("--recipes", default="data/recipes.csv")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--batch-size", type=int, default=32, help="per process")
    ap.add_argument("--global-batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=2e-3)
    ap.add_argument("--optimizer", default="adamw")
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--loader-workers", type=int, default=0)
    ap.add_argument("--step-delay", type=float, default=0.0)
    ap.add_argument("--pg-timeout", type=int, default=1800, help="process-group timeout, seconds")
    ap.add_argument("--augment-copies", type=int, default=0)
    ap.add_argument("--store-weights", action="store_true", help="weight the loss by inverse store frequency")
    a = ap.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    sys.setrecursionlimit(1_000_000)  # recipe trees can be deep

    strategy = DDPStrategy(process_group_backend="gloo", timeout=timedelta(seconds=a.pg_timeout))
    fabric = Fabric(accelerator="cpu", devices=2, strategy=strategy, loggers=CSVLogger("logs", name="demand"))
    if os.environ.get("LT_CLI_USED") != "1":  # `fabric run` has already started the processes
        fabric.launch()
    fabric.seed_everything(1234)
    fabric.print(f"world size {fabric.world_size}, args: {vars(a)}")
    if a.global_batch != a.batch_size * fabric.world_size:
        raise ValueError(f"global batch {a.global_batch} != batch size {a.batch_size} x world size "
                         f"{fabric.world_size}")

    if fabric.global_rank != 0:
        logging.getLogger("bakery").setLevel(logging.CRITICAL)
    x, s, p, y, val, n_stores, n_products = load(a.data, a.recipes)
    tr = ~val
    xt, st, pt, yt = x[tr], s[tr], p[tr], y[tr]
    if a.augment_copies:  # weather-noise copies of the training rows, built up front
        xs = [xt]
        for k in range(a.augment_copies):
            xs.append(xt + 0.05 * torch.randn(xt.shape, dtype=torch.float64))
            if k % 2000 == 0:
                print(f"[rank{fabric.global_rank}] augmentation: built {k} of {a.augment_copies} copies", flush=True)
        xt = torch.cat([t.float() for t in xs])
        st, pt, yt = st.repeat(a.augment_copies + 1), pt.repeat(a.augment_copies + 1), yt.repeat(a.augment_copies + 1)
    train_loader = DataLoader(TensorDataset(xt, st, pt, yt), batch_size=a.batch_size, shuffle=True,
                              num_workers=a.loader_workers, drop_last=True)
    val_loader = DataLoader(TensorDataset(x[val], s[val], p[val], y[val]), batch_size=256)
    train_loader, val_loader = fabric.setup_dataloaders(train_loader, val_loader)  # DistributedSampler per rank

    weight = None
    if a.store_weights:  # rows per store over all shards -> inverse-frequency weights
        mine = torch.cat([b[1] for b in train_loader])
        counts = fabric.all_reduce(torch.bincount(mine).double(), reduce_op="sum")
        weight = (counts.sum() / (len(counts) * counts.clamp(min=1))).float()
        fabric.print(f"store weights: {[round(w, 2) for w in weight.tolist()]}")

    model = DemandNet(x.shape[1], n_stores, n_products)
    if a.optimizer == "adamw":
        opt = torch.optim.AdamW(model.parameters(), lr=a.lr, weight_decay=1e-4)
    elif a.optimizer == "sgd":
        opt = torch.optim.SGD(model.parameters(), lr=a.lr, momentum=0.9)
    else:
        raise ValueError(f"unknown optimizer {a.optimizer!r}")
    model, opt = fabric.setup(model, opt)

    state = {"model": model, "optimizer": opt, "epoch": 0}
    last = os.path.join(a.ckpt_dir, "last.ckpt")
    if a.resume and os.path.exists(last):
        fabric.load(last, state)
        fabric.print(f"resumed from {last} (epoch {state['epoch']})")
    start = state["epoch"] + 1
    if start > a.epochs:
        fabric.print(f"nothing to do: checkpoint is at epoch {state['epoch']} of {a.epochs}")

    step = 0
    mae = float("nan")
    for epoch in range(start, a.epochs + 1):
        model.train()
        t0, tot, n = time.time(), 0.0, 0
        for i, (xb, sb, pb, yb) in enumerate(train_loader, 1):
            err = (model(xb, sb, pb) - yb) ** 2
            loss = (err * weight[sb]).mean() if weight is not None else err.mean()
            opt.zero_grad()
            fabric.backward(loss)
            opt.step()
            step += 1
            tot += loss.item()
            n += 1
            if i % a.log_every == 0:
                fabric.print(f"epoch {epoch} step {i}/{len(train_loader)} loss {loss.item():.4f}")
                fabric.log("train/loss", loss.item(), step=step)
            if not torch.isfinite(loss):
                raise FloatingPointError(f"loss is {loss.item()} at epoch {epoch} step {i}")
            if a.step_delay:
                time.sleep(a.step_delay)
        model.eval()
        abs_err, cnt = torch.zeros(()), torch.zeros(())
        with torch.no_grad():
            for xb, sb, pb, yb in val_loader:
                pred = torch.expm1(model(xb, sb, pb)).clamp(min=0)
                abs_err += (pred - torch.expm1(yb)).abs().sum()
                cnt += len(yb)
        tot_t = fabric.all_reduce(torch.tensor([tot, n], dtype=torch.float64), reduce_op="sum")
        abs_err, cnt = fabric.all_reduce(abs_err, reduce_op="sum"), fabric.all_reduce(cnt, reduce_op="sum")
        mae = (abs_err / cnt).item()
        fabric.print(f"epoch {epoch} done: train loss {tot_t[0] / tot_t[1]:.4f} val MAE {mae:.2f} loaves "
                     f"({time.time() - t0:.1f} s)")
        fabric.log_dict({"val/mae": mae, "epoch": epoch}, step=step)
        state["epoch"] = epoch
        fabric.save(os.path.join(a.ckpt_dir, f"epoch-{epoch}.ckpt"), state)
        fabric.save(last, state)
        fabric.print(f"saved checkpoint {a.ckpt_dir}/epoch-{epoch}.ckpt")
        fabric.barrier()
    fabric.print(f"finished {a.epochs} epochs, val MAE {mae:.2f} loaves")


if __name__ == "__main__":
    main()
