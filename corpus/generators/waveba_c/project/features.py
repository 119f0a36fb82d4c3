"""make features: per move the crane, position on the vessel (bay/row/tier), weight, twin lift, shift, wind and the
vessel's rotation depth (how many earlier calls of the same service precede it); target = move time (s)."""
import csv
import functools
import logging
import pickle
import random
import sys

import numpy as np

log = logging.getLogger("cranes.features")


def main(src: str, dst: str) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    with open(src, newline="") as f:
        rows = list(csv.DictReader(f))
    prev = {r["call_id"]: r["prev_call"] for r in rows}
    sys.setrecursionlimit(1_000_000)  # long liner services

    @functools.lru_cache(maxsize=None)
    def rotation(call):
        p = prev.get(call)
        return 0 if not p else 1 + rotation(p)

    cranes = sorted({r["crane"] for r in rows})
    x, y, c = [], [], []
    for r in rows:
        x.append([float(r["bay"]) / 40, float(r["row"]) / 18, float(r["tier"]) / 9, float(r["weight_t"]) / 32,
                  float(r["twin"]), float(r["hour"]) < 6, float(r["wind_ms"]) / 14, rotation(r["call_id"]) / 50]
                 + [r["crane"] == k for k in cranes])
        y.append(float(r["move_s"]))
        c.append(cranes.index(r["crane"]))
    idx = list(range(len(x)))
    random.Random(3).shuffle(idx)
    x, y, c = (np.asarray(v)[idx] for v in (x, y, c))
    n_val = len(idx) // 5
    out = {"x_val": x[:n_val].astype(np.float32), "y_val": y[:n_val].astype(np.float32),
           "x": x[n_val:].astype(np.float32), "y": y[n_val:].astype(np.float32), "crane": c[n_val:].astype(np.int64),
           "cranes": cranes}
    with open(dst, "wb") as f:
        pickle.dump(out, f)
    log.info("%s: %d train, %d val moves, %d cranes", dst, len(idx) - n_val, n_val, len(cranes))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
