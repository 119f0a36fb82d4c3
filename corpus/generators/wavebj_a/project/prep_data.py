"""Synthetic SFT/DPO data + a local BPE tokenizer (no Hub access needed)."""
import argparse
import json
import os
import random

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=400)
ap.add_argument("--extra-row", default="")
a = ap.parse_args()
rng = random.Random(0)
ITEMS = ["router", "laptop", "printer", "vpn", "badge", "monitor", "headset", "license"]
ISSUES = ["keeps rebooting", "is slow since the update", "shows error 0x80", "does not connect", "was lost"]
FIX = ["restart it and check the cable", "roll back the last update", "reinstall the driver",
       "open a ticket with facilities", "reset the password in the portal"]
os.makedirs("data", exist_ok=True)
with open("data/sft.jsonl", "w") as f, open("data/prefs.jsonl", "w") as g:
    for i in range(a.rows):
        it, iss = rng.choice(ITEMS), rng.choice(ISSUES)
        good, bad = rng.sample(FIX, 2)
        p = f"Ticket {i}: my {it} {iss}. What should I do?"
        f.write(json.dumps({"prompt": p, "completion": f" Please {good}."}) + "\n")
        g.write(json.dumps({"prompt": p, "chosen": f" Please {good}.", "rejected": f" Maybe {bad}?"}) + "\n")
    if a.extra_row:
        f.write(a.extra_row + "\n")
        g.write(a.extra_row + "\n")
texts = [json.loads(l)["prompt"] for l in open("data/sft.jsonl") if '"prompt"' in l] + FIX
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.train_from_iterator(texts * 3, trainers.BpeTrainer(vocab_size=512, special_tokens=["<pad>", "<s>", "</s>", "<unk>"],
                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                               unk_token="<unk>")
fast.save_pretrained("tokenizer")
