"""Sentence-level BLEU scorer: reads 'hypothesis<TAB>reference' lines on stdin, writes one score per line."""
import math
import sys
from collections import Counter


def sentence_bleu(h, r):
    h, r = h.split(), r.split()
    logs = []
    for n in range(1, 5):
        hc = Counter(tuple(h[i:i + n]) for i in range(len(h) - n + 1))
        rc = Counter(tuple(r[i:i + n]) for i in range(len(r) - n + 1))
        m = sum(min(c, rc[g]) for g, c in hc.items())
        t = max(len(h) - n + 1, 0)
        logs.append(math.log((m + 1) / (t + 1)))  # add-one smoothing
    bp = 1.0 if len(h) > len(r) else math.exp(1 - len(r) / max(len(h), 1))
    return bp * math.exp(sum(logs) / 4)


for line in sys.stdin:
    hyp, _, ref = line.rstrip("\n").partition("\t")
    sys.stdout.write(f"{sentence_bleu(hyp, ref):.6f}\n")
