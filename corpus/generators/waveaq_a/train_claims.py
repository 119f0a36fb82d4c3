"""Claim fraud scoring and claim severity on a motor book, trained in parallel with joblib / process pools.

modes:
  search  fraud classifier, GridSearchCV / RandomizedSearchCV with n_jobs workers (joblib, loky by default)
  cv      claim severity regressor, cross_validate with n_jobs workers, then a final fit
  shards  claim severity GLM (log link, gamma deviance) trained data-parallel: per-shard gradients computed by a
          worker pool (joblib.Parallel, concurrent.futures or multiprocessing.Pool), averaged by the driver
"""
import argparse
import ctypes
import os
import sys
import time

import joblib
import numpy as np
import pandas as pd
import sklearn
from joblib import Parallel, delayed, parallel_config
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import HistGradientBoostingClassifier, HistGradientBoostingRegressor, RandomForestClassifier, \
    RandomForestRegressor
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import average_precision_score, mean_absolute_error, roc_auc_score
from sklearn.model_selection import GridSearchCV, KFold, RandomizedSearchCV, StratifiedKFold, cross_validate, \
    train_test_split
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from claim_features import encode_shard, shard_grad

HERE = os.path.dirname(os.path.abspath(__file__))
NUMERIC = ["age", "years_licensed", "credit_band", "sum_insured", "annual_premium", "vehicle_age", "vehicle_value",
           "value_ratio", "annual_mileage", "report_delay_days", "witness", "police_report", "prior_claims",
           "days_since_prior", "prior_mean_amount"]
CATEG = ["region", "make", "vehicle_use", "claim_type"]


def load_book(data, amount_scale=1.0):
    pol = pd.read_csv(f"{data}/policyholders.csv")
    veh = pd.read_csv(f"{data}/vehicles.csv")
    clm = pd.read_csv(f"{data}/claims.csv", parse_dates=["claim_date"])
    df = clm.merge(pol, on="policy_id", how="left").merge(veh, on="policy_id", how="left")
    df = df.sort_values(["policy_id", "claim_date"]).reset_index(drop=True)
    df["amount"] = df["amount"] * amount_scale
    df["vehicle_age"] = df.claim_date.dt.year - df.vehicle_year
    df["value_ratio"] = df.vehicle_value / df.sum_insured
    g = df.groupby("policy_id")
    df["prior_claims"] = g.cumcount()
    df["days_since_prior"] = g.claim_date.diff().dt.days.fillna(9999)
    df["prior_mean_amount"] = g.amount.transform(lambda s: s.shift().expanding().mean()).fillna(0.0)
    return df


class VinCheck(BaseEstimator, TransformerMixin):
    """Adds vin_ok (check digit valid) to the numeric features: cloned or re-plated vehicles fail it."""

    def __init__(self, engine="python"):
        self.engine = engine

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        X = X.copy()
        if self.engine == "native":
            lib = ctypes.CDLL(os.path.join(HERE, "libvincheck.so"))
            lib.vin_check_ok.argtypes = [ctypes.c_char_p]
            X["vin_ok"] = [lib.vin_check_ok(v.encode()) for v in X["vin"]]
        else:
            X["vin_ok"] = [int(len(v) == 17) for v in X["vin"]]
        return X.drop(columns=["vin"])


class AuditedEncoder(BaseEstimator, TransformerMixin):
    """One-hot encoding that writes which categories it saw to an audit log (for the model-risk review)."""

    def __init__(self, audit=None):
        self.audit = audit

    def fit(self, X, y=None):
        self.enc_ = OneHotEncoder(handle_unknown="ignore", sparse_output=False).fit(X)
        if self.audit is not None:
            self.audit.write(f"fit on {len(X)} rows: {[list(c) for c in self.enc_.categories_]}\n")
        return self

    def transform(self, X):
        return self.enc_.transform(X)


