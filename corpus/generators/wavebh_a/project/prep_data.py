"""Build the synthetic support-ticket corpus: data/{train,val}.bin (uint16 char ids), data/{train,val}.idx
(int64 document start offsets), data/vocab.json, data/prompts.jsonl, and the native window packer."""
import argparse
import json
import os
import random
import subprocess

import numpy as np

SUBJ = ["the router", "my laptop", "the printer", "our vpn", "the build server", "my phone", "the dashboard",
        "the invoice page", "the mail client", "the backup job"]
VERB = ["keeps dropping", "will not start", "shows an error", "is very slow", "crashed again", "stopped syncing",
        "asks for a password", "reboots at night", "cannot connect", "freezes on login"]
TAIL = ["since monday.", "after the update.", "every few minutes.", "when i open it.", "on the second floor.",
        "for all users.", "since last week.", "only on wifi.", "after lunch.", "with code 0x80070005."]


def doc(r):
    n = r.randint(2, 6)
    return " ".join(f"ticket {r.randint(100, 999)}: {r.choice(SUBJ)} {r.choice(VERB)} {r.choice(TAIL)}"
                    for _ in range(n)) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--val-docs", type=int, default=300)
    ap.add_argument("--compact-index", action="store_true", help="write the .idx offsets as int32")
    ap.add_argument("--extra-prompt", default="")
    a = ap.parse_args()
    r = random.Random(7)
    os.makedirs("data", exist_ok=True)
    docs = [doc(r) for _ in range(a.docs)]
    val = [doc(r) for _ in range(a.val_docs)]
    chars = sorted(set("".join(docs + val)))
    stoi = {c: i + 1 for i, c in enumerate(chars)}
    json.dump({"itos": ["<unk>"] + chars}, open("data/vocab.json", "w"))
    for name, ds in (("train", docs), ("val", val)):
        starts, buf, pos = [], [], 0
        for d in ds:
            starts.append(pos)
            buf.extend(stoi[c] for c in d)
            pos += len(d)
        np.asarray(starts, dtype=np.int32 if a.compact_index else np.int64).tofile(f"data/{name}.idx")
        np.asarray(buf, dtype=np.uint16).tofile(f"data/{name}.bin")
    with open("data/prompts.jsonl", "w") as f:
        for p in ["ticket 512: the router", "ticket 300: my laptop", "ticket 777: the vpn"]:
            f.write(json.dumps({"prompt": p}) + "\n")
        if a.extra_prompt:
            f.write(a.extra_prompt + "\n")
    subprocess.run(["gcc", "-O2", "-shared", "-fPIC", "-o", "data/libpack.so", "native/pack.c"], check=True)


if __name__ == "__main__":
    main()
