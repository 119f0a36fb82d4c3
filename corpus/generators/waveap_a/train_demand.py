"""Stock-out prediction for retail demand on a Dask cluster.

Reads the per-store daily sales export (data/sales/store-*.csv, one Dask partition per store), builds features with
dask.dataframe (item price means with a Dask groupby, per-item lags and trailing means with pandas rolling inside
each store's partition, promo depth, days of cover), and predicts whether an item runs out of stock in the next 7
days. Trainers:
  incremental  dask_ml.wrappers.Incremental around scikit-learn's SGDClassifier (log loss), one partial_fit pass per
               epoch, train log-loss and validation AUC per epoch, the model saved with joblib
  search       dask_ml.model_selection.HyperbandSearchCV over SGDClassifier's alpha/eta0, then the best model saved
  dp           a data-parallel numpy MLP: each store's partition stays on a worker (futures, or one actor per worker
               with --shards actors), per-partition gradients with client.map, averaged on the driver (SGD with
               momentum), per-step loss, per-epoch validation AUC, a checkpoint per epoch
Cluster: --scheduler ADDRESS (a running `dask scheduler`) or --local N (a LocalCluster with N worker processes).
"""
import argparse
import ctypes
import os
import sys
import time

import numpy as np
import pandas as pd

PROMO_DEPTH = {"none": 0.0, "flyer": 0.10, "tpr": 0.20, "display": 0.05}
FEATS = ["price_ratio", "promo_depth", "holiday", "dow", "weekend", "lag1", "lag7", "cover"]


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--scheduler", default="")
    ap.add_argument("--local", type=int, default=0, help="start a LocalCluster with this many worker processes")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--memory-limit", default="auto")
    ap.add_argument("--scheduler-port", type=int, default=0)
    ap.add_argument("--dashboard", default="", help="dashboard address, e.g. :8787 (off when empty)")
    ap.add_argument("--wait-workers", type=int, default=0)
    ap.add_argument("--wait-timeout", type=float, default=60)
    ap.add_argument("--data", default="data/sales")
    ap.add_argument("--trainer", choices=["incremental", "search", "dp"], default="incremental")
    ap.add_argument("--windows", default="7,28")
    ap.add_argument("--days-cover", choices=["python", "native"], default="python")
    ap.add_argument("--cross-item-window", type=int, default=0,
                    help="add each item's strongest sales correlation with another item over this many days")
    ap.add_argument("--valid-days", type=int, default=28)
    ap.add_argument("--epochs", type=int, default=5)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--alpha", type=float, default=1e-4)
    ap.add_argument("--hidden", type=int, default=16)
    ap.add_argument("--momentum", type=float, default=0.9)
    ap.add_argument("--batch-size", type=int, default=256, help="dp: rows per partition per step")
    ap.add_argument("--steps", type=int, default=20, help="dp: steps per epoch")
    ap.add_argument("--shards", choices=["futures", "actors"], default="futures")
    ap.add_argument("--balance", action="store_true", help="dp: weight stock-out rows by the batch's class ratio")
    ap.add_argument("--store-report", action="store_true", help="dp: per-store, per-item backtest after each epoch")
    ap.add_argument("--max-iter", type=int, default=9)
    ap.add_argument("--model-dir", default="models")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


# ---------------------------------------------------------------------------------------------------------------- features
def days_cover_native(stock, rate):
    lib = ctypes.CDLL(os.path.abspath("libstock.so"))
    lib.days_cover.argtypes = [ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_double), ctypes.c_int,
                               ctypes.POINTER(ctypes.c_double)]
    stock = np.ascontiguousarray(stock, dtype=np.float64)
    rate = np.ascontiguousarray(rate, dtype=np.float64)
    out = np.empty_like(stock)
    p = ctypes.POINTER(ctypes.c_double)
    lib.days_cover(stock.ctypes.data_as(p), rate.ctypes.data_as(p), len(stock), out.ctypes.data_as(p))
    return out


