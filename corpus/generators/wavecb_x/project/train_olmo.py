"""Pretraining smoke run of a tiny Llama-like OLMo-core transformer (built from a config, synthetic token ids written
to a local .npy by this script) with olmo_core's Trainer on CPU (gloo) under torchrun. The team's optional hooks
module (train_hooks.py, if present) gets a callback after every step."""
import argparse
import importlib.util
import logging
import os
from dataclasses import dataclass
from datetime import timedelta

import numpy as np
import torch

from olmo_core.config import DType
from olmo_core.data import NumpyDataLoaderConfig, NumpyFSLDatasetConfig, NumpyPaddedFSLDatasetConfig, TokenizerConfig
from olmo_core.distributed.parallel import DataParallelType
from olmo_core.distributed.utils import get_rank, get_world_size
from olmo_core.nn.transformer import TransformerConfig
from olmo_core.optim import AdamWConfig, CosWithWarmup
from olmo_core.train import Duration, TrainerConfig, prepare_training_environment, teardown_training_environment
from olmo_core.train.callbacks import (Callback, CheckpointerCallback, ConfigSaverCallback, ConsoleLoggerCallback,
                                      LMEvaluatorCallbackConfig)
from olmo_core.train.train_module import TransformerDataParallelConfig, TransformerTrainModuleConfig

log = logging.getLogger("train_olmo")

p = argparse.ArgumentParser()
p.add_argument("--run-name", default="tiny-llama-smoke")
p.add_argument("--save-folder", default="ckpt")
p.add_argument("--data-dir", default="data")
p.add_argument("--d-model", type=int, default=64)
p.add_argument("--n-layers", type=int, default=2)
p.add_argument("--n-heads", type=int, default=4)
p.add_argument("--seq-len", type=int, default=64)
p.add_argument("--global-batch", type=int, default=16, help="instances per step, all ranks")
p.add_argument("--rank-micro", type=int, default=4, help="instances per micro-batch on one rank")
p.add_argument("--lr", type=float, default=3e-3)
p.add_argument("--steps", type=int, default=150)
p.add_argument("--save-interval", type=int, default=50)
p.add_argument("--workers", type=int, default=0)
p.add_argument("--pg-timeout", type=int, default=900)
p.add_argument("--seed", type=int, default=42)
p.add_argument("--eval-interval", type=int, default=0, help="in-loop LM eval every N steps on data/heldout-tokens.npy")
a = p.parse_args()

VOCAB = 512
TOK = TokenizerConfig(vocab_size=VOCAB, eos_token_id=0, pad_token_id=1)


def write_synthetic(path: str, n_tokens: int = 400_000, seed: int = 7) -> None:
    """A noisy affine recurrence of token ids in documents ending with EOS: learnable, no tokenizer or download."""
    g = np.random.default_rng(seed)
    docs, total = [], 0
    while total < n_tokens:
        n = int(g.integers(40, 300))
        start, step = int(g.integers(2, VOCAB)), int(g.integers(1, 7))
        ids = (start + step * np.arange(n)) % (VOCAB - 2) + 2
        noise = g.random(n) < 0.05
        ids[noise] = g.integers(2, VOCAB, noise.sum())
        docs.append(np.append(ids, 0))
        total += n + 1
    arr = np.concatenate(docs).astype(np.uint16)
    tmp = path + ".tmp"
    arr.tofile(tmp)
    os.replace(tmp, path)


class HooksCallback(Callback):
    def __init__(self, hooks):
        self.hooks = hooks

    def post_step(self):
        self.hooks.on_step(get_rank(), self.step, self.trainer)


def main():
    prepare_training_environment(seed=a.seed, backend="gloo", timeout=timedelta(seconds=a.pg_timeout))
    torch.set_num_threads(1)
    rank = get_rank()
    data = os.path.join(a.data_dir, "synthetic-tokens.npy")
    if rank == 0 and not os.path.exists(data):
        os.makedirs(a.data_dir, exist_ok=True)
        write_synthetic(data)
        log.info(f"wrote synthetic token file {data}")
    heldout = os.path.join(a.data_dir, "heldout-tokens.npy")
    if a.eval_interval and rank == 0 and not os.path.exists(heldout):
        write_synthetic(heldout, n_tokens=20_000, seed=8)
        log.info(f"wrote synthetic heldout file {heldout}")
    torch.distributed.barrier()

    model_cfg = TransformerConfig.llama_like(d_model=a.d_model, vocab_size=VOCAB, n_layers=a.n_layers,
                                             n_heads=a.n_heads, hidden_size_multiple_of=64)
    dataset_cfg = NumpyFSLDatasetConfig(paths=[data], sequence_length=a.seq_len, tokenizer=TOK,
                                        work_dir=os.path.join(a.data_dir, "cache"))
    loader_cfg = NumpyDataLoaderConfig(global_batch_size=a.global_batch * a.seq_len, seed=a.seed,
                                       num_workers=a.workers)
    module_cfg = TransformerTrainModuleConfig(
        rank_microbatch_size=a.rank_micro * a.seq_len, max_sequence_length=a.seq_len,
        optim=AdamWConfig(lr=a.lr, weight_decay=0.01), max_grad_norm=1.0,
        scheduler=CosWithWarmup(warmup_steps=10),
        dp_config=TransformerDataParallelConfig(name=DataParallelType.ddp))
    trainer_cfg = (
        TrainerConfig(save_folder=a.save_folder, save_overwrite=True, max_duration=Duration.steps(a.steps),
                      metrics_collect_interval=10, cancel_check_interval=10)
        .with_callback("checkpointer", CheckpointerCallback(save_interval=a.save_interval, save_async=False))
        .with_callback("config_saver", ConfigSaverCallback())
        .with_callback("console_logger", ConsoleLoggerCallback(log_interval=5, metrics_log_interval=10))
    )
    if a.eval_interval:
        trainer_cfg = trainer_cfg.with_callback("lm_evaluator", LMEvaluatorCallbackConfig(
            eval_dataset=NumpyPaddedFSLDatasetConfig(paths=[heldout], metadata=[{"label": "synthetic-heldout"}],
                                                     sequence_length=a.seq_len, tokenizer=TOK,
                                                     work_dir=os.path.join(a.data_dir, "cache")),
            eval_interval=a.eval_interval, eval_duration=Duration.steps(10)))
    if os.path.exists("train_hooks.py"):
        spec = importlib.util.spec_from_file_location("train_hooks", "train_hooks.py")
        hooks = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(hooks)
        trainer_cfg = trainer_cfg.with_callback("team_hooks", HooksCallback(hooks))

    model = model_cfg.build(init_device="meta")
    log.info(f"model: {model.num_params:,d} params, world size {get_world_size()}")
    train_module = module_cfg.build(model)
    dataset = dataset_cfg.build()
    loader = loader_cfg.build(dataset, dp_process_group=train_module.dp_process_group)
    trainer = trainer_cfg.build(train_module, loader)
    trainer.callbacks["config_saver"].config = {"run_name": a.run_name, "args": vars(a)}
    if not trainer.maybe_load_checkpoint():
        log.info("no checkpoint in the save folder; starting from scratch")
    trainer.fit()
    log.info(f"{a.run_name}: training finished at step {trainer.global_step}")
    teardown_training_environment()


if __name__ == "__main__":
    main()
