"""Fine-tune a small sentence encoder (BERT-style, from model_init/) with sentence-transformers' trainer, DDP."""
import argparse
import datetime
import json
import logging
import math
import os
from pathlib import Path

import torch
from datasets import load_dataset
from sentence_transformers import (SentenceTransformer, SentenceTransformerTrainer,
                                   SentenceTransformerTrainingArguments, losses, models)
from sentence_transformers.evaluation import EmbeddingSimilarityEvaluator
from sentence_transformers.training_args import BatchSamplers
from transformers import TrainerCallback

log = logging.getLogger("embed_train")


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/base.json")
    ap.add_argument("--train-file")
    ap.add_argument("--loss", choices=["mnrl", "cosine", "cached-mnrl"])
    ap.add_argument("--max-seq-len", type=int)
    ap.add_argument("--per-device-batch-size", type=int)
    ap.add_argument("--global-batch-size", type=int)
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--logging-steps", type=int)
    ap.add_argument("--eval-steps", type=int)
    ap.add_argument("--save-steps", type=int)
    ap.add_argument("--output-dir")
    ap.add_argument("--ddp-timeout", type=int)
    ap.add_argument("--resume", choices=["none", "auto"], default="none")
    ap.add_argument("--report-to", default="none")
    ap.add_argument("--metrics-file")
    ap.add_argument("--no-duplicates", action="store_true")
    a = ap.parse_args()
    cfg = json.loads(Path(a.config).read_text())
    for k, v in {"train_file": a.train_file, "loss": a.loss, "max_seq_len": a.max_seq_len,
                 "per_device_train_batch_size": a.per_device_batch_size, "global_batch_size": a.global_batch_size,
                 "max_steps": a.max_steps, "lr": a.lr, "eval_steps": a.eval_steps, "save_steps": a.save_steps,
                 "output_dir": a.output_dir, "logging_steps": a.logging_steps}.items():
        if v is not None:
            cfg[k] = v
    return a, cfg


class Guard(TrainerCallback):
    """Stops on a non-finite loss; appends metrics to a JSONL file if asked (best effort)."""

    def __init__(self, metrics_file):
        self.metrics_file = metrics_file

    def on_log(self, args, state, control, logs=None, **kw):
        logs = logs or {}
        loss = logs.get("loss")
        if loss is not None and not math.isfinite(loss):
            raise FloatingPointError(f"loss is {loss} at step {state.global_step}; stopping (lr {logs.get('learning_rate')})")
        if self.metrics_file and state.is_world_process_zero:
            try:
                with open(self.metrics_file, "a") as f:
                    f.write(json.dumps({"step": state.global_step, **logs}) + "\n")
            except OSError:
                log.exception("could not write metrics to %s; metrics file disabled", self.metrics_file)
                self.metrics_file = None


def main():
    a, cfg = parse()
    rank = int(os.environ.get("RANK", 0))
    world = int(os.environ.get("WORLD_SIZE", 1))
    logging.basicConfig(level=logging.INFO if rank == 0 else logging.WARNING,
                        format=f"%(asctime)s [rank{rank}] %(levelname)s %(name)s: %(message)s")
    torch.set_num_threads(1)
    if a.ddp_timeout and world > 1:  # the trainer does not pass ddp_timeout on use_cpu, so set up the group here
        torch.distributed.init_process_group("gloo", timeout=datetime.timedelta(seconds=a.ddp_timeout))
    per_dev, accum = cfg["per_device_train_batch_size"], cfg["gradient_accumulation_steps"]
    if cfg["global_batch_size"] != per_dev * accum * world:
        raise ValueError(f"global_batch_size ({cfg['global_batch_size']}) must equal per_device_train_batch_size "
                         f"({per_dev}) x gradient_accumulation_steps ({accum}) x world_size ({world})")
    log.info("world_size=%d per_device_batch=%d global_batch=%d loss=%s", world, per_dev, cfg["global_batch_size"],
             cfg["loss"])

    word = models.Transformer(cfg["model_dir"], max_seq_length=cfg["max_seq_len"])
    pool = models.Pooling(word.get_word_embedding_dimension(), pooling_mode="mean")
    model = SentenceTransformer(modules=[word, pool], device="cpu")
    log.info("encoder: %d params, dim %d", sum(p.numel() for p in model.parameters()),
             model.get_sentence_embedding_dimension())

    train = load_dataset("json", data_files=cfg["train_file"], split="train")
    dev = load_dataset("json", data_files=cfg["dev_file"], split="train")
    log.info("train rows=%d columns=%s; dev rows=%d", len(train), train.column_names, len(dev))
    if cfg["loss"] == "mnrl":
        loss = losses.MultipleNegativesRankingLoss(model)
    elif cfg["loss"] == "cached-mnrl":
        loss = losses.CachedMultipleNegativesRankingLoss(model, mini_batch_size=8)
    else:
        loss = losses.CosineSimilarityLoss(model)
    evaluator = EmbeddingSimilarityEvaluator(dev["sentence1"], dev["sentence2"], dev["score"], name="support-dev")

    args = SentenceTransformerTrainingArguments(
        output_dir=cfg["output_dir"], max_steps=cfg["max_steps"], per_device_train_batch_size=per_dev,
        per_device_eval_batch_size=per_dev, gradient_accumulation_steps=accum, learning_rate=cfg["lr"],
        warmup_ratio=cfg["warmup_ratio"], logging_steps=cfg["logging_steps"], eval_strategy="steps",
        eval_steps=cfg["eval_steps"], save_strategy="steps", save_steps=cfg["save_steps"],
        save_total_limit=cfg["save_total_limit"], seed=cfg["seed"], report_to=a.report_to, disable_tqdm=True,
        log_level="info", log_level_replica="warning", ddp_backend="gloo", ddp_timeout=a.ddp_timeout or 1800,
        dataloader_num_workers=0, use_cpu=True,
        batch_sampler=BatchSamplers.NO_DUPLICATES if a.no_duplicates else BatchSamplers.BATCH_SAMPLER)
    trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=train, eval_dataset=None, loss=loss,
                                         evaluator=evaluator, callbacks=[Guard(a.metrics_file)])
    resume = None
    if a.resume == "auto" and list(Path(cfg["output_dir"]).glob("checkpoint-*")):
        resume = True
        log.info("resuming from the newest checkpoint in %s", cfg["output_dir"])
    trainer.train(resume_from_checkpoint=resume)
    if trainer.is_world_process_zero():
        out = Path(cfg["output_dir"]) / "final"
        model.save(str(out))
        log.info("saved final model to %s", out)
        log.info("final eval: %s", evaluator(model))
    log.info("training done")


if __name__ == "__main__":
    main()
