"""Write synthetic source-code token streams (nanoGPT-style uint16 .bin files + meta.json) for the code-completion
model. The tokens come from a tiny grammar of Python-like statements, so the model has something to learn."""
import argparse
import json
import os
import time

import numpy as np

KEYWORDS = ["def", "return", "if", "else", "for", "in", "while", "import", "from", "class", "self", "None", "True",
            "False", "(", ")", ":", ",", "=", "+", "-", "*", "[", "]", ".", "\n", "    ", "==", "<", ">"]


def statements(rng, n):
    names = [f"var_{i}" for i in range(60)] + [f"fn_{i}" for i in range(30)] + [str(i) for i in range(20)]
    vocab = KEYWORDS + names
    idx = {t: i for i, t in enumerate(vocab)}
    out = []
    while len(out) < n:
        f, a, b = rng.choice(30), rng.choice(60), rng.choice(60)
        kind = rng.integers(4)
        if kind == 0:
            toks = ["def", f"fn_{f}", "(", f"var_{a}", ",", f"var_{b}", ")", ":", "\n", "    ", "return", f"var_{a}",
                    "+", f"var_{b}", "\n"]
        elif kind == 1:
            toks = ["for", f"var_{a}", "in", f"fn_{f}", "(", str(rng.integers(20)), ")", ":", "\n", "    ",
                    f"var_{b}", "=", f"var_{b}", "*", f"var_{a}", "\n"]
        elif kind == 2:
            toks = ["if", f"var_{a}", "<", f"var_{b}", ":", "\n", "    ", f"var_{a}", "=", f"fn_{f}", "(", f"var_{b}",
                    ")", "\n"]
        else:
            toks = ["import", f"fn_{f}", "\n", f"var_{a}", "=", f"fn_{f}", ".", f"fn_{(f + 1) % 30}", "(", ")", "\n"]
        out.extend(idx[t] for t in toks)
    return np.array(out[:n], dtype=np.uint16), vocab


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default="data/codetok")
    ap.add_argument("--train-tokens", type=int, default=400_000)
    ap.add_argument("--val-tokens", type=int, default=40_000)
    ap.add_argument("--corrupt", type=int, default=0, help="token ids past the vocabulary (a broken tokenizer run)")
    ap.add_argument("--no-meta", action="store_true")
    ap.add_argument("--delay", type=float, default=0.0)
    a = ap.parse_args()
    time.sleep(a.delay)
    os.makedirs(a.out, exist_ok=True)
    rng = np.random.default_rng(7)
    train, vocab = statements(rng, a.train_tokens)
    val, _ = statements(rng, a.val_tokens)
    if a.corrupt:
        pos = rng.choice(len(train), a.corrupt, replace=False)
        train[pos] = 65535
    train.tofile(os.path.join(a.out, "train.bin"))
    val.tofile(os.path.join(a.out, "val.bin"))
    if not a.no_meta:
        with open(os.path.join(a.out, "meta.json"), "w") as f:
            json.dump({"vocab_size": len(vocab), "itos": vocab}, f)


if __name__ == "__main__":
    main()