def cross_item(df, window):
    """Each (day, item)'s strongest correlation of trailing sales with another item of the store."""
    wide = df.pivot_table(index="date", columns="item", values="units", aggfunc="sum").fillna(0.0)
    x = wide.to_numpy(dtype=np.float64)  # days x items
    days, items = x.shape
    win = np.lib.stride_tricks.sliding_window_view(x, window, axis=0)  # (days-window+1) x items x window
    z = (win - win.mean(-1, keepdims=True)) / (win.std(-1, keepdims=True) + 1e-6)
    corr = (z[:, :, None, :] * z[:, None, :, :]).mean(-1)  # d x items x items
    corr[:, np.arange(items), np.arange(items)] = -1.0
    best = np.full((days, items), np.nan)
    best[window - 1:] = corr.max(-1)
    long = pd.DataFrame(best, index=wide.index, columns=wide.columns).stack().rename("cross_corr").reset_index()
    return df.merge(long, on=["date", "item"], how="left")


def store_features(df, price_mean, windows, cover, cross):
    df = df.sort_values(["item", "date"]).reset_index(drop=True)
    d = pd.to_datetime(df["date"])
    df["dow"] = d.dt.day_of_week.astype(float)
    df["weekend"] = (df["dow"] >= 4).astype(float)
    df["holiday"] = df["holiday"].astype(float)
    df["price_ratio"] = df["price"] / df["item"].map(price_mean)
    df["promo_depth"] = df["promo"].map(lambda p: PROMO_DEPTH[p])
    g = df.groupby("item")["units"]
    df["lag1"] = g.shift(1)
    df["lag7"] = g.shift(7)
    for w in windows:
        df[f"mean{w}"] = g.transform(lambda s, w=w: s.shift(1).rolling(w, min_periods=1).mean())
    rate = df[f"mean{windows[-1]}"]
    ok = rate.notna()
    df["cover"] = np.nan
    if cover == "native":
        df.loc[ok, "cover"] = days_cover_native(df.loc[ok, "stock_open"].to_numpy(), rate[ok].to_numpy())
    else:
        df.loc[ok, "cover"] = np.floor(df.loc[ok, "stock_open"] / rate[ok].clip(lower=0.05))
    df["cover"] = df["cover"].clip(upper=60.0)
    out = ((df["units"] >= df["stock_open"]) | (df["stock_open"] == 0)).astype(float)
    fut = out.groupby(df["item"]).transform(lambda s: s[::-1].rolling(7, min_periods=7).max()[::-1].shift(-1))
    df["stockout7"] = fut
    if cross:
        df = cross_item(df, cross)
    cols = ["date", "store", "item"] + FEATS + [f"mean{w}" for w in windows] + \
        (["cross_corr"] if cross else []) + ["stockout7"]
    df = df[cols].dropna().reset_index(drop=True)
    return df.astype({c: "float64" for c in cols[3:]})


def build_features(client, a):
    import dask.dataframe as dd
    windows = [int(w) for w in a.windows.split(",")]
    t0 = time.time()
    ddf = dd.read_csv(os.path.join(a.data, "store-*.csv"), blocksize=None,
                      dtype={"store": "object", "item": "object", "category": "object", "promo": "object"})
    print(f"[driver] {ddf.npartitions} partitions (one per store file)", flush=True)
    price_mean = ddf.groupby("item")["price"].mean().compute().to_dict()
    cols = {"date": "str", "store": "str", "item": "str", **{f: "float64" for f in FEATS},
            **{f"mean{w}": "float64" for w in windows}}
    if a.cross_item_window:
        cols["cross_corr"] = "float64"
    meta = pd.DataFrame({c: pd.Series([], dtype=t) for c, t in {**cols, "stockout7": "float64"}.items()})
    feats = ddf.map_partitions(store_features, price_mean, windows, a.days_cover, a.cross_item_window, meta=meta)
    feats = feats.persist()
    n = len(feats)
    last = feats["date"].max().compute()
    cut = (pd.Timestamp(last) - pd.Timedelta(days=a.valid_days)).strftime("%Y-%m-%d")
    rate = feats["stockout7"].mean().compute()
    print(f"[driver] features: {n} rows, {len(feats.columns) - 4} features, stock-out rate {rate:.3f}, "
          f"validation from {cut} ({time.time() - t0:.1f}s)", flush=True)
    return feats, cut, windows


def feature_cols(feats):
    return [c for c in feats.columns if c not in ("date", "store", "item", "stockout7")]


