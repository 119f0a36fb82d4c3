"""Synthetic retail sales export: per-store, per-item daily sales with prices, promotions, holidays and stock.

Writes data/sales/store-NN.csv (one file per store) and data/items.csv. Each row: date, store, item, category, price,
promo (none/flyer/tpr/display), holiday, stock_open (units on the shelf at opening), units (units sold; capped by
stock, so a stock-out day shows units == stock_open). Replenishment every few days brings stock back up.
Options describe other exports of the merchandising system (a re-export of some stores, longer history, prices in
cents, a new promo type, a newly listed item with no sales yet).
"""
import argparse
import os

import numpy as np
import pandas as pd

CATS = ["dairy", "bakery", "produce", "snacks", "beverages", "household"]
PROMOS = ["none", "flyer", "tpr", "display"]
HOLIDAYS = ["01-01", "04-18", "04-21", "05-01", "05-29", "06-09", "10-03", "12-24", "12-25", "12-26", "12-31"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--stores", type=int, default=6)
    ap.add_argument("--items", type=int, default=30)
    ap.add_argument("--days", type=int, default=240)
    ap.add_argument("--start", default="2025-01-01")
    ap.add_argument("--only", default="", help="comma list of stores to (re)write, e.g. store-03")
    ap.add_argument("--price-cents", action="store_true", help="write prices in cents (POS export v2)")
    ap.add_argument("--promo-types", default="", help="extra promo codes the new promo planner writes, e.g. bogo")
    ap.add_argument("--new-item", action="store_true", help="list one new item, stocked but not sold yet")
    ap.add_argument("--vmi", default="", help="comma list of stores whose shelves the supplier now keeps full "
                    "(vendor-managed inventory: topped up every morning)")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()

    rng = np.random.default_rng(a.seed)
    os.makedirs(os.path.join(a.out, "sales"), exist_ok=True)
    items = pd.DataFrame({
        "item": [f"I{i:03d}" for i in range(1, a.items + 1)],
        "category": [CATS[i % len(CATS)] for i in range(a.items)],
        "base_price": np.round(rng.uniform(0.79, 9.99, a.items), 2),
        "base_demand": rng.gamma(2.0, 6.0, a.items) + 1.0,
    })
    items[["item", "category", "base_price"]].to_csv(os.path.join(a.out, "items.csv"), index=False)
    dates = pd.date_range(a.start, periods=a.days, freq="D")
    mmdd = dates.strftime("%m-%d")
    holiday = np.isin(mmdd, HOLIDAYS).astype(int)
    dow = dates.day_of_week.values
    only = set(filter(None, a.only.split(",")))
    promos = PROMOS + list(filter(None, a.promo_types.split(",")))
    vmi = set(filter(None, a.vmi.split(",")))
    for s in range(1, a.stores + 1):
        store = f"store-{s:02d}"
        srng = np.random.default_rng(a.seed * 100 + s)
        size = srng.uniform(0.6, 1.6)
        frames = []
        for _, it in items.iterrows():
            promo_idx = np.zeros(a.days, dtype=int)
            for start in srng.choice(a.days, size=max(1, a.days // 40), replace=False):
                promo_idx[start:start + 7] = srng.integers(1, len(promos))
            promo = np.array(promos)[promo_idx]
            disc = np.where(promo_idx > 0, srng.uniform(0.1, 0.3), 0.0)
            price = np.round(it.base_price * (1 - disc) * (1 + 0.02 * srng.standard_normal(a.days)), 2)
            weekly = 1.0 + 0.35 * (dow >= 4)
            lam = it.base_demand * size * weekly * (1 + 1.5 * disc) * (1 + 0.8 * holiday)
            demand = srng.poisson(lam)
            stock = np.zeros(a.days, dtype=int)
            units = np.zeros(a.days, dtype=int)
            on_hand = int(lam.mean() * 6)
            order_every = int(srng.integers(3, 7))
            for d in range(a.days):
                if store in vmi:
                    on_hand = max(on_hand, int(lam[d] * 3) + 10)
                elif d % order_every == 0:
                    on_hand += int(srng.poisson(lam.mean() * order_every * srng.uniform(0.7, 1.15)))
                stock[d] = on_hand
                units[d] = min(demand[d], on_hand)
                on_hand -= units[d]
            frames.append(pd.DataFrame({
                "date": dates.strftime("%Y-%m-%d"), "store": store, "item": it["item"], "category": it.category,
                "price": price, "promo": promo, "holiday": holiday, "stock_open": stock, "units": units}))
        if a.new_item:
            n = a.days
            frames.append(pd.DataFrame({
                "date": dates.strftime("%Y-%m-%d"), "store": store, "item": f"I{a.items + 1:03d}",
                "category": "snacks", "price": np.full(n, 3.49), "promo": "none", "holiday": holiday,
                "stock_open": np.full(n, 24), "units": np.zeros(n, dtype=int)}))
        df = pd.concat(frames, ignore_index=True).sort_values(["date", "item"], kind="stable")
        if a.price_cents:
            df["price"] = (df["price"] * 100).round().astype(int)
        if only and store not in only:
            continue
        df.to_csv(os.path.join(a.out, "sales", f"{store}.csv"), index=False)
    print(f"wrote {a.stores if not only else len(only)} store files, {a.items} items, {a.days} days to {a.out}")


if __name__ == "__main__":
    main()
