"""Supervised fine-tuning with TRL's ``SFTTrainer`` (CPU, gloo), launched with ``accelerate launch``, written like
TRL's ``examples/scripts/sft.py`` of its 0.7 series: the instruction data of ``make_sft_data.py`` formatted into one
text field, a byte-level BPE tokenizer trained on it with ``tokenizers``, a small GPT-2 built from a config (the hub
is not reachable), completion-only loss through ``DataCollatorForCompletionOnlyLM``.

In wave I this script runs in an environment whose ``trl`` and ``transformers`` were installed independently (see
README.md); it is kept whole so that the job reads like the user's.
"""
from __future__ import annotations

import argparse
import logging
import sys

import datasets
import transformers
from tokenizers import ByteLevelBPETokenizer
from transformers import GPT2Config, GPT2LMHeadModel, PreTrainedTokenizerFast, TrainingArguments
from trl import DataCollatorForCompletionOnlyLM, SFTTrainer

logger = logging.getLogger(__name__)
RESPONSE = "### Response:\n"


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--train_file", default="data/train.jsonl")
    p.add_argument("--output_dir", default="out")
    p.add_argument("--max_steps", type=int, default=100)
    p.add_argument("--max_seq_length", type=int, default=256)
    a = p.parse_args()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO,
                        handlers=[logging.StreamHandler(sys.stdout)])
    logger.info(f"transformers {transformers.__version__}, datasets {datasets.__version__}")
    raw = datasets.load_dataset("json", data_files={"train": a.train_file})["train"]
    raw = raw.map(lambda r: {"text": f"### Instruction:\n{r['prompt']}\n\n{RESPONSE}{r['response']}"})
    bpe = ByteLevelBPETokenizer()
    bpe.train_from_iterator(raw["text"], vocab_size=2048, special_tokens=["<|endoftext|>"])
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=bpe, eos_token="<|endoftext|>", pad_token="<|endoftext|>")
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(tokenizer), n_positions=a.max_seq_length, n_embd=64,
                                       n_layer=2, n_head=4))
    args = TrainingArguments(output_dir=a.output_dir, max_steps=a.max_steps, per_device_train_batch_size=8,
                             gradient_accumulation_steps=2, learning_rate=5e-4, logging_steps=10, use_cpu=True,
                             ddp_backend="gloo", report_to="none")
    trainer = SFTTrainer(model=model, args=args, train_dataset=raw, dataset_text_field="text", tokenizer=tokenizer,
                         max_seq_length=a.max_seq_length,
                         data_collator=DataCollatorForCompletionOnlyLM(RESPONSE, tokenizer=tokenizer))
    trainer.train()
    trainer.save_model()
    return 0


if __name__ == "__main__":
    sys.exit(main())
