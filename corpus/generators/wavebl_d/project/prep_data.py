"""Write each site's synthetic shard (data/site-K.bin + .labels) and build libfeatnorm.so."""
import argparse
import subprocess
from pathlib import Path

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--sites", type=int, default=3)
ap.add_argument("--rows", type=int, default=400)
ap.add_argument("--dim", type=int, default=24)
ap.add_argument("--header-rows", default="", help="SITE:ROWS written into one shard's header")
ap.add_argument("--label-fix", default="", help="SITE:ROW:VALUE")
ap.add_argument("--stage-site", type=int, default=-1, help="write this site's shard to staging/ (synced later)")
a = ap.parse_args()
Path("data").mkdir(exist_ok=True)
Path("staging").mkdir(exist_ok=True)
teacher = np.random.default_rng(0).normal(size=(a.dim, 10))
for s in range(a.sites):
    rng = np.random.default_rng(100 + s)
    x = (rng.normal(size=(a.rows, a.dim)) * (1 + 0.3 * s) + 0.5 * s).astype(np.float32)
    y = np.argmax(x @ teacher + rng.normal(scale=0.5, size=(a.rows, 10)), axis=1).astype(np.int64)
    rows = a.rows
    if a.header_rows and int(a.header_rows.split(":")[0]) == s:
        rows = int(a.header_rows.split(":")[1])
    if a.label_fix and int(a.label_fix.split(":")[0]) == s:
        _, r, v = map(int, a.label_fix.split(":"))
        y[r] = v
    d = "staging" if s == a.stage_site else "data"
    with open(f"{d}/site-{s}.bin", "wb") as f:
        f.write(np.array([rows, a.dim], dtype=np.int64).tobytes())
        f.write(x.tobytes())
    y.tofile(f"{d}/site-{s}.labels")
subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "libfeatnorm.so", "featnorm.c", "-lm"], check=True)
