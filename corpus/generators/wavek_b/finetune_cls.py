"""Text-classification fine-tuning on the Hugging Face ``Trainer``, written like ``examples/pytorch/text-classification
/run_glue.py``: ``HfArgumentParser`` over model/data arguments and ``TrainingArguments``, the example's logging
set-up, a CSV dataset loaded with ``datasets``, tokenised under ``main_process_first``, accuracy ``compute_metrics``.
The hub is not reachable, so the model is a small BERT built from a config and the tokenizer is a word-hash
tokenizer. Launched with ``accelerate launch`` (optionally with DeepSpeed: ``--use_deepspeed
--deepspeed_config_file``), CPU and gloo.

``--make_data N`` writes ``data/train.csv`` and ``data/validation.csv`` (support tickets labelled by queue) first.
"""
from __future__ import annotations

import csv
import dataclasses
import hashlib
import logging
import os
import random
import sys

import datasets
import numpy as np
import transformers
from transformers import (BertConfig, BertForSequenceClassification, HfArgumentParser, Trainer, TrainingArguments,
                          set_seed)

logger = logging.getLogger(__name__)
QUEUES = ["billing", "shipping", "account", "technical"]
WORDS = {
    "billing": "invoice charge refund payment card double charged receipt price",
    "shipping": "parcel courier delivery tracking late damaged address package",
    "account": "password login email username locked reset verify profile",
    "technical": "crash error app update bug screen freeze install",
}
FILLER = "please help my the a is not and since yesterday again today urgent thanks".split()


@dataclasses.dataclass
class ModelArguments:
    hidden_size: int = 64
    num_hidden_layers: int = 2
    num_attention_heads: int = 4
    vocab_size: int = 4096


@dataclasses.dataclass
class DataArguments:
    train_file: str = "data/train.csv"
    validation_file: str = "data/validation.csv"
    max_seq_length: int = 48
    make_data: int = 0


def make_data(path: str, n: int, seed: int) -> None:
    rng = random.Random(seed)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["text", "label"])
        for _ in range(n):
            q = rng.randrange(len(QUEUES))
            words = rng.sample(WORDS[QUEUES[q]].split(), 3) + rng.sample(FILLER, 5)
            rng.shuffle(words)
            w.writerow([" ".join(words), q])


def encode(text: str, vocab: int, length: int) -> list[int]:
    ids = [2] + [int(hashlib.sha1(t.encode()).hexdigest()[:8], 16) % (vocab - 4) + 4 for t in text.split()] + [3]
    return (ids + [0] * length)[:length]


def main() -> None:
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        handlers=[logging.StreamHandler(sys.stdout)])
    if training_args.should_log:
        transformers.utils.logging.set_verbosity_info()
    log_level = training_args.get_process_log_level()
    logger.setLevel(log_level)
    datasets.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    logger.warning(f"Process rank: {training_args.local_process_index}, device: {training_args.device}, "
                   f"n_gpu: {training_args.n_gpu}, distributed training: {training_args.parallel_mode.value == 'distributed'}")
    logger.info(f"Training/evaluation parameters {training_args}")
    set_seed(training_args.seed)
    if data_args.make_data:
        with training_args.main_process_first(desc="writing data"):
            if training_args.process_index == 0:
                make_data(data_args.train_file, data_args.make_data, 0)
                make_data(data_args.validation_file, data_args.make_data // 10, 1)
    raw = datasets.load_dataset("csv", data_files={"train": data_args.train_file,
                                                   "validation": data_args.validation_file})
    config = BertConfig(vocab_size=model_args.vocab_size, hidden_size=model_args.hidden_size,
                        num_hidden_layers=model_args.num_hidden_layers,
                        num_attention_heads=model_args.num_attention_heads,
                        intermediate_size=4 * model_args.hidden_size, num_labels=len(QUEUES),
                        id2label=dict(enumerate(QUEUES)), label2id={q: i for i, q in enumerate(QUEUES)})
    model = BertForSequenceClassification(config)

    def preprocess(batch: dict) -> dict:
        ids = [encode(t, model_args.vocab_size, data_args.max_seq_length) for t in batch["text"]]
        return {"input_ids": ids, "attention_mask": [[int(i != 0) for i in x] for x in ids], "labels": batch["label"]}

    with training_args.main_process_first(desc="dataset map pre-processing"):
        tok = raw.map(preprocess, batched=True, remove_columns=["text", "label"], desc="Running tokenizer on dataset")
    train_ds, eval_ds = tok["train"], tok["validation"]
    logger.info(f"Sample {0} of the training set: {train_ds[0]}.")

    def compute_metrics(p):
        preds = np.argmax(p.predictions, axis=1)
        return {"accuracy": float((preds == p.label_ids).mean())}

    trainer = Trainer(model=model, args=training_args, train_dataset=train_ds, eval_dataset=eval_ds,
                      compute_metrics=compute_metrics)
    train_result = trainer.train()
    trainer.save_model()
    metrics = train_result.metrics
    metrics["train_samples"] = len(train_ds)
    trainer.log_metrics("train", metrics)
    trainer.save_metrics("train", metrics)
    trainer.save_state()
    logger.info("*** Evaluate ***")
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)
    trainer.save_metrics("eval", metrics)


if __name__ == "__main__":
    main()
