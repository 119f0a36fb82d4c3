"""A Ray Data feature pipeline submitted with ``ray job submit``: synthetic support tickets are turned into hashed
word n-gram features (a dense ``--hash-dim`` float64 matrix per batch, TF-IDF weighted, L2-normalised), projected to
64 dimensions with a fixed random projection, written to Parquet, then read back by the driver for a ridge-regression
fit of the ticket's resolution time. ``--batch-size`` is the ``map_batches`` batch size.
"""
from __future__ import annotations

import argparse
import time
import zlib

import numpy as np
import ray

WORDS = ("login error timeout disk full gpu node restart job failed queue pending memory network slow upload "
         "download permission denied token expired cluster quota storage checkpoint resume training crashed").split()


def make_ticket(row: dict) -> dict:
    rng = np.random.default_rng(row["id"])
    words = rng.choice(WORDS, size=rng.integers(8, 40))
    hours = float(len(words) / 4 + 3 * ("crashed" in words) + rng.normal(0, 1))
    return {"id": row["id"], "text": " ".join(words), "hours": hours}


_PROJ: dict[int, np.ndarray] = {}


def featurize(batch: dict, hash_dim: int) -> dict:
    n = len(batch["id"])
    x = np.zeros((n, hash_dim), dtype=np.float64)
    for i, text in enumerate(batch["text"]):
        toks = text.split()
        for gram in toks + [a + " " + b for a, b in zip(toks, toks[1:])]:
            x[i, zlib.crc32(gram.encode()) % hash_dim] += 1.0
    df = (x > 0).sum(0) + 1.0
    x *= np.log((n + 1) / df)
    x /= np.linalg.norm(x, axis=1, keepdims=True) + 1e-9
    if hash_dim not in _PROJ:  # once per worker process
        _PROJ[hash_dim] = np.random.default_rng(0).standard_normal((hash_dim, 64)).astype(np.float32) / 8
    proj = _PROJ[hash_dim]
    emb = (x.astype(np.float32) @ proj)
    return {"id": batch["id"], "hours": batch["hours"], "emb": list(emb)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--tickets", type=int, default=20000)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--hash-dim", type=int, default=2**17)
    p.add_argument("--out", default="/tmp/wavei-features")
    a = p.parse_args()
    ray.init()
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    t0 = time.time()
    ds = (ray.data.range(a.tickets, override_num_blocks=40)
          .map(make_ticket)
          .map_batches(featurize, batch_size=a.batch_size, fn_kwargs={"hash_dim": a.hash_dim}))
    ds.write_parquet(a.out)
    print(f"features written to {a.out} in {time.time() - t0:.1f}s", flush=True)
    feats = ray.data.read_parquet(a.out).to_pandas()
    x = np.stack(feats["emb"].to_numpy())
    x = np.hstack([x, np.ones((len(x), 1), dtype=x.dtype)])  # intercept
    y = feats["hours"].to_numpy()
    w = np.linalg.solve(x.T @ x + 1.0 * np.eye(x.shape[1]), x.T @ y)
    rmse = float(np.sqrt(np.mean((x @ w - y) ** 2)))
    print(f"ridge fit on {len(y)} tickets: train RMSE {rmse:.3f} hours (baseline {y.std():.3f})", flush=True)


if __name__ == "__main__":
    main()
