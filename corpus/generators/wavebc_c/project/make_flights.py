"""Write Skylark Air's flight-delay training export: data/flights.csv (one row per scheduled flight: schedule and
weather at departure, the delay in minutes) and data/stations.csv (the airports and their hub flag)."""
import argparse
import os

import numpy as np
import pandas as pd

STATIONS = {"DEN": 1, "SEA": 1, "PDX": 0, "BOI": 0, "SLC": 1, "SFO": 0, "PHX": 0, "ABQ": 0, "RNO": 0, "GEG": 0}

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=24000)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--tails", type=int, default=120, help="aircraft in the fleet export (0: tail numbers missing)")
ap.add_argument("--drop-column", default="", help="an export whose schema lost a column")
ap.add_argument("--visibility-sentinel", type=int, default=0, help="rows whose visibility came through as -9999 (METAR gap)")
ap.add_argument("--temp-sentinel", type=int, default=0, help="rows whose temperature came through as -9999")
ap.add_argument("--new-station", default="", help="flights to a station the stations table does not list yet")
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
n = a.rows
codes = list(STATIONS)
origin = rng.choice(codes, n)
dest = rng.choice(codes, n)
dep_hour = rng.integers(5, 23, n)
dow = rng.integers(0, 7, n)
dist = rng.uniform(180, 1100, n).round(0)
temp = rng.normal(12, 10, n).round(1)
wind = np.abs(rng.normal(14, 8, n)).round(1)
vis = np.clip(rng.normal(9, 3, n), 0.2, 10).round(1)
precip = np.clip(rng.exponential(0.6, n) - 0.4, 0, None).round(2)
inbound = np.clip(rng.gamma(1.2, 12, n) - 8, 0, None).round(0)
hub = np.array([STATIONS[o] for o in origin])
delay = (0.6 * inbound + 0.9 * np.clip(wind - 20, 0, None) + 6 * precip + 2.5 * np.clip(6 - vis, 0, None)
         + 0.8 * np.clip(dep_hour - 15, 0, None) + 4 * hub + rng.normal(0, 6, n))
delay = np.clip(delay, -10, None).round(0)
df = pd.DataFrame({"flight_date": pd.Timestamp("2026-09-01") + pd.to_timedelta(rng.integers(0, 60, n), unit="D"),
                   "flight_no": [f"SK{x}" for x in rng.integers(100, 1999, n)],
                   "tail_no": [f"N{400 + t}SK" for t in rng.integers(0, a.tails, n)] if a.tails else "UNKNOWN", "origin": origin, "dest": dest,
                   "dep_hour": dep_hour, "day_of_week": dow, "distance_mi": dist, "temp_c": temp, "wind_kt": wind,
                   "visibility_mi": vis, "precip_in": precip, "inbound_delay_min": inbound, "arr_delay_min": delay})
df = df.sort_values(["flight_date", "dep_hour"], ascending=False, ignore_index=True)  # the export: newest first
if a.visibility_sentinel:
    idx = rng.choice(n, a.visibility_sentinel, replace=False)
    df.loc[idx, "visibility_mi"] = -9999.0
if a.temp_sentinel:
    idx = rng.choice(n, a.temp_sentinel, replace=False)
    df.loc[idx, "temp_c"] = -9999.0
if a.new_station:
    df.loc[n - 1, "dest"] = a.new_station
if a.drop_column:
    df = df.drop(columns=[a.drop_column])
os.makedirs("data", exist_ok=True)
df.to_csv("data/flights.csv", index=False)
pd.DataFrame({"station": codes, "hub": [STATIONS[c] for c in codes]}).to_csv("data/stations.csv", index=False)
print(f"wrote data/flights.csv ({len(df)} rows)")
