"""Write synthetic search-ranking data: query groups of candidate documents with graded relevance (0-4).

Each shard is a CSV with columns qid, label, f00..fNN (sorted by qid), the layout the query-log export job writes:
data/train/shard-NN.csv and data/val/shard-NN.csv.

    python make_queries.py --out data [--shards 2] [--queries 400]
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

N_FEATURES = 24
FEATURE_NAMES = ["bm25_title", "bm25_body", "bm25_anchor", "tfidf_title", "tfidf_body", "query_len", "doc_len",
                 "title_len", "url_depth", "pagerank", "inlinks", "outlinks", "ctr_7d", "ctr_30d", "dwell_mean",
                 "dwell_p90", "skip_rate", "freshness_days", "exact_match", "prefix_match", "spam_score",
                 "lang_match", "geo_match", "click_pos_bias"]


def shard(rng: np.random.Generator, queries: int, qid0: int, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    qids, labels, feats = [], [], []
    for q in range(queries):
        n = int(rng.integers(8, 40))
        x = rng.normal(size=(n, N_FEATURES)).astype(np.float32)
        x[:, 5] = rng.integers(1, 8)  # query length: one value per query
        score = x @ w + 0.6 * rng.normal(size=n)
        cut = np.quantile(score, [0.5, 0.75, 0.9, 0.97])
        labels.append(np.searchsorted(cut, score).astype(np.float32))
        qids.append(np.full(n, qid0 + q, dtype=np.int64))
        feats.append(x)
    return np.concatenate(qids), np.concatenate(labels), np.concatenate(feats)


def write(path: Path, qid: np.ndarray, y: np.ndarray, x: np.ndarray, names: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w") as f:
        f.write(",".join(["qid", "label", *names]) + "\n")
        for i in range(len(y)):
            lab = "" if np.isnan(y[i]) else f"{y[i]:.0f}"
            f.write(f"{qid[i]},{lab}," + ",".join(f"{v:.5g}" for v in x[i]) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--queries", type=int, default=400)
    ap.add_argument("--val-queries", type=int, default=120)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--only", default="", help="rewrite only this shard (e.g. train/shard-01)")
    ap.add_argument("--unlabelled", type=float, default=0.0, help="fraction of rows whose grade is missing")
    ap.add_argument("--shuffle", action="store_true", help="rows not grouped by query (export without ORDER BY)")
    ap.add_argument("--session-cycle", type=int, default=0, help="sessions log: this many reformulation loops")
    ap.add_argument("--extra-feature", default="", help="append a feature column with this name")
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    w = np.zeros(N_FEATURES, dtype=np.float32)
    w[[0, 1, 3, 9, 12, 13, 14, 18]] = [1.2, 0.8, 0.5, 0.7, 1.0, 0.6, 0.4, 1.5]
    w[[16, 20]] = [-0.7, -1.1]
    out = Path(a.out)
    for split, nq in (("train", a.queries), ("val", a.val_queries)):
        for s in range(a.shards):
            name = f"{split}/shard-{s:02d}"
            qid, y, x = shard(rng, nq, (0 if split == "train" else 500000) + s * 100000, w)
            if a.only and name != a.only:
                continue
            names = list(FEATURE_NAMES)
            if a.unlabelled:
                y[rng.random(len(y)) < a.unlabelled] = np.nan
            if a.extra_feature:
                names.append(a.extra_feature)
                x = np.concatenate([x, rng.random((len(y), 1)).astype(np.float32)], axis=1)
            if a.shuffle:
                p = rng.permutation(len(y))
                qid, y, x = qid[p], y[p], x[p]
            write(out / f"{name}.csv", qid, y, x, names)
            if split == "train":  # the sessions log: which earlier query each query was reformulated from
                prev = np.where(rng.random(len(np.unique(qid))) < 0.6, np.unique(qid) - 1, -1)
                prev[0] = -1
                if a.session_cycle:
                    for c in rng.choice(np.arange(200, len(prev)), a.session_cycle, replace=False):
                        prev[c - 149:c + 1] = np.unique(qid)[c - 150:c]  # a chain of 150 reformulations
                        prev[c - 150] = np.unique(qid)[c]  # whose first query points back at its last one
                with (out / f"{split}/sessions-{s:02d}.tsv").open("w") as f:
                    f.write("qid\tprev_qid\n" + "".join(f"{q}\t{p}\n" for q, p in zip(np.unique(qid), prev)))
            print(f"wrote {out / name}.csv: {len(np.unique(qid))} queries, {len(y)} documents")


if __name__ == "__main__":
    main()
