"""Learning-to-rank for search results with ``xgboost.dask`` (rank:ndcg) on a dask.distributed cluster.

The query-group shards are read as one dask DataFrame partition per shard file; each dask worker holds its partitions,
and XGBoost's collective (tracker in the client, one XGBoost worker per dask worker) builds the trees together. Per-round
NDCG@10 on the validation set, early stopping, checkpoints from XGBoost worker 0, feature importances at the end.

    python dask_rank.py --local 2                        (LocalCluster, one thread per worker)
    python dask_rank.py --scheduler tcp://127.0.0.1:29921 (workers started with `dask worker`)
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import sys
import time

import dask
import dask.dataframe as dd
import numpy as np
import xgboost as xgb
import xgboost.dask  # noqa: F401
from dask.distributed import Client, LocalCluster, wait


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scheduler", default="")
    ap.add_argument("--local", type=int, default=0, help="start a LocalCluster with this many workers")
    ap.add_argument("--memory-limit", default="2GiB", help="per worker (LocalCluster)")
    ap.add_argument("--scheduler-port", type=int, default=29921)
    ap.add_argument("--dashboard", default="", help="dashboard address (LocalCluster); empty: off")
    ap.add_argument("--data", default="data")
    ap.add_argument("--rounds", type=int, default=150)
    ap.add_argument("--eta", type=float, default=0.1)
    ap.add_argument("--max-depth", type=int, default=6)
    ap.add_argument("--early-stop", type=int, default=15)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--ckpt-every", type=int, default=10)
    ap.add_argument("--pair-features", action="store_true", help="add products of every feature pair")
    ap.add_argument("--wait-workers", type=int, default=2)
    ap.add_argument("--export", default="model")
    return ap.parse_args()


def pair_features(df):
    """Products of every pair of features (feature crosses), computed per partition."""
    cols = [c for c in df.columns if c not in ("qid", "label")]
    out = {f"{a}_x_{b}": df[a] * df[b] for i, a in enumerate(cols) for b in cols[i:]}
    big = df.assign(**out)
    return big.astype({c: "float64" for c in big.columns if c not in ("qid", "label")})


def frames(files: list[str], pairs: bool):
    df = dd.read_csv(files, blocksize=None)
    if pairs:
        df = df.map_partitions(pair_features)
    feats = [c for c in df.columns if c not in ("qid", "label")]
    return df[feats], df["label"], df["qid"], feats


def main() -> int:
    a = parse()
    print(f"dask_rank: xgboost {xgb.__version__} dask {dask.__version__} pid {os.getpid()} args {json.dumps(vars(a))}",
          flush=True)
    if a.local:
        cluster = LocalCluster(n_workers=a.local, threads_per_worker=1, memory_limit=a.memory_limit,
                               scheduler_port=a.scheduler_port, dashboard_address=a.dashboard or None)
        client = Client(cluster)
    else:
        client = Client(a.scheduler)
    client.wait_for_workers(a.wait_workers)
    workers = client.scheduler_info(n_workers=-1)["workers"] if "n_workers" in Client.scheduler_info.__code__.co_varnames \
        else client.scheduler_info()["workers"]
    print(f"dask_rank: connected to {client.scheduler.address}, {len(workers)} workers: "
          + ", ".join(f"{w} ({v.get('memory_limit', 0) / 2**30:.1f} GiB)" for w, v in sorted(workers.items())), flush=True)
    train = sorted(glob.glob(f"{a.data}/train/*.csv"))
    val = sorted(glob.glob(f"{a.data}/val/*.csv"))
    x, y, qid, feats = frames(train, a.pair_features)
    xv, yv, qv, _ = frames(val, a.pair_features)
    x, y, qid, xv, yv, qv = client.persist([x, y, qid, xv, yv, qv])
    wait([x, y, qid, xv, yv, qv])
    print(f"dask_rank: {len(train)} train shards ({len(y)} documents), {len(val)} valid shards ({len(yv)} documents), "
          f"{len(feats)} features", flush=True)
    dtrain = xgb.dask.DaskDMatrix(client, x, y, qid=qid, feature_names=feats)
    dval = xgb.dask.DaskDMatrix(client, xv, yv, qid=qv, feature_names=feats)
    params = {"objective": "rank:ndcg", "eval_metric": "ndcg@10", "eta": a.eta, "max_depth": a.max_depth,
              "tree_method": "hist", "nthread": 1, "lambdarank_pair_method": "topk", "lambdarank_num_pair_per_sample": 10,
              "seed": 7}
    callbacks = []
    if a.ckpt_every:
        ckpt = os.path.abspath(a.ckpt_dir)
        os.makedirs(ckpt, exist_ok=True)
        callbacks.append(xgb.callback.TrainingCheckPoint(directory=ckpt, name="ranker", interval=a.ckpt_every))
    t0 = time.time()
    out = xgb.dask.train(client, params, dtrain, num_boost_round=a.rounds, evals=[(dtrain, "train"), (dval, "valid")],
                         early_stopping_rounds=a.early_stop, verbose_eval=10, callbacks=callbacks)
    bst, hist = out["booster"], out["history"]
    for i in range(0, len(hist["valid"]["ndcg@10"]), 10):
        print(f"dask_rank: round {i} train-ndcg@10 {hist['train']['ndcg@10'][i]:.4f} "
              f"valid-ndcg@10 {hist['valid']['ndcg@10'][i]:.4f}", flush=True)
    print(f"dask_rank: training done in {time.time() - t0:.1f} s: {bst.num_boosted_rounds()} rounds, best iteration "
          f"{bst.best_iteration} valid-ndcg@10 {bst.best_score:.4f}", flush=True)
    os.makedirs(a.export, exist_ok=True)
    bst.save_model(f"{a.export}/ranker.ubj")
    print(f"dask_rank: saved {a.export}/ranker.ubj", flush=True)
    imp = sorted(bst.get_score(importance_type="gain").items(), key=lambda kv: -kv[1])[:10]
    print("dask_rank: feature importance (gain): " + ", ".join(f"{k} {v:.2f}" for k, v in imp), flush=True)
    client.close()
    if a.local:
        cluster.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
