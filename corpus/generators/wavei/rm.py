"""Reward-model training on the Hugging Face ``Trainer`` (CPU, gloo), launched with ``accelerate launch``: a small
GPT-2 with a scalar head (``GPT2ForSequenceClassification``, ``num_labels=1``, regression) trained on rated
responses. Ratings are z-scored per annotator before training (raters use the 1-5 scale differently), a common step
in preference-data pipelines; ``--nan_check`` adds a callback that stops the run when the logged loss or gradient
norm is not finite. Written like the ``run_clm.py``-style scripts: ``HfArgumentParser``, the example's logging set-up,
``datasets`` JSON loading and ``map`` under ``main_process_first``. Nothing is injected.
"""
from __future__ import annotations

import dataclasses
import logging
import math
import sys

import datasets
import numpy as np
import torch
import transformers
from transformers import (GPT2Config, GPT2ForSequenceClassification, HfArgumentParser, Trainer, TrainerCallback,
                          TrainingArguments, set_seed)

logger = logging.getLogger(__name__)
PAD = 256


@dataclasses.dataclass
class ModelArguments:
    n_layer: int = 2
    n_embd: int = 64
    n_head: int = 4


@dataclasses.dataclass
class DataArguments:
    train_file: str = "data/train.jsonl"
    validation_file: str = "data/eval.jsonl"
    max_length: int = 256
    nan_check: bool = False


class NonFiniteLossCallback(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kwargs):
        logs = logs or {}
        for key in ("loss", "grad_norm", "eval_loss"):
            if key in logs and not math.isfinite(float(logs[key])):
                logger.error(f"{key} is {logs[key]} at step {state.global_step}: stopping training")
                control.should_training_stop = True
        return control


def collate(features: list[dict]) -> dict:
    n = max(len(f["input_ids"]) for f in features)
    ids = torch.full((len(features), n), PAD, dtype=torch.long)
    mask = torch.zeros((len(features), n), dtype=torch.long)
    for i, f in enumerate(features):
        ids[i, : len(f["input_ids"])] = torch.tensor(f["input_ids"])
        mask[i, : len(f["input_ids"])] = 1
    return {"input_ids": ids, "attention_mask": mask,
            "labels": torch.tensor([f["labels"] for f in features], dtype=torch.float)}


def compute_metrics(eval_pred):
    preds, labels = eval_pred
    preds = preds.reshape(-1)
    return {"pearson": float(np.corrcoef(preds, labels)[0, 1]), "mae": float(np.abs(preds - labels).mean())}


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
    # z-score each annotator's ratings (statistics over all splits)
    ratings: dict[str, list[float]] = {}
    for split in raw.values():
        for ann, r in zip(split["annotator"], split["rating"]):
            ratings.setdefault(ann, []).append(float(r))
    stats = {ann: (np.mean(v), np.std(v)) for ann, v in ratings.items()}
    logger.info(f"{len(stats)} annotators, {sum(len(v) for v in ratings.values())} ratings; "
                f"per-annotator count min {min(len(v) for v in ratings.values())} max {max(len(v) for v in ratings.values())}")

    def prepare(batch):
        ids = [list((f"{p}\n\n{r}").encode())[: data_args.max_length] for p, r in zip(batch["prompt"], batch["response"])]
        labels = [float((r - stats[a][0]) / stats[a][1]) for a, r in zip(batch["annotator"], np.asarray(batch["rating"], dtype=np.float64))]
        return {"input_ids": ids, "labels": labels}

    with training_args.main_process_first(desc="normalising ratings and tokenizing"):
        data = raw.map(prepare, batched=True, remove_columns=raw["train"].column_names, desc="Preparing")
    logger.info(f"label mean {np.nanmean(data['train']['labels']):.3f} std {np.nanstd(data['train']['labels']):.3f}")

    config = GPT2Config(vocab_size=257, n_positions=data_args.max_length, n_embd=model_args.n_embd,
                        n_layer=model_args.n_layer, n_head=model_args.n_head, num_labels=1,
                        problem_type="regression", pad_token_id=PAD, bos_token_id=PAD, eos_token_id=PAD)
    model = GPT2ForSequenceClassification(config)
    logger.info(f"reward model from scratch - Total size={sum(p.numel() for p in model.parameters()) / 2**20:.2f}M params")
    trainer = Trainer(model=model, args=training_args, train_dataset=data["train"], eval_dataset=data["validation"],
                      data_collator=collate, compute_metrics=compute_metrics,
                      callbacks=[NonFiniteLossCallback()] if data_args.nan_check else None)
    result = trainer.train()
    trainer.save_model()
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)
    trainer.save_metrics("eval", metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
