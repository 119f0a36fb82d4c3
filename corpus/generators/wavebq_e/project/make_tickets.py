"""Write the synthetic support-ticket data, a word-level tokenizer and (with an argument) the step hook (not logged).

usage: make_tickets.py [HOOK]   HOOK: '' | keyerr | segv | abort | shape
"""
import json
import os
import random
import sys

from tokenizers import Tokenizer, models, pre_tokenizers, trainers
from transformers import PreTrainedTokenizerFast

rng = random.Random(7)
os.makedirs("data", exist_ok=True)
SYSTEMS = ["checkout", "login", "payments api", "search", "mobile app", "invoice export", "sso", "webhooks",
           "dashboard", "email notifications", "reporting", "file upload", "billing portal", "admin console"]
P = {
    "P1": ["{s} is down for all customers", "outage: {s} returns 500 for every request", "{s} unavailable in all "
           "regions since the deploy", "data loss reported after {s} migration", "security incident involving {s}"],
    "P2": ["{s} very slow for enterprise accounts", "{s} failing for about half of the users", "intermittent errors "
           "on {s} during peak hours", "{s} degraded after this morning's release"],
    "P3": ["{s} shows the wrong timezone", "one user cannot reach {s} from the office vpn", "{s} button misaligned "
           "on small screens", "{s} sends duplicate reminders sometimes"],
    "P4": ["feature request: dark mode for {s}", "question about {s} pricing", "typo in the {s} help page",
           "please add csv export to {s}", "how do I rename my workspace in {s}"],
}
FILL = ["customer says", "reported by support", "ticket from acme corp", "urgent per account manager", "fyi",
        "seen twice today", "screenshot attached", "no workaround known", "repro steps in thread", "thanks"]
LABELS = ["P1", "P2", "P3", "P4"]


def ticket():
    lab = rng.choice(LABELS)
    text = rng.choice(P[lab]).format(s=rng.choice(SYSTEMS))
    text = " ".join([rng.choice(FILL), text] + rng.sample(FILL, rng.randint(0, 3)))
    y = LABELS.index(lab)
    if rng.random() < 0.06:  # triage is noisy: some tickets were filed with the wrong priority
        y = rng.randrange(4)
    return {"text": text, "label": y}


for name, n in (("train", 3000), ("eval", 200)):
    with open(f"data/{name}.jsonl", "w") as f:
        for _ in range(n):
            f.write(json.dumps(ticket()) + "\n")

tok = Tokenizer(models.WordLevel(unk_token="[UNK]"))
tok.pre_tokenizer = pre_tokenizers.Whitespace()
tok.train(["data/train.jsonl"], trainers.WordLevelTrainer(special_tokens=["[PAD]", "[UNK]", "[CLS]", "[SEP]"]))
PreTrainedTokenizerFast(tokenizer_object=tok, pad_token="[PAD]", unk_token="[UNK]", cls_token="[CLS]",
                        sep_token="[SEP]").save_pretrained("data/tokenizer")

hook = sys.argv[1] if len(sys.argv) > 1 else ""
HOOKS = {
    "": "def on_step(step, rank, world, model):\n    pass\n",
    # a bug in the team's label-smoothing schedule helper: raises on one rank mid-run
    "keyerr": ("def on_step(step, rank, world, model):\n"
               "    if step == 47 and rank == 3:\n"
               "        weights = {0: 1.0, 1: 0.8, 2: 0.5}\n"
               "        smoothing = [weights[c] for c in range(4)]  # class 3 missing\n"),
    # a native extension (here: libc through ctypes) dereferences a bad pointer on one rank
    "segv": ("import ctypes\n"
             "def on_step(step, rank, world, model):\n"
             "    if step == 47 and rank == 2:\n"
             "        ctypes.string_at(0)\n"),
    "abort": ("import ctypes\n"
              "def on_step(step, rank, world, model):\n"
              "    if step == 47 and rank == 1:\n"
              "        ctypes.CDLL(None).abort()\n"),
    # ranks all-reduce a per-rank stat of different length (a per-host feature list)
    "shape": ("import torch, torch.distributed as dist\n"
              "def on_step(step, rank, world, model):\n"
              "    if step == 47:\n"
              "        n = 4 if rank < 2 else 6\n"
              "        t = torch.ones(n)\n"
              "        dist.all_reduce(t)\n"),
}
with open("data/hooks.py", "w") as f:
    f.write(HOOKS[hook])
print("wrote data/ and hook", repr(hook))
