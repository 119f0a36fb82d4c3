"""Write a warehouse's exports: the layout (grid size, dock, shelf slot of each SKU), recent pick orders, and the
SKU master for inventory control (demand model, mean daily demand, dispersion, lead time, unit cost)."""
from __future__ import annotations

import argparse
import csv
import json
import os

import numpy as np


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="data")
    p.add_argument("--size", type=int, default=7)
    p.add_argument("--n-skus", type=int, default=12)
    p.add_argument("--orders", type=int, default=400)
    p.add_argument("--layout-name", default="layout.json")
    p.add_argument("--orders-name", default="orders.csv")
    p.add_argument("--add-order-sku", default="", help="SKU codes that recent orders also contain (comma list)")
    p.add_argument("--add-sku", action="append", default=[], help="code,model,mean,dispersion,lead,unit_cost")
    p.add_argument("--seed", type=int, default=7)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    os.makedirs(a.out, exist_ok=True)
    cells = [(r, c) for r in range(1, a.size) for c in range(1, a.size, 2)]
    picks = rng.choice(len(cells), size=a.n_skus, replace=False)
    slots = {f"A{100 + i}": list(cells[j]) for i, j in enumerate(picks)}
    with open(os.path.join(a.out, a.layout_name), "w") as f:
        json.dump({"size": [a.size, a.size], "dock": [0, 0], "slots": slots}, f, indent=1)
    codes = list(slots) + [c for c in a.add_order_sku.split(",") if c]
    with open(os.path.join(a.out, a.orders_name), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["order_id", "skus"])
        for i in range(a.orders):
            k = int(rng.integers(1, 4))
            w.writerow([f"PO{50000 + i}", ";".join(rng.choice(codes, size=k, replace=False))])
    rows = [["SKU-0101", "poisson", 12, "", 2, 4.0], ["SKU-0104", "negbin", 25, 2.0, 3, 2.5],
            ["SKU-0112", "poisson", 20, "", 1, 8.0], ["SKU-0120", "poisson", 35, "", 2, 1.5]]
    for s in a.add_sku:
        code, model, mean, disp, lead, cost = s.split(",")
        rows.append([code, model, float(mean), disp, int(lead), float(cost)])
    rows.sort(key=lambda r: r[0])
    with open(os.path.join(a.out, "skus.csv"), "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["sku", "model", "mean_daily", "dispersion", "lead_days", "unit_cost"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
