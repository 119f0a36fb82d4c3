"""Synthetic solar-farm data: per site, 15-minute irradiance / weather series, sky-camera image features and the farm's
AC power (kW). Writes one folder per site (``irradiance.npy`` [T, 5], ``sky.npy`` [T, 32] (read memory-mapped by the
trainer), ``power.npy`` [T]) and ``sites.csv`` (capacity, location) plus ``meta.json`` (feature names, normalisation).

    python make_sky.py --out data [--sites 6] [--steps 4000] [--only K] [--drop-feature NAME] [--steps-site K:N]
    python make_sky.py --out data --only 3 --stream     # re-export one site's sky features frame block by frame block
    python make_sky.py --out data --from-frames        # recompute sky features from raw camera frames (slow)
"""
from __future__ import annotations

import argparse
import csv
import fcntl
import json
import math
import os
import time
from pathlib import Path

import numpy as np

IRR = ["ghi", "dni", "dhi", "temp_c", "wind_ms"]
SKY = [f"sky_{i:02d}" for i in range(32)]


def site_series(k: int, steps: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
    t = np.arange(steps)
    hour = (t % 96) / 4.0
    day = t // 96
    elev = np.clip(np.sin((hour - 6.0) / 12.0 * math.pi), 0, None) * (0.8 + 0.2 * np.sin(day / 58.0 + k))
    # cloud cover: a slow random walk, clipped
    cloud = np.clip(np.cumsum(rng.normal(0, 0.04, steps)) % 1.6 - 0.3, 0, 1)
    clear = 1000.0 * elev
    ghi = clear * (1 - 0.75 * cloud) + rng.normal(0, 8, steps).clip(0)
    dni = clear * (1 - cloud) * 0.85
    dhi = clear * (0.1 + 0.35 * cloud)
    temp = 12 + 9 * elev + 3 * np.sin(day / 20.0) + rng.normal(0, 0.7, steps)
    wind = np.abs(3 + rng.normal(0, 1.5, steps))
    irr = np.stack([ghi, dni, dhi, temp, wind], 1).astype(np.float32)
    # sky-camera features: a random projection of (cloud, elevation, cloud change) plus texture noise
    proj = rng.normal(0, 1, (3, len(SKY)))
    dcloud = np.concatenate([[0], np.diff(cloud)]) * 20
    sky = (np.stack([cloud, elev, dcloud], 1) @ proj + rng.normal(0, 0.2, (steps, len(SKY)))).astype(np.float32)
    cap = float(800 + 350 * k)
    eff = 1 - 0.004 * (temp - 25).clip(0)
    power = cap * (0.92 * ghi / 1000.0) * eff
    power = np.roll(power, -2) + rng.normal(0, 0.01 * cap, steps)  # the inverter lags the sensor
    return irr, sky, power.clip(0).astype(np.float32), cap


def write_site(out: Path, k: int, steps: int, seed: int, drop: str | None, unit: str = "kW") -> float:
    rng = np.random.default_rng(seed * 100 + k)
    irr, sky, power, cap = site_series(k, steps, rng)
    if unit == "W":  # the inverter SCADA export in watts
        power = power * 1000.0
    d = out / f"site-{k:02d}"
    d.mkdir(parents=True, exist_ok=True)
    if drop:
        irr = np.delete(irr, IRR.index(drop), 1)
    np.save(d / "irradiance.npy", irr)
    np.save(d / "sky.npy", sky)
    np.save(d / "power.npy", power)
    return cap


def stream_site(out: Path, k: int, steps: int, seed: int, block: int, pause: float) -> None:
    """Re-export a site's sky features as the camera pipeline produces them: the file is rewritten block by block,
    under the site's export lock."""
    rng = np.random.default_rng(seed * 100 + k + 7)
    _, sky, _, _ = site_series(k, steps, rng)
    d = out / f"site-{k:02d}"
    with open(d / ".export.lock", "w") as lk:
        fcntl.flock(lk, fcntl.LOCK_EX)
        print(f"exporting sky features for site-{k:02d}: {steps} frames", flush=True)
        with open(d / "sky.npy", "wb") as f:
            np.lib.format.write_array_header_1_0(f, {"descr": "<f4", "fortran_order": False, "shape": sky.shape})
            for i in range(0, steps, block):
                f.write(sky[i:i + block].tobytes())
                f.flush()
                time.sleep(pause)
        print(f"site-{k:02d}: sky features exported", flush=True)


def frames_features(steps: int, rng: np.random.Generator) -> None:
    """Raw 64x64 sky frames through a small filter bank (the slow path when no feature cache exists)."""
    kern = rng.normal(0, 1, (32, 7, 7))
    for i in range(steps):
        img = rng.random((64, 64))
        for j in range(32):
            np.convolve(img.ravel(), kern[j].ravel(), mode="valid")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--sites", type=int, default=6)
    ap.add_argument("--steps", type=int, default=4000)
    ap.add_argument("--steps-site", default="", help="K:N, a different length for site K")
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--only", type=int, default=None)
    ap.add_argument("--drop-feature", default=None)
    ap.add_argument("--stream", action="store_true")
    ap.add_argument("--block", type=int, default=96)
    ap.add_argument("--pause", type=float, default=1.0)
    ap.add_argument("--from-frames", action="store_true")
    ap.add_argument("--power-unit", default="kW", choices=["kW", "W"])
    ap.add_argument("--extra-site", action="store_true", help="add one more site folder (not in sites.csv)")
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    if a.stream:
        stream_site(out, a.only, a.steps, a.seed, a.block, a.pause)
        return
    if a.from_frames:
        rng = np.random.default_rng(a.seed)
        for k in range(a.sites):
            print(f"site-{k:02d}: extracting sky features from {a.steps} frames", flush=True)
            frames_features(a.steps, rng)
    lens = {k: a.steps for k in range(a.sites)}
    if a.steps_site:
        k, n = a.steps_site.split(":")
        lens[int(k)] = int(n)
    if a.extra_site:
        write_site(out, a.sites, a.steps, a.seed, None)
        print(f"site-{a.sites:02d} written")
        return
    caps = {}
    for k in range(a.sites):
        if a.only is not None and k != a.only:
            continue
        caps[k] = write_site(out, k, lens[k], a.seed, a.drop_feature, a.power_unit)
    if a.only is None:
        with open(out / "sites.csv", "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["site", "capacity_kw", "lat", "lon"])
            for k, cap in caps.items():
                w.writerow([f"site-{k:02d}", cap, 37.1 + 0.3 * k, -3.6 + 0.2 * k])
        irr = np.concatenate([np.load(out / f"site-{k:02d}" / "irradiance.npy") for k in caps])
        sky = np.concatenate([np.load(out / f"site-{k:02d}" / "sky.npy") for k in caps])
        feats = np.concatenate([irr, sky], 1)
        meta = {"features": IRR + SKY, "mean": feats.mean(0).tolist(), "std": (feats.std(0) + 1e-6).tolist(),
                "interval_min": 15}
        (out / "meta.json").write_text(json.dumps(meta))
    print(f"wrote {len(caps)} site(s) to {out}")


if __name__ == "__main__":
    main()
