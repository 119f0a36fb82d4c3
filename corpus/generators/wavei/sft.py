"""Supervised fine-tuning (instruction -> response) on the Hugging Face ``Trainer``, CPU and gloo, launched with
``accelerate launch``. Written like the common SFT scripts built on ``examples/pytorch/language-modeling``:
``HfArgumentParser`` over model/data arguments and ``TrainingArguments``, the example's logging set-up, JSON-lines
data loaded with ``datasets`` and tokenised under ``main_process_first``, prompt tokens masked out of the labels
(-100), truncation to ``max_length``, a small GPT-2 built from a config (the hub is not reachable), a token-accuracy
``compute_metrics`` on the evaluation logits.

The ``Trainer`` subclass averages the token loss per sequence first, then over the batch (so that long responses do
not dominate the gradient). Nothing is injected: what the data and the arguments make happen is what the log shows.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import sys

import datasets
import numpy as np
import torch
import torch.nn.functional as F
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, HfArgumentParser, Trainer, TrainingArguments, set_seed

logger = logging.getLogger(__name__)

PAD, BOS, EOS = 256, 257, 258
TEMPLATE = "### Instruction:\n{prompt}\n\n### Response:\n"


@dataclasses.dataclass
class ModelArguments:
    n_layer: int = 2
    n_embd: int = 64
    n_head: int = 4


@dataclasses.dataclass
class DataArguments:
    train_file: str = "data/train.jsonl"
    validation_file: str = "data/eval.jsonl"
    max_length: int = 384
    preprocessing_num_workers: int = 1


def tokenize(batch: dict, max_length: int) -> dict:
    out = {"input_ids": [], "labels": []}
    for prompt, response in zip(batch["prompt"], batch["response"]):
        p = [BOS] + list(TEMPLATE.format(prompt=prompt).encode())
        r = list(response.encode()) + [EOS]
        ids = (p + r)[:max_length]
        labels = ([-100] * len(p) + r)[:max_length]
        out["input_ids"].append(ids)
        out["labels"].append(labels)
    return out


def collate(features: list[dict]) -> dict:
    n = max(len(f["input_ids"]) for f in features)
    ids = torch.full((len(features), n), PAD, dtype=torch.long)
    labels = torch.full((len(features), n), -100, dtype=torch.long)
    mask = torch.zeros((len(features), n), dtype=torch.long)
    for i, f in enumerate(features):
        k = len(f["input_ids"])
        ids[i, :k] = torch.tensor(f["input_ids"])
        labels[i, :k] = torch.tensor(f["labels"])
        mask[i, :k] = 1
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


class SeqMeanTrainer(Trainer):
    """Token NLL averaged per sequence, then over the batch."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.model_accepts_loss_kwargs = False  # this loss is a mean: let the Trainer scale it for accumulation

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        logits = outputs.logits[:, :-1].float()
        target = labels[:, 1:]
        nll = F.cross_entropy(logits.reshape(-1, logits.size(-1)), target.reshape(-1), ignore_index=-100,
                              reduction="none").view(target.shape)
        mask = (target != -100).float()
        loss = ((nll * mask).sum(1) / mask.sum(1)).mean()
        return (loss, outputs) if return_outputs else loss


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    preds = logits[:, :-1].argmax(-1)
    target = labels[:, 1:]
    keep = target != -100
    return {"token_accuracy": float((preds[keep] == target[keep]).mean())}


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

    raw = datasets.load_dataset("json", data_files={"train": data_args.train_file,
                                                    "validation": data_args.validation_file})
    logger.info(f"raw datasets: {raw}")
    with training_args.main_process_first(desc="tokenizing and masking prompts"):
        tokenized = raw.map(tokenize, batched=True, fn_kwargs={"max_length": data_args.max_length},
                            num_proc=data_args.preprocessing_num_workers, remove_columns=["prompt", "response"],
                            desc="Tokenizing")
    lengths = [len(x) for x in tokenized["train"]["input_ids"]]
    logger.info(f"train: {len(lengths)} examples, mean length {np.mean(lengths):.1f}, max {max(lengths)} "
                f"(max_length {data_args.max_length})")

    config = GPT2Config(vocab_size=260, n_positions=data_args.max_length, n_embd=model_args.n_embd,
                        n_layer=model_args.n_layer, n_head=model_args.n_head, bos_token_id=BOS, eos_token_id=EOS,
                        pad_token_id=PAD)
    model = GPT2LMHeadModel(config)
    logger.info(f"Training new model from scratch - Total size={sum(p.numel() for p in model.parameters()) / 2**20:.2f}M params")

    trainer = SeqMeanTrainer(model=model, args=training_args, train_dataset=tokenized["train"],
                             eval_dataset=tokenized["validation"], data_collator=collate,
                             compute_metrics=compute_metrics)
    if training_args.do_train:
        result = trainer.train()
        trainer.save_model()
        metrics = result.metrics
        metrics["train_samples"] = len(tokenized["train"])
        trainer.log_metrics("train", metrics)
        trainer.save_metrics("train", metrics)
        trainer.save_state()
    if training_args.do_eval:
        logger.info("*** Evaluate ***")
        metrics = trainer.evaluate()
        metrics["eval_samples"] = len(tokenized["validation"])
        try:
            metrics["perplexity"] = math.exp(metrics["eval_loss"])
        except OverflowError:
            metrics["perplexity"] = float("inf")
        trainer.log_metrics("eval", metrics)
        trainer.save_metrics("eval", metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
