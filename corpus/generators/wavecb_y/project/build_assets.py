"""Build the team's tiny local base model (a Qwen2-architecture LM from a config, random init, own byte-level BPE
tokenizer trained on the synthetic corpus) and the synthetic SFT data (chat 'messages' jsonl). Nothing is
downloaded: ms-swift is pointed at these local directories."""
import argparse
import json
import os
import random

p = argparse.ArgumentParser()
p.add_argument("--model-dir", default="models/qwen2-tiny")
p.add_argument("--data-dir", default="data")
p.add_argument("--n-train", type=int, default=2000)
p.add_argument("--n-val", type=int, default=64)
p.add_argument("--hidden", type=int, default=64)
a = p.parse_args()

rng = random.Random(1234)
OPS = [("plus", lambda x, y: x + y), ("minus", lambda x, y: x - y), ("times", lambda x, y: x * y)]


def sample():
    name, f = rng.choice(OPS)
    x, y = rng.randint(0, 99), rng.randint(0, 99)
    return {"messages": [{"role": "system", "content": "You are a calculator."},
                         {"role": "user", "content": f"What is {x} {name} {y}?"},
                         {"role": "assistant", "content": f"{x} {name} {y} is {f(x, y)}."}]}


os.makedirs(a.data_dir, exist_ok=True)
rows = {"train": [sample() for _ in range(a.n_train)], "val": [sample() for _ in range(a.n_val)]}
for split, rs in rows.items():
    with open(os.path.join(a.data_dir, f"{split}.jsonl"), "w") as f:
        for r in rs:
            f.write(json.dumps(r) + "\n")

from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers  # noqa: E402
from transformers import PreTrainedTokenizerFast, Qwen2Config, Qwen2ForCausalLM  # noqa: E402

specials = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]
tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
texts = [m["content"] for r in rows["train"] for m in r["messages"]] + ["system", "user", "assistant", "\n"]
tok.train_from_iterator(texts, trainers.BpeTrainer(vocab_size=400, special_tokens=specials,
                                                   initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
chat = ("{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' "
        "+ '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}")
hf_tok = PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|im_end|>", pad_token="<|endoftext|>",
                                 additional_special_tokens=["<|im_start|>", "<|im_end|>"], chat_template=chat,
                                 model_max_length=256)
hf_tok.save_pretrained(a.model_dir)
cfg = Qwen2Config(vocab_size=len(hf_tok), hidden_size=a.hidden, intermediate_size=a.hidden * 2, num_hidden_layers=2,
                  num_attention_heads=4, num_key_value_heads=2, max_position_embeddings=256, tie_word_embeddings=True,
                  eos_token_id=hf_tok.convert_tokens_to_ids("<|im_end|>"),
                  pad_token_id=hf_tok.convert_tokens_to_ids("<|endoftext|>"),
                  bos_token_id=None, torch_dtype="float32")
Qwen2ForCausalLM(cfg).save_pretrained(a.model_dir)
print(f"built {a.model_dir} (vocab {len(hf_tok)}) and {a.data_dir}/train.jsonl ({a.n_train} rows)")
