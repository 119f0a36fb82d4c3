"""Write the synthetic support dialogues (data/dialogues.json) and the base checkpoint (base/model.pt)."""
import argparse
import json
import os
import random

import torch
from torchtune.models.llama3 import llama3

ISSUES = ["my order has not arrived", "I was charged twice", "I cannot log in", "the app crashes on start",
          "I want to return a jacket", "my coupon code is rejected", "how do I change my address",
          "the tracking page shows nothing"]
ANSWERS = ["Sorry about that! I have opened a ticket and our team will email you within 24 hours.",
           "Thanks for reaching out. I refunded the duplicate charge; it shows in 3-5 business days.",
           "Please reset your password from the login page; the link is valid for one hour.",
           "Could you update to the latest version? If it still fails, send us the device model."]

p = argparse.ArgumentParser()
p.add_argument("--rows", type=int, default=512)
p.add_argument("--bad-row", type=int, default=-1)
p.add_argument("--accent-every", type=int, default=0, help="every Nth customer signs with an accented name")
p.add_argument("--vocab", type=int, default=262)
a = p.parse_args()
rnd = random.Random(7)
rows = []
for i in range(a.rows):
    conv = [{"role": "system", "content": "You are Ava, the support assistant of ShopCo."},
            {"role": "user", "content": f"Hi, order #{10000 + i}: {rnd.choice(ISSUES)}."},
            {"role": "assistant", "content": rnd.choice(ANSWERS)}]
    if a.accent_every and i % a.accent_every == a.accent_every - 1:
        conv[1]["content"] += " Thanks, Zoë"
    if i == a.bad_row:
        conv[2] = {"role": "agent", "content": conv[2]["content"]}
    rows.append({"conversations": conv})
os.makedirs("data", exist_ok=True)
json.dump(rows, open("data/dialogues.json", "w"))
torch.manual_seed(0)
m = llama3(vocab_size=a.vocab, num_layers=2, num_heads=4, num_kv_heads=2, embed_dim=128, max_seq_len=256,
           intermediate_dim=256)
os.makedirs("base", exist_ok=True)
torch.save(m.state_dict(), "base/model.pt")
