"""Claim-note triage: route short first-notice-of-loss notes to the right claims desk.
A small BERT trained from scratch with the Hugging Face Trainer; launched with
`torchrun --nproc-per-node 2 train.py --output_dir ... <TrainingArguments flags>` on the CPU training box (gloo)."""
import argparse
import json
import logging
import math
import os
import sys
import time
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Optional

import datasets
import numpy as np
import torch
import torch.distributed as dist
import transformers
from transformers import (BertConfig, BertForSequenceClassification, DataCollatorWithPadding, HfArgumentParser,
                          PreTrainedTokenizerFast, Trainer, TrainerCallback, TrainingArguments, default_data_collator,
                          set_seed)
from transformers.trainer_utils import get_last_checkpoint

logger = logging.getLogger(__name__)


@dataclass
class DataArguments:
    train_file: str = field(default="data/claims_train.csv")
    validation_file: str = field(default="data/claims_valid.csv")
    routes_file: str = field(default="data/routes.txt")
    tokenizer_dir: str = field(default="data/tokenizer")
    max_seq_length: int = field(default=48)
    pad_to_max_length: bool = field(default=False, metadata={"help": "pad every note to max_seq_length"})
    include_addenda: bool = field(default=False, metadata={"help": "append the adjusters' addenda to the note"})


@dataclass
class ModelArguments:
    hidden_size: int = field(default=48)
    num_hidden_layers: int = field(default=2)
    num_attention_heads: int = field(default=2)
    num_labels: Optional[int] = field(default=None, metadata={"help": "defaults to the number of routes"})
    class_weighted_loss: bool = field(default=False, metadata={"help": "weight the loss by inverse route frequency"})
    step_delay: float = field(default=0.0, metadata={"help": "sleep per training step (s), to pace the box"})
    ddp_timeout_on_cpu: bool = field(default=False, metadata={
        "help": "with --use_cpu Trainer does not pass --ddp_timeout to the process group: create it here with it"})


sys.setrecursionlimit(1_000_000)  # long addenda chains on reopened claims hit the default limit


def flatten_addenda(items):
    out = []
    for a in items:
        out.append(a["text"])
        out.extend(flatten_addenda(a["addenda"]))
    return out


class PaceCallback(TrainerCallback):
    def __init__(self, delay):
        self.delay = delay

    def on_step_end(self, args, state, control, **kw):
        if self.delay:
            time.sleep(self.delay)


class StopOnNonFinite(TrainerCallback):
    """The team's guard: a NaN/inf loss or grad norm means the run is garbage; stop it."""

    def on_log(self, args, state, control, logs=None, **kw):
        for k in ("loss", "grad_norm", "eval_loss"):
            v = (logs or {}).get(k)
            if v is not None and not math.isfinite(v):
                raise FloatingPointError(f"{k} is {v} at step {state.global_step} (epoch {state.epoch})")


class WeightedTrainer(Trainer):
    def __init__(self, *a, class_weights=None, **kw):
        super().__init__(*a, **kw)
        self.class_weights = class_weights

    def compute_loss(self, model, inputs, return_outputs=False, num_items_in_batch=None):
        labels = inputs.pop("labels")
        outputs = model(**inputs)
        loss = torch.nn.functional.cross_entropy(outputs.logits, labels, weight=self.class_weights)
        return (loss, outputs) if return_outputs else loss


