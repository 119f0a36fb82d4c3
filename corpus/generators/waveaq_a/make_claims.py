"""Synthetic motor-insurance book: policyholders, vehicles and claim history (CSV exports)."""
import argparse
import os

import numpy as np
import pandas as pd

REGIONS = [f"R{i:02d}" for i in range(1, 9)]
MAKES = ["toyota", "ford", "vw", "bmw", "honda", "kia", "tesla", "fiat"]
USES = ["private", "commute", "business"]
TYPES = ["collision", "theft", "glass", "fire", "third_party"]
VIN_CHARS = "ABCDEFGHJKLMNPRSTUVWXYZ0123456789"


def vin(rng, n, length=17):
    return ["".join(rng.choice(list(VIN_CHARS), length)) for _ in range(n)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--policies", type=int, default=6000)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--classic-share", type=float, default=0.0, help="classic cars from the heritage book (pre-1981 VINs)")
    ap.add_argument("--uses", default=",".join(USES))
    ap.add_argument("--blank-value-share", type=float, default=0.0, help="vehicle values left blank by the broker feed")
    ap.add_argument("--amount-unit", default="eur", choices=["eur", "cent"])
    ap.add_argument("--postcodes", type=int, default=40)
    a = ap.parse_args()
    rng = np.random.default_rng(a.seed)
    n = a.policies
    os.makedirs(a.out, exist_ok=True)
    age = rng.integers(18, 85, n)
    pol = pd.DataFrame({
        "policy_id": np.arange(100000, 100000 + n),
        "age": age,
        "years_licensed": np.maximum(0, age - 18 - rng.integers(0, 10, n)),
        "region": rng.choice(REGIONS, n),
        "postcode": [f"PC{k:04d}" for k in rng.integers(0, a.postcodes, n)],
        "credit_band": rng.integers(1, 6, n),
        "sum_insured": np.round(rng.lognormal(9.8, 0.5, n), 0),
    })
    pol["annual_premium"] = np.round(300 + 0.02 * pol.sum_insured + 8 * (60 - np.minimum(age, 60)), 2)
    year = rng.integers(2004, 2026, n)
    veh = pd.DataFrame({
        "policy_id": pol.policy_id,
        "vin": vin(rng, n),
        "make": rng.choice(MAKES, n),
        "vehicle_year": year,
        "vehicle_value": np.round(pol.sum_insured * rng.uniform(0.6, 1.0, n), 0),
        "vehicle_use": rng.choice(a.uses.split(","), n),
        "annual_mileage": rng.integers(3000, 40000, n),
    })
    if a.classic_share:
        k = rng.random(n) < a.classic_share
        veh.loc[k, "vehicle_year"] = rng.integers(1962, 1981, k.sum())
        veh.loc[k, "vin"] = vin(rng, int(k.sum()), 11)
    if a.blank_value_share:
        veh.loc[rng.random(n) < a.blank_value_share, "vehicle_value"] = np.nan
    nclaims = rng.poisson(1.6, n)
    pid = np.repeat(pol.policy_id.values, nclaims)
    m = len(pid)
    idx = pid - 100000
    ctype = rng.choice(TYPES, m, p=[0.45, 0.12, 0.25, 0.05, 0.13])
    delay = rng.exponential(6, m).astype(int)
    witness = (rng.random(m) < 0.4).astype(int)
    police = (rng.random(m) < 0.5).astype(int)
    young = (age[idx] < 25).astype(float)
    logit = -3.2 + 0.08 * delay + 1.1 * (ctype == "theft") - 0.9 * witness - 0.7 * police + 0.6 * young
    fraud = (rng.random(m) < 1 / (1 + np.exp(-logit))).astype(int)
    base = {"collision": 2500, "theft": 9000, "glass": 400, "fire": 12000, "third_party": 4000}
    amount = np.array([base[t] for t in ctype]) * rng.lognormal(0, 0.6, m) * (1 + 0.8 * fraud)
    amount = np.round(amount, 2)
    if a.amount_unit == "cent":
        amount = np.round(amount * 100).astype(np.int64)
    clm = pd.DataFrame({
        "claim_id": np.arange(m) + 5000000,
        "policy_id": pid,
        "claim_date": pd.Timestamp("2021-01-01") + pd.to_timedelta(rng.integers(0, 1460, m), unit="D"),
        "claim_type": ctype,
        "amount": amount,
        "report_delay_days": delay,
        "witness": witness,
        "police_report": police,
        "fraud": fraud,
    }).sort_values(["policy_id", "claim_date"])
    pol.to_csv(f"{a.out}/policyholders.csv", index=False)
    veh.to_csv(f"{a.out}/vehicles.csv", index=False)
    clm.to_csv(f"{a.out}/claims.csv", index=False)
    print(f"wrote {n} policies, {m} claims ({fraud.mean():.1%} fraud) to {a.out}/")


if __name__ == "__main__":
    main()
