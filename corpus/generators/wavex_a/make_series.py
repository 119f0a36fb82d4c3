"""Write the synthetic multi-sensor plant series: one CSV per site (data/site-NN.csv: t, 8 sensors), 5-minute
readings with daily/weekly seasonality, trend, cross-sensor coupling and noise. Options model what real exports hold:
--new-sensor SITE (that site's export has a 9th column, a sensor installed later), --shutdown SITE (a maintenance
shutdown: every reading 0 for a day), --dead-sensor SITE:CH[,SITE:CH] (a sensor that never reported: empty cells)."""
import argparse
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--sites", type=int, default=4)
ap.add_argument("--length", type=int, default=2400)
ap.add_argument("--new-sensor", type=int, default=-1)
ap.add_argument("--shutdown", type=int, default=-1)
ap.add_argument("--dead-sensor", default="")
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
rng = np.random.default_rng(a.seed)
t = np.arange(a.length)
dead = {tuple(int(v) for v in d.split(":")) for d in a.dead_sensor.split(",") if d}
for s in range(a.sites):
    n = 9 if s == a.new_sensor else 8
    base = 20 + 5 * rng.random(n)
    day = np.sin(2 * np.pi * t / 288)[:, None] * (2 + rng.random(n))
    week = np.sin(2 * np.pi * t[:, None] / 2016 + rng.random(n) * 6)
    trend = (t / a.length)[:, None] * rng.normal(0, 1, n)
    x = base + day + week + trend + rng.normal(0, 0.3, (a.length, n))
    x[:, 1:] += 0.3 * x[:, :1] - 0.3 * base[0]
    if s == a.shutdown:
        x[a.length - 600:a.length - 312] = 0.0
    rows = [",".join(["t"] + [f"s{i}" for i in range(n)])]
    for i in range(a.length):
        vals = ["" if (s, c) in dead else f"{x[i, c]:.4f}" for c in range(n)]
        rows.append(",".join([str(i * 300)] + vals))
    with open(os.path.join(a.out, f"site-{s:02d}.csv"), "w") as f:
        f.write("\n".join(rows) + "\n")
print(f"wrote {a.sites} sites x {a.length} readings to {a.out}")
