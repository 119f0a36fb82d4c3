"""Write the depot scanners' export the delay model trains on: data/parcel_scans.csv.

One row per delivered parcel: origin depot, the hub it was last transferred from (hub handover chain), route
distance, weight, number of hub handovers, the weather index on the dispatch day, service level, the first scan
time, and the delivery outcome (on_time, late_1d, late_2plus). Options reproduce what the export gets wrong."""
import argparse
import os

import numpy as np
import pandas as pd

OUTCOMES = ["on_time", "late_1d", "late_2plus"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--garbled", type=int, default=0, help="rows whose first scan time is unreadable")
    ap.add_argument("--rename", default="", help="old:new column rename (the scanner firmware update)")
    ap.add_argument("--new-outcome", default="", help="one parcel with an outcome the model does not know")
    ap.add_argument("--zero-distance", default="", help="a depot whose route distances come out as 0 km")
    ap.add_argument("--handover-loop", default="", help="two hubs that name each other as previous hub")
    ap.add_argument("--rare", default="", help="outcome:n keep only n parcels with this outcome")
    a = ap.parse_args()

    rng = np.random.default_rng(11)
    n = a.rows
    depots = [f"D{i:02d}" for i in range(1, 25)]
    hubs = [f"H{i:03d}" for i in range(1, 61)]
    depot = rng.choice(depots, n)
    dist_km = rng.gamma(3.0, 90.0, n) + 5
    weight = rng.gamma(2.0, 2.5, n) + 0.1
    handovers = rng.integers(1, 6, n)
    weather = rng.beta(2, 5, n)
    express = rng.random(n) < 0.3
    score = (np.log(dist_km) * 0.9 + handovers * 0.45 + weather * 3.2 + np.log(weight) * 0.2 - express * 1.1
             + rng.normal(0, 0.35, n))
    outcome = np.where(score < 7.15, "on_time", np.where(score < 8.1, "late_1d", "late_2plus"))
    base = pd.Timestamp("2026-10-01 06:00")
    scan = [(base + pd.Timedelta(minutes=int(m))).strftime("%Y-%m-%dT%H:%M:%S") for m in rng.integers(0, 86400, n)]
    # every hub hands over from a hub with a smaller number (H001 is a gateway); the parcel's last hub
    prev = {h: (hubs[rng.integers(0, i)] if i else "") for i, h in enumerate(hubs)}
    last_hub = rng.choice(hubs, n)
    df = pd.DataFrame({
        "parcel_id": [f"P{i:07d}" for i in range(n)], "depot": depot, "last_hub": last_hub,
        "first_scan": scan, "route_km": dist_km.round(1), "weight_kg": weight.round(2),
        "handovers": handovers, "weather_index": weather.round(3), "service": np.where(express, "express", "standard"),
        "outcome": outcome,
    })
    if a.garbled:
        df.loc[df.index[: a.garbled], "first_scan"] = "--T::"
    if a.new_outcome:
        df.loc[df.index[n // 2], "outcome"] = a.new_outcome
    if a.zero_distance:
        df.loc[df.depot == a.zero_distance, "route_km"] = 0.0
    if a.rare:
        cls, k = a.rare.split(":")
        idx = df.index[df.outcome == cls]
        df = df.drop(idx[:len(idx) - int(k)]).reset_index(drop=True)  # the latest k kept
    if a.handover_loop:
        h1, h2 = a.handover_loop.split(":")
        prev[h1], prev[h2] = h2, h1
    if a.rename:
        old, new = a.rename.split(":")
        df = df.rename(columns={old: new})
    os.makedirs("data", exist_ok=True)
    df.to_csv("data/parcel_scans.csv", index=False)
    pd.DataFrame({"hub": list(prev), "previous_hub": list(prev.values())}).to_csv("data/hub_handovers.csv",
                                                                                  index=False)
    print(f"wrote {len(df)} parcels, {len(prev)} hubs")


if __name__ == "__main__":
    main()
