"""Write a small code-expression data set (JSON lines ``{"id", "expr", "label"}``): arithmetic/call expressions as a
code-mining pipeline would extract them from source files, labelled by whether they evaluate to a positive number.

``--generated-file ID``: record ``ID`` comes from a machine-generated source file (a code generator's output: one
expression nested ``--depth`` calls deep), as real scraped code corpora contain. Nothing else differs.
"""
from __future__ import annotations

import argparse
import json
import random

FUNCS = ("add", "sub", "mul", "neg", "abs")


def expr(rng: random.Random, depth: int) -> str:
    if depth == 0 or rng.random() < 0.3:
        return str(rng.randint(-9, 9))
    f = rng.choice(FUNCS)
    if f in ("neg", "abs"):
        return f"{f}({expr(rng, depth - 1)})"
    return f"{f}({expr(rng, depth - 1)}, {expr(rng, depth - 1)})"


def value(e: str) -> int:
    env = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b, "neg": lambda a: -a,
           "abs": abs}
    return eval(e, {"__builtins__": {}}, env)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--n", type=int, default=6000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--generated-file", type=int, default=-1)
    p.add_argument("--depth", type=int, default=200000)
    a = p.parse_args()
    rng = random.Random(a.seed)
    with open(a.out, "w") as f:
        for i in range(a.n):
            if i == a.generated_file:
                e = "neg(" * a.depth + "1" + ")" * a.depth
                label = int(a.depth % 2 == 0)
            else:
                e = expr(rng, rng.randint(2, 5))
                label = int(value(e) > 0)
            f.write(json.dumps({"id": i, "expr": e, "label": label}) + "\n")
    print(f"wrote {a.n} expressions to {a.out}")


if __name__ == "__main__":
    main()
