"""Export the support-ticket snapshot for training: token ids (data/{split}_tokens.npy, int32 N x L) and metadata
(data/{split}_meta.csv: ticket_id, queue, priority_weight). Synthetic: each queue has its own vocabulary band."""
import argparse
import csv
import json
import os
import time

import numpy as np

QUEUES = ["billing", "login_access", "shipping", "refunds", "bug_report", "account_closure"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="data")
    p.add_argument("--train", type=int, default=640)
    p.add_argument("--valid", type=int, default=128)
    p.add_argument("--seq-len", type=int, default=48)
    p.add_argument("--vocab", type=int, default=2000)
    p.add_argument("--nan-weights", type=int, default=0, help="rows whose priority_weight is left empty (NaN)")
    p.add_argument("--rename-queue", default="", help="export the label column under another name")
    p.add_argument("--no-queue-map", action="store_true")
    p.add_argument("--delay", type=float, default=0.0)
    a = p.parse_args()
    time.sleep(a.delay)
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    band = a.vocab // len(QUEUES)
    for split, n in (("train", a.train), ("valid", a.valid)):
        y = rng.integers(0, len(QUEUES), n)
        toks = rng.integers(1, a.vocab, (n, a.seq_len))
        mask = rng.random((n, a.seq_len)) < 0.35
        toks[mask] = (y[:, None] * band + rng.integers(0, band, (n, a.seq_len)))[mask]
        np.save(os.path.join(a.out, f"{split}_tokens.npy"), toks.astype(np.int32))
        w = rng.uniform(0.5, 2.0, n)
        col = a.rename_queue or "queue"
        with open(os.path.join(a.out, f"{split}_meta.csv"), "w", newline="") as f:
            wr = csv.writer(f)
            wr.writerow(["ticket_id", col, "priority_weight"])
            for i in range(n):
                pw = "" if (split == "train" and i < a.nan_weights) else f"{w[i]:.3f}"
                wr.writerow([f"T{100000 + i}", QUEUES[y[i]], pw])
    if not a.no_queue_map:
        with open(os.path.join(a.out, "queues.json"), "w") as f:
            json.dump(QUEUES, f)


if __name__ == "__main__":
    main()
