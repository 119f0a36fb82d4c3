"""Synthetic payments graph for mule-account detection: accounts, merchants and transfers (raw CSV exports).

Accounts and merchants get a power-law popularity, so a few merchants (payment processors, marketplaces) receive a
large share of all transfers. Mule accounts form rings: each ring member receives many small transfers from the
rest of the graph and forwards most of it to the other ring members within hours."""
import argparse
import os

import numpy as np
import pandas as pd

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--accounts", type=int, default=30000)
ap.add_argument("--merchants", type=int, default=1500)
ap.add_argument("--transfers", type=int, default=240000)
ap.add_argument("--rings", type=int, default=120)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--new-accounts", type=int, default=0, help="transfers touching accounts opened after the snapshot")
ap.add_argument("--refunds", type=float, default=0.0, help="share of transfers that are refunds (booked negative)")
ap.add_argument("--hub-share", type=float, default=0.0, help="share of transfers going to the largest processor")
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
os.makedirs(os.path.join(a.out, "raw"), exist_ok=True)

n_acc, n_mer = a.accounts, a.merchants
mule = np.zeros(n_acc, dtype=np.int64)
rings = [rng.choice(n_acc, size=rng.integers(4, 12), replace=False) for _ in range(a.rings)]
for r in rings:
    mule[r] = 1
age_days = rng.gamma(2.0, 400.0, n_acc)
age_days[mule == 1] = rng.gamma(1.2, 40.0, int(mule.sum()))
acc = pd.DataFrame({
    "account_id": np.arange(n_acc),
    "age_days": age_days.round(1),
    "kyc_level": rng.integers(0, 4, n_acc),
    "region": rng.choice(4, n_acc, p=[0.55, 0.2, 0.15, 0.1]),
    "avg_balance": np.exp(rng.normal(7.0, 1.3, n_acc)).round(2),
    "devices": rng.poisson(1.3, n_acc) + 1 + mule * rng.poisson(2.0, n_acc),
    "is_mule": mule,
})
mer = pd.DataFrame({
    "merchant_id": np.arange(n_mer),
    "category": rng.integers(0, 12, n_mer),
    "avg_ticket": np.exp(rng.normal(3.5, 1.0, n_mer)).round(2),
})

# power-law popularity (Zipf-like) for the receiving side
pop_acc = rng.pareto(1.2, n_acc) + 1
pop_mer = rng.pareto(0.9, n_mer) + 1
n_p2p = int(a.transfers * 0.45)
n_pay = a.transfers - n_p2p
src = rng.integers(0, n_acc, a.transfers)
dst_acc = rng.choice(n_acc, n_p2p, p=pop_acc / pop_acc.sum())
dst_mer = rng.choice(n_mer, n_pay, p=pop_mer / pop_mer.sum())
if a.hub_share > 0:
    hub = int(np.argmax(pop_mer))
    dst_mer[rng.random(n_pay) < a.hub_share] = hub
amount = np.exp(rng.normal(3.8, 1.1, a.transfers)).round(2)
t = pd.DataFrame({"src": src, "dst": np.r_[dst_acc, n_acc + dst_mer], "amount": amount})
ring_rows = []
for r in rings:  # ring forwarding: small inbound from many, onward to the ring
    for m in r:
        k = rng.integers(15, 40)
        ring_rows.append(np.c_[rng.integers(0, n_acc, k), np.full(k, m), np.exp(rng.normal(3.0, 0.4, k))])
        nxt = rng.choice(r, size=6)
        ring_rows.append(np.c_[np.full(6, m), nxt, np.exp(rng.normal(5.2, 0.3, 6))])
ring = pd.DataFrame(np.concatenate(ring_rows), columns=["src", "dst", "amount"]).astype({"src": int, "dst": int})
t = pd.concat([t, ring], ignore_index=True)
if a.new_accounts:
    k = a.new_accounts * 8
    new = pd.DataFrame({"src": n_acc + n_mer + rng.integers(0, a.new_accounts, k),
                        "dst": rng.integers(0, n_acc, k), "amount": np.exp(rng.normal(3.8, 1.1, k)).round(2)})
    t = pd.concat([t, new], ignore_index=True)
if a.refunds > 0:
    r = rng.random(len(t)) < a.refunds
    t.loc[r, "amount"] = -t.loc[r, "amount"]
t = t.sample(frac=1.0, random_state=a.seed).reset_index(drop=True)
acc.to_csv(os.path.join(a.out, "raw", "accounts.csv"), index=False)
mer.to_csv(os.path.join(a.out, "raw", "merchants.csv"), index=False)
t.to_csv(os.path.join(a.out, "raw", "transfers.csv"), index=False)
print(f"accounts {n_acc} (mules {int(mule.sum())}), merchants {n_mer}, transfers {len(t)}")
