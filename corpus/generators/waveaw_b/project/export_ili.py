"""Export of in-line inspection (ILI) pig-run anomaly records for the gathering network's pipelines (synthetic).

Writes data/raw/ili_anomalies.csv (one metal-loss anomaly per row: segment, run year, depth % of wall, length, width,
nominal wall, soil resistivity, cathodic-protection potential, coating, age, operating pressure, and the integrity
engineer's corrosion-growth class 0..4: none/low/moderate/high/severe) and data/raw/segments.csv (segment -> upstream
segment links back to the pump station). Options reproduce what the inspection vendors' exports have been seen to send."""
import argparse
import csv
import math
import os
import random

CLASSES = ["none", "low", "moderate", "high", "severe"]
COATINGS = ["FBE", "3LPE", "coal-tar", "tape"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--anomalies", type=int, default=3000)
    ap.add_argument("--segments", type=int, default=60)
    ap.add_argument("--seed", type=int, default=5)
    ap.add_argument("--garbled", type=int, default=0, help="rows with an unreadable depth field")
    ap.add_argument("--vendor-sentinel", default="", help="segment whose vendor writes -1 for an unmeasured wall")
    ap.add_argument("--new-class", type=int, default=0, help="rows with growth class 5 (critical) added by the engineers")
    ap.add_argument("--rare-severe", type=int, default=-1, help="keep only n rows of class 4 (severe)")
    ap.add_argument("--loop", default="", help="a:b -- segment a re-linked upstream to b (a re-routed line)")
    ap.add_argument("--rename", default="", help="old:new column rename in the export")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs("data/raw", exist_ok=True)
    segs = [f"SEG{i:03d}" for i in range(a.segments)]
    with open("data/raw/segments.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["segment", "upstream"])
        for i, s in enumerate(segs):
            up = "" if i == 0 else segs[i - 1]
            if a.loop and s == a.loop.split(":")[0]:
                up = a.loop.split(":")[1]
            w.writerow([s, up])
    cols = ["anomaly_id", "segment", "run_year", "depth_pct", "length_mm", "width_mm", "wall_mm", "soil_ohm_m",
            "cp_mv", "coating", "age_years", "pressure_bar", "growth_class"]
    if a.rename:
        old, new = a.rename.split(":")
        cols = [new if c == old else c for c in cols]
    severe = 0
    with open("data/raw/ili_anomalies.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        for i in range(a.anomalies + a.new_class):
            cls = rnd.choices(range(5), weights=[30, 30, 20, 12, 8])[0] if i < a.anomalies else 5
            if cls == 4 and a.rare_severe >= 0:
                if severe >= a.rare_severe:
                    cls = 3
                severe += cls == 4
            seg = rnd.choice(segs)
            coating = rnd.choice(COATINGS)
            soil = max(2.0, rnd.gauss(80 - 12 * cls, 15))
            cp = rnd.gauss(-1000 + 90 * cls, 40)
            depth = min(95.0, max(5.0, rnd.gauss(12 + 14 * cls, 6)))
            wall = rnd.choice([6.4, 7.9, 9.5, 12.7])
            if a.vendor_sentinel and seg == a.vendor_sentinel and rnd.random() < 0.5:
                wall = -1
            depth_s = f"{depth:.1f}"
            if i < a.garbled:
                depth_s = "#N/A"
            w.writerow([f"A{i:06d}", seg, rnd.choice([2019, 2021, 2023, 2025]), depth_s,
                        f"{math.exp(rnd.gauss(3.5 + 0.2 * cls, 0.4)):.0f}", f"{math.exp(rnd.gauss(3.2, 0.4)):.0f}",
                        wall, f"{soil:.1f}", f"{cp:.0f}", coating, rnd.randint(8, 55), f"{rnd.uniform(20, 90):.1f}",
                        cls])
    print(f"exported {a.anomalies + a.new_class} anomalies on {len(segs)} segments")


if __name__ == "__main__":
    main()
