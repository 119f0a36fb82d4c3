"""Feature building for the stockout predictor: per (ward, drug, day) the 7-day mean usage, days of cover,
lead time, open orders; the label is the stock state 3 days later (0 ok, 1 low, 2 stocked out)."""
import csv
import functools
import logging
import pickle
import random
import sys
from collections import defaultdict
from datetime import date

import numpy as np

log = logging.getLogger("stockout.features")
COLUMNS = ["date", "ward", "drug", "doses_dispensed", "on_hand", "on_order", "lead_time_days"]


def load_substitutes(path):
    subs = {}
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            subs[r["drug"]] = r["substitute"] or None
    return subs


def build(usage_csv, subs_csv, train_out, val_out):
    subs = load_substitutes(subs_csv)
    sys.setrecursionlimit(1_000_000)  # long substitution chains in the formulary

    @functools.lru_cache(maxsize=None)
    def final_substitute(drug):
        nxt = subs.get(drug)
        return drug if not nxt else final_substitute(nxt)

    series = defaultdict(list)
    dropped = 0
    with open(usage_csv, newline="") as f:
        for r in csv.DictReader(f):
            try:
                day = date.fromisoformat(r["date"])
            except ValueError:
                log.error("row for %s/%s: unreadable date %r, dropped", r["ward"], r["drug"], r["date"])
                dropped += 1
                continue
            series[(r["ward"], r["drug"])].append(
                (day, float(r["doses_dispensed"]), float(r["on_hand"]), float(r["on_order"]),
                 float(r["lead_time_days"])))
    samples = []
    for (ward, drug), rows in sorted(series.items()):
        rows.sort()
        sub_group = final_substitute(drug)
        for i in range(7, len(rows) - 3):
            use7 = sum(x[1] for x in rows[i - 7:i]) / 7
            day, use, stock, order, lead = rows[i]
            future = rows[i + 3][2]
            label = 2 if future <= 0.5 else 1 if future < use7 * lead else 0
            raw = [use7, stock / max(use7, 0.1), lead / 7, order, int(sub_group[1:]) % 5, stock]
            samples.append((raw, label))
    x = np.asarray([s[0] for s in samples], dtype=np.float32)
    x[:, [0, 1, 3, 5]] = np.log1p(x[:, [0, 1, 3, 5]])  # usage, cover, orders and stock are heavy-tailed
    samples = [(x[i], s[1]) for i, s in enumerate(samples)]
    random.Random(3).shuffle(samples)
    n_val = len(samples) // 5
    for out, part in ((val_out, samples[:n_val]), (train_out, samples[n_val:])):
        with open(out, "wb") as f:
            pickle.dump({"x": np.stack([s[0] for s in part]), "y": np.asarray([s[1] for s in part], dtype=np.int64), "n_classes": 3}, f)
    log.info("built %d samples (%d dropped rows)", len(samples), dropped)
    return {"samples": len(samples), "dropped": dropped}
