"""Write the SCADA export the power-curve model trains on: 10-minute records per turbine (data/scada.csv) and the
turbine fleet table (data/fleet.csv: turbine, model). Options reproduce what the export gets wrong."""
import argparse
import csv
import math
import os
import random

MODELS = {"GX-2.3": 2300.0, "GX-3.6": 3600.0, "NV-4.2": 4200.0}

p = argparse.ArgumentParser()
p.add_argument("--turbines", type=int, default=12)
p.add_argument("--days", type=int, default=10)
p.add_argument("--garbled", type=int, default=0, help="rows whose wind speed the logger wrote as '#####'")
p.add_argument("--stuck-density", default="", help="turbine whose air-density sensor reads 0 from day 6")
p.add_argument("--new-model", default="", help="a turbine of a model missing from the rated-power table, commissioned on the last record")
p.add_argument("--new-turbine", action="store_true", help="a turbine commissioned on the last record (1 row)")
a = p.parse_args()

rng = random.Random(7)
os.makedirs("data", exist_ok=True)
fleet = [(f"WTG-{i + 1:02d}", list(MODELS)[i % len(MODELS)]) for i in range(a.turbines)]
if a.new_model:
    fleet.append((f"WTG-{a.turbines + 1:02d}", a.new_model))
with open("data/fleet.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["turbine", "model"])
    w.writerows(fleet)

garbled = set(rng.sample(range(a.turbines * a.days * 144), a.garbled)) if a.garbled else set()
n = 0
with open("data/scada.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["turbine", "day", "slot", "wind_ms", "wind_dir", "air_density", "pitch_deg", "rotor_rpm",
                "nacelle_c", "power_kw", "fault"])
    for t, (name, model) in enumerate(fleet):
        rated = MODELS.get(model, 5000.0)
        late = bool(a.new_model) and model == a.new_model  # commissioned on the export's last record
        for day in range(a.days - 1 if late else 0, a.days):
            for slot in range(143 if late else 0, 144):
                v = max(0.0, 7 + 3 * math.sin((day * 144 + slot) / 90 + t) + rng.gauss(0, 1.5))
                rho = 1.225 + rng.gauss(0, 0.02)
                if name == a.stuck_density and day >= 6:
                    rho = 0.0
                frac = 0.0 if v < 3 else min(1.0, ((v - 3) / 9) ** 3)
                fault = 1 if rng.random() < 0.02 else 0
                power = rated * frac * (0.3 if fault else 1.0) + rng.gauss(0, 20)
                pitch = 0.0 if v < 12 else (v - 12) * 2.5
                ws = "#####" if n in garbled else f"{v:.2f}"
                w.writerow([name, day, slot, ws, f"{rng.uniform(0, 360):.0f}", f"{rho:.4f}", f"{pitch:.1f}",
                            f"{min(16.0, v * 1.4):.2f}", f"{25 + 10 * frac + rng.gauss(0, 1):.1f}",
                            f"{power:.1f}", fault])
                n += 1
    if a.new_turbine:
        w.writerow([f"WTG-{len(fleet) + 1:02d}", a.days - 1, 143, "8.10", "200", "1.2210", "0.0", "11.34", "31.0",
                    "950.0", 0])
        with open("data/fleet.csv", "a", newline="") as f2:
            csv.writer(f2).writerow([f"WTG-{len(fleet) + 1:02d}", "GX-2.3"])
print(f"wrote {n} SCADA rows for {len(fleet)} turbines")
