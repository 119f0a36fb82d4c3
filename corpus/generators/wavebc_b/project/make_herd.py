"""Write the cooperative's sensor export: data/herd.csv (one row per cow per day) and data/cows.csv (cow register).

Options reproduce what the parlour / collar export really gets wrong."""
import argparse
import csv
import os

import numpy as np

COLS = ["cow", "day", "pen", "parity", "dim", "rumination_min", "activity_steps", "body_temp", "feed_kg", "water_l",
        "conductivity", "milk_kg"]

ap = argparse.ArgumentParser()
ap.add_argument("--cows", type=int, default=40)
ap.add_argument("--days", type=int, default=120)
ap.add_argument("--bad-meter", type=int, default=0, help="records whose milk meter wrote 'ERR'")
ap.add_argument("--water-overflow", default="", help="cow whose water meter counter overflows (1e39 l)")
ap.add_argument("--new-sensor", action="store_true", help="the export gains a rumen_ph column")
ap.add_argument("--new-pen", action="store_true", help="one cow moved to a new pen 9 for her last day")
ap.add_argument("--dam-cycle", action="store_true", help="two register entries name each other as dam")
a = ap.parse_args()

rng = np.random.default_rng(7)
os.makedirs("data", exist_ok=True)
cols = COLS[:-1] + (["rumen_ph"] if a.new_sensor else []) + ["milk_kg"]
bad = set(rng.choice(a.cows * a.days, size=a.bad_meter, replace=False).tolist()) if a.bad_meter else set()
with open("data/herd.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols)
    n = 0
    for c in range(a.cows):
        cow = f"NL{100 + c:04d}"
        pen, parity, dim0 = c % 6, 1 + c % 5, int(rng.integers(5, 200))
        base = 22 + 4 * min(parity, 3) + rng.normal(0, 2)
        for d in range(a.days):
            dim = dim0 + d
            rum = rng.normal(480, 40)
            act = rng.normal(9000, 1500)
            temp = rng.normal(38.6, 0.25)
            feed = rng.normal(21, 2)
            water = rng.normal(85, 10)
            cond = rng.normal(5.2, 0.3)
            milk = base * (1 + 0.2 * np.exp(-((dim - 50) / 60) ** 2)) * (1 - dim / 700) + 0.02 * (rum - 480) \
                + 0.3 * (feed - 21) - 3 * max(temp - 39.0, 0) + rng.normal(0, 1)
            row = [cow, d, pen, parity, dim, f"{rum:.0f}", f"{act:.0f}", f"{temp:.2f}", f"{feed:.1f}", f"{water:.1f}",
                   f"{cond:.2f}"]
            if a.new_sensor:
                row.append(f"{rng.normal(6.3, 0.2):.2f}")
            row.append("ERR" if n in bad else f"{milk:.1f}")
            if a.water_overflow == cow and d >= a.days - 20:
                row[9] = "1e39"
            if a.new_pen and c == a.cows - 1 and d >= a.days - 2:
                row[2] = 9
            w.writerow(row)
            n += 1
with open("data/cows.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["cow", "dam", "breed"])
    for c in range(a.cows):
        dam = f"NL{100 + c - 6:04d}" if c >= 6 else ""
        w.writerow([f"NL{100 + c:04d}", dam, "Holstein" if c % 4 else "Jersey"])
    if a.dam_cycle:  # two heifers bought in, each registered with the other as dam
        w.writerow(["DE7001", "DE7002", "Holstein"])
        w.writerow(["DE7002", "DE7001", "Holstein"])
