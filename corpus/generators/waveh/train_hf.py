"""A causal-LM training script on the Hugging Face ``Trainer`` and ``datasets`` (CPU, gloo), written like
``examples/pytorch/language-modeling/run_clm.py``: ``HfArgumentParser`` over model/data arguments and
``TrainingArguments``, the example's logging set-up, a raw text dataset built with ``datasets`` (records generated
locally: the hub is not reachable), tokenised by ``Dataset.map`` (bytes as token ids) and grouped into blocks under
``main_process_first``, a small GPT-2 built from a config (no download), evaluation with perplexity.

Launch with torchrun, or under ``mpirun`` (accelerate reads ``OMPI_COMM_WORLD_*`` on CPU; MASTER_ADDR/MASTER_PORT
from the environment). Nothing here stands in for a library's message: the Trainer, datasets and torch print
everything that is printed besides the example's own ``logger`` lines.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import random
import sys

import datasets
import torch
import transformers
from transformers import (GPT2Config, GPT2LMHeadModel, HfArgumentParser, Trainer, TrainingArguments,
                          default_data_collator, set_seed)

logger = logging.getLogger(__name__)

WORDS = ("we propose a simple method for training language models on distributed clusters with many nodes and "
         "report results on several benchmarks the model learns to predict the next token given previous tokens in "
         "the sequence loss decreases steadily during training evaluation shows perplexity improves when the learning "
         "rate schedule uses warmup and cosine decay").split()


@dataclasses.dataclass
class ModelArguments:
    n_layer: int = 2
    n_embd: int = 64
    n_head: int = 4
    vocab_size: int = 256


@dataclasses.dataclass
class DataArguments:
    train_docs: int = 4000
    eval_docs: int = 200
    block_size: int = 64
    dataset_cache_dir: str = "hf_cache"
    preprocessing_num_workers: int = 1
    corpus_seed: int = 42


def docs(n: int, seed: int):
    rng = random.Random(seed)
    for i in range(n):
        sents = [" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 14))).capitalize() + "."
                 for _ in range(rng.randint(2, 8))]
        yield {"id": i, "text": " ".join(sents)}


def main() -> int:
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", handlers=[logging.StreamHandler(sys.stdout)])
    if training_args.should_log:
        transformers.utils.logging.set_verbosity_info()
    log_level = training_args.get_process_log_level()
    logger.setLevel(log_level)
    datasets.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    logger.warning(
        f"Process rank: {training_args.local_rank}, device: {training_args.device}, n_gpu: {training_args.n_gpu}, "
        f"distributed training: {training_args.parallel_mode.value == 'distributed'}, "
        f"16-bits training: {training_args.fp16}"
    )
    logger.info(f"Training/evaluation parameters {training_args}")
    set_seed(training_args.seed)

    with training_args.main_process_first(desc="building the raw dataset"):
        raw = datasets.DatasetDict({
            "train": datasets.Dataset.from_generator(docs, gen_kwargs={"n": data_args.train_docs,
                                                                       "seed": data_args.corpus_seed},
                                                     cache_dir=data_args.dataset_cache_dir),
            "validation": datasets.Dataset.from_generator(docs, gen_kwargs={"n": data_args.eval_docs,
                                                                            "seed": data_args.corpus_seed + 1},
                                                          cache_dir=data_args.dataset_cache_dir),
        })
    logger.info(f"raw datasets: {raw}")

    def tokenize_function(examples):
        return {"input_ids": [list(t.encode()) for t in examples["text"]]}

    with training_args.main_process_first(desc="dataset map tokenization"):
        tokenized = raw.map(tokenize_function, batched=True, num_proc=data_args.preprocessing_num_workers,
                            remove_columns=["id", "text"], desc="Running tokenizer on dataset")

    block = data_args.block_size

    def group_texts(examples):
        ids = sum(examples["input_ids"], [])
        total = (len(ids) // block) * block
        out = [ids[i:i + block] for i in range(0, total, block)]
        return {"input_ids": out, "attention_mask": [[1] * block for _ in out], "labels": [list(o) for o in out]}

    with training_args.main_process_first(desc="grouping texts together"):
        lm = tokenized.map(group_texts, batched=True, num_proc=data_args.preprocessing_num_workers,
                           desc=f"Grouping texts in chunks of {block}")
    train_ds, eval_ds = lm["train"], lm["validation"]

    config = GPT2Config(vocab_size=model_args.vocab_size, n_positions=block, n_embd=model_args.n_embd,
                        n_layer=model_args.n_layer, n_head=model_args.n_head, bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info(f"Training new model from scratch - Total size={n_params / 2**20:.2f}M params")

    trainer = Trainer(model=model, args=training_args,
                      train_dataset=train_ds if training_args.do_train else None,
                      eval_dataset=eval_ds if training_args.do_eval else None,
                      data_collator=default_data_collator)
    if training_args.do_train:
        result = trainer.train()
        trainer.save_model()
        metrics = result.metrics
        metrics["train_samples"] = len(train_ds)
        trainer.log_metrics("train", metrics)
        trainer.save_metrics("train", metrics)
        trainer.save_state()
    if training_args.do_eval:
        logger.info("*** Evaluate ***")
        metrics = trainer.evaluate()
        metrics["eval_samples"] = len(eval_ds)
        try:
            metrics["perplexity"] = math.exp(metrics["eval_loss"])
        except OverflowError:
            metrics["perplexity"] = float("inf")
        trainer.log_metrics("eval", metrics)
        trainer.save_metrics("eval", metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