# ---------------------------------------------------------------------------------------------------------------- trainers
def train_incremental(client, feats, cut, a):
    import dask.array as da
    import joblib
    from dask_ml.preprocessing import StandardScaler
    from dask_ml.wrappers import Incremental
    from sklearn.linear_model import SGDClassifier
    from sklearn.metrics import log_loss, roc_auc_score
    cols = feature_cols(feats)
    tr, va = feats[feats["date"] < cut], feats[feats["date"] >= cut]
    Xtr = tr[cols].to_dask_array(lengths=True).astype("float64")
    ytr = tr["stockout7"].to_dask_array(lengths=True).astype("int64")
    scaler = StandardScaler().fit(Xtr)
    Xtr = scaler.transform(Xtr).persist()
    ytr = ytr.persist()
    Xva = scaler.transform(va[cols].to_dask_array(lengths=True).astype("float64")).compute()
    yva = va["stockout7"].to_dask_array(lengths=True).astype("int64").compute()
    print(f"[driver] train {Xtr.shape[0]} rows in {Xtr.numblocks[0]} blocks, valid {len(yva)} rows", flush=True)
    est = SGDClassifier(loss="log_loss", alpha=a.alpha, learning_rate="constant", eta0=a.lr, random_state=a.seed)
    inc = Incremental(est, scoring="neg_log_loss", shuffle_blocks=True, random_state=a.seed)
    os.makedirs(a.model_dir, exist_ok=True)
    for ep in range(1, a.epochs + 1):
        t0 = time.time()
        inc.partial_fit(Xtr, ytr, classes=[0, 1])
        p = da.clip(inc.predict_proba(Xtr)[:, 1], 1e-7, 1 - 1e-7)
        loss = float((-(ytr * da.log(p) + (1 - ytr) * da.log(1 - p))).mean().compute())
        pv = inc.estimator_.predict_proba(Xva)[:, 1]
        print(f"[driver] epoch {ep}/{a.epochs} train_logloss {loss:.4f} val_logloss {log_loss(yva, pv):.4f} "
              f"val_auc {roc_auc_score(yva, pv):.4f} ({time.time() - t0:.1f}s)", flush=True)
        joblib.dump(inc.estimator_, os.path.join(a.model_dir, f"checkpoint-epoch{ep}.joblib"))
    path = os.path.join(a.model_dir, "stockout_sgd.joblib")
    joblib.dump({"model": inc.estimator_, "scaler": scaler, "features": cols}, path)
    print(f"[driver] saved model {path}", flush=True)


def train_search(client, feats, cut, a):
    import joblib
    from dask_ml.model_selection import HyperbandSearchCV
    from dask_ml.preprocessing import StandardScaler
    from scipy.stats import loguniform
    from sklearn.linear_model import SGDClassifier
    from sklearn.metrics import roc_auc_score
    cols = feature_cols(feats)
    tr, va = feats[feats["date"] < cut], feats[feats["date"] >= cut]
    Xtr = tr[cols].to_dask_array(lengths=True).astype("float64")
    ytr = tr["stockout7"].to_dask_array(lengths=True).astype("int64")
    scaler = StandardScaler().fit(Xtr)
    Xtr = scaler.transform(Xtr).rechunk({0: 4000}).persist()
    ytr = ytr.rechunk(4000).persist()
    Xva = scaler.transform(va[cols].to_dask_array(lengths=True).astype("float64")).compute()
    yva = va["stockout7"].to_dask_array(lengths=True).astype("int64").compute()
    params = {"alpha": loguniform(1e-6, 1e-2), "eta0": loguniform(1e-4, 1e-1), "penalty": ["l2", "elasticnet"]}
    est = SGDClassifier(loss="log_loss", learning_rate="constant", random_state=a.seed)
    search = HyperbandSearchCV(est, params, max_iter=a.max_iter, random_state=a.seed, verbose=True)
    t0 = time.time()
    search.fit(Xtr, ytr, classes=[0, 1])
    print(f"[driver] search done in {time.time() - t0:.1f}s: {len(search.cv_results_['params'])} models, "
          f"best {search.best_params_} score {search.best_score_:.4f}", flush=True)
    pv = search.best_estimator_.predict_proba(Xva)[:, 1]
    print(f"[driver] best model val_auc {roc_auc_score(yva, pv):.4f}", flush=True)
    os.makedirs(a.model_dir, exist_ok=True)
    path = os.path.join(a.model_dir, "stockout_search.joblib")
    joblib.dump({"model": search.best_estimator_, "scaler": scaler, "features": cols}, path)
    print(f"[driver] saved model {path}", flush=True)


