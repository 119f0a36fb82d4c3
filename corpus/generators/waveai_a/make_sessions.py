"""Synthetic user sessions for the sequential recommender: a catalog of items with Zipf popularity and categories;
each session starts at a popular item and moves mostly within the current item's category. Writes per shard
data/items-NN.npy (int32, all sessions' items back to back) and data/offsets-NN.npy (int64, session boundaries),
the validation users data/val-items.npy / val-offsets.npy (the last item of each is the held-out target),
data/catalog.json and data/items.csv (item id, category, price)."""
import argparse
import json
import os

import numpy as np


def spec(s):
    k, v = s.split(":")
    return int(k), int(v)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--users", type=int, default=320, help="users per shard")
    ap.add_argument("--val-users", type=int, default=256)
    ap.add_argument("--items", type=int, default=3000)
    ap.add_argument("--categories", type=int, default=40)
    ap.add_argument("--zipf", type=float, default=1.15)
    ap.add_argument("--min-len", type=int, default=6)
    ap.add_argument("--max-len", type=int, default=60)
    ap.add_argument("--market", action="append", default=[], help="K:N shard K's users only see N distinct items")
    ap.add_argument("--new-items", action="append", default=[],
                    help="K:N shard K also holds N items added after the catalog export")
    ap.add_argument("--heavy-user", action="append", default=[], help="K:N shard K has one user with N events")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed)
    n = a.items
    ranks = rng.permutation(n) + 1
    pop = 1.0 / ranks ** a.zipf
    pop /= pop.sum()
    cat = rng.integers(0, a.categories, n)
    by_cat = [np.nonzero(cat == c)[0] for c in range(a.categories)]
    market = dict(spec(s) for s in a.market)
    new = dict(spec(s) for s in a.new_items)
    heavy = dict(spec(s) for s in a.heavy_user)

    def sessions(users, allowed=None, extra=0):
        p = pop.copy()
        if allowed is not None:
            mask = np.zeros(n, bool)
            mask[allowed] = True
            p = np.where(mask, p, 0.0)
        p /= p.sum()
        cdf = np.cumsum(p)
        cat_cdf = []
        for idx in by_cat:
            q = p[idx]
            cat_cdf.append(np.cumsum(q) / q.sum() if q.sum() > 0 else None)
        seqs = []
        for _ in range(users):
            length = int(rng.integers(a.min_len, a.max_len + 1))
            cur = int(np.searchsorted(cdf, rng.random()))
            s = [cur]
            for _ in range(length - 1):
                c = cat[cur]
                if rng.random() < 0.65 and cat_cdf[c] is not None:
                    cur = int(by_cat[c][min(np.searchsorted(cat_cdf[c], rng.random()), len(by_cat[c]) - 1)])
                else:
                    cur = int(min(np.searchsorted(cdf, rng.random()), n - 1))
                s.append(cur)
            s = np.array(s, np.int64) + 1  # item ids 1..n, 0 is padding
            if extra:
                hit = rng.random(len(s)) < 0.2
                s[hit] = n + rng.integers(1, extra + 1, hit.sum())
            seqs.append(s)
        return seqs

    def write(prefix, seqs):
        off = np.zeros(len(seqs) + 1, np.int64)
        off[1:] = np.cumsum([len(s) for s in seqs])
        np.save(os.path.join(a.out, f"{prefix}items.npy" if prefix == "val-" else f"items-{prefix}.npy"),
                np.concatenate(seqs).astype(np.int32))
        np.save(os.path.join(a.out, f"{prefix}offsets.npy" if prefix == "val-" else f"offsets-{prefix}.npy"), off)

    total = 0
    for k in range(a.shards):
        allowed = None
        if k in market:
            allowed = np.argsort(-pop)[rng.permutation(400)[:market[k]]]
        seqs = sessions(a.users, allowed, new.get(k, 0))
        if k in heavy:  # one account with a very long history
            seqs.insert(int(rng.integers(len(seqs))), rng.integers(1, n + 1, heavy[k]).astype(np.int64))
        total += sum(len(s) for s in seqs)
        write(f"{k:02d}", seqs)
    write("val-", sessions(a.val_users))
    with open(os.path.join(a.out, "catalog.json"), "w") as f:
        json.dump({"n_items": n, "categories": a.categories, "export": "2024-11-03"}, f)
    with open(os.path.join(a.out, "items.csv"), "w") as f:
        f.write("item_id,category,price\n")
        for i in range(n):
            f.write(f"{i + 1},{cat[i]},{rng.gamma(2.0, 12.0):.2f}\n")
    print(f"wrote {a.shards} shards, {total} events, catalog {n} items, {a.val_users} validation users to {a.out}")


if __name__ == "__main__":
    main()
