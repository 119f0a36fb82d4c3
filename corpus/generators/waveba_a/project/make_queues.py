"""Write the lift-queue export: per lift, per 15-minute slot, the turnstile counts and weather (data/queues.csv)."""
import argparse
import csv
import math
import os
import random

LIFTS = ["gondola", "summit-quad", "north-six", "bunny-t", "ridge-double", "glacier-chair", "valley-express",
         "powder-quad"]
COLS = ["date", "slot", "lift", "riders_15m", "capacity_15m", "snow_cm", "temp_c", "wind_kmh", "open", "wait_min"]

ap = argparse.ArgumentParser()
ap.add_argument("--days", type=int, default=40)
ap.add_argument("--out", default="data/queues.csv")
ap.add_argument("--frozen-sensor", default="", help="LIFT: turnstile counter reports capacity 0 (wind hold)")
ap.add_argument("--rename", default="", help="OLD:NEW column rename (export schema change)")
ap.add_argument("--garbled", type=int, default=0, help="N rows where the turnstile feed wrote 'n/a'")
ap.add_argument("--new-lift", default="", help="a lift opened on the last day (one slot of data)")
ap.add_argument("--feed-loop", default="", help="A:B two lifts recorded as feeding each other")
ap.add_argument("--seed", type=int, default=7)
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
        snow = max(0.0, rng.gauss(5, 8))
        temp = rng.gauss(-6, 5)
        for slot in range(32):  # 08:30 .. 16:15
            for li, lift in enumerate(LIFTS):
                cap = 300 + 150 * (li % 4)
                wind = max(0.0, rng.gauss(20, 12))
                is_open = 0 if wind > 60 else 1
                demand = cap * (0.6 + 0.5 * math.sin(math.pi * slot / 32) + 0.02 * snow) * (1.3 if d % 7 >= 5 else 1)
                riders = min(cap, demand) * is_open
                wait = max(0.0, (demand - cap) / cap * 15 + rng.gauss(2, 1)) * is_open
                if a.frozen_sensor == lift and d >= 30:
                    cap = 0
                r = round(riders)
                if a.garbled and d == 12 and slot < a.garbled and li == 3:
                    r = "n/a"
                w.writerow([f"2026-01-{1 + d % 28:02d}", slot, lift, r, cap, round(snow, 1),
                            round(temp, 1), round(wind, 1), is_open, round(wait, 2)])
    if a.new_lift:
        w.writerow(["2026-01-28", 31, a.new_lift, 120, 400, 3.0, -4.0, 12.0, 1, 1.5])
FEEDS = {"summit-quad": "gondola", "glacier-chair": "summit-quad", "ridge-double": "north-six",
         "powder-quad": "valley-express"}
if a.feed_loop:
    x, y = a.feed_loop.split(":")
    FEEDS[x], FEEDS[y] = y, x
with open(os.path.join(os.path.dirname(a.out), "lifts.csv"), "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["lift", "fed_by"])
    for lift in LIFTS:
        w.writerow([lift, FEEDS.get(lift, "")])
