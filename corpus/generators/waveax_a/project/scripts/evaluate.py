"""Load the last checkpoint, score the held-out mains, enforce the accuracy gate."""
import argparse
import json
import os
import pickle
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from train_burst import BurstNet  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--ckpt", required=True)
    ap.add_argument("--val", required=True)
    ap.add_argument("--gate", type=float, default=0.6)
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    with open(a.val, "rb") as f:
        va = pickle.load(f)
    st = torch.load(a.ckpt, map_location="cpu")
    model = BurstNet(va["x"].shape[1], va["n_classes"])
    model.load_state_dict(st["model"])
    model.eval()
    with torch.no_grad():
        acc = (model(torch.from_numpy(va["x"])).argmax(1) == torch.from_numpy(va["y"])).float().mean().item()
    print(f"evaluate: val accuracy {acc:.3f} on {len(va['y'])} readings (gate {a.gate})", flush=True)
    if acc < a.gate:
        sys.exit(f"evaluate: accuracy {acc:.3f} below the gate {a.gate}, not publishing")
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, "w") as f:
        json.dump({"val_accuracy": round(acc, 4), "epoch": st["epoch"]}, f)
    print("evaluate: burst-risk model passed the gate, ready to publish", flush=True)


if __name__ == "__main__":
    main()
