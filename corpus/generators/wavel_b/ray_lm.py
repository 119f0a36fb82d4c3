"""A tiny GPT-2-style character LM (config-built, no download) trained with the Hugging Face ``Trainer`` inside a Ray
Train ``TorchTrainer`` (``ray.train.huggingface.transformers.prepare_trainer`` + ``RayTrainReportCallback``).

    python ray_lm.py --workers 2 --max-steps 120 --storage /tmp/.../ray_results
"""
from __future__ import annotations

import argparse
import os
import random

import ray
import ray.train
from ray.train import CheckpointConfig, FailureConfig, RunConfig, ScalingConfig
from ray.train.torch import TorchConfig, TorchTrainer

WORDS = ("the model reads a shard of tokens and the optimizer updates every layer while the scheduler warms the "
         "learning rate up before it decays along a cosine curve and the loss falls as the batches go by").split()


def corpus(n: int, seed: int = 0) -> list[str]:
    rng = random.Random(seed)
    return [" ".join(rng.choice(WORDS) for _ in range(rng.randint(12, 30))) for _ in range(n)]


def train_func(cfg: dict) -> None:
    import torch
    import transformers
    from transformers import GPT2Config, GPT2LMHeadModel, Trainer, TrainerCallback, TrainingArguments
    from ray.train.huggingface.transformers import RayTrainReportCallback, prepare_trainer

    torch.set_num_threads(1)
    ctx = ray.train.get_context()
    rank = ctx.get_world_rank()
    vocab = sorted(set("".join(WORDS) + " "))
    stoi = {c: i + 1 for i, c in enumerate(vocab)}  # 0 is padding
    block = 96

    class CharLM(torch.utils.data.Dataset):
        def __init__(self, texts):
            ids = [i for t in texts for i in [stoi[c] for c in t] + [stoi[" "]]]
            self.x = torch.tensor(ids[: len(ids) // block * block]).view(-1, block)

        def __len__(self):
            return len(self.x)

        def __getitem__(self, k):
            return {"input_ids": self.x[k], "labels": self.x[k]}

    train_ds, eval_ds = CharLM(corpus(cfg["docs"], seed=1)), CharLM(corpus(200, seed=2))
    model = GPT2LMHeadModel(GPT2Config(vocab_size=len(vocab) + 1, n_positions=block, n_embd=96, n_layer=3, n_head=4,
                                       bos_token_id=0, eos_token_id=0))

    class SampleText(TrainerCallback):
        """Greedy-decode a few continuations after each evaluation, so the run's log shows what the model writes."""

        def on_evaluate(self, args, state, control, model=None, **kw):
            if not state.is_world_process_zero:
                return
            itos = {i: c for c, i in stoi.items()}
            model.eval()
            for prompt in ("the model ", "the loss ", "every layer ")[: cfg["samples"]]:
                ids = torch.tensor([[stoi[c] for c in prompt]])
                with torch.no_grad():
                    for _ in range(cfg["sample_len"]):
                        logits = model(input_ids=ids[:, -block:]).logits[:, -1]
                        ids = torch.cat([ids, logits.argmax(-1, keepdim=True)], dim=1)
                print(f"[sample step {state.global_step}] {''.join(itos.get(int(i), '?') for i in ids[0])!r}",
                      flush=True)
            model.train()

    args = TrainingArguments(output_dir="hf_out", per_device_train_batch_size=cfg["batch"], learning_rate=3e-3,
                             max_steps=cfg["max_steps"], warmup_steps=10, lr_scheduler_type="cosine",
                             logging_steps=10, eval_strategy="steps", eval_steps=cfg["eval_steps"],
                             save_strategy="steps", save_steps=cfg["save_steps"], save_total_limit=1,
                             report_to="none", use_cpu=True, dataloader_num_workers=0, seed=42)
    trainer = Trainer(model=model, args=args, train_dataset=train_ds, eval_dataset=eval_ds,
                      callbacks=[RayTrainReportCallback()] + ([SampleText()] if cfg["samples"] else []))
    trainer = prepare_trainer(trainer)
    print(f"[worker {rank}] transformers {transformers.__version__}, {len(train_ds)} blocks of {block} chars, "
          f"world size {ctx.get_world_size()}", flush=True)
    trainer.train()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--docs", type=int, default=3000)
    ap.add_argument("--batch", type=int, default=16)
    ap.add_argument("--max-steps", type=int, default=120)
    ap.add_argument("--eval-steps", type=int, default=40)
    ap.add_argument("--save-steps", type=int, default=60)
    ap.add_argument("--samples", type=int, default=0, help="greedy samples rank 0 prints after each evaluation")
    ap.add_argument("--sample-len", type=int, default=60)
    ap.add_argument("--worker-memory-gb", type=float, default=0, help="memory to reserve per training worker")
    ap.add_argument("--timeout-s", type=int, default=1800, help="process group timeout")
    ap.add_argument("--startup-retries", type=int, default=-1, help="worker-group start failures to retry (-1: any)")
    ap.add_argument("--storage", required=True)
    a = ap.parse_args()
    ray.init()
    res = {"CPU": 1}
    if a.worker_memory_gb:
        res["memory"] = a.worker_memory_gb * 2**30
    trainer = TorchTrainer(
        train_func,
        train_loop_config={"docs": a.docs, "batch": a.batch, "max_steps": a.max_steps, "eval_steps": a.eval_steps, "save_steps": a.save_steps,
                           "samples": a.samples, "sample_len": a.sample_len},
        torch_config=TorchConfig(backend="gloo", timeout_s=a.timeout_s),
        scaling_config=ScalingConfig(num_workers=a.workers, use_gpu=False, resources_per_worker=res),
        run_config=RunConfig(name="tiny-gpt-chars", storage_path=a.storage,
                             checkpoint_config=CheckpointConfig(num_to_keep=1),
                             failure_config=FailureConfig(controller_failure_limit=a.startup_retries)),
    )
    result = trainer.fit()
    print(f"training finished: {result.metrics}")
    print(f"checkpoint: {result.checkpoint}")


if __name__ == "__main__":
    main()
