"""Writes the cooperative's tank-sensor export, data/tank_readings.csv (synthetic): one row per bulk-tank reading
at a member farm, with the lab's grade of the collected milk (fresh, watch, spoiled).

Options reproduce what the farm gateways get wrong: unparseable timestamps, a renamed column, a new lab grade, a
conductivity probe reporting 0, a tanker transfer loop, a grade that is almost never seen."""
import argparse
import csv
import os

import numpy as np

GRADES = ["fresh", "watch", "spoiled"]
COLS = ["reading_id", "farm_id", "tank_id", "read_at", "source_tank", "temp_c", "ph", "conductivity_ms",
        "hours_since_milking", "agitator_rpm", "grade"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2400)
    ap.add_argument("--garbled", type=int, default=0, help="readings whose timestamp is unreadable")
    ap.add_argument("--rename", default="", help="old:new column rename")
    ap.add_argument("--new-grade", default="", help="one reading graded with a grade the model does not know")
    ap.add_argument("--zero-conductivity", default="", help="farm whose conductivity probe reports 0")
    ap.add_argument("--transfer-loop", default="", help="T1:T2 tanks recorded as filled from each other")
    ap.add_argument("--rare", default="", help="grade:n keep only n readings of this grade")
    a = ap.parse_args()
    rng = np.random.default_rng(11)
    farms = [f"F{i:03d}" for i in range(1, 41)]
    tanks = [f"T{i:03d}" for i in range(1, 81)]
    source = {t: "" for t in tanks}
    for i, t in enumerate(tanks[1:], 1):  # tankers top up later tanks from earlier ones
        if rng.random() < 0.9:
            source[t] = tanks[i - 1]
    if a.transfer_loop:
        t1, t2 = a.transfer_loop.split(":")
        source[t1], source[t2] = t2, t1
    rows = []
    for r in range(a.rows):
        g = int(rng.choice(3, p=[0.55, 0.3, 0.15]))
        temp = rng.normal([3.6, 6.0, 9.5][g], 0.8)
        ph = rng.normal([6.7, 6.5, 6.2][g], 0.06)
        cond = rng.normal([4.6, 5.2, 6.1][g], 0.3)
        hours = rng.uniform([2, 14, 30][g], [20, 40, 72][g])
        farm = farms[r % len(farms)]
        tank = tanks[r % len(tanks)]
        ts = f"2026-11-{1 + r % 28:02d}T{r % 24:02d}:{r % 60:02d}:00"
        if r < a.garbled:
            ts = "--T::"
        if a.zero_conductivity and farm == a.zero_conductivity:
            cond = 0.0
        rows.append([f"R{r:06d}", farm, tank, ts, source[tank], round(temp, 2), round(ph, 3), round(cond, 3),
                     round(hours, 1), int(rng.integers(20, 40)), GRADES[g]])
    if a.rare:
        grade, n = a.rare.split(":")
        keep, seen = [], 0
        for row in rows:
            if row[-1] == grade:
                seen += 1
                if seen > int(n):
                    continue
            keep.append(row)
        rows = keep
    if a.new_grade:
        rows[len(rows) // 2][-1] = a.new_grade
    cols = list(COLS)
    if a.rename:
        old, new = a.rename.split(":")
        cols[cols.index(old)] = new
    os.makedirs("data", exist_ok=True)
    with open("data/tank_readings.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(rows)
    print(f"wrote {len(rows)} readings")


if __name__ == "__main__":
    main()
