"""Prepare the half-hourly meter export for the load forecaster.

Writes data/{train,valid}_windows.npy (float32 N x 48 x 2: kWh and outdoor temperature for one day of half-hours),
data/{train,valid}_target.npy (the next half-hour's kWh), data/{train,valid}_meta.csv (meter_id,tariff,start)
and data/tariffs.json (tariff code -> index).
"""
import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--meters", type=int, default=60)
ap.add_argument("--days", type=int, default=40)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--new-tariff", default="", help="tariff code given to a few validation meters")
ap.add_argument("--vacant", type=int, default=0, help="validation meters of empty homes (all readings zero)")
ap.add_argument("--gaps", type=int, default=0, help="training meters with a communication gap (missing readings)")
ap.add_argument("--delay", type=float, default=0.0, help="seconds the export takes")
ap.add_argument("--weather-late", type=float, default=0.0, help="weather file arrives this many seconds later")
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
out = Path(a.out)
out.mkdir(parents=True, exist_ok=True)
time.sleep(a.delay)
tariffs = ["STD", "E7", "TOU", "SOLAR"]
T = a.days * 48
t = np.arange(T)
temp = 8 + 6 * np.sin(2 * np.pi * (t % 48) / 48 - 1.2) + rng.normal(0, 1.0, T)
rows = {"train": ([], [], []), "valid": ([], [], [])}
for m in range(a.meters):
    tariff = tariffs[m % len(tariffs)]
    base = rng.uniform(0.15, 0.6)
    daily = base * (1 + 0.8 * np.sin(2 * np.pi * (t % 48) / 48 - 2.0).clip(0) + 0.6 * ((t % 48) > 34))
    kwh = np.clip(daily - 0.01 * (temp - 8) + rng.normal(0, 0.05, T), 0, None)
    split = "valid" if m % 6 == 5 else "train"
    if split == "valid" and m // 6 < a.vacant:
        kwh = np.zeros(T)
    if split == "train" and m < a.gaps:
        kwh[T // 2:T // 2 + 6] = np.nan
    for s in range(0, T - 49, 24):
        w = np.stack([kwh[s:s + 48], temp[s:s + 48]], axis=1)
        rows[split][0].append(w)
        rows[split][1].append(kwh[s + 48])
        code = tariff
        if a.new_tariff and split == "valid" and m % 12 == 11:
            code = a.new_tariff
        rows[split][2].append((f"MTR{m:05d}", code, int(s)))
for split, (w, y, meta) in rows.items():
    np.save(out / f"{split}_windows.npy", np.asarray(w, dtype=np.float32))
    np.save(out / f"{split}_target.npy", np.asarray(y, dtype=np.float32))
    with open(out / f"{split}_meta.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["meter_id", "tariff", "start"])
        wr.writerows(meta)
(out / "tariffs.json").write_text(json.dumps({c: i for i, c in enumerate(tariffs)}))
if a.weather_late:
    time.sleep(a.weather_late)
(out / "weather_stations.json").write_text(json.dumps({"station": "EGLL", "lat": 51.47, "lon": -0.45}))
