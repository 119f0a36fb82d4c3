"""Write the arithmetic prompts the policy is trained on (``data/tasks.jsonl``) and, with a first argument, the hook
``data/hooks.py`` the reward function calls (a fault injected at one reward call of one rank). Also saves the initial policy (GPT-2, 2 layers, width = second argument, default 64) and its byte-level BPE
tokenizer to ``data/policy-init``. Not part of the job log."""
import json
import random
import sys
from pathlib import Path

random.seed(7)
Path("data").mkdir(exist_ok=True)
with open("data/tasks.jsonl", "w") as f:
    for _ in range(2000):
        a, b = random.randint(0, 49), random.randint(0, 49)
        f.write(json.dumps({"prompt": f"Q: {a}+{b}=? A:", "answer": str(a + b)}) + "\n")

HOOKS = {
    "segv": "def on_reward(rank, call):\n    if rank == 2 and call == 12:\n        import ctypes\n        ctypes.string_at(0)\n",
    "keyerr": "UNITS = {'int': 1, 'float': 2}\n\ndef on_reward(rank, call):\n    if rank == 1 and call == 14:\n        return UNITS['fraction']\n",
    "shape": "import torch\nimport torch.distributed as dist\n\ndef on_reward(rank, call):\n    if call == 10:\n        t = torch.ones(12 if rank == 3 else 8)\n        dist.all_reduce(t)\n",
    "memerr": "def on_reward(rank, call):\n    if rank == 3 and call == 12:\n        cache = []\n        while True:\n            cache.append(bytearray(256 * 1024 * 1024))\n",
}
# the initial policy and its tokenizer, saved like a hub checkpoint (nothing is downloaded)
dim = int(sys.argv[2]) if len(sys.argv) > 2 else 64
rows = [json.loads(line) for line in Path("data/tasks.jsonl").read_text().splitlines()]
from tokenizers import ByteLevelBPETokenizer  # noqa: E402
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast  # noqa: E402

bpe = ByteLevelBPETokenizer()
bpe.train_from_iterator([r["prompt"] + " " + r["answer"] for r in rows], vocab_size=300, min_frequency=1,
                        special_tokens=["<|endoftext|>"])
tok = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
GPT2LMHeadModel(GPT2Config(vocab_size=len(tok), n_positions=64, n_embd=dim, n_layer=2, n_head=2)).save_pretrained(
    "data/policy-init")
tok.save_pretrained("data/policy-init")
if len(sys.argv) > 1 and sys.argv[1]:
    Path("data/hooks.py").write_text(HOOKS[sys.argv[1]])
