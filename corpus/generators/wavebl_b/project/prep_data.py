"""Write the synthetic customer snapshot (data/customers/part-NNNN.parquet, data/regions.json) and build the
plan-code hashing helper (libplanhash.so)."""
import argparse
import json
import os
import subprocess

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--partitions", type=int, default=24)
ap.add_argument("--rows", type=int, default=3000)  # per partition
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--new-region-in", type=int, default=-1)  # partition whose export has a region added after regions.json
ap.add_argument("--null-plan-in", type=int, default=-1)  # partition where the CRM export left plan_code empty
ap.add_argument("--wide", type=int, default=0)  # extra raw usage columns
a = ap.parse_args()

REGIONS = ["north", "south", "east", "west", "central", "coastal", "metro", "rural"]
os.makedirs("data/customers", exist_ok=True)
json.dump({r: i for i, r in enumerate(REGIONS)}, open("data/regions.json", "w"), indent=1)
rng = np.random.default_rng(a.seed)
for p in range(a.partitions):
    n = a.rows
    df = pd.DataFrame({
        "customer_id": np.arange(p * n, (p + 1) * n),
        "tenure_months": rng.integers(1, 96, n),
        "monthly_charges": rng.gamma(4.0, 18.0, n).round(2),
        "support_calls": rng.poisson(1.3, n),
        "data_usage_gb": rng.lognormal(2.0, 0.8, n).round(3),
        "dropped_calls": rng.poisson(0.6, n),
        "contract": rng.choice(["monthly", "annual", "two_year"], n, p=[0.55, 0.3, 0.15]),
        "region": rng.choice(REGIONS, n),
        "plan_code": [f"P{c:04d}" for c in rng.integers(0, 3000, n)],
    })
    for k in range(a.wide):
        df[f"usage_{k:03d}"] = rng.normal(size=n).astype("float32")
    z = (-1.2 + 0.9 * (df.contract == "monthly") - 0.02 * df.tenure_months + 0.35 * df.support_calls
         + 0.01 * df.monthly_charges + 0.25 * df.dropped_calls + rng.normal(0, 0.7, n))
    df["churned"] = (z > 0).astype("int8")
    if p == a.new_region_in:
        df.loc[df.index[n // 2:n // 2 + 40], "region"] = "islands"
    if p == a.null_plan_in:
        df["plan_code"] = df["plan_code"].astype(object)
        df.loc[df.index[1234], "plan_code"] = None
    df.to_parquet(f"data/customers/part-{p:04d}.parquet", index=False)
subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "libplanhash.so", "planhash.c"], check=True)
