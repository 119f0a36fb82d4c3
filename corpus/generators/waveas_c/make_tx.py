"""Write synthetic credit-card transactions for the anomaly scorer: one shard per rank (tx-00.npz, tx-01.npz),
a validation shard and meta.json (merchant / category vocabularies, numeric feature order).

    python make_tx.py --out data [--rows 24000] [--only SHARD --merchants-added N | --amount-cents | --rows-shard S:N]
"""
import argparse
import json
import os

import numpy as np

NUMERIC = ["amount", "hour_sin", "hour_cos", "km_from_home", "secs_since_last", "card_age_days", "is_online"]
N_MERCHANTS, N_CATEGORIES = 4000, 48


def make(rng, n, merchants=N_MERCHANTS, cents=False):
    merchant = rng.integers(0, merchants, n)
    category = merchant % N_CATEGORIES
    hour = rng.integers(0, 24, n)
    amount = np.exp(rng.normal(3.4, 1.1, n))
    km = np.abs(rng.normal(8, 20, n))
    dt = rng.exponential(36000, n)
    age = rng.integers(10, 4000, n).astype(float)
    online = (rng.random(n) < 0.35).astype(float)
    risk = (-4.3 + 0.9 * (amount > 400) + 0.025 * np.minimum(km, 200) + 1.2 * (dt < 120) + 0.8 * ((hour < 5))
            + 0.6 * online + 1.0 * (category % 7 == 3) - 0.0003 * age)
    label = (rng.random(n) < 1 / (1 + np.exp(-risk))).astype(np.float32)
    amt = amount * 100 if cents else amount
    x = np.stack([np.log1p(amt) if not cents else amt, np.sin(hour / 24 * 2 * np.pi), np.cos(hour / 24 * 2 * np.pi),
                  np.log1p(km), np.log1p(dt) / 10, age / 1000, online], 1).astype(np.float32)
    return dict(x=x, merchant=merchant.astype(np.int64), category=category.astype(np.int64), label=label)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--rows", type=int, default=24000)
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--only", type=int, default=-1, help="re-export one shard only")
    ap.add_argument("--merchants-added", type=int, default=0, help="merchants onboarded after the vocabulary freeze")
    ap.add_argument("--amount-cents", action="store_true", help="raw amount in cents (acquirer feed v2)")
    ap.add_argument("--rows-shard", type=int, default=0)
    ap.add_argument("--val-rows", type=int, default=0)
    ap.add_argument("--merge-brands", default="", help="A:B, brand A taken over by brand B (groups file only)")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    for s in range(a.shards):
        if a.only >= 0 and s != a.only:
            continue
        rng = np.random.default_rng(100 + s)
        n = a.rows_shard or a.rows if a.only >= 0 else a.rows
        d = make(rng, n, N_MERCHANTS + a.merchants_added, a.amount_cents)
        np.savez(os.path.join(a.out, f"tx-{s:02d}.npz"), **d)
        print(f"wrote {a.out}/tx-{s:02d}.npz: {n} transactions, fraud rate {d['label'].mean():.4f}")
    if a.val_rows:
        np.savez(os.path.join(a.out, "val.npz"), **make(np.random.default_rng(7), a.val_rows))
        print(f"wrote {a.out}/val.npz: {a.val_rows} transactions")
    groups_path = os.path.join(a.out, "merchant_groups.json")
    if a.only < 0 and not a.merge_brands:
        rng = np.random.default_rng(3)
        brands = list(range(N_MERCHANTS - 200, N_MERCHANTS))  # the last 200 ids are brands (chains), top level
        parent = {str(m): int(rng.choice(brands)) for m in range(N_MERCHANTS - 200) if rng.random() < 0.4}
        for b in brands[:60]:  # some brands belong to a holding brand
            parent[str(b)] = int(brands[100 + b % 100])
        json.dump(parent, open(groups_path, "w"))
    if a.merge_brands:
        parent = json.load(open(groups_path))
        x, y = a.merge_brands.split(":")
        parent[x] = int(y)
        json.dump(parent, open(groups_path, "w"))
        print(f"{groups_path}: brand {x} now under {y}")
    if a.only < 0:
        if not a.val_rows:
            np.savez(os.path.join(a.out, "val.npz"), **make(np.random.default_rng(7), a.rows // 4))
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump({"numeric": NUMERIC, "merchants": N_MERCHANTS, "categories": N_CATEGORIES}, f)


if __name__ == "__main__":
    main()
