"""Write the synthetic support-ticket corpus and train a small local BPE tokenizer (no Hub access)."""
import argparse
import json
import os
import random

from tokenizers import Tokenizer, models, pre_tokenizers, trainers, decoders

ap = argparse.ArgumentParser()
ap.add_argument("--train-rows", type=int, default=2000)
ap.add_argument("--val-rows", type=int, default=200)
ap.add_argument("--extra-row", default="", help="a raw JSON line appended to train.jsonl (hand-curated rows)")
ap.add_argument("--extra-at", type=int, default=-1, help="insert the extra row at this line instead of the end")
a = ap.parse_args()

rng = random.Random(7)
PRODUCTS = ["vpn", "laptop", "printer", "mailbox", "badge", "monitor", "wifi", "calendar", "license", "phone"]
ISSUES = ["times out", "will not start", "shows an error", "is very slow", "keeps disconnecting", "needs a reset",
          "lost its settings", "cannot sync", "asks for a password", "was never delivered"]
WHEN = ["since the update", "after the move", "every morning", "since monday", "on the train", "at home",
        "in the meeting room", "after a reboot"]


def row(i):
    n = rng.randint(1, 3)
    parts = [f"the {rng.choice(PRODUCTS)} {rng.choice(ISSUES)} {rng.choice(WHEN)}" for _ in range(n)]
    return {"id": i, "text": f"ticket {i}: " + ", and ".join(parts) + "."}


os.makedirs("data", exist_ok=True)
lines = [json.dumps(row(i)) for i in range(a.train_rows)]
if a.extra_row:
    if a.extra_at >= 0:
        lines.insert(a.extra_at, a.extra_row)
    else:
        lines.append(a.extra_row)
with open("data/train.jsonl", "w") as f:
    f.write("\n".join(lines) + "\n")
with open("data/val.jsonl", "w") as f:
    for i in range(a.train_rows, a.train_rows + a.val_rows):
        f.write(json.dumps(row(i)) + "\n")

tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tr = trainers.BpeTrainer(vocab_size=512, special_tokens=["<pad>", "<unk>", "<eos>"],
                         initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
tok.train_from_iterator((json.loads(x).get("text") or "" for x in lines[:500]), tr)
os.makedirs("tokenizer", exist_ok=True)
tok.save("tokenizer/tokenizer.json")
