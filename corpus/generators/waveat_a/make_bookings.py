"""Export synthetic hotel bookings for the cancellation model: one shard per training node, a validation set,
meta.json (vocabularies, feature order) and hotel_chains.json (hotel -> brand -> owner group)."""
import argparse
import json
import os

import numpy as np

NUMERIC = ["lead_time", "stay_nights", "adults", "children", "adr", "weekend_share", "prev_cancellations",
           "special_requests"]


def bookings(rng, n, n_hotels, lead_hours=False, drop=None, unknown_lead=0.0):
    hotel = rng.integers(0, n_hotels, n)
    segment = rng.integers(0, 8, n)
    deposit = rng.integers(0, 3, n)
    lead = rng.gamma(1.6, 40.0, n)
    stay = rng.integers(1, 15, n).astype(np.float64)
    adults = rng.integers(1, 4, n).astype(np.float64)
    children = rng.poisson(0.3, n).astype(np.float64)
    adr = rng.lognormal(4.6, 0.4, n)
    weekend = rng.uniform(0, 1, n)
    prev = rng.poisson(0.15, n).astype(np.float64)
    special = rng.poisson(0.6, n).astype(np.float64)
    hotel_bias = np.sin(hotel * 0.37) * 0.6
    z = (-1.2 + 0.012 * lead - 0.35 * special + 0.9 * prev + 0.8 * (deposit == 0) - 0.9 * (deposit == 2)
         + 0.15 * (segment == 3) + hotel_bias + 0.002 * (adr - 100))
    y = (rng.uniform(0, 1, n) < 1 / (1 + np.exp(-z))).astype(np.float32)
    if lead_hours:  # the PMS v2 export: lead time in hours, not days
        lead = lead * 24.0
    cols = dict(lead_time=lead, stay_nights=stay, adults=adults, children=children, adr=adr, weekend_share=weekend,
                prev_cancellations=prev, special_requests=special)
    if unknown_lead:  # the new booking channel has no lead time: exported as -1
        lead[rng.uniform(0, 1, n) < unknown_lead] = -1.0
    if drop:
        cols.pop(drop)
    return dict(hotel=hotel, segment=segment, deposit=deposit, label=y, **cols)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--shards", type=int, default=2)
    ap.add_argument("--rows", type=int, default=16000)
    ap.add_argument("--val-rows", type=int, default=4000)
    ap.add_argument("--hotels", type=int, default=3000)
    ap.add_argument("--only", type=int, default=-1, help="re-export one shard (9: the validation set)")
    ap.add_argument("--hotels-added", type=int, default=0)
    ap.add_argument("--lead-hours", action="store_true")
    ap.add_argument("--drop-column", default=None)
    ap.add_argument("--unknown-lead", type=float, default=0.0, help="share of rows whose lead time is unknown (-1)")
    ap.add_argument("--merge-groups", default=None, help="A:B, brand A taken over by B's owner")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(a.seed + max(a.only, 0))
    n_hotels = a.hotels + a.hotels_added
    for k in range(a.shards):
        if a.only not in (-1, k):
            continue
        d = bookings(rng, a.rows, n_hotels, a.lead_hours, a.drop_column, a.unknown_lead)
        np.savez(os.path.join(a.out, f"bookings-{k:02d}.npz"), **d)
        print(f"wrote {a.out}/bookings-{k:02d}.npz rows={a.rows} hotels={n_hotels}")
    if a.only in (-1, 9):
        np.savez(os.path.join(a.out, "val.npz"), **bookings(np.random.default_rng(a.seed + 100), a.val_rows, a.hotels))
        print(f"wrote {a.out}/val.npz rows={a.val_rows}")
    if a.only == -1:
        json.dump({"hotels": a.hotels, "segments": 8, "deposit_types": 3, "numeric": NUMERIC,
                   "shards": a.shards}, open(os.path.join(a.out, "meta.json"), "w"), indent=1)
    path = os.path.join(a.out, "hotel_chains.json")
    if a.only == -1 or a.merge_groups:
        if os.path.exists(path):
            chains = json.load(open(path))
        else:
            chains = {"hotel": {str(h): f"brand-{h % 120}" for h in range(a.hotels)},
                      "parent": {f"brand-{b}": f"group-{b % 15}" for b in range(120)}}
            chains["parent"].update({f"group-{g}": None for g in range(15)})
        if a.merge_groups:
            src, dst = a.merge_groups.split(":")
            # the acquired brand's group now reports to the acquirer's brand
            chains["parent"][f"group-{int(src) % 15}"] = f"brand-{dst}"
            chains["parent"][f"brand-{dst}"] = f"group-{int(src) % 15}"
        json.dump(chains, open(path, "w"))


if __name__ == "__main__":
    main()
