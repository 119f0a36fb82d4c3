"""Write the synthetic query-log export (data/) and build the native query normalizer (lib/) for train.py.

Token ids are packed int32 in data/{split}_tokens.bin; data/{split}.tsv has query_id, offset, length, intent."""
from __future__ import annotations

import argparse
import json
import subprocess
import time
from pathlib import Path

import numpy as np

INTENTS = ["navigational", "product_lookup", "category_browse", "price_compare", "brand_search", "order_status",
           "returns_help", "gift_ideas"]


def build_libs(lib: Path, qnorm_src: str) -> None:
    lib.mkdir(exist_ok=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(lib / "libqnorm.so"), qnorm_src], check=True)
    subprocess.run(["gcc", "-shared", "-fPIC", "-O2", "-o", str(lib / "libqtok.so"), "native/qtok.c",
                    f"-L{lib}", "-lqnorm", "-Wl,-rpath,$ORIGIN"], check=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data")
    ap.add_argument("--train", type=int, default=1024)
    ap.add_argument("--valid", type=int, default=256)
    ap.add_argument("--vocab", type=int, default=512)
    ap.add_argument("--seed", type=int, default=3)
    ap.add_argument("--bad-row", type=int, default=0, help="row whose intent column holds the intent name")
    ap.add_argument("--bad-offset", type=int, default=0, help="row whose offset was written as a byte address")
    ap.add_argument("--no-intent-names", action="store_true")
    ap.add_argument("--qnorm", default="native/qnorm_v2.c")
    ap.add_argument("--delay", type=float, default=0)
    a = ap.parse_args()
    time.sleep(a.delay)
    rng = np.random.default_rng(a.seed)
    out = Path(a.out)
    out.mkdir(exist_ok=True)
    keys = rng.integers(1, a.vocab - 40, size=(len(INTENTS), 6))
    for split, n in (("train", a.train), ("valid", a.valid)):
        packed, rows, off = [], [], 0
        for i in range(n):
            intent = int(rng.choice(len(INTENTS), p=[.2, .2, .15, .15, .1, .1, .05, .05]))
            length = int(rng.integers(3, 13))
            toks = rng.integers(1, a.vocab, size=length)
            toks[rng.integers(0, length)] = rng.choice(keys[intent])
            packed.append(toks.astype(np.int32))
            label = INTENTS[intent] if (split == "train" and i + 2 == a.bad_row) else str(intent)
            o = off * 1_000_000_000 if (split == "train" and i + 2 == a.bad_offset) else off
            rows.append(f"q{split[0]}{i:06d}\t{o}\t{length}\t{label}")
            off += length
        np.concatenate(packed).tofile(out / f"{split}_tokens.bin")
        (out / f"{split}.tsv").write_text("query_id\toffset\tlength\tintent\n" + "\n".join(rows) + "\n")
    if not a.no_intent_names:
        (out / "intent_names.json").write_text(json.dumps(INTENTS))
    build_libs(Path("lib"), a.qnorm)


if __name__ == "__main__":
    main()
