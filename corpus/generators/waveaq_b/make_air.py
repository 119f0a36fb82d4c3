"""Synthetic urban air-quality series: hourly PM2.5 at several monitoring stations with weather covariates.

One file per station, data/station-NN.npz: ``x`` (hours x features: pm25, temperature, relative humidity, wind
speed, wind direction sin/cos, pressure, boundary-layer height proxy), ``names`` (the feature names) and ``t`` (hour
index). PM2.5 follows a diurnal traffic cycle, builds up under low wind and a shallow boundary layer, washes out with
rain (humidity) and carries station noise.
"""
from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

BASE = ["pm25", "temp_c", "rh", "wind_ms", "wdir_sin", "wdir_cos", "pressure_hpa", "blh_m"]


def station(rng: np.random.Generator, hours: int, k: int, extra: list[str], outage: int, units: float) -> dict:
    t = np.arange(hours)
    day = 2 * np.pi * (t % 24) / 24
    temp = 12 + 8 * np.sin(day - 2.0) + rng.normal(0, 1.5, hours).cumsum() * 0.05
    rh = np.clip(70 - 1.5 * (temp - 12) + rng.normal(0, 6, hours), 15, 100)
    wind = np.abs(3 + 1.5 * np.sin(2 * np.pi * t / 97) + rng.normal(0, 1.0, hours))
    wdir = rng.uniform(0, 2 * np.pi) + 0.3 * rng.normal(0, 1, hours).cumsum() * 0.1
    pres = 1013 + 6 * np.sin(2 * np.pi * t / 150) + rng.normal(0, 0.8, hours)
    blh = np.clip(300 + 900 * np.clip(np.sin(day - 1.4), 0, None) + 60 * wind + rng.normal(0, 50, hours), 80, None)
    traffic = 1 + 0.6 * np.exp(-((t % 24 - 8) ** 2) / 4) + 0.5 * np.exp(-((t % 24 - 18) ** 2) / 5)
    pm = np.zeros(hours)
    level = 20.0 + 4 * k
    for h in range(hours):
        src = 6 * traffic[h]
        vent = 0.015 * wind[h] * blh[h] / 300
        wash = 0.08 if rh[h] > 92 else 0.0
        level = max(2.0, level + src - vent * level - wash * level + rng.normal(0, 1.5))
        pm[h] = level
    cols = [pm, temp, rh, wind, np.sin(wdir), np.cos(wdir), pres, blh]
    names = list(BASE)
    for e in extra:  # a newer sensor package reports more channels
        names.append(e)
        cols.append(np.abs(15 + 0.4 * pm + rng.normal(0, 3, hours)))
    x = np.stack(cols, 1).astype(np.float32)
    x[:, 0] *= units
    if outage:  # the sensor was offline: the export marks missing hours as NaN
        s = hours // 3
        x[s:s + outage, 0] = np.nan
    return {"x": x, "names": np.array(names), "t": t}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--stations", type=int, default=6)
    ap.add_argument("--hours", type=int, default=24 * 60)
    ap.add_argument("--only", default="", help="re-export only these stations (comma list of NN)")
    ap.add_argument("--extra-channels", default="", help="extra sensor channels, e.g. no2")
    ap.add_argument("--outage-hours", type=int, default=0)
    ap.add_argument("--units", type=float, default=1.0, help="scale of pm25 (1 = ug/m3)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    only = {int(s) for s in a.only.split(",") if s}
    extra = [e for e in a.extra_channels.split(",") if e]
    for k in range(1, a.stations + 1):
        rng = np.random.default_rng(a.seed * 100 + k)
        if only and k not in only:
            continue
        d = station(rng, a.hours, k, extra, a.outage_hours, a.units)
        np.savez(out / f"station-{k:02d}.npz", **d)
        print(f"station-{k:02d}: {d['x'].shape[0]} hours, {d['x'].shape[1]} channels")


if __name__ == "__main__":
    main()
