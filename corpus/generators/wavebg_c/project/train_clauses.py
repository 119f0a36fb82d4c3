"""Contract-clause classifier: a small BERT (from BertConfig, randomly initialised) fine-tuned with the HF Trainer."""
import argparse
import ctypes
import json
import logging
import math
import os
import sys
import time

import numpy as np
import torch
from transformers import (BertConfig, BertForSequenceClassification, Trainer, TrainerCallback, TrainingArguments,
                          set_seed)
import transformers

logger = logging.getLogger(__name__)


class ClauseDataset(torch.utils.data.Dataset):
    """Clause metadata in <split>_meta.jsonl, token ids packed in <split>_tokens.bin (read zero-copy)."""

    def __init__(self, data_dir, split, label_ids, max_seq_len):
        with open(os.path.join(data_dir, f"{split}_meta.jsonl")) as f:
            self.rows = [json.loads(line) for line in f]
        self.tokens = np.memmap(os.path.join(data_dir, f"{split}_tokens.bin"), dtype=np.int32, mode="r")
        self.base = self.tokens.ctypes.data
        self.label_ids = label_ids
        self.max_seq_len = max_seq_len

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        n = min(row["length"], self.max_seq_len - 1)
        raw = ctypes.string_at(self.base + 4 * row["offset"], 4 * n)
        ids = [2] + np.frombuffer(raw, dtype=np.int32).tolist()
        pad = self.max_seq_len - len(ids)
        return {"input_ids": torch.tensor(ids + [0] * pad), "attention_mask": torch.tensor([1] * len(ids) + [0] * pad),
                "labels": torch.tensor(self.label_ids[row["label"]])}


class LossGuard(TrainerCallback):
    def on_log(self, args, state, control, logs=None, **kw):
        if logs and "loss" in logs and not math.isfinite(logs["loss"]):
            logger.error(f"non-finite training loss {logs['loss']} at step {state.global_step}")


class ConfusionReport(TrainerCallback):
    """Prints the validation confusion matrix after each evaluation (summed over the ranks)."""

    def __init__(self, holder, labels):
        self.holder = holder
        self.labels = labels

    def on_evaluate(self, args, state, control, metrics=None, **kw):
        if state.is_world_process_zero and "confusion" in self.holder:
            conf = torch.tensor(self.holder["confusion"], dtype=torch.float32)
            torch.distributed.all_reduce(conf)
            logger.info("validation confusion matrix (rows: true, cols: predicted)\n" + "\n".join(
                f"{name:>24} " + " ".join(f"{int(v):4d}" for v in row) for name, row in zip(self.labels, conf)))


class StepPace(TrainerCallback):
    def __init__(self, delay):
        self.delay = delay

    def on_step_end(self, args, state, control, **kw):
        time.sleep(self.delay)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data-dir", default="data")
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--epochs", type=float, default=3)
    ap.add_argument("--batch-size", type=int, default=16)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--max-seq-len", type=int, default=64)
    ap.add_argument("--hidden-size", type=int, default=128)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--attn-impl", default="eager")
    ap.add_argument("--ddp-timeout", type=int, default=1800)
    ap.add_argument("--step-delay", type=float, default=0.1)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--confusion-report", action="store_true")
    ap.add_argument("--seed", type=int, default=42)
    a = ap.parse_args()

    args = TrainingArguments(
        output_dir=a.ckpt_dir, num_train_epochs=a.epochs, per_device_train_batch_size=a.batch_size,
        per_device_eval_batch_size=32, learning_rate=a.lr, warmup_steps=5, weight_decay=0.01, logging_steps=5,
        eval_strategy="epoch", save_strategy="epoch", save_total_limit=2, log_level="info", report_to=[],
        use_cpu=True, ddp_timeout=a.ddp_timeout, disable_tqdm=True, seed=a.seed, dataloader_num_workers=0)
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        handlers=[logging.StreamHandler(sys.stdout)])
    log_level = args.get_process_log_level()
    logger.setLevel(log_level)
    transformers.utils.logging.set_verbosity(log_level)
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    logger.warning(f"Process rank: {args.process_index}, device: {args.device}, n_procs: {args.world_size}, "
                   f"distributed training: {args.parallel_mode.value == 'distributed'}")
    set_seed(a.seed)

    try:
        with open(os.path.join(a.data_dir, "labels.json")) as f:
            labels = json.load(f)["labels"]
    except OSError as e:
        logger.error(f"label map unavailable ({e}); deriving the clause types from the training metadata")
        with open(os.path.join(a.data_dir, "train_meta.jsonl")) as f:
            labels = sorted({json.loads(line)["label"] for line in f})
    label_ids = {name: i for i, name in enumerate(labels)}
    logger.info(f"{len(labels)} clause types: {', '.join(labels)}")

    train = ClauseDataset(a.data_dir, "train", label_ids, a.max_seq_len)
    valid = ClauseDataset(a.data_dir, "valid", label_ids, a.max_seq_len)
    logger.info(f"{len(train)} training clauses, {len(valid)} validation clauses")

    config = BertConfig(vocab_size=4000, hidden_size=a.hidden_size, num_hidden_layers=a.layers, num_attention_heads=4,
                        intermediate_size=2 * a.hidden_size, max_position_embeddings=128, num_labels=len(labels),
                        id2label=dict(enumerate(labels)), label2id=label_ids)
    model = BertForSequenceClassification._from_config(config, attn_implementation=a.attn_impl)

    holder = {}

    def compute_metrics(p):
        pred = p.predictions.argmax(-1)
        holder["confusion"] = [[int(((p.label_ids == t) & (pred == q)).sum()) for q in range(len(labels))]
                               for t in range(len(labels))]
        out = {"accuracy": float((pred == p.label_ids).mean())}
        for k, name in enumerate(labels):
            tp = float(((pred == k) & (p.label_ids == k)).sum())
            support = float((p.label_ids == k).sum())
            out[f"recall_{name}"] = tp / support if support else float("nan")
        return out

    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=valid,
                      compute_metrics=compute_metrics, callbacks=[LossGuard(), StepPace(a.step_delay)])
    if a.confusion_report:
        trainer.add_callback(ConfusionReport(holder, labels))
    resume = None
    if a.resume and os.path.isdir(a.ckpt_dir) and any(d.startswith("checkpoint-") for d in os.listdir(a.ckpt_dir)):
        resume = True
    trainer.train(resume_from_checkpoint=resume)
    trainer.save_model(os.path.join(a.ckpt_dir, "final"))
    if trainer.is_world_process_zero():
        logger.info("training finished")


if __name__ == "__main__":
    main()