def main():
    # With --use_cpu, TrainingArguments sets up the gloo group (while parsing) without --ddp_timeout: with
    # --ddp_timeout_on_cpu the group is created here first, with that timeout, and accelerate reuses it.
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--ddp_timeout_on_cpu", action="store_true")
    pre.add_argument("--ddp_timeout", type=int, default=1800)
    early, _ = pre.parse_known_args()
    if early.ddp_timeout_on_cpu and int(os.environ.get("WORLD_SIZE", 1)) > 1:
        dist.init_process_group("gloo", timeout=timedelta(seconds=early.ddp_timeout))
    parser = HfArgumentParser((ModelArguments, DataArguments, TrainingArguments))
    model_args, data_args, training_args = parser.parse_args_into_dataclasses()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        handlers=[logging.StreamHandler(sys.stdout)])
    log_level = training_args.get_process_log_level()
    logger.setLevel(log_level)
    datasets.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    logger.warning(f"Process rank: {training_args.process_index}, device: {training_args.device}, "
                   f"n_gpu: {training_args.n_gpu}, distributed training: {training_args.parallel_mode.value == 'distributed'}")
    logger.info(f"Training/evaluation parameters {training_args}")

    last_checkpoint = None
    if os.path.isdir(training_args.output_dir) and training_args.do_train and not training_args.resume_from_checkpoint:
        last_checkpoint = get_last_checkpoint(training_args.output_dir)
        if last_checkpoint is not None:
            logger.info(f"Checkpoint detected, resuming training at {last_checkpoint}.")
    set_seed(training_args.seed)

    routes = [r.strip() for r in open(data_args.routes_file) if r.strip()]
    route_id = {r: i for i, r in enumerate(routes)}
    raw = datasets.load_dataset("csv", data_files={"train": data_args.train_file,
                                                   "validation": data_args.validation_file})
    tokenizer = PreTrainedTokenizerFast.from_pretrained(data_args.tokenizer_dir)

    def usable(ex):
        if not ex["note"] or not ex["note"].strip():
            logger.error(f"claim {ex['claim_id']}: empty note text in the export, dropped")
            return False
        return True

    def encode(batch):
        texts = batch["note"]
        if data_args.include_addenda:
            texts = [t + " " + " ".join(flatten_addenda(json.loads(a))) for t, a in zip(texts, batch["addenda"])]
        enc = tokenizer(texts, truncation=True, max_length=data_args.max_seq_length,
                        padding="max_length" if data_args.pad_to_max_length else False)
        enc["labels"] = [route_id[r] for r in batch["route"]]
        return enc

    with training_args.main_process_first(desc="dataset map pre-processing"):
        raw = raw.filter(usable, load_from_cache_file=False)
        ds = raw.map(encode, batched=True, remove_columns=["addenda", "route"], load_from_cache_file=False)
    train_ds, eval_ds = ds["train"], ds["validation"]

    num_labels = model_args.num_labels or len(routes)
    config = BertConfig(vocab_size=tokenizer.vocab_size, hidden_size=model_args.hidden_size,
                        num_hidden_layers=model_args.num_hidden_layers,
                        num_attention_heads=model_args.num_attention_heads, intermediate_size=4 * model_args.hidden_size,
                        max_position_embeddings=128, num_labels=num_labels,
                        id2label={i: r for i, r in enumerate(routes[:num_labels])},
                        label2id={r: i for i, r in enumerate(routes[:num_labels])})
    model = BertForSequenceClassification(config)

    class_weights = None
    if model_args.class_weighted_loss:
        counts = torch.bincount(torch.tensor(train_ds["labels"]), minlength=num_labels).float()
        class_weights = 1.0 / counts
        class_weights = class_weights / class_weights.sum()
        logger.info(f"class weights {class_weights.tolist()}")

    def compute_metrics(p):
        preds = np.argmax(p.predictions, axis=1)
        return {"accuracy": float((preds == p.label_ids).mean())}

    collator = default_data_collator if data_args.pad_to_max_length else DataCollatorWithPadding(tokenizer)
    trainer = WeightedTrainer(model=model, args=training_args, train_dataset=train_ds, eval_dataset=eval_ds,
                              processing_class=tokenizer, data_collator=collator, compute_metrics=compute_metrics,
                              callbacks=[PaceCallback(model_args.step_delay), StopOnNonFinite()],
                              class_weights=class_weights)

    if training_args.do_train:
        checkpoint = training_args.resume_from_checkpoint or last_checkpoint
        result = trainer.train(resume_from_checkpoint=checkpoint)
        trainer.save_model()
        metrics = result.metrics
        metrics["train_samples"] = len(train_ds)
        trainer.log_metrics("train", metrics)
        trainer.save_metrics("train", metrics)
        trainer.save_state()
    if training_args.do_eval:
        metrics = trainer.evaluate()
        trainer.log_metrics("eval", metrics)
        trainer.save_metrics("eval", metrics)


if __name__ == "__main__":
    main()
