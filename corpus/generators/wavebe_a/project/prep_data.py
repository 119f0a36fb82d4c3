"""Write the synthetic gridded training data for the precipitation emulator (ERA-like predictors -> precip)."""
import argparse
import json
import os
import time

import numpy as np

VARS = ["t850", "q700", "z500", "u850", "v850"]


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--out", default="data")
    p.add_argument("--n-train", type=int, default=768)
    p.add_argument("--n-valid", type=int, default=128)
    p.add_argument("--grid", type=int, default=32)
    p.add_argument("--missing-cells", type=int, default=0, help="fill value -> NaN in q700 for this many samples")
    p.add_argument("--drop-var", default="", help="leave one predictor out of the export")
    p.add_argument("--no-stats", action="store_true", help="skip writing norm_stats.json")
    p.add_argument("--delay", type=float, default=0.0)
    a = p.parse_args()
    time.sleep(a.delay)
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    g = a.grid
    yy, xx = np.meshgrid(np.linspace(0, 2 * np.pi, g), np.linspace(0, 2 * np.pi, g), indexing="ij")
    for split, n in (("train", a.n_train), ("valid", a.n_valid)):
        phase = rng.uniform(0, 2 * np.pi, size=(n, 1, 1))
        fields = {}
        for k, v in enumerate(VARS):
            fields[v] = (np.sin(xx + phase * (k + 1)) * np.cos(yy - phase) + 0.3 * rng.standard_normal((n, g, g)))
        precip = np.maximum(0.0, fields["q700"] * 2 + fields["u850"] - 0.5 * fields["t850"]) ** 1.5
        if split == "train" and a.missing_cells:
            fields["q700"][:a.missing_cells, :4, :4] = np.nan
        keep = [v for v in VARS if v != a.drop_var]
        x = np.stack([fields[v] for v in keep], axis=1).astype(np.float32)
        np.save(os.path.join(a.out, f"{split}_x.npy"), x)
        np.save(os.path.join(a.out, f"{split}_precip.npy"), precip.astype(np.float32)[:, None])
        with open(os.path.join(a.out, f"{split}_vars.json"), "w") as f:
            json.dump(keep, f)
        if split == "train" and not a.no_stats:
            with open(os.path.join(a.out, "norm_stats.json"), "w") as f:
                json.dump({"mean": np.nanmean(x, (0, 2, 3)).tolist(), "std": np.nanstd(x, (0, 2, 3)).tolist()}, f)


if __name__ == "__main__":
    main()
