"""Write the ticket-machine / passenger-counter export the forecaster trains on: data/boardings_hourly.csv.

One row per (stop, service day, hour): route, stop, hour of day, weekday, school-term flag, rain (mm), temperature,
boardings the same hour a week earlier, and the hour's boardings (the target). Also data/transfers.csv: for each stop,
the hub stop its feeder connects to (used to group stops by hub); a hub maps to itself.
Options reproduce what the export gets wrong."""
import argparse
import csv
import math
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=6000)
ap.add_argument("--stops", type=int, default=60)
ap.add_argument("--rename", default="", help="old:new column name (the export's schema changed)")
ap.add_argument("--negative-counter", default="", help="stop id whose passenger counter reports -1 (reset sentinel)")
ap.add_argument("--transfer-loop", default="", help="A:B two stops whose feeder entries point at each other")
ap.add_argument("--unmapped-stops", type=int, default=0, help="stops whose GPS fix is missing (no route)")
ap.add_argument("--rare-route", default="", help="route:n -- a route with only n rows (a new night line)")
a = ap.parse_args()

rng = random.Random(7)
routes = ["R1", "R2", "R3", "R4", "R5"]
stops = [f"S{i:03d}" for i in range(a.stops)]
route_of = {s: routes[i % len(routes)] for i, s in enumerate(stops)}
hubs = stops[:5]
os.makedirs("data", exist_ok=True)
cols = ["stop_id", "route", "hour", "weekday", "school_term", "rain_mm", "temp_c", "boardings_prev_week", "boardings"]
rename = dict([a.rename.split(":")]) if a.rename else {}
rare_route, rare_n = (a.rare_route.split(":")[0], int(a.rare_route.split(":")[1])) if a.rare_route else ("", 0)
with open("data/boardings_hourly.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow([rename.get(c, c) for c in cols])
    for i in range(a.rows):
        s = stops[i % len(stops)]
        hour = rng.randrange(5, 24)
        wd = rng.randrange(7)
        term = int(rng.random() < 0.7)
        rain = round(max(0.0, rng.gauss(0.5, 1.5)), 1)
        temp = round(rng.gauss(12, 6), 1)
        peak = math.exp(-((hour - 8) ** 2) / 4) + 0.8 * math.exp(-((hour - 17) ** 2) / 5)
        base = (3 + 25 * peak) * (0.6 if wd >= 5 else 1.0) * (1.2 if term else 1.0) * (1 + 0.05 * rain)
        base *= 1.5 if s in hubs else 1.0
        prev = max(0, int(rng.gauss(base, base * 0.2)))
        board = max(0, int(rng.gauss(base, base * 0.25)))
        route = route_of[s]
        if rare_route and i >= a.rows - rare_n:  # the newest rows: the line started last week
            route = rare_route
        if i < a.unmapped_stops:
            route = ""
        if a.negative_counter and s == a.negative_counter and i >= a.rows - 600:  # since the reset last week
            board = -1
        w.writerow([s, route, hour, wd, term, rain, temp, prev, board])
loop = a.transfer_loop.split(":") if a.transfer_loop else []
with open("data/transfers.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["stop_id", "feeds"])
    for i, s in enumerate(stops):
        if s in hubs:
            feeds = s
        elif i > 5 and rng.random() < 0.5:
            feeds = stops[i - 1]  # a feeder to a feeder: chains of stops before the hub
        else:
            feeds = hubs[i % len(hubs)]
        if loop and s == loop[0]:
            feeds = loop[1]
        elif loop and s == loop[1]:
            feeds = loop[0]
        w.writerow([s, feeds])
