"""Synthetic topical corpus for skip-gram training: documents drawn from a mixture of topics, each topic with its own
Zipfian word distribution over a shared vocabulary, plus topic-free function words. Writes corpus.txt (one document
per line), topics.json (the topic of each content word) and eval_pairs.tsv (word pairs with a gold similarity)."""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--docs", type=int, default=1600)
ap.add_argument("--doc-len", type=int, default=40)
ap.add_argument("--topics", type=int, default=12)
ap.add_argument("--words-per-topic", type=int, default=250)
ap.add_argument("--function-words", type=int, default=60)
ap.add_argument("--eval-pairs", type=int, default=400)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--capitalised-eval", action="store_true", help="eval pairs as exported by the annotation tool (Title case)")
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
os.makedirs(a.out, exist_ok=True)
syll = ["ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "pa", "do", "fe", "gu", "hi", "jo", "bu"]


def word(i):
    s = ""
    i += 17
    while i:
        s += syll[i % 16]
        i //= 16
    return s


fw = [word(i) for i in range(a.function_words)]
topic_words = [[word(a.function_words + t * a.words_per_topic + j) for j in range(a.words_per_topic)] for t in range(a.topics)]
zipf = 1.0 / np.arange(1, a.words_per_topic + 1) ** 1.05
zipf /= zipf.sum()
fz = 1.0 / np.arange(1, a.function_words + 1)
fz /= fz.sum()
with open(os.path.join(a.out, "corpus.txt"), "w") as f:
    for d in range(a.docs):
        t = rng.integers(a.topics)
        toks = []
        for _ in range(a.doc_len):
            if rng.random() < 0.3:
                toks.append(fw[rng.choice(a.function_words, p=fz)])
            else:
                toks.append(topic_words[t][rng.choice(a.words_per_topic, p=zipf)])
        f.write(" ".join(toks) + "\n")
json.dump({w: t for t in range(a.topics) for w in topic_words[t]}, open(os.path.join(a.out, "topics.json"), "w"))
with open(os.path.join(a.out, "eval_pairs.tsv"), "w") as f:
    f.write("word1\tword2\tgold\n")
    for _ in range(a.eval_pairs):
        t1 = rng.integers(a.topics)
        t2 = t1 if rng.random() < 0.5 else rng.integers(a.topics)
        w1 = topic_words[t1][rng.integers(40)]
        w2 = topic_words[t2][rng.integers(40)]
        if a.capitalised_eval:
            w1, w2 = w1.title(), w2.title()
        f.write(f"{w1}\t{w2}\t{10.0 if t1 == t2 else 1.0}\n")
n = a.docs * a.doc_len
print(f"wrote {a.docs} documents ({n} tokens, {a.function_words + a.topics * a.words_per_topic} word types) and {a.eval_pairs} eval pairs to {a.out}/")
