"""GRPO (TRL 0.25 GRPOTrainer) of a tiny GPT-2 policy on two-number addition prompts, reward = the completion starts
with the right sum. Launched by ``accelerate launch --multi_gpu`` on every node (torchrun underneath; MULTI_CPU, gloo)."""
import argparse
import importlib.util
import json
import logging
import os
import sys
from pathlib import Path

import torch
import transformers
from datasets import Dataset
from transformers import AutoModelForCausalLM, AutoTokenizer
from trl import GRPOConfig, GRPOTrainer

logger = logging.getLogger(__name__)
torch.set_num_threads(1)
HOOK = None
if Path("data/hooks.py").exists():
    spec = importlib.util.spec_from_file_location("hooks", "data/hooks.py")
    HOOK = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(HOOK)
CALLS = [0]


def correct_sum(completions, answer, **kw):
    CALLS[0] += 1
    if HOOK:
        HOOK.on_reward(int(os.environ.get("RANK", 0)), CALLS[0])
    return [1.0 if c.strip().startswith(a) else (0.2 if any(ch.isdigit() for ch in c[:3]) else 0.0)
            for c, a in zip(completions, answer)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=float, default=1)
    ap.add_argument("--lr", type=float, default=5e-4)
    ap.add_argument("--model", default="data/policy-init")
    ap.add_argument("--batch", type=int, default=4)
    ap.add_argument("--generations", type=int, default=4)
    ap.add_argument("--max-steps", type=int, default=60)
    ap.add_argument("--save-steps", type=int, default=20)
    ap.add_argument("--output-dir", default="outputs/grpo-arith")
    a = ap.parse_args()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        handlers=[logging.StreamHandler(sys.stdout)])
    rows = [json.loads(line) for line in Path("data/tasks.jsonl").read_text().splitlines()]
    tok = AutoTokenizer.from_pretrained(a.model)
    model = AutoModelForCausalLM.from_pretrained(a.model)
    args = GRPOConfig(output_dir=a.output_dir, num_train_epochs=a.epochs, max_steps=a.max_steps, learning_rate=a.lr,
                      per_device_train_batch_size=a.batch, num_generations=a.generations, max_prompt_length=16,
                      max_completion_length=6, logging_steps=5, save_steps=a.save_steps, save_total_limit=2,
                      report_to=[], use_cpu=True, ddp_backend="gloo", log_level="info", seed=42, beta=0.04,
                      log_completions=True, num_completions_to_print=2)
    transformers.utils.logging.set_verbosity(args.get_process_log_level())
    logger.setLevel(args.get_process_log_level())
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    logger.warning(f"Process rank: {args.process_index}, device: {args.device}, n_gpu: {args.n_gpu}, "
                   f"distributed training: {args.parallel_mode.value == 'distributed'}")
    logger.info(f"policy: GPT-2 {sum(p.numel() for p in model.parameters())/1e6:.2f}M params, {len(rows)} prompts")
    trainer = GRPOTrainer(model=model, reward_funcs=correct_sum, args=args, train_dataset=Dataset.from_list(rows),
                          processing_class=tok)
    result = trainer.train()
    trainer.save_model()
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_state()


if __name__ == "__main__":
    main()
