"""Write the synthetic store-sales export the forecasting job reads (data/sales.csv)."""
import argparse
import os
import time

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--stores", type=int, default=40)
ap.add_argument("--days", type=int, default=120)
ap.add_argument("--missing-promo-days", type=int, default=0, help="days whose promo_depth came through empty")
ap.add_argument("--drop-column", default="")
ap.add_argument("--delay", type=float, default=0, help="the export copy is slow (seconds)")
a = ap.parse_args()
rng = np.random.default_rng(7)
rows = []
for s in range(a.stores):
    base = rng.uniform(50, 400)
    for d in range(a.days):
        promo = float(rng.random() < 0.15) * rng.uniform(0.05, 0.4)
        price = rng.uniform(1.5, 6.0)
        dow = d % 7
        units = base * (1 + 0.3 * (dow >= 5)) * (1 + 2 * promo) / (price / 3) + rng.normal(0, 10)
        rows.append((f"S{s:03d}", d, dow, price, promo, rng.uniform(0, 30), max(units, 0.0)))
df = pd.DataFrame(rows, columns=["store_id", "day", "dow", "price", "promo_depth", "temp_c", "units_sold"])
if a.missing_promo_days:
    df.loc[df.day.isin(range(a.missing_promo_days)), "promo_depth"] = np.nan
if a.drop_column:
    df = df.drop(columns=[a.drop_column])
os.makedirs("data", exist_ok=True)
time.sleep(a.delay)
df.to_csv("data/sales.csv", index=False)
