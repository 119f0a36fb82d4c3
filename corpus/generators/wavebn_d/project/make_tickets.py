"""Synthetic support-ticket export for the intent classifier (data/tickets.jsonl); optional step hook (data/hooks.py)."""
import json
import os
import random
import sys

random.seed(11)
INTENTS = {
    "refund": "refund money back charge return order paid twice cancel payment",
    "shipping": "package delivery late tracking courier arrived shipped address parcel",
    "login": "password login account locked reset email code signin access",
    "billing": "invoice bill plan upgrade subscription price renewal receipt",
    "bug": "crash error app broken screen freeze update button page",
}
FILL = "please help my the i a was is not it and with today again yesterday still".split()
os.makedirs("data", exist_ok=True)
with open("data/tickets.jsonl", "w") as f:
    for i in range(6000):
        intent = random.choice(list(INTENTS))
        words = random.choices(INTENTS[intent].split(), k=random.randint(3, 7)) + random.choices(FILL, k=random.randint(2, 8))
        random.shuffle(words)
        f.write(json.dumps({"id": i, "text": " ".join(words), "intent": intent}) + "\n")
HOOKS = {
    "segv": "def on_step(step, rank, ctx):\n    if step == 60 and rank == 3:\n        import ctypes\n        ctypes.string_at(0)\n",
    "keyerr": "def on_step(step, rank, ctx):\n    if step == 70 and rank == 2:\n        ctx['label_map']['escalation']\n",
    "shape": "def on_step(step, rank, ctx):\n    if step == 50:\n        import torch, torch.distributed as dist\n        t = torch.ones(8 if rank != 1 else 12)\n        dist.all_reduce(t)\n",
    "abort": "def on_step(step, rank, ctx):\n    if step == 55 and rank == 1:\n        import os\n        os.abort()\n",
}
for a in sys.argv[1:]:
    if a in HOOKS:
        open("data/hooks.py", "w").write(HOOKS[a])
