"""A causal-LM fine-tuning script on the Hugging Face ``Trainer`` (CPU, gloo), used by ``generate.py``.

Written like ``examples/pytorch/language-modeling/run_clm.py``: ``HfArgumentParser`` over
model/data arguments and ``TrainingArguments``, the example's logging set-up (the per-process
warning line, ``Training/evaluation parameters ...`` on the main process), a small GPT-2 built
from a config (no download), a byte-level synthetic text set, ``compute_metrics`` at eval, and a
callback that writes a ``run_meta.json`` next to every checkpoint. The ``Trainer`` itself prints
the ``***** Running training *****`` block, the tqdm bar, the ``{'loss': ...}`` dicts, eval and
checkpoint lines and its own warnings. Everything printed is what it really does on this machine.

Faults come from the ``TRAINER_FAULT`` environment variable (never printed), e.g.
``TRAINER_FAULT=missing_field:rank=1:step=23``. Kinds: ``missing_field`` (one record of ``rank``'s
shard lacks its ``text`` field: KeyError in a DataLoader worker), ``bad_token`` (one record of
``rank``'s shard holds a token id beyond the vocabulary: IndexError in the embedding forward),
``meta_tensor`` (the checkpoint callback on the main process puts a tensor into the JSON
metadata: TypeError at the first save), ``shard_stats`` (after each evaluation a callback
all-reduces per-sample statistics of the rank's eval shard, whose length differs between ranks
when the eval set does not divide evenly), ``slow_batch`` (one sample read on ``rank`` blocks
``secs`` seconds at ``step``).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import os
import random
import sys
import time
from datetime import timedelta
from pathlib import Path

import torch
import torch.distributed as dist
import transformers
from torch.utils.data import Dataset
from transformers import (GPT2Config, GPT2LMHeadModel, HfArgumentParser, Trainer, TrainerCallback,
                          TrainingArguments, set_seed)

logger = logging.getLogger(__name__)

WORDS = ("we propose a simple method for training language models on distributed clusters with many "
         "nodes and report results on several benchmarks the model learns to predict the next token "
         "given previous tokens in the sequence loss decreases steadily during training evaluation "
         "shows perplexity improves when the learning rate schedule uses warmup and cosine decay").split()


@dataclasses.dataclass
class ModelArguments:
    n_layer: int = 2
    n_embd: int = 64
    n_head: int = 4
    block_size: int = 64


@dataclasses.dataclass
class DataArguments:
    train_samples: int = 2048
    eval_samples: int = 96
    corpus_seed: int = 42


@dataclasses.dataclass
class DistArguments:
    pg_timeout_s: int = 0  # >0: init the gloo process group here with this timeout (seconds)


def parse_fault() -> dict:
    raw = os.environ.get("TRAINER_FAULT", "")
    if not raw:
        return {}
    kind, *kvs = raw.split(":")
    return {"kind": kind, **{k: (float(v) if "." in v else int(v)) for k, v in (kv.split("=") for kv in kvs)}}


class ByteText(Dataset):
    """Records ``{"text": str}`` turned into ``block_size`` byte tokens on access."""

    def __init__(self, n: int, block: int, seed: int, bad: dict | None = None) -> None:
        rng = random.Random(seed)
        self.block = block
        self.records = []
        for _ in range(n):
            text = ""
            while len(text) < block:
                text += " ".join(rng.choice(WORDS) for _ in range(10)).capitalize() + ". "
            self.records.append({"text": text})
        self.bad = bad or {}
        self.reads = 0  # per process: each DataLoader worker counts its own reads

    def __len__(self) -> int:
        return len(self.records)

    def __getitem__(self, i: int) -> dict:
        self.reads += 1
        hit = self.reads == self.bad.get("at_read", -1)
        if hit and self.bad["kind"] == "missing_field":
            self.records[i] = {"txt": self.records[i]["text"]}
        if hit and self.bad["kind"] == "slow_batch":
            time.sleep(self.bad["secs"])  # e.g. a read from a stalled network filesystem
        ids = list(self.records[i]["text"].encode()[: self.block])
        if hit and self.bad["kind"] == "bad_token":
            ids[self.block // 2] = 50257  # a GPT-2 tokenizer id in a byte-level model
        t = torch.tensor(ids, dtype=torch.long)
        return {"input_ids": t, "attention_mask": torch.ones_like(t), "labels": t.clone()}


class CheckpointMetaCallback(TrainerCallback):
    """Write run metadata next to each checkpoint (main process only)."""

    def __init__(self, fault: dict) -> None:
        self.fault = fault

    def on_save(self, args, state, control, **kwargs):
        if not state.is_world_process_zero:
            return
        ck = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        meta = {"global_step": state.global_step, "epoch": state.epoch,
                "best_metric": state.best_metric, "log_history": state.log_history[-3:]}
        if self.fault.get("kind") == "meta_tensor":
            model = kwargs["model"]
            meta["num_params"] = sum(p.numel() for p in model.parameters())
            meta["grad_norm_ema"] = torch.stack([p.detach().norm() for p in model.parameters()]).mean()
        with open(ck / "run_meta.json", "w") as f:
            json.dump(meta, f, indent=2)
        logger.info(f"Wrote {ck / 'run_meta.json'}")


def compute_metrics(eval_pred):
    logits, labels = eval_pred
    preds = logits.argmax(-1)[:, :-1]
    return {"accuracy": float((preds == labels[:, 1:]).mean())}


class EvalShardStatsCallback(TrainerCallback):
    """After each evaluation, report the mean number of distinct bytes per eval sample."""

    def __init__(self, eval_ds: "ByteText", fault: dict) -> None:
        self.eval_ds, self.fault = eval_ds, fault

    def on_evaluate(self, args, state, control, metrics=None, **kwargs):
        if self.fault.get("kind") != "shard_stats" or not dist.is_initialized():
            return
        rank, world = dist.get_rank(), dist.get_world_size()
        mine = range(rank, len(self.eval_ds), world)
        distinct = torch.tensor([float(len(set(self.eval_ds.records[i]["text"].encode()))) for i in mine])
        dist.all_reduce(distinct)
        total = torch.tensor([float(len(self.eval_ds))])
        if state.is_world_process_zero:
            logger.info(f"eval distinct bytes per sample: {distinct.sum().item() / total.item():.2f}")


def main() -> int:
    pre = argparse.ArgumentParser(add_help=False)
    pre.add_argument("--pg_timeout_s", type=int, default=0)
    if pre.parse_known_args()[0].pg_timeout_s > 0 and int(os.environ.get("WORLD_SIZE", "1")) > 1:
        # with --use_cpu the Trainer does not pass ddp_timeout on; create the group (and its timeout)
        # before TrainingArguments does
        dist.init_process_group("gloo", timeout=timedelta(seconds=pre.parse_known_args()[0].pg_timeout_s))
    parser = HfArgumentParser((ModelArguments, DataArguments, DistArguments, TrainingArguments))
    model_args, data_args, dist_args, training_args = parser.parse_args_into_dataclasses()
    fault = parse_fault()

    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s",
                        datefmt="%m/%d/%Y %H:%M:%S", handlers=[logging.StreamHandler(sys.stdout)])
    if training_args.should_log:
        transformers.utils.logging.set_verbosity_info()
    log_level = training_args.get_process_log_level()
    logger.setLevel(log_level)
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

    rank = training_args.process_index
    bad = {}
    if fault.get("kind") in ("missing_field", "bad_token", "slow_batch") and rank == fault.get("rank", 0):
        # about ``step`` optimizer steps into the run on this rank (each DataLoader worker reads every
        # num_workers-th batch)
        per = training_args.per_device_train_batch_size * training_args.gradient_accumulation_steps
        bad = {**fault, "at_read": fault["step"] * per // max(1, training_args.dataloader_num_workers) + 3}
    train_ds = ByteText(data_args.train_samples, model_args.block_size, data_args.corpus_seed, bad)
    eval_ds = ByteText(data_args.eval_samples, model_args.block_size, data_args.corpus_seed + 1)

    config = GPT2Config(vocab_size=256, n_positions=model_args.block_size, n_embd=model_args.n_embd,
                        n_layer=model_args.n_layer, n_head=model_args.n_head, bos_token_id=0, eos_token_id=0)
    model = GPT2LMHeadModel(config)
    n_params = sum(p.numel() for p in model.parameters())
    logger.info(f"Training new model from scratch - Total size={n_params / 2**20:.2f}M params")

    trainer = Trainer(
        model=model,
        args=training_args,
        train_dataset=train_ds if training_args.do_train else None,
        eval_dataset=eval_ds if training_args.do_eval else None,
        compute_metrics=compute_metrics,
        callbacks=[CheckpointMetaCallback(fault), EvalShardStatsCallback(eval_ds, fault)],
    )
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
        trainer.log_metrics("eval", metrics)
        trainer.save_metrics("eval", metrics)
    return 0


if __name__ == "__main__":
    sys.exit(main())
