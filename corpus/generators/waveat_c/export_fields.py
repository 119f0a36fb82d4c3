"""Synthetic field-level crop-yield export (what the agronomy data team drops into exports/).

One CSV per region: field_id, region, soil_type, crop, 12 weekly rainfall (mm) and 12 weekly growing-degree-day
columns, the parcel the field was merged into (parcel lineage), and the harvested yield in t/ha.
"""
import argparse
import csv
import json
import os

import numpy as np

WEEKS = 12
SOILS = ["clay", "clay_loam", "loam", "silt_loam", "sandy_loam", "sand", "peat", "chalk"]
CROPS = ["wheat", "barley", "maize"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="exports")
    ap.add_argument("--regions", type=int, default=4)
    ap.add_argument("--fields", type=int, default=1500)
    ap.add_argument("--only", type=int, default=-1, help="re-export one region")
    ap.add_argument("--yield-unit", default="t_ha", choices=["t_ha", "kg_ha"])
    ap.add_argument("--crops", default=",".join(CROPS))
    ap.add_argument("--rain-col", default="rain_w")
    ap.add_argument("--merge-parcels", default="", help="A:B  parcel A merged into parcel B")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    crops = a.crops.split(",")
    for r in range(a.regions):
        if a.only >= 0 and r != a.only:
            continue
        rng = np.random.default_rng(a.seed + r)
        n = a.fields
        soil = rng.integers(0, len(SOILS), n)
        crop = rng.integers(0, len(crops), n)
        rain = rng.gamma(2.0, 9.0 + 2 * r, (n, WEEKS))
        gdd = np.clip(rng.normal(60 + 4 * r, 12, (n, WEEKS)), 0, None)
        soil_eff = np.array([0.2, 0.5, 0.9, 0.8, 0.3, -0.6, 0.1, -0.2])[soil]
        base = np.array([7.5, 6.2, 9.8] + [8.0] * 10)[crop]
        water = -np.abs(rain.mean(1) - 22.0) / 10.0
        heat = -np.abs(gdd.mean(1) - 68.0) / 15.0
        y = np.clip(base + soil_eff + 2.0 * water + 1.5 * heat + rng.normal(0, 0.6, n), 0.5, None)
        if a.yield_unit == "kg_ha":
            y = y * 1000.0
        path = os.path.join(a.out, f"region-{r:02d}.csv")
        with open(path, "w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["field_id", "region", "soil_type", "crop"] + [f"{a.rain_col}{k}" for k in range(WEEKS)]
                       + [f"gdd_w{k}" for k in range(WEEKS)] + ["parcel", "merged_into", f"yield_{a.yield_unit}"])
            for i in range(n):
                fid = r * 100000 + i
                parcel = r * 10000 + i // 3
                merged = parcel - 1 if (i // 3) % 5 else ""
                w.writerow([fid, r, SOILS[soil[i]], crops[crop[i]]] + [f"{v:.1f}" for v in rain[i]]
                           + [f"{v:.1f}" for v in gdd[i]] + [parcel, merged, f"{y[i]:.3f}"])
    if a.only < 0:
        with open(os.path.join(a.out, "vocab.json"), "w") as f:
            json.dump({"soils": SOILS, "crops": CROPS, "weeks": WEEKS}, f)
    if a.merge_parcels:
        src, dst = a.merge_parcels.split(":")
        with open(os.path.join(a.out, "parcel_merges.json"), "w") as f:
            json.dump({src: dst}, f)
    print(f"exported {a.regions if a.only < 0 else 1} region(s) to {a.out}")


if __name__ == "__main__":
    main()
