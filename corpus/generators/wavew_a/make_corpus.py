"""Write a synthetic spoken-digits corpus manifest: data/{train,dev}.tsv with `utt_id<TAB>seed<TAB>transcript`.

Audio is synthesised from the transcript by ctc.py (one tone chord per character), so the manifest is all there is.
"""
import argparse
import os
import random

WORDS = "zero one two three four five six seven eight nine oh double".split()

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--train", type=int, default=960)
ap.add_argument("--dev", type=int, default=160)
ap.add_argument("--apostrophes", type=float, default=0.0, help="share of the newest recordings with o'clock times")
ap.add_argument("--seed", type=int, default=7)
a = ap.parse_args()
rng = random.Random(a.seed)
os.makedirs(a.out, exist_ok=True)
for split, n in (("train", a.train), ("dev", a.dev)):
    with open(os.path.join(a.out, f"{split}.tsv"), "w") as f:
        for i in range(n):
            words = [rng.choice(WORDS) for _ in range(rng.randint(1, 3))]
            if split == "train" and i >= n * (1 - a.apostrophes):  # the newest batch of recordings: spoken times
                words = [rng.choice(WORDS[1:10]), "o'clock"]
            f.write(f"{split}-{i:05d}\t{rng.randrange(1 << 30)}\t{' '.join(words)}\n")
    print(f"wrote {n} {split} utterances to {a.out}/{split}.tsv")
