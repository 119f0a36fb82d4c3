"""Write the footfall export the forecaster trains on: data/footfall.csv (one row per store per opening hour).

Options reproduce what the store-counter export gets wrong in practice."""
import argparse
import os

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--stores", type=int, default=10)
ap.add_argument("--days", type=int, default=56)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--garbled", type=int, default=0, help="rows whose door counter wrote 'n/a'")
ap.add_argument("--rename", default="", help="old:new, a column renamed by the export")
ap.add_argument("--stuck-counter", default="", help="store whose door counter overflows from day 40 (writes 3.4e38)")
ap.add_argument("--new-store", default="", help="a store opened on the last day (one row)")
ap.add_argument("--unmapped", action="store_true", help="the new store is missing from regions.csv")
ap.add_argument("--region-loop", default="", help="a:b, two stores recorded as each other's parent in regions.csv")
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
rows = []
names = [f"store-{i:02d}" for i in range(a.stores)]
base = rng.uniform(80, 400, a.stores)
for d in range(a.days):
    dow = d % 7
    temp = 12 + 8 * np.sin(d / 9) + rng.normal(0, 2)
    for s, name in enumerate(names):
        rain = max(0.0, rng.normal(0.5, 2))
        promo = int(rng.random() < 0.1)
        for h in range(9, 21):
            peak = np.exp(-((h - 15) ** 2) / 10)
            ff = base[s] * (0.4 + peak) * (1.3 if dow >= 5 else 1.0) * (1 + 0.3 * promo) * (1 - 0.04 * rain)
            ff = max(0.0, ff + rng.normal(0, 10))
            rows.append(dict(store=name, day=d, dow=dow, hour=h, temp_c=round(temp, 1), rain_mm=round(rain, 1),
                             promo=promo, footfall=round(ff)))
df = pd.DataFrame(rows)
df["footfall_lag7"] = df.groupby(["store", "hour"])["footfall"].shift(7).fillna(df["footfall"].mean()).round()
df["footfall"] = df["footfall"].astype(object)
if a.stuck_counter:
    m = (df.store == a.stuck_counter) & (df.day >= 40)
    df.loc[m, "footfall"] = 3.4e38
if a.garbled:
    idx = rng.choice(len(df), a.garbled, replace=False)
    df.loc[idx, "footfall"] = "n/a"
if a.new_store:
    df = pd.concat([df, pd.DataFrame([dict(store=a.new_store, day=a.days - 1, dow=(a.days - 1) % 7, hour=12,
                                           temp_c=14.0, rain_mm=0.0, promo=0, footfall=55, footfall_lag7=0)])],
                   ignore_index=True)
if a.rename:
    old, new = a.rename.split(":")
    df = df.rename(columns={old: new})
os.makedirs("data", exist_ok=True)
df.to_csv("data/footfall.csv", index=False)
regions = {n: ("north" if i % 2 else "south") for i, n in enumerate(names)}
regions.update({"north": "uk", "south": "uk", "uk": ""})
if a.new_store and not a.unmapped:
    regions[a.new_store] = "north"
if a.region_loop:
    x, y = a.region_loop.split(":")
    regions[x], regions[y] = y, x
pd.DataFrame({"node": list(regions), "parent": list(regions.values())}).to_csv("data/regions.csv", index=False)
print(f"wrote {len(df)} rows for {df['store'].nunique() if 'store' in df else '?'} stores")