# data-parallel MLP in numpy
def to_xy(df, cols, cut, mu, sd):
    tr = df[df["date"] < cut]
    va = df[df["date"] >= cut]
    f = lambda d: ((d[cols].to_numpy(np.float64) - mu) / sd, d["stockout7"].to_numpy(np.float64))
    return {"store": df["store"].iloc[0] if len(df) else "", "train": f(tr), "valid": f(va),
            "items": df.loc[df["date"] >= cut, "item"].to_numpy()}


def forward(w, x):
    h = np.maximum(x @ w["W1"] + w["b1"], 0.0)
    z = h @ w["W2"] + w["b2"]
    return h, z[:, 0]


def part_grad(part, w, step, batch, seed, balance=False):
    x, y = part["train"]
    rng = np.random.default_rng(seed * 100003 + step)
    idx = rng.integers(0, len(y), size=min(batch, len(y)))
    x, y = x[idx], y[idx]
    h, z = forward(w, x)
    p = 1.0 / (1.0 + np.exp(-z))
    wt = np.ones_like(y)
    if balance:  # class-balanced loss: stock-out rows weighted by negatives/positives in the batch
        pos_w = (len(y) - y.sum()) / y.sum()
        wt = 1.0 + (pos_w - 1.0) * y
    loss = float(np.mean(wt * (np.logaddexp(0.0, z) - y * z)))
    dz = (wt * (p - y))[:, None] / len(y)
    g = {"W2": h.T @ dz, "b2": dz.sum(0)}
    dh = (dz @ w["W2"].T) * (h > 0)
    g["W1"] = x.T @ dh
    g["b1"] = dh.sum(0)
    return g, loss, len(y)


def part_predict(part, w):
    x, y = part["valid"]
    return forward(w, x)[1], y


def item_metrics(part, item, w):
    mask = part["items"] == item
    x, y = part["valid"]
    z = forward(w, x[mask])[1]
    return item, float(((z > 0) == (y[mask] > 0.5)).mean()) if mask.any() else float("nan")


def store_report(part, w):
    """Backtest each item of this store: one subtask per item, gathered here."""
    from distributed import get_client
    client = get_client()
    futs = [client.submit(item_metrics, part, it, w, pure=False) for it in np.unique(part["items"])]
    res = client.gather(futs)
    return part["store"], float(np.nanmean([r[1] for r in res]))


class ShardTrainer:
    """An actor holding one worker's share of the store partitions."""

    def __init__(self, parts):
        self.parts = parts
        self.steps = 0

    def grad(self, w, step, batch, seed, balance=False):
        self.steps += 1
        out = [part_grad(p, w, step, batch, seed + i, balance) for i, p in enumerate(self.parts)]
        n = sum(o[2] for o in out)
        g = {k: sum(o[0][k] * o[2] for o in out) / n for k in out[0][0]}
        return g, sum(o[1] * o[2] for o in out) / n, n

    def predict(self, w):
        return [part_predict(p, w) for p in self.parts]


