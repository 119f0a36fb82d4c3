"""Write the parlour export the yield model trains on: data/parlour_daily.csv (one row per cow per day) and
data/pedigree.csv (cow -> dam). Options reproduce what the co-op's exports get wrong."""
import argparse
import os

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=6000)
ap.add_argument("--cows", type=int, default=240)
ap.add_argument("--herds", type=int, default=6)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--dropouts", type=int, default=0, help="rows whose conductivity sensor reported nothing")
ap.add_argument("--rename", default="", help="old:new, a column renamed by the parlour software update")
ap.add_argument("--zero-duration", default="", help="cow id whose milking-duration sensor reports 0 s")
ap.add_argument("--dam-loop", default="", help="A:B, a pedigree entry loop (A's dam is B, B's dam is A)")
ap.add_argument("--rare-herd", action="store_true", help="a newly joined herd with a single record")
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
cows = [f"C{i:04d}" for i in range(a.cows)]
cow_herd = {c: f"H{(i % a.herds) + 1:02d}" for i, c in enumerate(cows)}
cow = rng.choice(cows, a.rows)
dim = rng.integers(5, 330, a.rows)  # days in milk (lactation day)
parity = rng.integers(1, 6, a.rows)
dmi = rng.normal(21, 2.5, a.rows).clip(12, 30)  # dry matter intake, kg
conc = rng.normal(6, 1.5, a.rows).clip(0, 12)  # parlour concentrate, kg
cond = rng.normal(5.2, 0.4, a.rows)  # milk conductivity, mS/cm
temp = rng.normal(37.6, 0.3, a.rows)
steps = rng.normal(3000, 700, a.rows).clip(300, 8000)
wood = 18 * (dim ** 0.2) * np.exp(-0.004 * dim)  # Wood's lactation curve
yld = wood + 0.6 * (dmi - 21) + 0.4 * conc + 1.2 * (parity > 1) - 3 * (cond - 5.2) + rng.normal(0, 1.5, a.rows)
dur = (yld * 18 + rng.normal(0, 20, a.rows)).clip(120, 900)  # milking duration, s
df = pd.DataFrame({"cow_id": cow, "herd": [cow_herd[c] for c in cow],
                   "date": pd.Timestamp("2026-03-01") + pd.to_timedelta(rng.integers(0, 200, a.rows), unit="D"),
                   "lactation_day": dim, "parity": parity, "dmi_kg": dmi.round(2), "concentrate_kg": conc.round(2),
                   "conductivity_ms_cm": cond.round(3), "milk_temp_c": temp.round(2), "activity_steps": steps.round(0),
                   "milking_duration_s": dur.round(0), "yield_kg": yld.round(2)})
df["date"] = df["date"].dt.strftime("%Y-%m-%d")
if a.dropouts:
    idx = rng.choice(len(df), a.dropouts, replace=False)
    df["conductivity_ms_cm"] = df["conductivity_ms_cm"].astype(object)
    df.loc[idx, "conductivity_ms_cm"] = ""
if a.zero_duration:
    df.loc[df["cow_id"] == a.zero_duration, "milking_duration_s"] = 0.0
if a.rare_herd:
    last = df.iloc[[0]].copy()
    last["herd"] = f"H{a.herds + 1:02d}"
    last["cow_id"] = "C9000"
    df = pd.concat([df, last], ignore_index=True)
if a.rename:
    old, new = a.rename.split(":")
    df = df.rename(columns={old: new})
dams = {c: (cows[(i * 7 + 3) % i] if i > 10 else "") for i, c in enumerate(cows)}
dams = {c: (d if d and int(d[1:]) < int(c[1:]) else "") for c, d in dams.items()}
if a.dam_loop:
    x, y = a.dam_loop.split(":")
    dams[x], dams[y] = y, x
os.makedirs("data", exist_ok=True)
df.to_csv("data/parlour_daily.csv", index=False)
pd.DataFrame({"cow_id": list(dams), "dam_id": list(dams.values())}).to_csv("data/pedigree.csv", index=False)
print(f"wrote {len(df)} records of {a.cows} cows in {a.herds} herds")
