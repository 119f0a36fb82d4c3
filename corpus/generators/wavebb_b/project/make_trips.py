"""Write the dock export: per station, per hour, rentals and context (data/demand.csv) and the station network."""
import argparse
import csv
import math
import os
import random

STATIONS = ["harbour-sq", "market-st", "uni-north", "central-stn", "riverside", "old-town", "tech-park", "stadium",
            "library", "beach-rd"]
COLS = ["date", "hour", "station", "rentals_1h", "docks", "bikes_avail", "temp_c", "rain_mm", "dow", "holiday"]

ap = argparse.ArgumentParser()
ap.add_argument("--days", type=int, default=30)
ap.add_argument("--out", default="data/demand.csv")
ap.add_argument("--frozen-docks", default="", help="STATION: dock controller reports 0 docks (firmware reset)")
ap.add_argument("--rename", default="", help="OLD:NEW column rename (export schema change)")
ap.add_argument("--garbled", type=int, default=0, help="N rows where the dock feed wrote 'n/a'")
ap.add_argument("--new-station", default="", help="a station opened on the last day (one hour of data)")
ap.add_argument("--overflow-loop", default="", help="A:B two stations recorded as overflowing into each other")
ap.add_argument("--seed", type=int, default=11)
a = ap.parse_args()
rng = random.Random(a.seed)
os.makedirs(os.path.dirname(a.out), exist_ok=True)
cols = list(COLS)
if a.rename:
    old, new = a.rename.split(":")
    cols[cols.index(old)] = new
with open(a.out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols)
    for d in range(a.days):
        temp0 = rng.gauss(16, 5)
        rain_day = rng.random() < 0.3
        for hour in range(6, 24):
            for si, st in enumerate(STATIONS):
                docks = 15 + 5 * (si % 4)
                temp = temp0 + 4 * math.sin(math.pi * (hour - 6) / 18)
                rain = max(0.0, rng.gauss(2, 1.5)) if rain_day else 0.0
                peak = math.exp(-((hour - 8.5) ** 2) / 2) + math.exp(-((hour - 17.5) ** 2) / 3)
                rent = max(0.0, docks * (0.2 + 0.9 * peak) * (0.7 if d % 7 >= 5 else 1) * (1 - 0.08 * rain)
                           + rng.gauss(0, 1))
                bikes = max(0, min(docks, round(docks * 0.5 + rng.gauss(0, 3))))
                if a.frozen_docks == st and d >= 20:
                    docks = 0
                r = round(rent)
                if a.garbled and d == 9 and hour - 6 < a.garbled and si == 4:
                    r = "n/a"
                w.writerow([f"2026-06-{1 + d % 30:02d}", hour, st, r, docks, bikes, round(temp, 1), round(rain, 1),
                            d % 7, int(d % 13 == 0)])
    if a.new_station:
        w.writerow(["2026-06-30", 23, a.new_station, 3, 12, 6, 14.0, 0.0, 1, 0])
OVERFLOW = {"market-st": "central-stn", "old-town": "market-st", "stadium": "tech-park", "beach-rd": "riverside"}
if a.overflow_loop:
    x, y = a.overflow_loop.split(":")
    OVERFLOW[x], OVERFLOW[y] = y, x
with open(os.path.join(os.path.dirname(a.out), "stations.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["station", "overflows_to"])
    for st in STATIONS:
        w.writerow([st, OVERFLOW.get(st, "")])
