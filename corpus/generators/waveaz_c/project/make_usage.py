"""Writes the pharmacy's dispensing-cabinet export: data/usage.csv (per ward, per drug, per day: doses dispensed,
on-hand stock, open order quantity, supplier lead time) and data/substitutes.csv (the formulary's therapeutic
substitution table). Options reproduce what the export gets wrong."""
import argparse
import csv
import os
import random

WARDS = ["ICU", "CCU", "ED", "ONC", "PAED", "MAT", "SURG", "MED"]
DRUGS = [f"D{n:03d}" for n in range(1, 31)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--days", type=int, default=60)
    ap.add_argument("--bad-dates", type=int, default=0, help="rows with an unreadable date")
    ap.add_argument("--rename", default="", help="old:new column name")
    ap.add_argument("--zero-usage", default="", help="ward whose cabinet reports 0 doses and stock -1 (sensor reset)")
    ap.add_argument("--sub-loop", default="", help="two drugs that name each other as substitute")
    a = ap.parse_args()
    rnd = random.Random(11)
    os.makedirs("data", exist_ok=True)
    cols = ["date", "ward", "drug", "doses_dispensed", "on_hand", "on_order", "lead_time_days"]
    if a.rename:
        old, new = a.rename.split(":")
        cols = [new if c == old else c for c in cols]
    rows = []
    for w in WARDS:
        for d in DRUGS:
            base = rnd.uniform(2, 40)
            stock = rnd.uniform(50, 600)
            lead = rnd.choice([1, 2, 3, 5, 7])
            for day in range(a.days):
                use = max(0.0, rnd.gauss(base, base * 0.3))
                stock = stock - use
                order = 0.0
                if stock < base * lead * rnd.uniform(0.5, 2.5):
                    order = base * rnd.uniform(5, 15)
                    stock += order * rnd.uniform(0.0, 1.0)
                stock = max(stock, 0.0)
                date = f"2026-{9 + day // 30:02d}-{day % 30 + 1:02d}"
                u, s = round(use, 1), round(stock, 1)
                if a.zero_usage == w and day >= a.days - 5:
                    u, s = 0.0, -1.0
                rows.append([date, w, d, u, s, round(order, 1), lead])
    for i in rnd.sample(range(len(rows)), a.bad_dates):
        rows[i][0] = "00/00/0000"
    with open("data/usage.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(cols)
        wr.writerows(rows)
    with open("data/substitutes.csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["drug", "substitute"])
        for i, d in enumerate(DRUGS):
            wr.writerow([d, DRUGS[i + 1] if i % 3 == 0 and i + 1 < len(DRUGS) else ""])
        if a.sub_loop:
            x, y = a.sub_loop.split(":")
            wr.writerow([x, y])
            wr.writerow([y, x])
    print(f"wrote {len(rows)} rows")


if __name__ == "__main__":
    main()
