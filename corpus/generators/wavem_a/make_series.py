"""Write synthetic multivariate sensor series shards for moe_forecast.py: data/series-XX.npy (T x C float32) + meta.json.

Each shard is one site's hourly readings of C sensors: daily and weekly seasonality, a trend, noise.
Options make what real exports contain: a sensor stuck at one value, a short export, a sensor that never reported.
"""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--shards", type=int, default=6)
ap.add_argument("--length", type=int, default=2400)
ap.add_argument("--channels", type=int, default=8)
ap.add_argument("--stuck-sensor-shard", type=int, default=-1, help="this shard's readings are a flat line (gateway repeated the last value)")
ap.add_argument("--short-shard", type=int, default=-1, help="this shard is an export of the first 100 hours only")
ap.add_argument("--dead-sensor-shard", type=int, default=-1, help="one sensor of this shard stopped reporting (NaN) for the last 15%% of the export")
ap.add_argument("--gaps", action="store_true", help="scattered missing readings (NaN) in every shard")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
rng = np.random.default_rng(7)
for s in range(a.shards):
    t = np.arange(a.length - 37 * s)  # exports of different lengths (sites joined at different times)
    base = rng.uniform(5, 50, a.channels)
    amp = rng.uniform(0.5, 5, a.channels)
    x = (base + amp * np.sin(2 * np.pi * t[:, None] / 24 + rng.uniform(0, 6, a.channels))
         + 0.3 * amp * np.sin(2 * np.pi * t[:, None] / 168) + 0.001 * t[:, None] * rng.normal(size=a.channels)
         + rng.normal(scale=0.2, size=(len(t), a.channels)))
    if s == a.stuck_sensor_shard:
        x[:] = np.round(x[0], 1)
    if s == a.short_shard:
        x = x[:100]
    if a.gaps:
        m = rng.random(x.shape) < 0.002
        x[m] = np.nan
    if s == a.dead_sensor_shard:
        x[int(0.85 * len(x)):, 3] = np.nan
    np.save(os.path.join(a.out, f"series-{s:02d}.npy"), x.astype(np.float32))
json.dump({"shards": a.shards, "channels": a.channels, "freq": "1h", "length": a.length},
          open(os.path.join(a.out, "meta.json"), "w"), indent=1)
print(f"wrote {a.shards} shards of {a.length} x {a.channels} to {a.out}/")