def build_pipeline(model, a, audit):
    cat = AuditedEncoder(audit) if audit is not None else OneHotEncoder(handle_unknown="ignore", sparse_output=False)
    pre = ColumnTransformer([("num", "passthrough" if model != "logreg" else StandardScaler(), NUMERIC + ["vin_ok"]),
                             ("cat", cat, CATEG)])
    if model == "hgb":
        est = HistGradientBoostingClassifier(random_state=0)
    elif model == "rf":
        est = RandomForestClassifier(random_state=0, n_jobs=a.model_jobs)
    else:
        est = LogisticRegression(max_iter=500)
    return Pipeline([("vin", VinCheck(a.vin_check)), ("pre", pre), ("clf", est)])


GRIDS = {
    "hgb": {"clf__learning_rate": [0.03, 0.1], "clf__max_leaf_nodes": [15, 31, 63], "clf__l2_regularization": [0.0, 1.0]},
    "rf": {"clf__n_estimators": [100, 200], "clf__max_depth": [8, None], "clf__min_samples_leaf": [1, 5]},
    "logreg": {"clf__C": [0.01, 0.1, 1.0, 10.0], "clf__class_weight": [None, "balanced"]},
}


def make_lift_scorer(q):
    """Lift of the top q share of claims by fraud score over the base fraud rate (what the SIU team can investigate)."""

    def lift(est, X, y):
        p = est.predict_proba(X)[:, 1]
        top = p >= np.quantile(p, 1 - q)
        return y[top].mean() / max(y.mean(), 1e-9)

    return lift


def run_search(a):
    df = load_book(a.data)
    X = df[NUMERIC + CATEG + ["vin"]]
    y = df.fraud.values
    Xtr, Xva, ytr, yva = train_test_split(X, y, test_size=0.2, stratify=y, random_state=0)
    print(f"train {len(Xtr)} claims, validation {len(Xva)} ({ytr.mean():.1%} fraud)", flush=True)
    audit = open(a.audit_log, "a") if a.audit_log else None
    pipe = build_pipeline(a.model, a, audit)
    grid = dict(GRIDS[a.model])
    if a.extra_grid:
        for kv in a.extra_grid.split(";"):
            k, v = kv.split("=")
            grid[k] = [None if x == "None" else type_of(x) for x in v.split(",")]
    cv = StratifiedKFold(a.folds, shuffle=True, random_state=0)
    scoring = make_lift_scorer(float(a.scoring.split("@")[1]) / 100) if a.scoring.startswith("lift@") else a.scoring
    err = "raise" if a.error_score == "raise" else np.nan
    if a.search == "grid":
        search = GridSearchCV(pipe, grid, scoring=scoring, cv=cv, n_jobs=a.n_jobs, verbose=a.verbose,
                              error_score=err, pre_dispatch=a.pre_dispatch)
    else:
        search = RandomizedSearchCV(pipe, grid, n_iter=a.n_iter, scoring=scoring, cv=cv, n_jobs=a.n_jobs,
                                    verbose=a.verbose, error_score=err, random_state=0, pre_dispatch=a.pre_dispatch)
    t0 = time.time()
    with parallel_config(backend=a.backend):
        search.fit(Xtr, ytr)
    print(f"search done in {time.time() - t0:.1f}s; best params {search.best_params_}", flush=True)
    i = search.best_index_
    folds = [search.cv_results_[f"split{k}_test_score"][i] for k in range(a.folds)]
    for k, s in enumerate(folds):
        print(f"fold {k}: {a.scoring} {s:.4f}", flush=True)
    print(f"cv {a.scoring} {np.mean(folds):.4f} +/- {np.std(folds):.4f}", flush=True)
    p = search.predict_proba(Xva)[:, 1]
    print(f"validation roc_auc {roc_auc_score(yva, p):.4f} pr_auc {average_precision_score(yva, p):.4f}", flush=True)
    save(search.best_estimator_, f"fraud-{a.model}.joblib", a)


def type_of(x):
    for t in (int, float):
        try:
            return t(x)
        except ValueError:
            pass
    return x


def save(model, name, a):
    os.makedirs(a.model_dir, exist_ok=True)
    path = os.path.join(a.model_dir, name)
    joblib.dump(model, path, compress=a.compress)
    print(f"saved {path} ({os.path.getsize(path) / 1e6:.1f} MB)", flush=True)


