"""Write the math-tutoring prompt set (data/prompts.jsonl, data/valid.jsonl) the way the data team exports it."""
import argparse
import json
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--n-train", type=int, default=256)
ap.add_argument("--n-valid", type=int, default=32)
ap.add_argument("--empty-refs", type=int, default=0, help="samples whose reference answer came out empty")
ap.add_argument("--drop-field", default="", help="leave a field out of every record")
ap.add_argument("--nested", type=int, default=0, help="one sample whose worked answer is nested this deep")
a = ap.parse_args()
rng = random.Random(7)
os.makedirs(a.out, exist_ok=True)


def sample(i):
    x, y = rng.randint(1, 9), rng.randint(1, 9)
    op = rng.choice("+-*")
    ans = str(eval(f"{x}{op}{y}"))
    rec = {"id": i, "question": f"What is {x} {op} {y}? Explain briefly.", "reference": ans,
           "worked": f"({x}{op}{y})"}
    return rec


for name, n in (("prompts", a.n_train), ("valid", a.n_valid)):
    with open(os.path.join(a.out, f"{name}.jsonl"), "w") as f:
        for i in range(n):
            r = sample(i)
            if name == "prompts" and i < a.empty_refs:
                r["reference"] = ""
            if name == "prompts" and a.nested and i == 5:
                r["worked"] = "(" * a.nested + "1" + ")" * a.nested
            if a.drop_field:
                r.pop(a.drop_field, None)
            f.write(json.dumps(r) + "\n")
