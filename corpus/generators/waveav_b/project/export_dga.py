"""Nightly export of dissolved-gas analysis (DGA) samples from the fleet's online oil monitors (synthetic).

Writes incoming/dga_samples.csv (one oil sample per row: transformer id, gas ppm, oil temperature, load, the
engineer's IEC 60599 fault code) and incoming/assets.csv (asset register: transformer -> bay -> substation ->
region parent links). Options reproduce what the monitors' export has been seen to send."""
import argparse
import csv
import math
import os
import random

GASES = ["h2", "ch4", "c2h2", "c2h4", "c2h6", "co", "co2"]
FAULTS = ["N", "PD", "D1", "D2", "T1", "T2", "T3"]
# typical gas profile (ppm) per fault class
PROFILE = {
    "N": [40, 20, 1, 10, 15, 300, 2500], "PD": [900, 60, 1, 5, 20, 350, 2600],
    "D1": [400, 60, 120, 60, 10, 300, 2500], "D2": [600, 150, 300, 250, 20, 320, 2600],
    "T1": [60, 160, 1, 40, 120, 400, 3000], "T2": [80, 250, 2, 200, 70, 380, 2900],
    "T3": [120, 400, 6, 700, 60, 420, 3100],
}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=2400)
    ap.add_argument("--transformers", type=int, default=40)
    ap.add_argument("--seed", type=int, default=11)
    ap.add_argument("--new-fault", default="", help="a fault code the model does not know yet")
    ap.add_argument("--rename", default="", help="old:new column rename in the export")
    ap.add_argument("--below-detection", default="", help="monitor id that writes -1 for gases below detection")
    ap.add_argument("--garbled", type=int, default=0, help="rows with an unreadable timestamp")
    ap.add_argument("--reparent", default="", help="asset:parent change in the asset register")
    ap.add_argument("--rare", default="", help="code:n -- only n samples of that fault code in this export")
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    os.makedirs("incoming", exist_ok=True)
    units = [f"TX{i:03d}" for i in range(a.transformers)]
    cols = ["sample_id", "sampled_at", "transformer", "monitor"] + [g + "_ppm" for g in GASES] + \
        ["oil_temp_c", "load_pct", "fault_code"]
    if a.rename:
        old, new = a.rename.split(":")
        cols = [new if c == old else c for c in cols]
    with open("incoming/dga_samples.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        n_rare = 0
        for i in range(a.samples):
            tx = units[i % len(units)]
            mon = f"M{i % len(units):03d}"
            fault = FAULTS[rnd.randrange(len(FAULTS))]
            if a.rare and fault == a.rare.split(":")[0]:
                if n_rare >= int(a.rare.split(":")[1]):
                    fault = "N"
                n_rare += fault != "N"
            if a.new_fault and i % 97 == 5:
                fault = a.new_fault
            base = PROFILE.get(fault, PROFILE["D2"])
            gas = [round(b * math.exp(rnd.gauss(0, 0.35)), 1) for b in base]
            if a.below_detection and mon == a.below_detection:
                gas = [-1 if g < 30 else g for g in gas]
            ts = f"2026-11-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00"
            if i < a.garbled:
                ts = "##########"
            w.writerow([f"S{i:06d}", ts, tx, mon] + gas + [round(rnd.uniform(35, 85), 1),
                                                           round(rnd.uniform(20, 110), 1), fault])
    with open("incoming/assets.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["asset", "parent"])
        rows = []
        for i, tx in enumerate(units):
            rows.append((tx, f"BAY{i // 2:03d}"))
        for b in range(len(units) // 2):
            rows.append((f"BAY{b:03d}", f"SUB{b // 4:02d}"))
        for s in range((len(units) // 2 + 3) // 4):
            rows.append((f"SUB{s:02d}", f"REG{s // 3}"))
        for r in range(((len(units) // 2 + 3) // 4 + 2) // 3):
            rows.append((f"REG{r}", "GRID"))
        if a.reparent:
            asset, parent = a.reparent.split(":")
            rows = [(x, parent if x == asset else p) for x, p in rows]
        w.writerows(rows)
    print(f"wrote {a.samples} samples for {len(units)} transformers")


if __name__ == "__main__":
    main()