def run_cv(a):
    df = load_book(a.data)
    X = pd.get_dummies(df[NUMERIC + CATEG], columns=CATEG, dtype=float)
    y = np.log1p(df.amount.values)
    if a.init_from:
        model = joblib.load(a.init_from)
        print(f"continuing from {a.init_from}: {type(model).__name__} with {len(model.estimators_)} trees", flush=True)
        model.set_params(warm_start=True, n_estimators=len(model.estimators_) + a.trees)
    elif a.model == "rf":
        model = RandomForestRegressor(n_estimators=a.trees, max_depth=a.max_depth, min_samples_leaf=a.min_leaf,
                                      n_jobs=a.model_jobs, random_state=0)
    else:
        model = HistGradientBoostingRegressor(max_iter=a.trees, random_state=0)
    if a.expand_postcode:
        X = pd.concat([X, pd.get_dummies(df.postcode, prefix="pc", dtype=float)], axis=1)
    Xv = X.values.astype(np.float64)
    print(f"severity features {Xv.shape} ({Xv.nbytes / 1e6:.0f} MB), model {model}", flush=True)
    cv = KFold(a.folds, shuffle=True, random_state=0)
    t0 = time.time()
    if a.quick_check and not a.init_from:  # a fast sanity fit on a sample before the long cross-validation
        rng = np.random.default_rng(0)
        k = rng.random(len(y)) < 0.2
        quick = sklearn.clone(model).fit(Xv[k], y[k])
        print(f"quick check on {k.sum()} claims: in-sample r2 {quick.score(Xv[k], y[k]):.3f} "
              f"({time.time() - t0:.1f}s)", flush=True)
    if not a.init_from:
        with parallel_config(backend=a.backend):
            res = cross_validate(model, Xv, y, cv=cv, n_jobs=a.n_jobs, verbose=a.verbose,
                                 scoring=("neg_mean_absolute_error", "r2"))
        for k in range(a.folds):
            print(f"fold {k}: MAE(log amount) {-res['test_neg_mean_absolute_error'][k]:.4f} "
                  f"r2 {res['test_r2'][k]:.4f} fit {res['fit_time'][k]:.1f}s", flush=True)
        print(f"cv r2 {res['test_r2'].mean():.4f} +/- {res['test_r2'].std():.4f} ({time.time() - t0:.1f}s)", flush=True)
    Xtr, Xva, ytr, yva = train_test_split(Xv, y, test_size=0.2, random_state=1)
    model.fit(Xtr, ytr)
    pred = model.predict(Xva)
    print(f"validation MAE {mean_absolute_error(np.expm1(yva), np.expm1(pred)):.1f} EUR", flush=True)
    save(model, f"severity-{a.model}.joblib", a)


