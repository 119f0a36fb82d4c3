"""Export synthetic seismogram windows per station for the quake-detector pipeline.

Each station file data/station-NN.npz holds `waveforms` (n, 200) float32 (10 s at 20 Hz, ground velocity in
micrometres/s), `label` (n,) int64 (1 = local event with a P onset inside the window, 0 = noise) and `onset`
(sample index of the P arrival, -1 for noise). data/inventory.json lists the stations with their network codes
and the codes they replaced (`replaces`)."""
import argparse
import json
import os
import time

import numpy as np

p = argparse.ArgumentParser()
p.add_argument("--out", default="data")
p.add_argument("--stations", type=int, default=4)
p.add_argument("--windows", type=int, default=800)
p.add_argument("--only", type=int, default=-1, help="re-export one station only")
p.add_argument("--seed", type=int, default=7)
p.add_argument("--delay", type=float, default=0.0, help="seconds before writing (slow archive export)")
p.add_argument("--units", default="um/s", choices=["um/s", "nm/s"])
p.add_argument("--key", default="waveforms")
p.add_argument("--extra-windows", type=int, default=0)
p.add_argument("--gaps", type=int, default=0, help="windows with a telemetry gap exported as NaN samples")
p.add_argument("--recode", default="", help="OLD:NEW station code change recorded in the inventory")
a = p.parse_args()

os.makedirs(a.out, exist_ok=True)
if a.delay:
    time.sleep(a.delay)
codes = ["KBR", "LMO", "TSV", "GRZ", "PAV", "ODR", "NIK", "VEL"][: a.stations]


def station(i):
    rng = np.random.default_rng(a.seed * 100 + i)
    n = a.windows + (a.extra_windows if a.only == i else 0)
    t = np.arange(200) / 20.0
    x = rng.normal(0.0, 0.4 + 0.1 * i, size=(n, 200)).astype(np.float32)
    label = (rng.random(n) < 0.4).astype(np.int64)
    onset = np.full(n, -1, dtype=np.int64)
    for k in np.nonzero(label)[0]:
        s = int(rng.integers(30, 150))
        onset[k] = s
        f = rng.uniform(2.0, 6.0)
        amp = rng.uniform(1.5, 6.0)
        tt = t[s:] - t[s]
        x[k, s:] += (amp * np.exp(-tt / rng.uniform(0.8, 2.5)) * np.sin(2 * np.pi * f * tt)).astype(np.float32)
    for k in rng.choice(n, size=min(a.gaps, n), replace=False) if a.gaps and a.only == i else []:
        g = int(rng.integers(0, 180))
        x[k, g:g + int(rng.integers(5, 20))] = np.nan
    if a.units == "nm/s":
        x = x * 1000.0
    return {a.key: x, "label": label, "onset": onset}


for i in range(a.stations):
    if a.only >= 0 and i != a.only:
        continue
    tmp = os.path.join(a.out, f".station-{i:02d}.npz")
    np.savez(tmp, **station(i))
    os.replace(tmp, os.path.join(a.out, f"station-{i:02d}.npz"))
inv = {"network": "QK", "stations": [{"index": i, "code": c, "replaces": None} for i, c in enumerate(codes)],
       "renamed": {}}
for pair in filter(None, a.recode.split(",")):
    old, new = pair.split(":")
    inv["renamed"][old] = new
inv_path = os.path.join(a.out, "inventory.json")
if a.only < 0 or a.recode:
    if a.recode and os.path.exists(inv_path):
        cur = json.load(open(inv_path))
        cur["renamed"].update(inv["renamed"])
        inv = cur
    json.dump(inv, open(inv_path, "w"), indent=1)
print(f"exported {a.stations if a.only < 0 else 1} station file(s) to {a.out}")
