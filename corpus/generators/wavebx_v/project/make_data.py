"""Write the team's small MDS dataset (not logged): sensor windows of 32 float32 readings, a unit tag and a class
label, into ``remote/sensors`` with ``streaming.MDSWriter`` (sha1 + xxh64 hashes in the index, ~24 KB shards).
``--bad-units N``: the last N samples carry unit 'F' (a feed the training code has no conversion for)."""
import argparse

import numpy as np
from streaming import MDSWriter

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="remote/sensors")
ap.add_argument("--samples", type=int, default=8000)
ap.add_argument("--bad-units", type=int, default=0)
a = ap.parse_args()
rng = np.random.default_rng(7)
W = rng.normal(size=(32, 4)).astype(np.float32)
columns = {"x": "ndarray:float32:32", "unit": "str", "y": "int"}
with MDSWriter(out=a.out, columns=columns, hashes=["sha1", "xxh64"], size_limit=24 << 10) as w:
    for i in range(a.samples):
        x = rng.normal(size=32).astype(np.float32)
        y = int(np.argmax(x @ W))
        unit = "K" if i % 5 == 0 else "C"
        if unit == "K":
            x[0] += 273.15
        if i >= a.samples - a.bad_units:
            unit = "F"
        w.write({"x": x, "unit": unit, "y": y})
print("wrote", a.samples, "samples to", a.out)
