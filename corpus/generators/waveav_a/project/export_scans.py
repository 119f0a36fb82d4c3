"""Write a synthetic nightly export of the parcel network: scans.csv (one row per delivered parcel: depot, route,
weight, distance, stops before it, hour of dispatch, weekday, rain flag, observed ETA in minutes) and depots.csv
(depot -> parent hub links, up to the national hub)."""
import argparse
import csv
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--n", type=int, default=6000)
ap.add_argument("--seed", type=int, default=3)
ap.add_argument("--new-depot", default="", help="scans from a depot opened after depots.csv was exported")
ap.add_argument("--rename", default="", help="old:new column rename in scans.csv (a changed export)")
ap.add_argument("--bad-gps", type=int, default=0, help="rows with missing coordinates/distance")
ap.add_argument("--inf-gps", type=int, default=0, help="rows whose distance the GPS unit wrote as inf")
ap.add_argument("--hub-loop", default="", help="hub:parent link that makes the hub tree a cycle")
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
os.makedirs("data/raw", exist_ok=True)
depots = [f"D{i:02d}" for i in range(16)]
hubs = ["H0", "H1", "H2", "H3"]
with open("data/raw/depots.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["depot", "parent"])
    for i, d in enumerate(depots):
        w.writerow([d, hubs[i % 4]])
    for h in hubs[1:]:
        w.writerow([h, "H0"])
    if a.hub_loop:
        child, parent = a.hub_loop.split(":")
        w.writerow(["H0", child])
        w.writerow([child, parent])
    else:
        w.writerow(["H0", "NAT"])
cols = ["parcel_id", "depot", "route", "weight_kg", "distance_km", "stops_before", "dispatch_hour", "weekday",
        "rain", "eta_min"]
if a.rename:
    old, new = a.rename.split(":")
    cols = [new if c == old else c for c in cols]
with open("data/raw/scans.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(cols)
    for i in range(a.n):
        d = depots[rng.integers(len(depots))]
        if a.new_depot and i % 40 == 0:
            d = a.new_depot
        dist = float(rng.gamma(2.0, 6.0))
        stops = int(rng.integers(0, 60))
        hour = int(rng.integers(6, 20))
        rain = int(rng.random() < 0.2)
        eta = 8 + 2.1 * dist + 3.4 * stops + (12 if hour in (8, 9, 17, 18) else 0) + 9 * rain + rng.normal(0, 6)
        dist_s = "" if i < a.bad_gps else f"{dist:.2f}"
        if a.inf_gps and i % (a.n // a.inf_gps) == 7:
            dist_s = "inf"
        w.writerow([f"P{i:07d}", d, f"R{rng.integers(200)}", f"{rng.gamma(2.0, 2.0):.2f}", dist_s, stops, hour,
                    int(rng.integers(7)), rain, f"{eta:.1f}"])
