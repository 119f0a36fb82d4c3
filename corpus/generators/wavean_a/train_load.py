"""Distributed LightGBM load forecaster: one process per machine, each holding a slice of the substations.

Hourly load per substation (data/load/sub-NN.csv) -> calendar, weather, lag and rolling-window features -> a
LightGBM regressor for the next hour's load, trained data-parallel over the machines of `--machines` (socket
network). Each worker validates on the last `--valid-days` days of its own substations (or of all substations with
`--valid shared`); worker 0 saves checkpoints and the final model and prints the feature importances.
"""
import argparse
import faulthandler
import json
import os
import socket
import sys
import time
from pathlib import Path

import lightgbm as lgb
import numpy as np
import pandas as pd

from features import build


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", default="", help="json file of defaults (command-line options win)")
    ap.add_argument("--data", default="data")
    ap.add_argument("--machines", default="", help="comma list host:port, one per machine")
    ap.add_argument("--machine-list-file", default="", help="file with one 'host port' line per machine")
    ap.add_argument("--num-machines", type=int, default=0, help="default: the length of the machine list")
    ap.add_argument("--rank", type=int, default=-1, help="this machine's index (default OMPI_COMM_WORLD_RANK)")
    ap.add_argument("--listen-port", type=int, default=0, help="default: this machine's port in the list")
    ap.add_argument("--tree-learner", default="data", choices=["data", "voting", "feature"])
    ap.add_argument("--objective", default="l2", choices=["l2", "huber", "relative_l2"])
    ap.add_argument("--rounds", type=int, default=150)
    ap.add_argument("--lr", type=float, default=0.08)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--min-data-in-leaf", type=int, default=40)
    ap.add_argument("--feature-fraction", type=float, default=0.9)
    ap.add_argument("--early-stop", type=int, default=0, help="stop after N rounds without validation improvement")
    ap.add_argument("--valid", default="local", choices=["local", "shared"])
    ap.add_argument("--valid-days", type=int, default=14)
    ap.add_argument("--lags", default="1,2,3,24,48,168")
    ap.add_argument("--windows", default="24,168")
    ap.add_argument("--rolling-lib", action="store_true", help="trailing means with the C helper (librolling.so)")
    ap.add_argument("--target-unit", default="MW", choices=["MW", "kW"])
    ap.add_argument("--time-out", type=int, default=120, help="LightGBM socket time-out, minutes")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--checkpoint-every", type=int, default=0)
    ap.add_argument("--out", default="models")
    ap.add_argument("--seed", type=int, default=17)
    a = ap.parse_args()
    if a.config:
        defaults = json.loads(Path(a.config).read_text())
        for k, v in defaults.items():
            if f"--{k.replace('_', '-')}" not in sys.argv:
                setattr(a, k, v)
    return a


def machine_list(a) -> list[str]:
    if a.machine_list_file:
        rows = [ln.split() for ln in Path(a.machine_list_file).read_text().splitlines() if ln.strip()]
        return [f"{h}:{p}" for h, p in rows]
    return a.machines.split(",")


def load_slice(a, ids: list[str], meta: pd.DataFrame) -> pd.DataFrame:
    lags = [int(x) for x in a.lags.split(",") if x]
    windows = [int(x) for x in a.windows.split(",") if x]
    parts = []
    for sid in ids:
        raw = pd.read_csv(Path(a.data) / "load" / f"{sid}.csv")
        m = meta.loc[sid].to_dict() | {"id": sid}
        parts.append(build(raw, m, lags, windows, a.rolling_lib, a.target_unit))
    return pd.concat(parts, ignore_index=True)


def split(df: pd.DataFrame, days: int):
    cut = df["timestamp"].max() - pd.Timedelta(days=days)
    df = df[df["timestamp"] >= df["timestamp"].min() + pd.Timedelta(days=7)]  # lags need a week of history
    return df[df["timestamp"] <= cut], df[df["timestamp"] > cut]


def xy(df: pd.DataFrame):
    cols = [c for c in df.columns if c not in ("timestamp", "load_mw", "substation")]
    return df[cols], df["load_mw"].to_numpy()


def relative_l2(preds: np.ndarray, data: lgb.Dataset):
    """Squared relative error ((p - y) / y)^2: every substation weighs the same whatever its size."""
    y = data.get_label()
    return 2 * (preds - y) / y ** 2, 2 / y ** 2


