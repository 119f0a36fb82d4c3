"""Writes the POS export the forecaster trains on: data/daily_sales.csv, one row per store x product x day
(units sold that day and the next day's units, the target), plus weather, promotion and shelf capacity.
Options reproduce what the nightly export gets wrong."""
import argparse
import os

import numpy as np
import pandas as pd

PRODUCTS = ["sourdough", "baguette", "rye", "seeded", "brioche", "ciabatta", "wholemeal", "focaccia"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--stores", type=int, default=18)
    ap.add_argument("--days", type=int, default=28)
    ap.add_argument("--negative", type=int, default=0, help="rows with a negative units count (till refunds)")
    ap.add_argument("--rename", default="", help="old:new column rename (an export schema change)")
    ap.add_argument("--zero-capacity", default="", help="store whose shelf capacity is exported as 0")
    ap.add_argument("--recipe-loop", default="", help="a:b products whose base dough points at each other")
    ap.add_argument("--rare-store", default="", help="store:n rows (a store that just opened)")
    a = ap.parse_args()
    rng = np.random.default_rng(42)
    rows = []
    for s in range(1, a.stores + 1):
        store = f"S{s:02d}"
        cap = int(rng.integers(120, 400))
        for p_i, prod in enumerate(PRODUCTS):
            base = rng.uniform(10, 60)
            for d in range(a.days):
                day = pd.Timestamp("2026-10-01") + pd.Timedelta(days=d)
                temp = 12 + 6 * np.sin(d / 5) + rng.normal(0, 2)
                promo = int(rng.random() < 0.1)
                wk = day.weekday()
                units = max(0, int(base * (1.3 if wk >= 5 else 1.0) * (1.4 if promo else 1.0) + rng.normal(0, 4)))
                nxt = max(0, int(base * (1.3 if (wk + 1) % 7 >= 5 else 1.0) + rng.normal(0, 4)))
                rows.append(dict(store=store, product=prod, date=day.strftime("%Y-%m-%d"), weekday=wk,
                                 temp_c=round(temp, 1), promo=promo, shelf_capacity=cap, units_sold=units,
                                 next_day_units=nxt))
    df = pd.DataFrame(rows)
    if a.negative:
        idx = rng.choice(len(df), a.negative, replace=False)
        df.loc[idx, "units_sold"] = -rng.integers(1, 9, a.negative)
    if a.zero_capacity:
        df.loc[df.store == a.zero_capacity, "shelf_capacity"] = 0
    if a.rare_store:
        st, n = a.rare_store.split(":")
        extra = df[df.store == "S01"].head(int(n)).copy()
        extra["store"] = st
        df = pd.concat([df, extra], ignore_index=True)
    if a.rename:
        old, new = a.rename.split(":")
        df = df.rename(columns={old: new})
    os.makedirs("data", exist_ok=True)
    df.to_csv("data/daily_sales.csv", index=False)
    recipes = {p: "white" for p in PRODUCTS}
    recipes.update({"sourdough": "levain", "rye": "levain", "levain": "flour", "white": "flour", "flour": ""})
    if a.recipe_loop:
        x, y = a.recipe_loop.split(":")
        recipes[x], recipes[y] = y, x
    pd.DataFrame({"product": list(recipes), "base": list(recipes.values())}).to_csv("data/recipes.csv", index=False)
    print(f"wrote {len(df)} rows")


if __name__ == "__main__":
    main()
