"""prepare: read the ILI export, drop unreadable rows, attach each anomaly's distance (in segments) from the pump
station by walking the upstream links, split train/val."""
import csv
import functools
import os
import random
import sys

import yaml

sys.setrecursionlimit(1_000_000)  # long gathering lines: a few thousand segments deep


def main() -> None:
    p = yaml.safe_load(open("params.yaml"))["prepare"]
    up = {}
    with open("data/raw/segments.csv") as f:
        for r in csv.DictReader(f):
            up[r["segment"]] = r["upstream"]
    print(f"loaded {len(up)} segment links from data/raw/segments.csv, walking to the pump station", flush=True)

    @functools.lru_cache(maxsize=None)
    def hops(seg: str) -> int:
        return 0 if not up.get(seg) else 1 + hops(up[seg])

    rows, dropped = [], 0
    with open("data/raw/ili_anomalies.csv") as f:
        for r in csv.DictReader(f):
            try:
                float(r["depth_pct"])
            except ValueError:
                print(f"ERROR anomaly {r['anomaly_id']}: unreadable depth_pct {r['depth_pct']!r}, row dropped",
                      file=sys.stderr, flush=True)
                dropped += 1
                continue
            r["hops"] = hops(r["segment"])
            rows.append(r)
    print(f"read {len(rows) + dropped} anomalies, kept {len(rows)} ({dropped} dropped), "
          f"{len(up)} segments, deepest {max(hops(s) for s in up)} hops")
    random.Random(p["seed"]).shuffle(rows)
    n_val = int(len(rows) * p["val_fraction"])
    os.makedirs("data/prepared", exist_ok=True)
    for name, part in (("val", rows[:n_val]), ("train", rows[n_val:])):
        with open(f"data/prepared/{name}.csv", "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(part[0].keys()))
            w.writeheader()
            w.writerows(part)
        print(f"wrote data/prepared/{name}.csv ({len(part)} rows)")


if __name__ == "__main__":
    main()
