"""Synthetic wind-turbine SCADA export: 10-minute readings per turbine (wind speed, rotor rpm, power, gearbox and
bearing temperatures, ambient temperature, vibration, status code) with bearing faults preceded by a slow rise in
bearing temperature and vibration. Writes data/scada/turbine-NN.csv and data/faults.csv."""
import argparse
import os

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--turbines", type=int, default=12)
ap.add_argument("--days", type=int, default=14)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--only", default="", help="re-export these turbines only, e.g. T07,T11")
ap.add_argument("--status-codes", default="", help="extra status codes the controller firmware writes")
ap.add_argument("--missing-as", default="", help="what the export writes for a missing vibration reading")
ap.add_argument("--missing-share", type=float, default=0.0)
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
os.makedirs(f"{a.out}/scada", exist_ok=True)
n = a.days * 144
ts = pd.date_range("2025-01-01", periods=n, freq="10min")
only = set(filter(None, a.only.split(",")))
faults = []
for t in range(1, a.turbines + 1):
    tid = f"T{t:02d}"
    r = np.random.default_rng(a.seed * 100 + t)
    wind = np.clip(7 + 3 * np.sin(np.arange(n) / 144 * 2 * np.pi / 3) + np.cumsum(r.normal(0, .15, n)) * .2
                   + r.normal(0, .8, n), 0, 25)
    rpm = np.clip(wind * 1.6, 0, 16) + r.normal(0, .3, n)
    power = np.clip(2000 * (np.clip(wind - 3, 0, None) / 9) ** 3, 0, 2000) + r.normal(0, 20, n)
    amb = 5 + 4 * np.sin(np.arange(n) / 144 * 2 * np.pi) + r.normal(0, .5, n)
    gear = amb + 25 + power / 80 + r.normal(0, 1, n)
    bear = amb + 18 + rpm * 0.9 + r.normal(0, .8, n)
    vib = 1.2 + rpm * 0.08 + r.gamma(2, .1, n)
    label = np.zeros(n, dtype=int)
    for _ in range(r.integers(1, 4)):
        f = int(r.integers(3 * 144, n - 10))
        faults.append((tid, ts[f]))
        ramp = np.clip((np.arange(n) - (f - 288)) / 288, 0, 1) * (np.arange(n) <= f)
        bear += ramp * r.uniform(6, 12)
        vib += ramp * r.uniform(1.0, 2.5)
        label[max(0, f - 144):f + 1] = 1
    status = np.where(wind < 3, "IDLE", "RUN").astype(object)
    status[r.random(n) < 0.01] = "CURTAILED"
    extra = [c for c in a.status_codes.split(",") if c]
    if extra:
        status[r.random(n) < 0.002] = extra[0]
    df = pd.DataFrame({"ts": ts.strftime("%Y-%m-%d %H:%M:%S"), "turbine": tid, "wind_speed": wind.round(2),
                       "rotor_rpm": rpm.round(2), "power_kw": power.round(1), "gearbox_temp": gear.round(2),
                       "bearing_temp": bear.round(2), "ambient_temp": amb.round(2), "vibration": vib.round(3),
                       "status": status, "fault_24h": label})
    if a.missing_as:
        df["vibration"] = df["vibration"].astype(object)
        df.loc[r.random(n) < a.missing_share, "vibration"] = a.missing_as
    if only and tid not in only:
        continue
    df.to_csv(f"{a.out}/scada/turbine-{t:02d}.csv", index=False)
if not only:
    pd.DataFrame(faults, columns=["turbine", "fault_at"]).to_csv(f"{a.out}/faults.csv", index=False)
print(f"wrote {a.turbines if not only else len(only)} turbines x {n} readings to {a.out}/scada")
