"""Synthetic multispectral field patches for crop-yield regression (one .npz per region, train and val).

Each sample is a PxP patch of 5 surface-reflectance bands (blue, green, red, nir, swir1) at peak season, the
season's weather covariates (rain_mm, gdd, tmax_c, solar_mj) and the crop, with the field's yield in t/ha.
Yield follows canopy vigour (NDVI), water and heat stress plus noise.
"""
from __future__ import annotations

import argparse
import os

import numpy as np

BANDS = ("blue", "green", "red", "nir", "swir1")
BANDS6 = ("blue", "green", "red", "rededge", "nir", "swir1")  # the newer sensor's export order
CROPS = ("maize", "wheat", "soy")
BASE = {"maize": 9.5, "wheat": 6.0, "soy": 3.2}


def region(rng: np.random.Generator, n: int, patch: int, crops: tuple[str, ...], cloud_nodata: float, float64: bool,
           rededge: bool = False, failed: float = 0.0):
    vigour = rng.beta(4, 2, size=n)  # canopy vigour 0..1
    rain = rng.gamma(6, 60, size=n)  # season rain mm
    gdd = rng.normal(1650, 180, size=n)
    tmax = rng.normal(29, 3, size=n)
    solar = rng.normal(20, 2.5, size=n)
    crop = rng.choice(crops, size=n)
    yy, xx = np.mgrid[0:patch, 0:patch] / patch
    pats = np.empty((n, len(BANDS), patch, patch), np.float32)
    for i in range(n):
        tex = 0.08 * np.sin(6.28 * (xx * rng.uniform(1, 3) + yy * rng.uniform(1, 3))) + rng.normal(0, 0.03, (patch, patch))
        v = np.clip(vigour[i] + tex, 0.02, 1.0)
        red = 0.12 - 0.09 * v + rng.normal(0, 0.004, v.shape)
        nir = 0.18 + 0.32 * v + rng.normal(0, 0.01, v.shape)
        pats[i, 0] = 0.05 + 0.02 * (1 - v)
        pats[i, 1] = 0.07 + 0.02 * v
        pats[i, 2] = red
        pats[i, 3] = nir
        pats[i, 4] = 0.25 - 0.1 * v
    if rededge:  # red-edge band inserted after red
        re_ = 0.5 * (pats[:, 2] + pats[:, 3])[:, None]
        pats = np.concatenate([pats[:, :3], re_, pats[:, 3:]], 1)
    if cloud_nodata:  # cloud-masked pixels written as the export's nodata value in every band
        for i in range(n):
            if rng.random() < cloud_nodata:
                r0, c0 = rng.integers(0, patch - 4, 2)
                pats[i, :, r0:r0 + 4, c0:c0 + 4] = 0.0
    nir = pats[:, 4] if rededge else pats[:, 3]
    with np.errstate(invalid="ignore"):
        ndvi = np.nan_to_num((nir - pats[:, 2]) / (nir + pats[:, 2])).mean(axis=(1, 2))
    base = np.array([BASE.get(c, 4.0) for c in crop])
    water = np.clip(rain / 450, 0, 1.2)
    heat = np.clip((tmax - 32) / 6, 0, 1)
    y = base * (0.35 + 0.85 * ndvi) * (0.6 + 0.4 * water) * (1 - 0.35 * heat) + rng.normal(0, 0.25, n)
    if failed:  # fields abandoned after crop failure, reported by the yield monitor as 0 t/ha
        y[rng.random(n) < failed] = 0.0
    weather = np.stack([rain, gdd, tmax, solar], 1).astype(np.float32)
    if float64:
        pats = pats.astype(np.float64)
    return pats, weather, crop, y.astype(np.float32)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--regions", type=int, default=4)
    ap.add_argument("--per-region", type=int, default=480)
    ap.add_argument("--val-per-region", type=int, default=96)
    ap.add_argument("--patch", type=int, default=16)
    ap.add_argument("--only", default="", help="comma list of region ids to (re)write, e.g. 02,04")
    ap.add_argument("--crops", default=",".join(CROPS))
    ap.add_argument("--cloud-nodata", type=float, default=0.0, help="share of patches with a nodata cloud block")
    ap.add_argument("--failed-fields", type=float, default=0.0, help="share of fields with a failed crop (0 t/ha)")
    ap.add_argument("--float64", action="store_true")
    ap.add_argument("--rededge", action="store_true", help="6-band export with the red-edge band")
    ap.add_argument("--format", choices=("npz", "npy"), default="npz", help="npy: one folder per region (mmap-able)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    for split, n in (("train", a.per_region), ("val", a.val_per_region)):
        os.makedirs(os.path.join(a.out, split), exist_ok=True)
        for r in range(1, a.regions + 1):
            rid = f"{r:02d}"
            if only and rid not in only:
                continue
            rng = np.random.default_rng(a.seed * 1000 + r * 10 + (split == "val"))
            p, w, c, y = region(rng, n, a.patch, tuple(a.crops.split(",")), a.cloud_nodata, a.float64, a.rededge, a.failed_fields)
            if a.format == "npz":
                path = os.path.join(a.out, split, f"region-{rid}.npz")
                np.savez(path, patches=p, weather=w, crop=c, yield_t_ha=y)
            else:
                path = os.path.join(a.out, split, f"region-{rid}")
                os.makedirs(path, exist_ok=True)
                for k, v in (("patches", p), ("weather", w), ("crop", c), ("yield_t_ha", y)):
                    np.save(os.path.join(path, k + ".npy"), v)
            print(f"wrote {path}: {len(y)} patches {p.shape[1]}x{p.shape[2]}x{p.shape[3]}, mean yield {y.mean():.2f} t/ha")


if __name__ == "__main__":
    main()
