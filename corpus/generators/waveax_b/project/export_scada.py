"""Write the SCADA export the pipeline reads (data/scada_export.csv): one row per turbine per 10-minute interval from
the wind farm's historian (wind speed, rotor speed, power, gearbox oil / bearing / nacelle temperature, gearbox
vibration RMS, kurtosis, 1x and gear-mesh band energies) with the maintenance team's fault code for that week.
Synthetic, seeded; options reproduce what the historian export sometimes gets wrong."""
import argparse
import csv
import os

import numpy as np

FAULTS = ["healthy", "bearing_wear", "gear_tooth", "misalignment", "lubrication"]
COLS = ["record_id", "timestamp", "site", "turbine_id", "gearbox_serial", "swapped_from", "wind_speed_ms", "rotor_rpm",
        "power_kw", "oil_temp_c", "bearing_temp_c", "nacelle_temp_c", "vib_rms_mms", "vib_kurtosis", "vib_1x",
        "vib_gmf", "fault_code"]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=2400)
    ap.add_argument("--out", default="data/scada_export.csv")
    ap.add_argument("--bad-timestamps", type=int, default=0, help="rows whose timestamp the historian wrote as NaT")
    ap.add_argument("--rename", default="", help="old:new column rename (a historian upgrade)")
    ap.add_argument("--new-fault", default="", help="a fault code the model does not know")
    ap.add_argument("--dead-sensor", default="", help="turbine whose gear-mesh accelerometer channel reads 0")
    ap.add_argument("--swap-cycle", default="", help="A:B  gearbox A recorded as swapped in from B and B from A")
    ap.add_argument("--rare", default="", help="fault:count  keep only count rows of this fault")
    a = ap.parse_args()
    rng = np.random.default_rng(42)
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    cols = list(COLS)
    if a.rename:
        old, new = a.rename.split(":")
        cols[cols.index(old)] = new
    rare_fault, rare_n = (a.rare.split(":")[0], int(a.rare.split(":")[1])) if a.rare else ("", 0)
    n_wtg = 48
    serial = {f"WTG{t:02d}": f"GB-{7100 + t}" for t in range(n_wtg)}
    # refurbished gearboxes: moved in from another turbine's position
    swapped = {f"GB-{7100 + t}": (f"GB-{7100 + t - 6}" if t >= 30 else "") for t in range(n_wtg)}
    if a.swap_cycle:
        x, y = a.swap_cycle.split(":")
        swapped[x], swapped[y] = y, x
    with open(a.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(cols)
        kept_rare = 0
        for i in range(a.rows):
            k = int(rng.integers(len(FAULTS)))
            fault = FAULTS[k]
            if fault == rare_fault:
                if kept_rare >= rare_n:
                    fault = FAULTS[0]
                else:
                    kept_rare += 1
            wtg = f"WTG{int(rng.integers(n_wtg)):02d}"
            ws = max(3.0, rng.normal(9, 2.5))
            rpm = min(16.0, 1.4 * ws + rng.normal(0, 0.3))
            power = max(50.0, min(3000.0, 0.5 * 1.225 * 5000 * ws ** 3 * 0.42 / 1000 + rng.normal(0, 40)))
            nac = 18 + rng.normal(0, 3)
            oil = nac + 35 + rng.normal(0, 2) + (9 if fault == "lubrication" else 0) + (3 if fault == "bearing_wear" else 0)
            brg = nac + 40 + rng.normal(0, 2) + (8 if fault == "bearing_wear" else 0) + (4 if fault == "misalignment" else 0)
            rms = abs(rng.normal(2.0, 0.3)) + (1.5 if fault == "gear_tooth" else 0) + (1.0 if fault == "misalignment" else 0)
            kurt = 3 + abs(rng.normal(0, 0.4)) + (4 if fault == "bearing_wear" else 0) + (2 if fault == "gear_tooth" else 0)
            v1x = abs(rng.normal(1.0, 0.1)) + (0.9 if fault == "misalignment" else 0)
            gmf = abs(rng.normal(1.0, 0.1)) + (1.1 if fault == "gear_tooth" else 0) + (0.3 if fault == "lubrication" else 0)
            ts = f"2026-{3 + i % 6:02d}-{1 + i % 28:02d}T{(i * 10 // 60) % 24:02d}:{(i * 10) % 60:02d}:00"
            if i < a.bad_timestamps:
                ts = "NaT"
            if a.dead_sensor and wtg == a.dead_sensor:
                gmf = 0.0
            if a.new_fault and i == a.rows // 2:
                fault = a.new_fault
            w.writerow([f"S{i:07d}", ts, f"NORTHRIDGE-{int(wtg[3:]) // 16 + 1}", wtg, serial[wtg], swapped[serial[wtg]],
                        f"{ws:.2f}", f"{rpm:.2f}", f"{power:.1f}", f"{oil:.1f}", f"{brg:.1f}", f"{nac:.1f}",
                        f"{rms:.3f}", f"{kurt:.3f}", f"{v1x:.3f}", f"{gmf:.3f}", fault])
    print(f"wrote {a.rows} rows to {a.out}")


if __name__ == "__main__":
    main()
