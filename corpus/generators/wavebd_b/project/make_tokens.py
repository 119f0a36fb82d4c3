"""Write the synthetic code-completion token shards the team pretrains on (data/).

The real pipeline tokenizes a scrape of internal repositories; for the tiny model the team generates
"code-like" token streams from a small grammar (indentation, identifiers, brackets, keywords) so the
loss curve behaves like the real one. Shards are flat uint16 token files listed in data/manifest.json.
"""
import argparse
import json
import os

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("--out", default="data")
ap.add_argument("--vocab", type=int, default=512)
ap.add_argument("--train-shards", type=int, default=4)
ap.add_argument("--seqs-per-shard", type=int, default=48)
ap.add_argument("--seq-len", type=int, default=128)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--nan-weights", type=int, default=0, help="sequences whose quality weight the scorer left as NaN")
ap.add_argument("--truncated-shards", type=int, default=0, help="shards cut short by a failed upload")
ap.add_argument("--nested-lineage", type=int, default=0, help="depth of a re-derived shard's lineage record")
a = ap.parse_args()

rng = np.random.default_rng(a.seed)
os.makedirs(a.out, exist_ok=True)
KW = list(range(4, 36))          # keywords
PUNCT = list(range(36, 60))      # brackets, colons, operators
IDENT = list(range(60, a.vocab))  # identifiers / literals


def stream(n):
    out = []
    while len(out) < n:
        indent = int(rng.integers(0, 4))
        out += [1] * indent                      # indentation tokens
        out.append(int(rng.choice(KW)))
        name = int(rng.choice(IDENT))
        out += [name, 36, 37]                    # name ( )
        for _ in range(int(rng.integers(1, 5))):
            out += [int(rng.choice(IDENT)), int(rng.choice(PUNCT)), name]
        out.append(2)                            # newline
    return out[:n]


L = a.seq_len + 1
shards = []
for i in range(a.train_shards):
    toks = np.array(stream(a.seqs_per_shard * L), dtype=np.uint16)
    name = f"train-{i:05d}.bin"
    if i >= a.train_shards - a.truncated_shards:
        toks = toks[: len(toks) // 3 + 17]
    toks.tofile(os.path.join(a.out, name))
    w = rng.uniform(0.6, 1.0, a.seqs_per_shard).astype(np.float32)
    if a.nan_weights and i == 1:
        w[rng.choice(a.seqs_per_shard, a.nan_weights, replace=False)] = np.nan
    np.save(os.path.join(a.out, f"train-{i:05d}.quality.npy"), w)
    shards.append({"path": name, "sequences": a.seqs_per_shard, "seq_len": a.seq_len})
np.array(stream(32 * L), dtype=np.uint16).tofile(os.path.join(a.out, "valid-00000.bin"))

manifest = {"vocab_size": a.vocab, "tokenizer": "codecomp-bpe-512", "train": shards,
            "valid": [{"path": "valid-00000.bin", "sequences": 32, "seq_len": a.seq_len}]}
text = json.dumps(manifest, indent=1)
if a.nested_lineage:  # a shard re-derived many times: its lineage is one nested record per derivation
    lineage = '{"from": ' * a.nested_lineage + '"raw-scrape"' + "}" * a.nested_lineage
    text = text[:-2] + ',\n "lineage": ' + lineage + "\n}"
with open(os.path.join(a.out, "manifest.json"), "w") as f:
    f.write(text)
