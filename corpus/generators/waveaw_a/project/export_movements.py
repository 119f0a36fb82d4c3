"""Nightly export of completed freight-train movements from the dispatch system (synthetic).

Writes incoming/movements.csv (one train movement per row: train id, departure, corridor, consist, crew, weather at
departure, yard dwell, the dispatcher's arrival delay class) and incoming/network.csv (the track network register:
yard -> subdivision -> division -> region parent links). Options reproduce what the dispatch export has sent."""
import argparse
import csv
import math
import os
import random

CLASSES = ["OT", "D30", "D120", "D360", "XL"]  # on time, <30 min, <2 h, <6 h, > 6 h late
FEATS = ["distance_km", "cars", "gross_tons", "crew_hours_left", "yard_dwell_min", "temp_c", "wind_kph", "slow_orders"]
# typical value per delay class for each feature
PROFILE = {
    "OT": [420, 60, 5200, 9.0, 90, 12, 12, 0.5], "D30": [520, 80, 7000, 7.5, 160, 8, 18, 1.2],
    "D120": [640, 100, 9100, 5.5, 260, 2, 26, 2.4], "D360": [760, 118, 11200, 3.5, 420, -6, 38, 3.6],
    "XL": [880, 130, 12800, 1.8, 640, -14, 52, 5.0],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--movements", type=int, default=2400)
    ap.add_argument("--yards", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--new-class", default="", help="a delay class the model does not know yet")
    ap.add_argument("--rename", default="", help="old:new column rename in the export")
    ap.add_argument("--zero-feature", default="", help="yard:feature -- that yard's terminal reports 0 for the feature")
    ap.add_argument("--garbled", type=int, default=0, help="rows with an unreadable departure time")
    ap.add_argument("--reparent", default="", help="node:parent change in the network register")
    ap.add_argument("--rare", default="", help="class:n -- only n movements of that class in this export")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs("incoming", exist_ok=True)
    yards = [f"YD{i:03d}" for i in range(a.yards)]
    cols = ["train_id", "departed_at", "origin_yard", "corridor"] + FEATS + ["delay_class"]
    if a.rename:
        old, new = a.rename.split(":")
        cols = [new if c == old else c for c in cols]
    zy, zf = a.zero_feature.split(":") if a.zero_feature else ("", "")
    with open("incoming/movements.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        n_rare = 0
        for i in range(a.movements):
            yard = yards[i % len(yards)]
            cls = CLASSES[rnd.randrange(len(CLASSES))]
            if a.rare and cls == a.rare.split(":")[0]:
                if n_rare >= int(a.rare.split(":")[1]):
                    cls = "OT"
                n_rare += cls != "OT"
            if a.new_class and i % 97 == 5:
                cls = a.new_class
            base = PROFILE.get(cls, PROFILE["D120"])
            vals = [round(b * math.exp(rnd.gauss(0, 0.3)), 1) if b > 0 else round(b + rnd.gauss(0, 4), 1)
                    for b in base]
            if yard == zy:
                vals[FEATS.index(zf)] = 0
            ts = f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00"
            if i < a.garbled:
                ts = "0000-00-00T??:??"
            w.writerow([f"M{i:05d}-{rnd.randrange(100, 999)}", ts, yard, f"C{i % 7}"] + vals + [cls])
    with open("incoming/network.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["node", "parent"])
        rows = [(y, f"SUBD{i // 2:03d}") for i, y in enumerate(yards)]
        rows += [(f"SUBD{b:03d}", f"DIV{b // 4:02d}") for b in range(len(yards) // 2)]
        rows += [(f"DIV{s:02d}", f"REG{s // 3}") for s in range((len(yards) // 2 + 3) // 4)]
        rows += [(f"REG{r}", "NETWORK") for r in range(((len(yards) // 2 + 3) // 4 + 2) // 3)]
        if a.reparent:
            node, parent = a.reparent.split(":")
            rows = [(x, parent if x == node else p) for x, p in rows]
        w.writerows(rows)
    print(f"wrote {a.movements} movements from {len(yards)} yards")


if __name__ == "__main__":
    main()
