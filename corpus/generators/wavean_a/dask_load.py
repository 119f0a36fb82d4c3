"""Load forecaster with lightgbm.dask on a local dask cluster: each dask worker holds the partitions (substations)
it built; DaskLGBMRegressor trains one LightGBM machine per worker (socket network set up by lightgbm.dask)."""
import argparse
import time
from pathlib import Path

import dask
import dask.dataframe as dd
import lightgbm as lgb
import numpy as np
import pandas as pd
from distributed import Client, LocalCluster

from features import build


def one(data: str, sid: str, meta: dict, lags, windows) -> pd.DataFrame:
    raw = pd.read_csv(Path(data) / "load" / f"{sid}.csv")
    df = build(raw, meta | {"id": sid}, lags, windows)
    df = df[df["timestamp"] >= df["timestamp"].min() + pd.Timedelta(days=7)]
    return df.drop(columns=["substation"])


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--scheduler-port", type=int, default=30131)
    ap.add_argument("--listen-port", type=int, default=30133, help="LightGBM port of the first worker (the next ones follow)")
    ap.add_argument("--memory-limit", default="2GiB")
    ap.add_argument("--objective", default="huber")
    ap.add_argument("--rounds", type=int, default=150)
    ap.add_argument("--lr", type=float, default=0.08)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--valid-days", type=int, default=14)
    ap.add_argument("--lags", default="1,2,3,24,48,168")
    ap.add_argument("--windows", default="24,168")
    ap.add_argument("--out", default="models")
    a = ap.parse_args()
    lags = [int(x) for x in a.lags.split(",") if x]
    windows = [int(x) for x in a.windows.split(",") if x]
    cluster = LocalCluster(n_workers=a.workers, threads_per_worker=1, processes=True, scheduler_port=a.scheduler_port,
                           dashboard_address=None, memory_limit=a.memory_limit)
    client = Client(cluster)
    print(f"dask cluster: {client.scheduler.address} workers={len(client.scheduler_info()['workers'])} "
          f"lightgbm={lgb.__version__} dask={dask.__version__}", flush=True)
    meta = pd.read_csv(Path(a.data) / "substations.csv").set_index("id")
    parts = [dask.delayed(one)(a.data, sid, meta.loc[sid].to_dict(), lags, windows) for sid in meta.index]
    t0 = time.time()
    df = dd.from_delayed(parts).persist()
    cut = df["timestamp"].max().compute() - pd.Timedelta(days=a.valid_days)
    train, valid = df[df["timestamp"] <= cut], df[df["timestamp"] > cut]
    cols = [c for c in df.columns if c not in ("timestamp", "load_mw")]
    X, y = train[cols].persist(), train["load_mw"].persist()
    Xv, yv = valid[cols].persist(), valid["load_mw"].persist()
    print(f"partitions={df.npartitions} train_rows={len(X)} valid_rows={len(Xv)} features={len(cols)} "
          f"({time.time() - t0:.1f}s)", flush=True)
    model = lgb.DaskLGBMRegressor(client=client, objective=a.objective, n_estimators=a.rounds, learning_rate=a.lr,
                                  num_leaves=a.leaves, min_child_samples=40, subsample=0.8, subsample_freq=1,
                                  colsample_bytree=0.9, tree_learner="data",
                                  machines=",".join(f"127.0.0.1:{a.listen_port + i}" for i in range(a.workers)),
                                  time_out=5, num_threads=1, verbose=1,
                                  **({"alpha": 2.0} if a.objective == "huber" else {}))
    print(f"training: {a.rounds} rounds, objective={a.objective}, lr={a.lr}", flush=True)
    t1 = time.time()
    model.fit(X, y, eval_set=[(Xv, yv)], eval_names=["valid"], eval_metric=["rmse", "mape"])
    res = model.evals_result_["valid"]
    for i in range(0, a.rounds, 10):
        if i < len(res["rmse"]):
            print(f"round {i + 1}/{a.rounds} valid_rmse={res['rmse'][i]:.4f} valid_mape={res['mape'][i]:.4f}",
                  flush=True)
    print(f"training done: {model.booster_.current_iteration()} trees ({time.time() - t1:.1f}s)", flush=True)
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    model.booster_.save_model(str(out / "load_forecaster.txt"))
    print(f"saved model {out / 'load_forecaster.txt'}", flush=True)
    gain = model.booster_.feature_importance(importance_type="gain")
    print("feature importance (gain, top 10):", flush=True)
    for i in np.argsort(gain)[::-1][:10]:
        print(f"  {cols[i]:<16} {gain[i]:14.1f}", flush=True)
    client.close()
    cluster.close()


if __name__ == "__main__":
    main()
