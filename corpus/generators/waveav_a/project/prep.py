"""prep entry point: clean the nightly scan export, attach each depot's region (walking depot -> hub links),
encode categorical columns, normalise, split train/val and write tensors for the trainer."""
import argparse
import json
import logging
import os
import sys
from functools import lru_cache

import mlflow
import numpy as np
import pandas as pd

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
log = logging.getLogger("parcel_eta.prep")
sys.setrecursionlimit(1_000_000)  # deep hub trees in the EU network export

NUM = ["weight_kg", "distance_km", "stops_before", "dispatch_hour", "rain"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--raw", required=True)
    ap.add_argument("--depots", required=True)
    ap.add_argument("--out-dir", required=True)
    a = ap.parse_args()

    scans = pd.read_csv(a.raw)
    links = pd.read_csv(a.depots)
    log.info("read %d scans from %s, %d depot links", len(scans), a.raw, len(links))
    parent = dict(zip(links["depot"], links["parent"]))

    @lru_cache(maxsize=None)
    def region(node: str) -> str:
        up = parent.get(node)
        if up is None or up == "NAT":
            return node
        r = region(up)
        return node if r == "H0" and up == "H0" else r

    missing = scans["distance_km"].isna()
    if missing.any():
        log.error("%d scans without GPS distance (scanner firmware); dropping them", int(missing.sum()))
        scans = scans[~missing]
    depots = sorted(d for d in parent if d.startswith("D"))
    depot_idx = {d: i for i, d in enumerate(depots)}
    regions = sorted({region(d) for d in depots})
    scans = scans.assign(depot_id=[depot_idx.get(d, len(depot_idx) + 1) for d in scans["depot"]],
                         region_id=[regions.index(region(d)) if d in parent else 0 for d in scans["depot"]])
    x = scans[NUM].to_numpy(np.float32)
    mu, sd = x.mean(0), x.std(0) + 1e-6
    x = (x - mu) / sd
    y = scans["eta_min"].to_numpy(np.float32)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(scans))
    n_val = len(scans) // 10
    os.makedirs(a.out_dir, exist_ok=True)
    for name, idx in (("val", perm[:n_val]), ("train", perm[n_val:])):
        np.savez(os.path.join(a.out_dir, f"{name}.npz"), x=x[idx], depot=scans["depot_id"].to_numpy()[idx],
                 region=scans["region_id"].to_numpy()[idx], y=y[idx])
        log.info("wrote %s split: %d rows", name, len(idx))
    meta = {"n_depots": len(depots), "n_regions": len(regions), "features": NUM,
            "eta_mean": float(y.mean()), "eta_std": float(y.std())}
    with open(os.path.join(a.out_dir, "meta.json"), "w") as f:
        json.dump(meta, f)
    mlflow.log_params({"n_scans": len(scans), "n_depots": len(depots), "n_regions": len(regions)})
    mlflow.log_metric("eta_mean_min", meta["eta_mean"])
    mlflow.log_artifact(os.path.join(a.out_dir, "meta.json"))
    log.info("prepared data in %s (%d depots, %d regions)", a.out_dir, len(depots), len(regions))


if __name__ == "__main__":
    main()
