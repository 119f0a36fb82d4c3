"""Writes the operator's SCADA export, data/scada_10min.csv (synthetic): one row per 10-minute turbine record with the
maintenance team's gearbox verdict (healthy, wear, fault).

Options reproduce what the SCADA export gets wrong: unparseable timestamps, a renamed column, a new verdict, a rotor
speed sensor stuck at 0, a loop in the collector-string wiring table, a verdict that is almost never seen."""
import argparse
import csv
import os

import numpy as np

VERDICTS = ["healthy", "wear", "fault"]
COLS = ["record_id", "site", "turbine_id", "upstream_turbine", "ts_utc", "wind_ms", "rotor_rpm", "power_kw",
        "gear_oil_c", "gear_bearing_c", "vib_rms_mm_s", "verdict"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=3000)
    ap.add_argument("--garbled", type=int, default=0, help="records whose timestamp is unreadable")
    ap.add_argument("--rename", default="", help="old:new column rename")
    ap.add_argument("--new-verdict", default="", help="one record with a verdict the model does not know")
    ap.add_argument("--stuck-rpm", default="", help="turbine whose rotor speed sensor reports 0")
    ap.add_argument("--string-loop", default="", help="WTG1:WTG2 turbines wired upstream of each other")
    ap.add_argument("--rare", default="", help="verdict:n keep only n records of this verdict")
    a = ap.parse_args()
    rng = np.random.default_rng(23)
    turbines = [f"WTG{i:02d}" for i in range(1, 49)]
    upstream = {t: "" for t in turbines}
    for i, t in enumerate(turbines):  # 6 collector strings of 8 turbines
        if i % 8:
            upstream[t] = turbines[i - 1]
    if a.string_loop:
        t1, t2 = a.string_loop.split(":")
        upstream[t1], upstream[t2] = t2, t1
    rows = []
    for r in range(a.rows):
        g = int(rng.choice(3, p=[0.6, 0.28, 0.12]))
        wind = rng.uniform(4, 14)
        rpm = min(16.0, 1.2 * wind) + rng.normal(0, 0.3)
        power = max(0.0, min(3000.0, 2.2 * wind ** 3)) + rng.normal(0, 40)
        oil = rng.normal([55, 61, 69][g], 2.0) + 0.4 * wind
        bear = oil + rng.normal([6, 9, 15][g], 1.5)
        vib = abs(rng.normal([1.8, 2.9, 4.6][g], 0.4))
        t = turbines[r % len(turbines)]
        ts = f"2026-10-{1 + r % 30:02d}T{r % 24:02d}:{(r % 6) * 10:02d}:00Z"
        if r < a.garbled:
            ts = "NaT"
        if a.stuck_rpm and t == a.stuck_rpm:
            rpm = 0.0
        rows.append([f"S{r:07d}", "north-sea-2", t, upstream[t], ts, round(wind, 2), round(rpm, 3), round(power, 1),
                     round(oil, 2), round(bear, 2), round(vib, 3), VERDICTS[g]])
    if a.rare:
        v, n = a.rare.split(":")
        keep, seen = [], 0
        for row in rows:
            if row[-1] == v:
                seen += 1
                if seen > int(n):
                    continue
            keep.append(row)
        rows = keep
    if a.new_verdict:
        rows[len(rows) // 2][-1] = a.new_verdict
    cols = list(COLS)
    if a.rename:
        old, new = a.rename.split(":")
        cols[cols.index(old)] = new
    os.makedirs("data", exist_ok=True)
    with open("data/scada_10min.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        w.writerows(rows)
    print(f"wrote {len(rows)} records to data/scada_10min.csv")


if __name__ == "__main__":
    main()
