"""featurize: numeric features for the corrosion-growth classifier (log sizes, remaining wall, soil/CP, coating
one-hot), standardised with the train split's statistics."""
import csv
import os
import pickle

import numpy as np
import yaml

COATINGS = ["FBE", "3LPE", "coal-tar", "tape"]


def feats(r: dict, p: dict) -> list:
    depth, wall = float(r["depth_pct"]), float(r["wall_mm"])
    remaining = wall * (1 - depth / 100)
    x = [depth / 100, np.log(float(r["length_mm"])), np.log(float(r["width_mm"])), np.log(remaining),
         np.log(float(r["soil_ohm_m"])), float(r["cp_mv"]) / 1000, float(r["age_years"]) / 50,
         float(r["pressure_bar"]) / 100, float(r["hops"]) / 100, (int(r["run_year"]) - 2019) / 6]
    if p["coating_onehot"]:
        x += [1.0 if r["coating"] == c else 0.0 for c in COATINGS]
    return x


def main() -> None:
    p = yaml.safe_load(open("params.yaml"))["featurize"]
    os.makedirs("data/features", exist_ok=True)
    out = {}
    with np.errstate(invalid="ignore"):
        for name in ("train", "val"):
            with open(f"data/prepared/{name}.csv") as f:
                rows = list(csv.DictReader(f))
            out[name] = (np.array([feats(r, p) for r in rows], dtype=np.float32),
                         np.array([int(r["growth_class"]) for r in rows], dtype=np.int64))
    mu, sd = np.nanmean(out["train"][0], 0), np.nanstd(out["train"][0], 0) + 1e-6
    for name, (x, y) in out.items():
        with open(f"data/features/{name}.pkl", "wb") as f:
            pickle.dump({"x": (x - mu) / sd, "y": y}, f)
        print(f"data/features/{name}.pkl: {x.shape[0]} x {x.shape[1]} features")


if __name__ == "__main__":
    main()
