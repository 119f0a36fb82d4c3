"""Data prep for wave H's jobs: a synthetic regression set (target = x @ w + noise).

``--csv PATH``: a CSV file ``f0..fN-1,target``; ``--empty-field ROW`` leaves that row's last feature empty (as an
exporter writes a missing value). ``--raw PATH``: raw float32 records (``features + 1`` values each), written in
chunks of ``--chunk`` records straight into PATH (opened with "wb", i.e. truncated first), ``--chunk-sleep`` seconds
apart (a slow prep job).
"""
from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--csv", default="")
    p.add_argument("--raw", default="")
    p.add_argument("--rows", type=int, default=8192)
    p.add_argument("--features", type=int, default=16)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--empty-field", type=int, default=-1)
    p.add_argument("--chunk", type=int, default=1024)
    p.add_argument("--chunk-sleep", type=float, default=0.0)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    x = rng.standard_normal((a.rows, a.features)).astype(np.float32)
    y = x @ rng.standard_normal(a.features).astype(np.float32) + 0.1 * rng.standard_normal(a.rows).astype(np.float32)
    if a.csv:
        with open(a.csv, "w") as f:
            f.write(",".join([f"f{i}" for i in range(a.features)] + ["target"]) + "\n")
            for i in range(a.rows):
                vals = [f"{v:.5f}" for v in x[i]] + [f"{y[i]:.5f}"]
                if i == a.empty_field:
                    vals[a.features - 1] = ""
                f.write(",".join(vals) + "\n")
        print(f"wrote {a.rows} rows to {a.csv}", flush=True)
    if a.raw:
        recs = np.concatenate([x, y[:, None]], axis=1).astype(np.float32)
        with open(a.raw, "wb") as f:
            for s in range(0, a.rows, a.chunk):
                f.write(recs[s:s + a.chunk].tobytes())
                f.flush()
                time.sleep(a.chunk_sleep)
        print(f"wrote {a.rows} records to {a.raw}", flush=True)


if __name__ == "__main__":
    main()
