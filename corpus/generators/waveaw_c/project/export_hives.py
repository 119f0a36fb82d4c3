"""Write the hive-telemetry export the pipeline reads (data/hive_export.csv): one row per hive-day from the apiary
gateway (brood temperature, humidity, hive weight, entrance traffic, acoustic band energies) with the inspector's
colony status. Synthetic, seeded; options reproduce what the gateway export sometimes gets wrong."""
import argparse
import csv
import os

import numpy as np

STATUSES = ["healthy", "queenless", "swarming", "varroa", "starving"]
COLS = ["reading_id", "date", "apiary", "hive_id", "parent_hive", "brood_temp_c", "humidity_pct", "weight_kg",
        "weight_delta_kg", "traffic_in", "traffic_out", "band_200hz", "band_400hz", "band_500hz", "status"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2400)
    ap.add_argument("--out", default="data/hive_export.csv")
    ap.add_argument("--garbled", type=int, default=0, help="rows whose date the gateway wrote as ####")
    ap.add_argument("--rename", default="", help="old:new column rename (a firmware update)")
    ap.add_argument("--new-status", default="", help="an inspector status the model does not know")
    ap.add_argument("--zero-weight", default="", help="hive whose scale reported 0 kg (sensor unplugged)")
    ap.add_argument("--split-cycle", default="", help="A:B  hive A recorded as split from B and B from A")
    ap.add_argument("--rare", default="", help="status:count  keep only count rows of this status")
    a = ap.parse_args()
    rng = np.random.default_rng(42)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    cols = list(COLS)
    if a.rename:
        old, new = a.rename.split(":")
        cols[cols.index(old)] = new
    rare_status, rare_n = (a.rare.split(":")[0], int(a.rare.split(":")[1])) if a.rare else ("", 0)
    n_hives = 60
    parents = {f"H{h:03d}": (f"H{h - 7:03d}" if h >= 40 else "") for h in range(n_hives)}
    if a.split_cycle:
        x, y = a.split_cycle.split(":")
        parents[x], parents[y] = y, x
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        kept_rare = 0
        for i in range(a.rows):
            s = int(rng.integers(len(STATUSES)))
            status = STATUSES[s]
            if status == rare_status:
                if kept_rare >= rare_n:
                    s, status = 0, STATUSES[0]
                else:
                    kept_rare += 1
            hive = f"H{int(rng.integers(n_hives)):03d}"
            temp = 34.5 + rng.normal(0, 0.4) - (2.5 if status == "queenless" else 0) + (1.2 if status == "swarming" else 0)
            hum = 58 + rng.normal(0, 4) + (6 if status == "varroa" else 0)
            weight = 38 + rng.normal(0, 5) - (12 if status == "starving" else 0)
            delta = rng.normal(0.2, 0.3) - (0.8 if status == "starving" else 0)
            tin = max(5, rng.normal(900, 150) - (300 if status == "varroa" else 0))
            tout = max(5, tin + rng.normal(0, 60) + (400 if status == "swarming" else 0))
            b200 = abs(rng.normal(1.0, 0.1)) + (0.6 if status == "queenless" else 0)
            b400 = abs(rng.normal(1.0, 0.1)) + (0.7 if status == "swarming" else 0)
            b500 = abs(rng.normal(1.0, 0.1)) + (0.4 if status == "varroa" else 0)
            date = f"2026-{5 + i % 5:02d}-{1 + i % 28:02d}"
            if i < a.garbled:
                date = "####-##-##"
            if a.zero_weight and hive == a.zero_weight:
                weight = 0.0
            if a.new_status and i == a.rows // 2:
                status = a.new_status
            w.writerow([f"R{i:06d}", date, f"A{int(hive[1:]) // 20}", hive, parents[hive], f"{temp:.2f}",
                        f"{hum:.1f}", f"{weight:.2f}", f"{delta:.3f}", int(tin), int(tout), f"{b200:.3f}",
                        f"{b400:.3f}", f"{b500:.3f}", status])
    print(f"wrote {a.rows} rows to {a.out}")


if __name__ == "__main__":
    main()
