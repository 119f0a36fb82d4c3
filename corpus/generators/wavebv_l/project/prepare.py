"""Local stand-ins for what picotron fetches from the Hugging Face hub (not logged; run in the job dir before a job):
- ``pydocs-text/train.jsonl``: a local text dataset (``load_dataset("pydocs-text")``), one record per paragraph of
  Python's bundled pydoc topic texts;
- ``tiny-llama/``: a tiny Llama config (``AutoConfig``) and a byte-level BPE tokenizer (vocab 512) trained here with
  ``tokenizers`` (``AutoTokenizer``);
- ``hf_model/tiny-llama/config.json`` (what ``download_model`` checks before downloading) and
  ``hf_model_safetensors/model.safetensors`` (random initial weights in Llama safetensors names, which
  ``init_model_with_materialized_weights`` reads).
"""
import json
import os
import shutil

import torch
from pydoc_data.topics import topics
from safetensors.torch import save_file
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
from transformers import LlamaConfig, PreTrainedTokenizerFast

os.makedirs("pydocs-text", exist_ok=True)
paras = [p.strip() for t in topics.values() for p in t.split("\n\n") if len(p.strip()) > 40]
with open("pydocs-text/train.jsonl", "w") as f:
    for p in paras:
        f.write(json.dumps({"text": p}) + "\n")

tok = Tokenizer(models.BPE())
tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
tok.decoder = decoders.ByteLevel()
tok.train_from_iterator(paras, trainers.BpeTrainer(vocab_size=512, special_tokens=["<|endoftext|>"],
                                                   initial_alphabet=pre_tokenizers.ByteLevel.alphabet()))
PreTrainedTokenizerFast(tokenizer_object=tok, eos_token="<|endoftext|>", bos_token="<|endoftext|>",
                        unk_token="<|endoftext|>").save_pretrained("tiny-llama")

cfg = LlamaConfig(vocab_size=512, hidden_size=64, intermediate_size=128, num_hidden_layers=4, num_attention_heads=4,
                  num_key_value_heads=2, max_position_embeddings=128, tie_word_embeddings=False)
cfg.save_pretrained("tiny-llama")
os.makedirs("hf_model/tiny-llama", exist_ok=True)
shutil.copy("tiny-llama/config.json", "hf_model/tiny-llama/config.json")

g = torch.Generator().manual_seed(0)
h, i, hd = cfg.hidden_size, cfg.intermediate_size, cfg.hidden_size // cfg.num_attention_heads
shapes = {"model.embed_tokens.weight": (cfg.vocab_size, h), "model.norm.weight": (h,)}
for n in range(cfg.num_hidden_layers):
    L = f"model.layers.{n}."
    shapes.update({L + "input_layernorm.weight": (h,), L + "post_attention_layernorm.weight": (h,),
                   L + "mlp.gate_proj.weight": (i, h), L + "mlp.up_proj.weight": (i, h),
                   L + "mlp.down_proj.weight": (h, i), L + "self_attn.q_proj.weight": (cfg.num_attention_heads * hd, h),
                   L + "self_attn.k_proj.weight": (cfg.num_key_value_heads * hd, h),
                   L + "self_attn.v_proj.weight": (cfg.num_key_value_heads * hd, h),
                   L + "self_attn.o_proj.weight": (h, h)})
os.makedirs("hf_model_safetensors", exist_ok=True)
save_file({k: torch.randn(s, generator=g) * 0.02 for k, s in shapes.items()}, "hf_model_safetensors/model.safetensors")
print(len(paras), "records,", len(shapes), "tensors")
