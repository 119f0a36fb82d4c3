"""Learning-to-rank for search results with distributed XGBoost (rank:ndcg), one process per worker.

Every worker joins the job's collective through the tracker (``xgboost.collective.CommunicatorContext``), loads its own
shard of query groups (train and validation), and ``xgboost.train`` builds the trees together (histograms are
all-reduced across workers). Per-round NDCG@10 on the validation set, early stopping, checkpoints from worker 0 and the
top feature importances at the end.

    python rank_train.py --tracker 127.0.0.1:29901 --task-id 0 [--rounds 80] ...
    mpirun -np 2 python rank_train.py --tracker 127.0.0.1:29901      (task id from OMPI_COMM_WORLD_RANK)
"""
from __future__ import annotations

import argparse
import functools
import glob
import json
import os
import socket
import sys
import time

import numpy as np
import pandas as pd
import xgboost as xgb
from xgboost import collective


def parse() -> argparse.Namespace:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tracker", default=os.environ.get("XGB_TRACKER", "127.0.0.1:29901"))
    ap.add_argument("--task-id", type=int, default=int(os.environ.get("OMPI_COMM_WORLD_RANK", "-1")))
    ap.add_argument("--workers", type=int, default=int(os.environ.get("OMPI_COMM_WORLD_SIZE", "2")))
    ap.add_argument("--data", default="data")
    ap.add_argument("--rounds", type=int, default=80)
    ap.add_argument("--eta", type=float, default=0.1)
    ap.add_argument("--max-depth", type=int, default=6)
    ap.add_argument("--max-bin", default="256", help="histogram bins, or 'auto' (from the shard's size)")
    ap.add_argument("--early-stop", type=int, default=15)
    ap.add_argument("--nthread", type=int, default=1)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--ckpt-every", type=int, default=10)
    ap.add_argument("--resume", default="")
    ap.add_argument("--config", default="", help="JSON file with booster parameters (overrides the flags)")
    ap.add_argument("--comm-timeout", type=int, default=0, help="collective operation timeout in seconds (0: default)")
    ap.add_argument("--retry", type=int, default=0)
    ap.add_argument("--dedup", action="store_true", help="drop near-duplicate documents within a query before training")
    ap.add_argument("--session-depth", action="store_true", help="add the reformulation depth of each query")
    ap.add_argument("--history-window", type=int, default=0, help="add rolling click-history features over this window")
    ap.add_argument("--eval-workers", type=int, default=0, help="processes for the per-query report at the end")
    ap.add_argument("--shm-cache", default="", help="stage the feature matrix in shared memory under this name")
    ap.add_argument("--export", default="model", help="directory for the final model")
    ap.add_argument("--report-every", type=int, default=0, help="worker 0: per-query validation report every N rounds")
    return ap.parse_args()


def log(rank: int, msg: str) -> None:
    print(f"[worker {rank}] {msg}", flush=True)


