"""Write warehouse zone layouts (one JSON per zone, as exported from the WMS): grid size, fleet size, pick station,
shelf cells, rack cells and the zone's order list (shelf indices, one per open order line)."""
import argparse
import json
import os

import numpy as np


def zone(idx, size, robots, shelves, orders, seed):
    rng = np.random.default_rng(seed + idx)
    cells = [(r, c) for r in range(1, size - 1) for c in range(1, size - 1) if (r + c) % 3 == 0]
    pick = rng.choice(len(cells), shelves + 2, replace=False)
    return {"zone": idx, "size": size, "robots": robots, "station": [0, 0],
            "shelves": [list(map(int, cells[i])) for i in pick[:shelves]],
            "racks": [list(map(int, cells[i])) for i in pick[shelves:]],
            "orders": [int(x) for x in rng.integers(0, orders, 60)]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="layouts")
    ap.add_argument("--zones", type=int, default=3)
    ap.add_argument("--only", type=int, default=None, help="re-export this zone only")
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--robots", type=int, default=3)
    ap.add_argument("--shelves", type=int, default=6)
    ap.add_argument("--order-shelves", type=int, default=None, help="shelf ids used by the order list (default: all)")
    ap.add_argument("--seed", type=int, default=11)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for z in range(a.zones):
        if a.only is not None and z != a.only:
            continue
        lay = zone(z, a.size, a.robots, a.shelves, a.order_shelves or a.shelves, a.seed)
        with open(os.path.join(a.out, f"zone-{z}.json"), "w") as f:
            json.dump(lay, f)
        print(f"zone {z}: {a.size}x{a.size}, {a.robots} robots, {a.shelves} shelves, {len(lay['orders'])} order lines")


if __name__ == "__main__":
    main()
