"""Causal LM on SQL query logs (GPT-2 architecture, 2 layers, character vocabulary) with the Hugging Face Trainer,
launched by torchrun on every node (DDP over gloo on CPU). Logging as in transformers' run_clm.py example."""
import argparse
import importlib.util
import logging
import os
import sys
from pathlib import Path

import torch
import transformers
from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments
from transformers.trainer_utils import get_last_checkpoint

logger = logging.getLogger(__name__)
torch.set_num_threads(1)


class Blocks(torch.utils.data.Dataset):
    def __init__(self, ids: list[int], block: int) -> None:
        self.ids, self.block = ids, block

    def __len__(self) -> int:
        return len(self.ids) // self.block - 1

    def __getitem__(self, i: int) -> dict:
        x = torch.tensor(self.ids[i * self.block:(i + 1) * self.block])
        return {"input_ids": x, "labels": x.clone()}


class StepHook(TrainerCallback):
    def __init__(self) -> None:
        path = Path("data/hooks.py")
        self.fn = None
        if path.exists():
            spec = importlib.util.spec_from_file_location("hooks", path)
            mod = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(mod)
            self.fn = mod.on_step

    def on_step_end(self, args, state, control, **kw):
        if self.fn:
            self.fn(int(os.environ.get("RANK", 0)), state.global_step)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=float, default=2)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--dim", type=int, default=64)
    ap.add_argument("--block", type=int, default=64)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--save-steps", type=int, default=40)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--output-dir", default="outputs/sql-lm")
    a = ap.parse_args()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", datefmt="%m/%d/%Y %H:%M:%S",
                        handlers=[logging.StreamHandler(sys.stdout)])
    args = TrainingArguments(output_dir=a.output_dir, num_train_epochs=a.epochs, learning_rate=a.lr,
                             per_device_train_batch_size=a.batch, per_device_eval_batch_size=a.batch,
                             logging_steps=10, save_steps=a.save_steps, save_total_limit=2, eval_strategy="steps",
                             eval_steps=40, report_to=[], use_cpu=True, ddp_backend="gloo", log_level="info",
                             dataloader_num_workers=0, seed=42)
    transformers.utils.logging.set_verbosity(args.get_process_log_level())
    logger.setLevel(args.get_process_log_level())
    transformers.utils.logging.enable_default_handler()
    transformers.utils.logging.enable_explicit_format()
    logger.warning(f"Process rank: {args.process_index}, device: {args.device}, n_gpu: {args.n_gpu}, "
                   f"distributed training: {args.parallel_mode.value == 'distributed'}")
    text = Path("data/queries.txt").read_text()
    vocab = sorted(set(text))
    stoi = {c: i for i, c in enumerate(vocab)}
    ids = [stoi[c] for c in text]
    split = int(len(ids) * 0.95)
    train, val = Blocks(ids[:split], a.block), Blocks(ids[split:], a.block)
    config = GPT2Config(vocab_size=len(vocab), n_positions=a.block, n_embd=a.dim, n_layer=2, n_head=2)
    model = GPT2LMHeadModel(config)
    logger.info(f"Training new model from scratch - Total params: {sum(p.numel() for p in model.parameters())/1e6:.2f}M")
    last = get_last_checkpoint(a.output_dir) if a.resume and Path(a.output_dir).is_dir() else None
    if last:
        logger.info(f"Checkpoint detected, resuming training at {last}.")
    trainer = Trainer(model=model, args=args, train_dataset=train, eval_dataset=val, callbacks=[StepHook()])
    result = trainer.train(resume_from_checkpoint=last)
    trainer.save_model()
    trainer.log_metrics("train", result.metrics)
    trainer.save_metrics("train", result.metrics)
    trainer.save_state()
    metrics = trainer.evaluate()
    trainer.log_metrics("eval", metrics)


if __name__ == "__main__":
    main()
