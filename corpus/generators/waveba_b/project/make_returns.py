"""Writes the circulation system's nightly export of book returns per branch per day (data/returns.csv) and the
branch routing table (data/routing.csv: where a branch's returns are sorted; a branch with no sorter routes to
another branch's). Options reproduce what the export gets wrong."""
import argparse
import csv
import datetime
import os

import numpy as np

BRANCHES = ["CENTRAL", "NORTHGATE", "RIVERSIDE", "ELMWOOD", "HARBOR", "MILLBROOK", "OAKDALE", "PINEHURST",
            "QUARRY", "SOUTHFIELD", "WESTEND", "ASHBY"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=150)
    ap.add_argument("--bad-dates", type=int, default=0, help="rows whose date the export garbles")
    ap.add_argument("--rename", default="", help="OLD:NEW column rename (a changed export)")
    ap.add_argument("--closed", default="", help="a branch closed for renovation: the export reports -1 returns")
    ap.add_argument("--new-branch", action="store_true", help="a branch that opened yesterday (one day of data)")
    ap.add_argument("--route-loop", default="", help="A:B two branches routing to each other")
    a = ap.parse_args()
    rng = np.random.default_rng(11)
    os.makedirs("data", exist_ok=True)
    start = datetime.date(2026, 6, 1)
    cols = ["date", "branch", "returns", "checkouts", "holds", "open_hours"]
    if a.rename:
        old, new = a.rename.split(":")
        cols = [new if c == old else c for c in cols]
    rows = []
    for b, name in enumerate(BRANCHES):
        base = 40 + 25 * b
        for d in range(a.days):
            day = start + datetime.timedelta(days=d)
            wk = day.weekday()
            hours = 0 if wk == 6 and b % 3 else (6 if wk == 5 else 10)
            checkouts = int(rng.poisson(base * (1.2 if wk in (1, 5) else 1.0)))
            returns = int(rng.poisson(base * hours / 10 * (1.3 if wk == 0 else 1.0))) if hours else 0
            if a.closed == name and d > a.days - 40:
                returns, hours = -1, 0
            rows.append([day.strftime("%Y-%m-%d"), name, returns, checkouts, int(rng.poisson(base / 5)), hours])
    if a.new_branch:
        day = start + datetime.timedelta(days=a.days - 1)
        rows.append([day.strftime("%Y-%m-%d"), "LAKESIDE", 12, 30, 4, 10])
    for i in rng.choice(len(rows), a.bad_dates, replace=False):
        rows[i][0] = "31/02/2026"
    with open("data/returns.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(rows)
    route = {n: n for n in BRANCHES}
    route["ASHBY"] = "WESTEND"
    route["QUARRY"] = "OAKDALE"
    if a.route_loop:
        x, y = a.route_loop.split(":")
        route[x], route[y] = y, x
    with open("data/routing.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["branch", "sorted_at"])
        w.writerows(sorted(route.items()))
    print(f"wrote {len(rows)} rows")


if __name__ == "__main__":
    main()
