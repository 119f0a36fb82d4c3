"""DeepSpeed engine wave C job: ``deepspeed.initialize`` on a tiny MLP (CPU accelerator, gloo) with the JSON config
given by ``--ds-config``; ``engine.backward``/``engine.step`` for ``--steps`` steps, one ``step N loss X`` line per
rank. ``--inf-step`` multiplies that step's loss by inf on every rank (fp16 configs: the loss scaler skips the step).
"""
from __future__ import annotations

import argparse
import datetime

import deepspeed
import torch


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ds-config", required=True)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--inf-step", type=int, default=-1)
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)
    a = p.parse_args()
    deepspeed.init_distributed(dist_backend="gloo")
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=a.ds_config)
    rank, micro = engine.global_rank, engine.train_micro_batch_size_per_gpu()
    for step in range(a.steps):
        x = torch.randn(micro, 32).to(engine.device, dtype=next(engine.module.parameters()).dtype)
        loss = (engine(x) - x[:, :1] * 2).pow(2).mean()
        if step == a.inf_step:
            loss = loss * float("inf")
        engine.backward(loss)
        engine.step()
        print(f"{datetime.datetime.now():%H:%M:%S} [rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
    print(f"[rank{rank}] training finished", flush=True)


if __name__ == "__main__":
    main()