def main() -> None:
    faulthandler.enable()
    a = parse()
    machines = machine_list(a)
    rank = a.rank if a.rank >= 0 else int(os.environ.get("OMPI_COMM_WORLD_RANK", "0"))
    n = a.num_machines or len(machines)
    port = a.listen_port or int(machines[rank].rsplit(":", 1)[1])
    tag = f"[worker {rank}]"
    print(f"{tag} host={socket.gethostname()} pid={os.getpid()} lightgbm={lgb.__version__} num_machines={n} "
          f"listen_port={port} tree_learner={a.tree_learner}", flush=True)
    print(f"{tag} args: " + " ".join(f"{k}={v}" for k, v in vars(a).items() if k not in ("machines",)), flush=True)

    meta = pd.read_csv(Path(a.data) / "substations.csv").set_index("id")
    ids = [sid for i, sid in enumerate(meta.index) if i % n == rank]
    t0 = time.time()
    df = load_slice(a, ids, meta)
    train_df, valid_df = split(df, a.valid_days)
    if a.valid == "shared":
        _, valid_df = split(load_slice(a, list(meta.index), meta), a.valid_days)
    X, y = xy(train_df)
    Xv, yv = xy(valid_df)
    print(f"{tag} substations={len(ids)} ({ids[0]}..{ids[-1]}) train_rows={len(X)} valid_rows={len(Xv)} "
          f"features={X.shape[1]} load_mw: mean={np.mean(y):.2f} max={np.max(y):.2f} ({time.time() - t0:.1f}s)",
          flush=True)

    params = {
        "objective": "regression" if a.objective == "relative_l2" else a.objective,
        "metric": ["rmse", "mape"],
        "learning_rate": a.lr,
        "num_leaves": a.leaves,
        "min_data_in_leaf": a.min_data_in_leaf,
        "feature_fraction": a.feature_fraction,
        "bagging_fraction": 0.8,
        "bagging_freq": 1,
        "tree_learner": a.tree_learner,
        "num_machines": n,
        "machines": ",".join(machines),
        "local_listen_port": port,
        "time_out": a.time_out,
        "pre_partition": True,
        "num_threads": a.threads,
        "seed": a.seed,
        "verbosity": 1,
    }
    if a.objective == "relative_l2":
        params["objective"] = relative_l2
    if a.objective == "huber":
        params["alpha"] = 2.0
    dtrain = lgb.Dataset(X, y, categorical_feature=["kind", "region"], free_raw_data=False)
    dvalid = lgb.Dataset(Xv, yv, reference=dtrain)
    out = Path(a.out)
    if rank == 0:
        out.mkdir(parents=True, exist_ok=True)

    def progress(env: lgb.callback.CallbackEnv) -> None:
        it = env.iteration + 1
        res = {f"{d}_{m}": v for d, m, v, _ in env.evaluation_result_list}
        if it == 1 or it % a.log_every == 0:
            msg = " ".join(f"{k}={v:.4f}" for k, v in res.items())
            print(f"{tag} round {it}/{a.rounds} {msg} ({time.time() - t_train:.1f}s)", flush=True)
        if rank == 0 and a.checkpoint_every and it % a.checkpoint_every == 0:
            path = out / f"checkpoint-{it:04d}.txt"
            env.model.save_model(str(path))
            print(f"{tag} saved checkpoint {path} ({path.stat().st_size} bytes)", flush=True)

    callbacks = [progress]
    if a.early_stop:
        callbacks.append(lgb.early_stopping(a.early_stop, first_metric_only=True, verbose=True))
    print(f"{tag} training: {a.rounds} rounds, objective={a.objective}, lr={a.lr}, leaves={a.leaves}", flush=True)
    t_train = time.time()
    booster = lgb.train(params, dtrain, num_boost_round=a.rounds, valid_sets=[dtrain, dvalid],
                        valid_names=["train", "valid"], callbacks=callbacks)
    print(f"{tag} training done: {booster.current_iteration()} trees, best_iteration={booster.best_iteration} "
          f"({time.time() - t_train:.1f}s)", flush=True)
    if rank == 0:
        path = out / "load_forecaster.txt"
        booster.save_model(str(path), num_iteration=booster.best_iteration or None)
        print(f"{tag} saved model {path} ({path.stat().st_size} bytes)", flush=True)
        gain = booster.feature_importance(importance_type="gain")
        order = np.argsort(gain)[::-1][:10]
        print(f"{tag} feature importance (gain, top 10):", flush=True)
        for i in order:
            print(f"{tag}   {booster.feature_name()[i]:<16} {gain[i]:14.1f}", flush=True)
    print(f"{tag} done", flush=True)


if __name__ == "__main__":
    main()
