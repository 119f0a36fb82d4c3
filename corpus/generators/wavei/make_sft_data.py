"""Write an instruction-tuning data set as JSON lines (``{"id", "prompt", "response"}``), as a data-prep step of a
job script would: short synthetic instructions (summarise / classify / rewrite / answer) with their responses.

``--pasted-doc ID``: record ``ID`` is an instruction whose prompt carries a whole pasted document (a long log
excerpt, several thousand characters), as happens in scraped or user-submitted instruction data. Nothing else in
the data differs.
"""
from __future__ import annotations

import argparse
import json
import random

WORDS = ("the model training job cluster node gradient loss batch learning rate checkpoint evaluation accuracy "
         "dataset token sequence optimizer warmup schedule memory process rank worker network storage latency "
         "throughput update parameter layer attention embedding vocabulary sample shard epoch step metric").split()
TASKS = ("Summarize the following note in one sentence:", "Classify the sentiment of this review as positive or "
         "negative:", "Rewrite the sentence in plain English:", "Answer the question briefly:")


def sentence(rng: random.Random, lo: int = 6, hi: int = 14) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi))).capitalize() + "."


def record(i: int, rng: random.Random) -> dict:
    task = rng.randrange(len(TASKS))
    body = " ".join(sentence(rng) for _ in range(rng.randint(1, 3)))
    if task == 1:
        resp = rng.choice(("positive", "negative"))
    else:
        resp = sentence(rng, 5, 10)
    return {"id": i, "prompt": f"{TASKS[task]}\n{body}", "response": resp}


def pasted_doc(i: int, rng: random.Random) -> dict:
    lines = [f"[{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:{rng.randint(0, 59):02d}] worker-{rng.randint(0, 63)} "
             f"{sentence(rng, 8, 16)}" for _ in range(60)]
    return {"id": i, "prompt": "Summarize the following note in one sentence:\n" + "\n".join(lines),
            "response": sentence(rng, 6, 10)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", required=True)
    p.add_argument("--n", type=int, default=4000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pasted-doc", type=int, action="append", default=[])
    a = p.parse_args()
    rng = random.Random(a.seed)
    longest = 0
    with open(a.out, "w") as f:
        for i in range(a.n):
            r = pasted_doc(i, rng) if i in a.pasted_doc else record(i, rng)
            longest = max(longest, len(r["prompt"]))
            f.write(json.dumps(r) + "\n")
    print(f"wrote {a.n} records to {a.out} (longest prompt {longest} chars)")


if __name__ == "__main__":
    main()
