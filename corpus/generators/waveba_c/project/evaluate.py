"""make eval: loads checkpoints/last.pt, scores the validation moves per crane, fails the build if the MAE is over
the gate."""
import json
import logging
import os
import pickle
import sys

import torch

from train import MoveTimeNet

log = logging.getLogger("cranes.evaluate")


def main(ckpt: str, feats: str, out: str, gate: float) -> None:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    st = torch.load(ckpt, map_location="cpu")
    with open(feats, "rb") as f:
        d = pickle.load(f)
    m = MoveTimeNet(st["n_features"])
    m.load_state_dict(st["model"])
    m.eval()
    xv, yv = torch.from_numpy(d["x_val"]), torch.from_numpy(d["y_val"])
    with torch.no_grad():
        pred = m(xv) * st["y_std"] + st["y_mean"]
    err = (pred - yv).abs()
    ncr = len(d["cranes"])
    per = {}
    for k, name in enumerate(d["cranes"]):
        sel = xv[:, 8 + k] > 0.5
        if sel.any():
            per[name] = round(err[sel].mean().item(), 1)
    mae = err.mean().item()
    log.info("val MAE %.1f s over %d moves (gate %.1f s), per crane %s", mae, len(yv), gate, per)
    os.makedirs(os.path.dirname(out), exist_ok=True)
    with open(out, "w") as f:
        json.dump({"mae_s": round(mae, 2), "per_crane": per, "cranes": ncr, "epochs": st["epoch"]}, f)
    if mae > gate:
        log.error("val MAE %.1f s is over the gate %.1f s", mae, gate)
        sys.exit(1)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]))
