"""Writes the synthetic contract-clause export: packed token ids + per-clause metadata (offset, length, label)."""
import argparse
import json
import os
import time

import numpy as np

LABELS = ["indemnification", "termination", "confidentiality", "governing_law", "limitation_of_liability",
          "assignment"]


def write_split(d, name, n, rng, vocab, drop_label=None, bad_row=None, index_shift=0):
    lengths = rng.integers(24, 64, size=n)
    labels = rng.integers(0, len(LABELS), size=n)
    if drop_label is not None:
        labels[labels == LABELS.index(drop_label)] = 0
    toks = []
    for i in range(n):
        base = rng.integers(5, vocab, size=int(lengths[i]))
        base[:3] = 1 + labels[i] * 7 + np.arange(3)  # clause-type cue words
        toks.append(base.astype(np.int32))
    packed = np.concatenate(toks)
    packed.tofile(os.path.join(d, f"{name}_tokens.bin"))
    off = 0
    with open(os.path.join(d, f"{name}_meta.jsonl"), "w") as f:
        for i in range(n):
            row = {"clause_id": f"{name[:2].upper()}-{i:05d}", "label": LABELS[labels[i]], "offset": off,
                   "length": int(lengths[i])}
            if index_shift and i >= n // 2:
                row["offset"] = off + index_shift
            if bad_row is not None and i == bad_row:
                row["clause_type"] = row.pop("label")
            f.write(json.dumps(row) + "\n")
            off += int(lengths[i])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--train", type=int, default=640)
    ap.add_argument("--valid", type=int, default=128)
    ap.add_argument("--vocab", type=int, default=4000)
    ap.add_argument("--no-label-map", action="store_true")
    ap.add_argument("--valid-without", default=None)
    ap.add_argument("--legacy-row", type=int, default=None)
    ap.add_argument("--index-shift", type=int, default=0)
    ap.add_argument("--delay", type=float, default=0)
    a = ap.parse_args()
    time.sleep(a.delay)
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    write_split(a.out, "train", a.train, rng, a.vocab, bad_row=a.legacy_row, index_shift=a.index_shift)
    write_split(a.out, "valid", a.valid, rng, a.vocab, drop_label=a.valid_without)
    if not a.no_label_map:
        with open(os.path.join(a.out, "labels.json"), "w") as f:
            json.dump({"labels": LABELS}, f)


if __name__ == "__main__":
    main()
