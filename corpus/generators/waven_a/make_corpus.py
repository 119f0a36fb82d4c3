"""Write the synthetic parallel corpus for translate.py: a toy source language ("src") and its translation ("tgt")
produced by a small transfer grammar (word mapping, adjective/noun swap, verb-final to verb-second reordering,
agreement suffixes). Shards data/train-XX.tsv (src<TAB>tgt per line), data/dev.tsv, and data/vocab.json.

Options reproduce what real scraped corpora contain: a shard re-exported with a newer, larger vocabulary
(--newer-vocab-shard), a line carrying a huge unbroken token (a base64 blob, --blob-line), very long dev
sentences from an unfiltered web crawl (--long-dev), shards of very different sizes (--uneven).
"""
import argparse
import json
import os
import random

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--shards", type=int, default=4)
ap.add_argument("--lines", type=int, default=3000)
ap.add_argument("--dev", type=int, default=200)
ap.add_argument("--newer-vocab-shard", type=int, default=-1)
ap.add_argument("--blob-line", type=int, default=-1, help="shard that gets one line with a huge base64 token")
ap.add_argument("--long-dev", type=int, default=0, help="append N very long dev sentences (unfiltered crawl)")
ap.add_argument("--uneven", action="store_true")
a = ap.parse_args()
rng = random.Random(1234)
os.makedirs(a.out, exist_ok=True)
SYL = ["ka", "lo", "mi", "ne", "ru", "ta", "vi", "zo", "pe", "su", "da", "fo", "gi", "hu", "ja", "we"]


def word(n):
    return "".join(rng.choice(SYL) for _ in range(n))


nouns = sorted({word(2) for _ in range(120)})
verbs = sorted({word(3) for _ in range(60)})
adjs = sorted({word(2) + "i" for _ in range(50)})
dets = ["le", "ko", "sa"]
lex = {w: "T" + word(2) for w in nouns + verbs + adjs + dets}


def sentence(nclause):
    src, tgt = [], []
    for c in range(nclause):
        subj = [rng.choice(dets), rng.choice(adjs), rng.choice(nouns)]
        obj = [rng.choice(dets), rng.choice(nouns)]
        v = rng.choice(verbs)
        plural = rng.random() < 0.4
        s = subj + obj + [v + ("n" if plural else "")]
        t = [lex[subj[0]], lex[subj[2]] + ("s" if plural else ""), lex[subj[1]], lex[v] + ("en" if plural else "e"),
             lex[obj[0]], lex[obj[1]]]
        if c:
            s = ["u"] + s
            t = ["and"] + t
        src += s
        tgt += t
    return " ".join(src), " ".join(tgt)


def lines(n, maxc=3):
    return [sentence(rng.randint(1, maxc)) for _ in range(n)]


specials = ["<pad>", "<s>", "</s>", "<unk>"]
src_vocab = specials + sorted(set(nouns + verbs + adjs + dets + [v + "n" for v in verbs] + ["u"]))
tgt_words = set()
for w in nouns:
    tgt_words |= {lex[w], lex[w] + "s"}
for w in verbs:
    tgt_words |= {lex[w] + "e", lex[w] + "en"}
for w in adjs + dets:
    tgt_words.add(lex[w])
tgt_vocab = specials + sorted(tgt_words | {"and"})
json.dump({"src": src_vocab, "tgt": tgt_vocab, "version": "2026.10"}, open(os.path.join(a.out, "vocab.json"), "w"))
for i in range(a.shards):
    n = a.lines if not a.uneven else int(a.lines * (0.35 if i % 2 else 1.0))
    with open(os.path.join(a.out, f"train-{i:02d}.tsv"), "w") as f:
        rows = lines(n)
        if i == a.blob_line:
            import base64
            blob = base64.b64encode(rng.randbytes(120000)).decode()
            rows.insert(n // 3, ("le " + blob + " ka", "Tle " + blob))
        for s, t in rows:
            f.write(f"{s}\t{t}\n")
    if i == a.newer_vocab_shard:
        # this shard was re-exported as ids with the newer vocabulary (2026.11, 64 more target words)
        with open(os.path.join(a.out, f"train-{i:02d}.ids"), "w") as f:
            big_tgt = tgt_vocab + ["Tx%02d" % k for k in range(64)]
            si = {w: k for k, w in enumerate(src_vocab)}
            ti = {w: k for k, w in enumerate(big_tgt)}
            for s, t in rows:
                tt = t.split()
                if rng.random() < 0.02:
                    tt[rng.randrange(len(tt))] = "Tx%02d" % rng.randrange(64)
                f.write(" ".join(str(si[w]) for w in s.split()) + "\t" + " ".join(str(ti[w]) for w in tt) + "\n")
        os.remove(os.path.join(a.out, f"train-{i:02d}.tsv"))
with open(os.path.join(a.out, "dev.tsv"), "w") as f:
    for s, t in lines(a.dev):
        f.write(f"{s}\t{t}\n")
    for _ in range(a.long_dev):
        s, t = sentence(900)
        f.write(f"{s}\t{t}\n")
print(f"wrote {a.shards} shards, {len(src_vocab)} src / {len(tgt_vocab)} tgt words")
