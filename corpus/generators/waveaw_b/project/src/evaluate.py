"""evaluate: accuracy and per-class recall of models/model.pt on the val split -> metrics.json."""
import json
import pickle

import torch
import yaml

import train


def main() -> None:
    p = yaml.safe_load(open("params.yaml"))
    with open("data/features/val.pkl", "rb") as f:
        va = pickle.load(f)
    x, y = torch.from_numpy(va["x"]), torch.from_numpy(va["y"])
    model = train.GrowthNet(x.shape[1], p["train"]["hidden"], p["train"]["num_classes"])
    model.load_state_dict(torch.load("models/model.pt", map_location="cpu"))
    with torch.no_grad():
        pred = model(x).argmax(1)
    acc = (pred == y).float().mean().item()
    recall = {str(c): round(((pred == c) & (y == c)).sum().item() / max(1, (y == c).sum().item()), 3)
              for c in range(p["train"]["num_classes"])}
    with open("metrics.json", "w") as f:
        json.dump({"accuracy": round(acc, 4), "recall": recall}, f, indent=2)
    print(f"val accuracy {acc:.4f}, per-class recall {recall}")
    if acc < p["evaluate"]["min_accuracy"]:
        raise SystemExit(f"accuracy {acc:.4f} below the gate {p['evaluate']['min_accuracy']}")


if __name__ == "__main__":
    main()
