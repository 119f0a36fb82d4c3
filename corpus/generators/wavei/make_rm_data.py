"""Write a rated-responses data set (JSON lines ``{"id", "annotator", "prompt", "response", "rating"}``, ratings 1-5)
for reward-model training, as the export of an annotation tool would look: ``--annotators`` raters share the records.

``--late-annotator NAME``: the last record is rated by an annotator who joined the project late and has rated that
one record only (an ordinary thing in a real export). Nothing else in the data differs.
"""
from __future__ import annotations

import argparse
import json
import random

WORDS = ("the model training job cluster node gradient loss batch learning rate checkpoint evaluation accuracy "
         "dataset token sequence optimizer warmup schedule memory process rank worker network storage latency "
         "throughput update parameter layer attention embedding vocabulary sample shard epoch step metric").split()


def sentence(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--n", type=int, default=4000)
    p.add_argument("--annotators", type=int, default=24)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--late-annotator", default="")
    a = p.parse_args()
    rng = random.Random(a.seed)
    with open(a.out, "w") as f:
        for i in range(a.n):
            prompt = "Explain briefly: " + sentence(rng, 5, 10)
            n = rng.randint(1, 4)
            response = " ".join(sentence(rng, 4, 12) for _ in range(n))
            # longer, on-topic answers get better ratings (plus rater noise and a per-rater bias)
            ann = rng.randrange(a.annotators)
            quality = n + sum(w in prompt.lower() for w in response.lower().split()) / 4
            rating = max(1, min(5, round(1 + quality * 0.8 + rng.gauss(0, 0.7) + (ann % 3 - 1) * 0.5)))
            name = f"ann-{ann:02d}"
            if a.late_annotator and i == a.n - 1:
                name = a.late_annotator
            f.write(json.dumps({"id": i, "annotator": name, "prompt": prompt, "response": response,
                                "rating": rating}) + "\n")
    print(f"wrote {a.n} rated records to {a.out}")


if __name__ == "__main__":
    main()
