"""Build the local assets the job needs (no Hub access): a tiny random-init Llama + a byte-level BPE tokenizer
in models/tiny-llama, and the helpdesk SFT / preference data registered in data/dataset_info.json."""
import argparse
import json
import os
import random

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, LlamaForCausalLM, PreTrainedTokenizerFast

ap = argparse.ArgumentParser()
ap.add_argument("--rows", type=int, default=300)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--layers", type=int, default=2)
ap.add_argument("--extra-row", default="")
a = ap.parse_args()
rng = random.Random(0)
ITEMS = ["router", "laptop", "printer", "vpn", "badge", "monitor", "headset", "license"]
ISSUES = ["keeps rebooting", "is slow since the update", "shows error 0x80", "does not connect", "was lost"]
FIX = ["restart it and check the cable", "roll back the last update", "reinstall the driver",
       "open a ticket with facilities", "reset the password in the portal"]
os.makedirs("data", exist_ok=True)
sft, prefs = [], []
for i in range(a.rows):
    it, iss = rng.choice(ITEMS), rng.choice(ISSUES)
    good, bad = rng.sample(FIX, 2)
    q = f"Ticket {i}: my {it} {iss}. What should I do?"
    sft.append({"instruction": q, "input": "", "output": f"Please {good}."})
    prefs.append({"instruction": q, "input": "", "chosen": f"Please {good}.", "rejected": f"Maybe {bad}?"})
if a.extra_row:
    sft.append(json.loads(a.extra_row))
json.dump(sft, open("data/helpdesk_sft.json", "w"), indent=1)
json.dump(prefs, open("data/helpdesk_prefs.json", "w"), indent=1)
info = {
    "helpdesk_sft": {"file_name": "helpdesk_sft.json"},
    "helpdesk_chat": {"file_name": "helpdesk_sft.json", "formatting": "sharegpt"},
    "helpdesk_prefs": {"file_name": "helpdesk_prefs.json", "ranking": True,
                       "columns": {"prompt": "instruction", "query": "input", "chosen": "chosen",
                                   "rejected": "rejected"}},
}
json.dump(info, open("data/dataset_info.json", "w"), indent=1)
texts = [r["instruction"] for r in sft] + FIX
tok = Tokenizer(models.BPE(unk_token="<unk>"))
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.train_from_iterator(texts * 3, trainers.BpeTrainer(vocab_size=512, special_tokens=["<pad>", "<s>", "</s>", "<unk>"],
                        initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
fast = PreTrainedTokenizerFast(tokenizer_object=tok, bos_token="<s>", eos_token="</s>", pad_token="<pad>",
                               unk_token="<unk>")
out = "models/tiny-llama"
fast.save_pretrained(out)
cfg = LlamaConfig(vocab_size=len(fast), hidden_size=a.hidden, intermediate_size=a.hidden * 2,
                  num_hidden_layers=a.layers, num_attention_heads=4, num_key_value_heads=2,
                  max_position_embeddings=256, bos_token_id=1, eos_token_id=2, pad_token_id=0)
LlamaForCausalLM(cfg).save_pretrained(out)
