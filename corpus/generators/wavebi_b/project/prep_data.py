"""Write the synthetic order-notes corpus as uint8 byte shards + a JSONL of eval prompts (not part of training logs)."""
import argparse
import json
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--docs", type=int, default=4000)
ap.add_argument("--extra-prompt", default="")
a = ap.parse_args()
os.makedirs(a.out, exist_ok=True)
rng = random.Random(7)
items = ["pallet", "crate", "sensor", "valve", "cable", "pump", "filter", "gasket", "relay", "bearing"]
verbs = ["shipped", "delayed", "returned", "inspected", "restocked", "damaged", "signed for", "rerouted"]
places = ["dock 4", "the north yard", "warehouse b", "bay 12", "the cold room", "gate 7"]
docs = []
for i in range(a.docs):
    n = rng.randint(1, 3)
    s = " ".join(f"order {rng.randint(100, 999)}: {rng.randint(1, 40)} {rng.choice(items)}s {rng.choice(verbs)} "
                 f"at {rng.choice(places)}." for _ in range(n))
    docs.append(s)
split = int(len(docs) * 0.9)
for name, part in (("train", docs[:split]), ("val", docs[split:])):
    with open(os.path.join(a.out, f"{name}.bin"), "wb") as f:
        f.write(("\n".join(part) + "\n").encode("ascii"))
with open(os.path.join(a.out, "prompts.jsonl"), "w") as f:
    for p in ["order 512: 12 pumps", "order 130: 3 crates", "order 777: 9 relays"]:
        f.write(json.dumps({"prompt": p}) + "\n")
    if a.extra_prompt:
        f.write(a.extra_prompt + "\n")
print("wrote", a.out)
