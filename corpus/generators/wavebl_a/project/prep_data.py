"""Write the synthetic sensor data set (data/series.f32, data/index.i64, data/stations.txt) and build libwinops.so."""
import argparse
import json
import os
import subprocess

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--stations", type=int, default=16)
ap.add_argument("--length", type=int, default=1200)
ap.add_argument("--window", type=int, default=48)
ap.add_argument("--stride", type=int, default=6)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--index-fix", default="")   # ROW:VALUE written into the window index as given
ap.add_argument("--station-fix", default="")  # ROW:VALUE written into the station table as given
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
os.makedirs("data", exist_ok=True)
t = np.arange(a.length, dtype=np.float32)
series = []
for s in range(a.stations):
    period = rng.uniform(24, 96)
    x = (np.sin(2 * np.pi * t / period + rng.uniform(0, 6)) * rng.uniform(0.5, 2.0)
         + 0.002 * s * t / 10 + rng.normal(0, 0.15, a.length))
    series.append(x.astype(np.float32))
flat = np.concatenate(series)
flat.tofile("data/series.f32")
starts, stations = [], []
for s in range(a.stations):
    for p in range(0, a.length - a.window - 1, a.stride):
        starts.append(s * a.length + p)
        stations.append(s)
starts = np.array(starts, dtype=np.int64)
if a.index_fix:
    r, v = a.index_fix.split(":")
    starts[int(r)] = int(v)
starts.tofile("data/index.i64")
if a.station_fix:
    r, v = a.station_fix.split(":")
    stations[int(r)] = int(v)
with open("data/stations.txt", "w") as f:
    f.write("\n".join(map(str, stations)) + "\n")
with open("data/meta.json", "w") as f:
    json.dump({"stations": a.stations, "length": a.length, "window": a.window, "windows": len(starts)}, f)
subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "libwinops.so", "winops.c"], check=True)
print(f"{len(starts)} windows from {a.stations} stations")