def train_dp(client, feats, cut, a):
    from distributed import wait
    from sklearn.metrics import roc_auc_score
    cols = feature_cols(feats)
    tr = feats[feats["date"] < cut]
    mu = tr[cols].mean().compute().to_numpy(np.float64)
    sd = tr[cols].std().compute().to_numpy(np.float64) + 1e-9
    delayed = feats.to_delayed()
    dfs = client.compute(delayed)
    parts = client.map(to_xy, dfs, cols=cols, cut=cut, mu=mu, sd=sd)
    wait(parts)
    sizes = client.gather(client.map(lambda p: len(p["train"][1]), parts))
    print(f"[driver] {len(parts)} store partitions on {len(client.scheduler_info()['workers'])} workers, "
          f"train rows {sizes}", flush=True)
    rng = np.random.default_rng(a.seed)
    d = len(cols)
    w = {"W1": rng.normal(0, np.sqrt(2.0 / d), (d, a.hidden)), "b1": np.zeros(a.hidden),
         "W2": rng.normal(0, np.sqrt(1.0 / a.hidden), (a.hidden, 1)), "b2": np.zeros(1)}
    vel = {k: np.zeros_like(v) for k, v in w.items()}
    actors = []
    if a.shards == "actors":
        workers = sorted(client.scheduler_info()["workers"])
        groups = [[p for i, p in enumerate(parts) if i % len(workers) == j] for j in range(len(workers))]
        futs = [client.submit(ShardTrainer, g, actor=True, workers=[wk]) for g, wk in zip(groups, workers)]
        actors = [f.result() for f in futs]
        print(f"[driver] {len(actors)} ShardTrainer actors: " +
              ", ".join(f"{wk} ({len(g)} stores)" for wk, g in zip(workers, groups)), flush=True)
    os.makedirs(a.model_dir, exist_ok=True)
    step = 0
    for ep in range(1, a.epochs + 1):
        t0 = time.time()
        for s in range(1, a.steps + 1):
            step += 1
            if actors:
                res = [r.result() for r in [act.grad(w, step, a.batch_size, a.seed, a.balance) for act in actors]]
            else:
                res = client.gather(client.map(part_grad, parts, w=w, step=step, batch=a.batch_size, seed=a.seed,
                                               balance=a.balance, pure=False))
            n = sum(r[2] for r in res)
            g = {k: sum(r[0][k] * r[2] for r in res) / n for k in w}
            loss = sum(r[1] * r[2] for r in res) / n
            for k in w:
                vel[k] = a.momentum * vel[k] - a.lr * g[k]
                w[k] = w[k] + vel[k]
            if s % 5 == 0 or s == 1:
                print(f"[driver] epoch {ep} step {s}/{a.steps} loss {loss:.4f}", flush=True)
            if not np.isfinite(loss):
                print(f"[driver] epoch {ep} step {s}: loss is {loss}, stopping", flush=True)
                raise FloatingPointError(f"non-finite loss {loss} at step {step}")
        if actors:
            preds = [pr for act in actors for pr in act.predict(w).result()]
        else:
            preds = client.gather(client.map(part_predict, parts, w=w, pure=False))
        z = np.concatenate([p[0] for p in preds])
        y = np.concatenate([p[1] for p in preds])
        auc = roc_auc_score(y, z)
        print(f"[driver] epoch {ep}/{a.epochs} done in {time.time() - t0:.1f}s: val_auc {auc:.4f} "
              f"({len(y)} rows)", flush=True)
        if a.store_report:
            rep = client.gather(client.map(store_report, parts, w=w, pure=False))
            print("[driver] per-store backtest accuracy: " + ", ".join(f"{s} {v:.3f}" for s, v in rep), flush=True)
        ck = os.path.join(a.model_dir, f"checkpoint-epoch{ep}.npz")
        np.savez(ck, **w, mu=mu, sd=sd)
        print(f"[driver] saved {ck}", flush=True)
    path = os.path.join(a.model_dir, "stockout_mlp.npz")
    np.savez(path, **w, mu=mu, sd=sd)
    print(f"[driver] saved model {path}", flush=True)


def main():
    a = parse()
    print("[driver] args: " + " ".join(f"{k}={v}" for k, v in sorted(vars(a).items())), flush=True)
    from distributed import Client, LocalCluster
    import dask
    import distributed
    cluster = None
    if a.local:
        cluster = LocalCluster(n_workers=a.local, threads_per_worker=a.threads, processes=True,
                               memory_limit=a.memory_limit, scheduler_port=a.scheduler_port,
                               dashboard_address=a.dashboard or None)
        client = Client(cluster)
    else:
        client = Client(a.scheduler)
    print(f"[driver] dask {dask.__version__} distributed {distributed.__version__}, scheduler "
          f"{client.scheduler.address}", flush=True)
    if a.wait_workers:
        print(f"[driver] waiting for {a.wait_workers} workers (timeout {a.wait_timeout:.0f}s)", flush=True)
        client.wait_for_workers(a.wait_workers, timeout=a.wait_timeout)
    info = client.scheduler_info()["workers"]
    print(f"[driver] {len(info)} workers: " + ", ".join(
        f"{v.get('name')} nthreads={v['nthreads']} memory_limit={v['memory_limit'] / 2**20:.0f}MiB"
        for v in info.values()), flush=True)
    feats, cut, _ = build_features(client, a)
    {"incremental": train_incremental, "search": train_search, "dp": train_dp}[a.trainer](client, feats, cut, a)
    client.close()
    if cluster is not None:
        cluster.close()
    print("[driver] done", flush=True)


if __name__ == "__main__":
    main()
