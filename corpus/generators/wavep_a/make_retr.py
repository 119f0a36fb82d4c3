"""Write a synthetic passage-retrieval collection (MS MARCO-like): a passage corpus, training query shards with their
positive passage id, dev queries with qrels, and meta.json.

Each passage is drawn from one of many latent topics (a topic has its own skewed token distribution over a shared
vocabulary); a query is a handful of the passage's rarer tokens plus a few topic tokens and noise, so a dual encoder
can learn to match queries to their passages.
"""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--passages", type=int, default=20000)
ap.add_argument("--shards", type=int, default=4)
ap.add_argument("--queries", type=int, default=8000, help="training queries per shard")
ap.add_argument("--dev", type=int, default=1000)
ap.add_argument("--vocab", type=int, default=8000)
ap.add_argument("--topics", type=int, default=400)
ap.add_argument("--qrels-newer-than-corpus", type=int, default=-1,
                help="this shard's queries were exported after a corpus refresh: some positives are new passages")
a = ap.parse_args()

rng = np.random.default_rng(7)
os.makedirs(a.out, exist_ok=True)
V, T = a.vocab, a.topics
topic_words = rng.integers(100, V, size=(T, 60))
ptopic = rng.integers(0, T, size=a.passages)
passages = []
with open(os.path.join(a.out, "passages.tsv"), "w") as f:
    for pid in range(a.passages):
        n = int(rng.integers(20, 41))
        k = int(n * 0.6)
        toks = np.concatenate([rng.choice(topic_words[ptopic[pid]], size=k), rng.integers(1, V, size=n - k)])
        rng.shuffle(toks)
        passages.append(toks)
        f.write(f"{pid}\t{' '.join(map(str, toks))}\n")


def query(pid):
    toks = passages[pid]
    n = int(rng.integers(4, 9))
    q = list(rng.choice(toks, size=n - 1, replace=False)) + [int(rng.integers(1, V))]
    return q


def write_queries(path, n, start, newer=False):
    with open(path, "w") as f:
        for i in range(n):
            pid = int(rng.integers(0, a.passages))
            q = query(pid)
            if newer and i % 97 == 41:
                pid = a.passages + int(rng.integers(0, 3000))  # a passage added by the corpus refresh
            f.write(f"q{start + i}\t{pid}\t{' '.join(map(str, q))}\n")


for s in range(a.shards):
    write_queries(os.path.join(a.out, f"train-{s:02d}.tsv"), a.queries, s * a.queries, s == a.qrels_newer_than_corpus)
write_queries(os.path.join(a.out, "dev.tsv"), a.dev, 10_000_000)
json.dump({"passages": a.passages, "vocab": V, "shards": a.shards, "queries_per_shard": a.queries, "dev": a.dev},
          open(os.path.join(a.out, "meta.json"), "w"))
print(f"wrote {a.passages} passages, {a.shards} x {a.queries} training queries, {a.dev} dev queries to {a.out}/")
