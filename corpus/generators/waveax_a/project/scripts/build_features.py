"""Features per reading: log flows, night-flow ratio (leak indicator), pressure swing, pipe age, and the trunk main
each main is fed from (walked up the upstream_main links), as a hashed bucket. Train/val split by main."""
import argparse
import functools
import logging
import pickle
import sys

import numpy as np

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s build_features: %(message)s")
log = logging.getLogger("build_features")
GRADES = ["low", "elevated", "high"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--readings", required=True)
    ap.add_argument("--train", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--val-fraction", type=float, default=0.2)
    a = ap.parse_args()
    with open(a.readings, "rb") as f:
        rows = pickle.load(f)
    upstream = {r["main"]: r["upstream"] for r in rows}
    sys.setrecursionlimit(1_000_000)  # long feeder chains in the old town network

    @functools.lru_cache(maxsize=None)
    def trunk(main: str) -> str:
        up = upstream.get(main, "")
        return main if not up else trunk(up)

    x = np.array([r["x"] for r in rows], dtype=np.float64)
    y = np.array([GRADES.index(r["grade"]) for r in rows], dtype=np.int64)
    trunks = np.array([int(trunk(r["main"])[1:]) % 8 for r in rows], dtype=np.float64)
    pressure, pmin, swing, flow, night, age, diam, soil = x.T
    feats = np.stack([pressure, pmin, swing, np.log(flow), np.log(night), np.log(night / flow), age / 10,
                      diam / 100, soil / 5, trunks / 8], axis=1)
    mu, sd = feats.mean(0), feats.std(0) + 1e-6
    feats = ((feats - mu) / sd).astype(np.float32)
    mains = sorted({r["main"] for r in rows})
    rng = np.random.default_rng(3)
    val_mains = set(rng.choice(mains, size=int(len(mains) * a.val_fraction), replace=False))
    is_val = np.array([r["main"] in val_mains for r in rows])
    for path, m in ((a.train, ~is_val), (a.val, is_val)):
        with open(path, "wb") as f:
            pickle.dump({"x": feats[m], "y": y[m], "n_classes": len(GRADES)}, f)
    log.info("%d train / %d val readings, %d features", int((~is_val).sum()), int(is_val.sum()), feats.shape[1])


if __name__ == "__main__":
    main()
