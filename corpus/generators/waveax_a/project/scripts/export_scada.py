"""Write the nightly SCADA export the pipeline reads (data/raw/district_readings.csv): one row per main per night
with the district's pressure and flow telemetry, pipe attributes and the asset team's burst-risk grade (low,
elevated, high). Synthetic, seeded; options reproduce what the export sometimes gets wrong."""
import argparse
import csv
import os

import numpy as np

GRADES = ["low", "elevated", "high"]
COLS = ["reading_id", "night", "district", "main_id", "upstream_main", "pressure_bar", "pressure_min_bar",
        "pressure_swing_bar", "flow_lps", "night_flow_lps", "pipe_age_years", "diameter_mm", "soil_temp_c",
        "risk_grade"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2400)
    ap.add_argument("--out", default="data/raw/district_readings.csv")
    ap.add_argument("--bad-pressure", type=int, default=0, help="rows whose pressure logger wrote 'ERR'")
    ap.add_argument("--rename", default="", help="old:new column rename (a SCADA upgrade)")
    ap.add_argument("--zero-flow", default="", help="district whose flow meter reported 0 l/s (meter offline)")
    ap.add_argument("--loop", default="", help="A:B  main A recorded as fed from B and B from A")
    ap.add_argument("--rare", default="", help="grade:count  keep only count rows of this grade")
    a = ap.parse_args()
    rng = np.random.default_rng(7)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    cols = list(COLS)
    if a.rename:
        old, new = a.rename.split(":")
        cols[cols.index(old)] = new
    rare_grade, rare_n = (a.rare.split(":")[0], int(a.rare.split(":")[1])) if a.rare else ("", 0)
    n_mains = 80
    upstream = {f"M{m:03d}": (f"M{m - 9:03d}" if m >= 30 else "") for m in range(n_mains)}
    if a.loop:
        x, y = a.loop.split(":")
        upstream[x], upstream[y] = y, x
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        kept_rare = 0
        for i in range(a.rows):
            g = int(rng.integers(len(GRADES)))
            if GRADES[g] == rare_grade:
                if kept_rare >= rare_n:
                    g = 0
                else:
                    kept_rare += 1
            main_id = f"M{int(rng.integers(n_mains)):03d}"
            district = f"D{int(main_id[1:]) // 10:02d}"
            pressure = 4.2 + rng.normal(0, 0.3) + 0.5 * g
            pmin = pressure - abs(rng.normal(0.6, 0.2)) - 0.4 * g
            swing = pressure - pmin + abs(rng.normal(0, 0.1)) + 0.3 * g
            flow = abs(rng.normal(40, 8)) + 3 * g
            night = abs(rng.normal(6, 1.5)) + 2.5 * g
            age = abs(rng.normal(35, 12)) + 10 * g
            diam = float(rng.choice([100, 150, 200, 300]))
            soil = rng.normal(9, 3) - 1.5 * g
            p_txt = f"{pressure:.3f}" if i >= a.bad_pressure else "ERR"
            if a.zero_flow and district == a.zero_flow:
                flow = 0.0
            w.writerow([f"N{i:06d}", f"2026-{1 + i % 10:02d}-{1 + i % 28:02d}", district, main_id,
                        upstream[main_id], p_txt, f"{pmin:.3f}", f"{swing:.3f}", f"{flow:.2f}", f"{night:.2f}",
                        f"{age:.1f}", diam, f"{soil:.2f}", GRADES[g]])
    print(f"wrote {a.rows} rows to {a.out}")


if __name__ == "__main__":
    main()