# ---- data-parallel GLM ------------------------------------------------------------------------------------------------
def run_shards(a):
    df = load_book(a.data, amount_scale=a.amount_scale)
    df = df[df.amount > 0]
    val = df.sample(frac=0.15, random_state=0)
    tr = df.drop(val.index)
    shards = [tr.iloc[i::a.shards].copy() for i in range(a.shards)]
    print(f"{len(tr)} training claims in {a.shards} shards, {len(val)} validation; pool {a.pool} x {a.n_jobs}",
          flush=True)
    w = np.zeros(14)
    w[-1] = np.log(tr.amount.mean())
    os.makedirs(a.ckpt_dir, exist_ok=True)
    if a.pool == "joblib":
        par = Parallel(n_jobs=a.n_jobs, backend=a.backend, verbose=a.verbose, timeout=a.task_timeout)
        gather = lambda w: par(delayed(shard_grad)(s, w, a.scale, a.cache) for s in shards)  # noqa: E731
        close = lambda: None  # noqa: E731
    elif a.pool == "futures":
        from concurrent.futures import ProcessPoolExecutor
        ex = ProcessPoolExecutor(a.n_jobs)
        gather = lambda w: [f.result() for f in [ex.submit(shard_grad, s, w, a.scale, a.cache) for s in shards]]  # noqa
        close = ex.shutdown
    else:
        import multiprocessing as mp
        pool = mp.get_context(a.start_method).Pool(a.n_jobs)
        gather = lambda w: pool.starmap(shard_grad, [(s, w, a.scale, a.cache) for s in shards])  # noqa: E731
        close = pool.close
    t0 = time.time()
    for step in range(1, a.steps + 1):
        res = gather(w)
        n = sum(r[2] for r in res)
        g = sum(r[0] * r[2] for r in res) / n
        dev = sum(r[1] * r[2] for r in res) / n
        w = w - a.lr * g
        if step % a.log_every == 0 or step == 1:
            print(f"step {step:4d} | gamma deviance {dev:.5f} | |grad| {np.linalg.norm(g):.4g} | "
                  f"{time.time() - t0:.1f}s", flush=True)
        if not np.isfinite(dev):
            raise FloatingPointError(f"deviance is {dev} at step {step}")
        if step % a.eval_every == 0:
            Xv, yv = encode_shard(val, a.scale)
            mu = np.exp(Xv @ w)
            print(f"eval step {step}: validation MAE {np.mean(np.abs(mu - yv)):.1f} EUR, "
                  f"deviance {2 * np.mean(yv / mu - np.log(yv / mu) - 1):.5f}", flush=True)
            path = os.path.join(a.ckpt_dir, f"glm-step{step}.joblib")
            joblib.dump({"w": w, "step": step}, path)
            print(f"checkpoint saved: {path}", flush=True)
    close()
    save({"w": w, "features": 14}, "severity-glm.joblib", a)
    print(f"finished {a.steps} steps in {time.time() - t0:.1f}s", flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["search", "cv", "shards"])
    ap.add_argument("--data", default="data")
    ap.add_argument("--model", default="hgb")
    ap.add_argument("--search", default="grid", choices=["grid", "random"])
    ap.add_argument("--scoring", default="roc_auc")
    ap.add_argument("--n-iter", type=int, default=8)
    ap.add_argument("--extra-grid", default="")
    ap.add_argument("--folds", type=int, default=5)
    ap.add_argument("--n-jobs", type=int, default=2)
    ap.add_argument("--model-jobs", type=int, default=None)
    ap.add_argument("--backend", default="loky")
    ap.add_argument("--verbose", type=int, default=2)
    ap.add_argument("--pre-dispatch", default="2*n_jobs")
    ap.add_argument("--error-score", default="nan")
    ap.add_argument("--vin-check", default="python", choices=["python", "native"])
    ap.add_argument("--audit-log", default="")
    ap.add_argument("--trees", type=int, default=100)
    ap.add_argument("--max-depth", type=int, default=None)
    ap.add_argument("--min-leaf", type=int, default=1)
    ap.add_argument("--init-from", default="")
    ap.add_argument("--expand-postcode", action="store_true")
    ap.add_argument("--no-quick-check", dest="quick_check", action="store_false")
    ap.add_argument("--model-dir", default="models")
    ap.add_argument("--compress", type=int, default=0)
    ap.add_argument("--pool", default="joblib", choices=["joblib", "futures", "mp"])
    ap.add_argument("--start-method", default="fork")
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--steps", type=int, default=200)
    ap.add_argument("--lr", type=float, default=0.1)
    ap.add_argument("--amount-scale", type=float, default=1.0)
    ap.add_argument("--no-scale", dest="scale", action="store_false")
    ap.add_argument("--cache", action="store_true")
    ap.add_argument("--task-timeout", type=float, default=None)
    ap.add_argument("--log-every", type=int, default=10)
    ap.add_argument("--eval-every", type=int, default=50)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    a = ap.parse_args()
    print(f"{os.path.basename(sys.argv[0])} {a.mode}: python {sys.version.split()[0]}, scikit-learn "
          f"{sklearn.__version__}, joblib {joblib.__version__}, numpy {np.__version__}, pandas {pd.__version__}",
          flush=True)
    print("args: " + " ".join(f"{k}={v}" for k, v in sorted(vars(a).items())), flush=True)
    {"search": run_search, "cv": run_cv, "shards": run_shards}[a.mode](a)


if __name__ == "__main__":
    main()