def load(files: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    df = pd.concat([pd.read_csv(f) for f in files], ignore_index=True)
    feats = [c for c in df.columns if c not in ("qid", "label")]
    return df[feats].to_numpy(np.float32), df["label"].to_numpy(np.float32), df["qid"].to_numpy(np.int64), feats


def dedup(x: np.ndarray, y: np.ndarray, qid: np.ndarray, rank: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Drop documents whose rounded feature vector repeats within a query (mirrors, tracking-parameter URLs)."""
    key = pd.DataFrame(np.round(x, 1)).assign(qid=qid)
    keep = ~key.duplicated().to_numpy()
    for i in range(len(y)):  # near-duplicates: bm25 title/body within 1e-3 of the previous kept document
        if i and qid[i] == qid[i - 1] and abs(x[i, 0] - x[i - 1, 0]) < 1e-3 and abs(x[i, 1] - x[i - 1, 1]) < 1e-3:
            keep[i] = False
    return x[keep], y[keep], qid[keep]


def session_depth(x: np.ndarray, qid: np.ndarray, files: list[str]) -> np.ndarray:
    """How many reformulations led to each query (sessions log: qid -> the query it was reformulated from)."""
    prev = {}
    for f in files:
        s = pd.read_csv(f.replace("/shard-", "/sessions-").replace(".csv", ".tsv"), sep="\t")
        prev.update(zip(s["qid"].tolist(), s["prev_qid"].tolist()))
    sys.setrecursionlimit(1_000_000)  # long sessions: chains of thousands of reformulations

    @functools.lru_cache(maxsize=None)
    def depth(q: int) -> int:
        p = prev.get(q, -1)
        return 0 if p < 0 else 1 + depth(p)

    d = {q: depth(q) for q in prev}
    return np.concatenate([x, np.array([d.get(int(q), 0) for q in qid], dtype=np.float32)[:, None]], axis=1)


def history_features(x: np.ndarray, qid: np.ndarray, window: int) -> np.ndarray:
    """Rolling mean of the CTR column over the previous ``window`` documents of each query (zero-copy windows)."""
    ctr = np.ascontiguousarray(x[:, 12])
    starts = np.flatnonzero(np.r_[True, qid[1:] != qid[:-1]])
    ends = np.r_[starts[1:], len(qid)]
    out = np.zeros(len(qid), dtype=np.float32)
    for s, e in zip(starts, ends):
        n = e - s - window + 1
        win = np.lib.stride_tricks.as_strided(ctr[s:], shape=(n, window), strides=(ctr.strides[0],) * 2)
        out[s + window - 1:e] = win.mean(axis=1)
    return np.concatenate([x, out[:, None]], axis=1)


def shm_stage(name: str, x: np.ndarray, rank: int) -> np.ndarray:
    from multiprocessing import shared_memory
    shm = shared_memory.SharedMemory(name=f"{name}-{rank}", create=True, size=x.nbytes)
    staged = np.ndarray(x.shape, dtype=x.dtype, buffer=shm.buf)
    staged[:] = x
    log(rank, f"staged features in /dev/shm/{name}-{rank} ({x.nbytes / 2**20:.1f} MiB)")
    shm_stage.keep = shm  # noqa
    return staged


def ndcg10(pred: np.ndarray, y: np.ndarray) -> float:
    order = np.argsort(-pred)[:10]
    gains = (2 ** y[order] - 1) / np.log2(np.arange(2, len(order) + 2))
    ideal = np.sort(y)[::-1][:10]
    idcg = ((2 ** ideal - 1) / np.log2(np.arange(2, len(ideal) + 2))).sum()
    return float(gains.sum() / idcg) if idcg > 0 else 1.0


def _per_query(args: tuple) -> float:
    model_raw, x, y = args
    bst = xgb.Booster(model_file=bytearray(model_raw))
    return ndcg10(bst.predict(xgb.DMatrix(x)), y)


class Progress(xgb.callback.TrainingCallback):
    def __init__(self, rank: int) -> None:
        self.rank, self.t0 = rank, time.time()

    def after_iteration(self, model, epoch, evals_log) -> bool:
        t = evals_log.get("train", {}).get("ndcg@10", [float("nan")])[-1]
        v = evals_log.get("valid", {}).get("ndcg@10", [float("nan")])[-1]
        if epoch % 5 == 0:
            log(self.rank, f"round {epoch} train-ndcg@10 {t:.4f} valid-ndcg@10 {v:.4f} ({time.time() - self.t0:.1f} s)")
        return False


class Report(xgb.callback.TrainingCallback):
    """Worker 0: NDCG@10 per validation query (worst queries listed) every ``every`` rounds."""

    def __init__(self, every: int, x: np.ndarray, y: np.ndarray, qid: np.ndarray) -> None:
        self.every, self.x, self.y, self.qid = every, x, y, qid

    def after_iteration(self, model, epoch, evals_log) -> bool:
        if epoch % self.every or not epoch:
            return False
        t0 = time.time()
        scores = {}
        for q in np.unique(self.qid):
            m = self.qid == q
            pred = model.inplace_predict(self.x[m], iteration_range=(0, epoch + 1))
            scores[int(q)] = ndcg10(pred, self.y[m])
        worst = sorted(scores.items(), key=lambda kv: kv[1])[:3]
        log(0, f"report round {epoch}: {len(scores)} queries, worst " + ", ".join(f"q{q} {v:.3f}" for q, v in worst)
            + f" ({time.time() - t0:.1f} s)")
        return False


def main() -> int:
    a = parse()
    host, port = a.tracker.rsplit(":", 1)
    comm = {"dmlc_communicator": "rabit", "dmlc_tracker_uri": host, "dmlc_tracker_port": int(port),
            "dmlc_task_id": str(a.task_id)}
    if a.comm_timeout:
        comm["dmlc_timeout"] = a.comm_timeout
    if a.retry:
        comm["dmlc_retry"] = a.retry
    print(f"rank_train: xgboost {xgb.__version__} task {a.task_id} on {socket.gethostname()} pid {os.getpid()} "
          f"args {json.dumps(vars(a))}", flush=True)
    train = sorted(glob.glob(f"{a.data}/train/*.csv"))[a.task_id::a.workers]
    val = sorted(glob.glob(f"{a.data}/val/*.csv"))[a.task_id::a.workers]
    x, y, qid, feats = load(train)
    xv, yv, qv, _ = load(val)
    log(a.task_id, f"train shards {train}: {len(np.unique(qid))} queries, {len(y)} documents, {len(feats)} features")
    log(a.task_id, f"valid shards {val}: {len(np.unique(qv))} queries, {len(yv)} documents")
    if a.dedup:
        x, y, qid = dedup(x, y, qid, a.task_id)
        log(a.task_id, f"after dedup: {len(y)} documents")
    if a.session_depth:
        x = session_depth(x, qid, train)
        xv = np.concatenate([xv, np.zeros((len(yv), 1), np.float32)], axis=1)
        feats = feats + ["session_depth"]
        log(a.task_id, "session depth feature added")
    if a.history_window:
        x = history_features(x, qid, a.history_window)
        xv = history_features(xv, qv, a.history_window)
        feats = feats + [f"ctr_roll{a.history_window}"]
        log(a.task_id, f"history features over {a.history_window} documents")
    with collective.CommunicatorContext(**comm):
        rank, world = collective.get_rank(), collective.get_world_size()
        log(rank, f"joined collective: rank {rank} of {world} (task {a.task_id})")
        if a.shm_cache:
            x = shm_stage(a.shm_cache, x, rank)
        max_bin = int(a.max_bin) if a.max_bin != "auto" else int(np.clip(2 ** int(np.log2(max(len(y) // 200, 1))), 32, 512))
        if a.max_bin == "auto":
            log(rank, f"max_bin auto: {max_bin} for {len(y)} documents")
        params = {"objective": "rank:ndcg", "eval_metric": "ndcg@10", "eta": a.eta, "max_depth": a.max_depth,
                  "max_bin": max_bin, "tree_method": "hist", "nthread": a.nthread, "lambdarank_pair_method": "topk",
                  "lambdarank_num_pair_per_sample": 10, "seed": 7}
        if a.config:
            with open(a.config) as f:
                params.update(json.load(f))
            log(rank, f"booster parameters from {a.config}: {json.dumps(params)}")
        dtrain = xgb.DMatrix(x, label=y, qid=qid, feature_names=feats)
        dval = xgb.DMatrix(xv, label=yv, qid=qv, feature_names=feats)
        callbacks = [Progress(rank)]
        if a.report_every and rank == 0:
            callbacks.append(Report(a.report_every, xv, yv, qv))
        if a.ckpt_every:
            os.makedirs(a.ckpt_dir, exist_ok=True)
            callbacks.append(xgb.callback.TrainingCheckPoint(directory=a.ckpt_dir, name="ranker", interval=a.ckpt_every))
        start = None
        if a.resume:
            start = xgb.Booster(model_file=a.resume)
            log(rank, f"resumed from {a.resume} at round {start.num_boosted_rounds()}")
        bst = xgb.train(params, dtrain, num_boost_round=a.rounds, evals=[(dtrain, "train"), (dval, "valid")],
                        early_stopping_rounds=a.early_stop, verbose_eval=10, callbacks=callbacks, xgb_model=start)
        log(rank, f"training done: {bst.num_boosted_rounds()} rounds, best iteration {bst.best_iteration} "
                  f"valid-ndcg@10 {bst.best_score:.4f}")
        if a.eval_workers:
            import multiprocessing as mp
            raw = bytes(bst.save_raw())
            starts = np.flatnonzero(np.r_[True, qv[1:] != qv[:-1]])
            groups = np.split(np.arange(len(yv)), starts[1:])
            with mp.Pool(a.eval_workers) as pool:
                scores = pool.map(_per_query, [(raw, xv[g], yv[g]) for g in groups])
            log(rank, f"per-query report: mean ndcg@10 {np.mean(scores):.4f}, worst {np.min(scores):.4f}")
        if rank == 0:
            os.makedirs(a.export, exist_ok=True)
            bst.save_model(f"{a.export}/ranker.ubj")
            log(rank, f"saved {a.export}/ranker.ubj")
            imp = sorted(bst.get_score(importance_type="gain").items(), key=lambda kv: -kv[1])[:10]
            log(rank, "feature importance (gain): " + ", ".join(f"{k} {v:.2f}" for k, v in imp))
    print(f"rank_train: task {a.task_id} finished", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
