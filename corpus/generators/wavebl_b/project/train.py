"""Churn model: gradient boosting on the customer snapshot with a Dask cluster (XGBoost or LightGBM)."""
import argparse
import json
import logging
import os
import time

import dask
import dask.dataframe as dd
import numpy as np
import pandas as pd
from distributed import Client


ap = argparse.ArgumentParser()
ap.add_argument("--scheduler", required=True)
ap.add_argument("--n-workers", type=int, default=2)
ap.add_argument("--wait-timeout", type=float, default=60)
ap.add_argument("--data", default="data/customers")
ap.add_argument("--config", default="configs/churn.json")
ap.add_argument("--engine", default="xgboost", choices=["xgboost", "lightgbm"])
ap.add_argument("--rounds", type=int, default=60)
ap.add_argument("--verbose-eval", type=int, default=5)
ap.add_argument("--model-dir", default="models")
ap.add_argument("--tracker-port", type=int, default=29858)
ap.add_argument("--lgb-port", type=int, default=29860)
ap.add_argument("--plan-buckets", type=int, default=64)
ap.add_argument("--resume", action="store_true")
a = ap.parse_args()

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("churn")


def main():
    t0 = time.time()
    params = json.load(open(a.config))
    log.info("connecting to %s", a.scheduler)
    client = Client(a.scheduler, timeout="20s")
    log.info("client: %s (dask %s)", client, dask.__version__)
    log.info("waiting for %d workers (timeout %.0fs)", a.n_workers, a.wait_timeout)
    client.wait_for_workers(a.n_workers, timeout=a.wait_timeout)
    workers = client.scheduler_info(n_workers=-1)["workers"]
    for addr, w in sorted(workers.items()):
        log.info("worker %s name=%s nthreads=%s memory_limit=%.2f GiB", addr, w.get("name"), w.get("nthreads"),
                 w.get("memory_limit", 0) / 2**30)

    client.upload_file("features.py")
    from features import add_features

    regions = json.load(open("data/regions.json"))
    ddf = dd.read_parquet(a.data)
    log.info("read %s: %d partitions, columns %s", a.data, ddf.npartitions, list(ddf.columns))
    meta = add_features(ddf._meta, regions, a.plan_buckets)
    feats = ddf.map_partitions(add_features, regions, a.plan_buckets, meta=meta)
    train, valid = feats.random_split([0.85, 0.15], random_state=42)
    cols = [c for c in meta.columns if c not in ("customer_id", "churned")]
    X, y = train[cols].persist(), train["churned"].persist()
    Xv, yv = valid[cols].persist(), valid["churned"].persist()
    n_train, n_valid, pos = dask.compute(y.shape[0], yv.shape[0], y.mean())
    log.info("features: %d columns; train rows %d, valid rows %d, churn rate %.3f", len(cols), n_train, n_valid, pos)

    os.makedirs(a.model_dir, exist_ok=True)
    if a.engine == "xgboost":
        import xgboost as xgb
        from xgboost import dask as dxgb
        from xgboost.collective import Config
        log.info("xgboost %s params %s", xgb.__version__, params)
        dtrain = dxgb.DaskDMatrix(client, X, y)
        dvalid = dxgb.DaskDMatrix(client, Xv, yv)
        init = None
        path = os.path.join(a.model_dir, "churn-xgb.json")
        if a.resume and os.path.exists(path):
            init = xgb.Booster(model_file=path)
            log.info("resuming from %s (%d rounds already)", path, init.num_boosted_rounds())
        t1 = time.time()
        out = dxgb.train(client, params, dtrain, num_boost_round=a.rounds, evals=[(dtrain, "train"), (dvalid, "valid")],
                         verbose_eval=a.verbose_eval, xgb_model=init,
                         coll_cfg=Config(tracker_host_ip="127.0.0.1", tracker_port=a.tracker_port, timeout=120))
        bst, hist = out["booster"], out["history"]
        metrics = list(hist["valid"])
        for r in range(0, len(hist["valid"][metrics[0]]), a.verbose_eval):
            log.info("round %3d %s", r, " ".join(f"{s}-{m} {hist[s][m][r]:.5f}" for s in ("train", "valid")
                                                 for m in metrics))
        log.info("trained %d rounds in %.1fs", bst.num_boosted_rounds(), time.time() - t1)
        final = hist["valid"][metrics[0]][-1]
        if not np.isfinite(final):
            log.error("valid-%s is %s after %d rounds; not saving the model", metrics[0], final, a.rounds)
            raise SystemExit(1)
        pred = dxgb.predict(client, bst, Xv)
        if params["objective"].startswith("binary:"):
            acc = ((pred > 0.5).astype("int8") == yv.values).mean().compute()
            log.info("valid accuracy %.4f", acc)
        bst.save_model(path)
        imp = bst.get_score(importance_type="gain")
        for k, v in sorted(imp.items(), key=lambda kv: -kv[1])[:8]:
            log.info("importance %-26s %.2f", k, v)
    else:
        import lightgbm as lgb
        log.info("lightgbm %s", lgb.__version__)
        lp = {"n_estimators": a.rounds, "learning_rate": params.get("learning_rate", 0.1),
              "num_leaves": 31, "subsample": params.get("subsample", 1.0), "subsample_freq": 1,
              "colsample_bytree": params.get("colsample_bytree", 1.0), "n_jobs": 1}
        hosts = sorted(client.scheduler_info(n_workers=-1)["workers"])
        machines = ",".join(f"127.0.0.1:{a.lgb_port + i}" for i in range(len(hosts)))
        log.info("lightgbm machines %s", machines)
        model = lgb.DaskLGBMClassifier(client=client, machines=machines, time_out=2, **lp)
        t1 = time.time()
        model.fit(X, y, eval_set=[(Xv, yv)], eval_names=["valid"], eval_metric=["binary_logloss", "auc"])
        ev = model.evals_result_["valid"]
        for r in range(0, len(ev["binary_logloss"]), a.verbose_eval):
            log.info("round %3d valid-logloss %.5f valid-auc %.5f", r, ev["binary_logloss"][r], ev["auc"][r])
        log.info("trained %d rounds in %.1fs", model.booster_.current_iteration(), time.time() - t1)
        path = os.path.join(a.model_dir, "churn-lgb.txt")
        model.booster_.save_model(path)
    log.info("model saved to %s (%d bytes)", path, os.path.getsize(path))
    log.info("done in %.1fs", time.time() - t0)
    client.close()


if __name__ == "__main__":
    main()
