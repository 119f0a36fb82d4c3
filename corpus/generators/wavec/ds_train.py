"""DeepSpeed engine wave C job: ``deepspeed.initialize`` on a tiny MLP (CPU accelerator, gloo) with the JSON config
given by ``--ds-config``; ``engine.backward``/``engine.step`` for ``--steps`` steps, one ``step N loss X`` line per
rank. ``--inf-step`` multiplies that step's loss by inf on every rank (fp16 configs: the loss scaler skips the step);
``--inf-from`` does so for every step from then on (a diverged run: the scaler backs off to its minimum).
``--hang-rank``/``--hang-step``: that rank blocks reading a FIFO nobody writes (stuck I/O; its peers wait in the next
gradient all_reduce). ``--dist-timeout`` (s) is the process-group timeout given to ``deepspeed.init_distributed``.
"""
from __future__ import annotations

import argparse
import datetime
import os

import deepspeed
import torch


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--ds-config", required=True)
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--inf-step", type=int, default=-1)
    p.add_argument("--inf-from", type=int, default=-1)
    p.add_argument("--hang-rank", type=int, default=-1)
    p.add_argument("--hang-step", type=int, default=-1)
    p.add_argument("--dist-timeout", type=float, default=1800.0)
    p.add_argument("--local_rank", "--local-rank", type=int, default=0)
    a = p.parse_args()
    deepspeed.init_distributed(dist_backend="gloo", timeout=datetime.timedelta(seconds=a.dist_timeout))
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    engine, _, _, _ = deepspeed.initialize(model=model, model_parameters=model.parameters(), config=a.ds_config)
    rank, micro = engine.global_rank, engine.train_micro_batch_size_per_gpu()
    for step in range(a.steps):
        x = torch.randn(micro, 32).to(engine.device, dtype=next(engine.module.parameters()).dtype)
        loss = (engine(x) - x[:, :1] * 2).pow(2).mean()
        if step == a.inf_step or 0 <= a.inf_from <= step:
            loss = loss * float("inf")
        if rank == a.hang_rank and step == a.hang_step:
            fifo = f"stuck-{rank}.fifo"
            os.mkfifo(fifo)
            with open(fifo) as f:  # blocks: nobody ever opens it for writing
                f.read()
        engine.backward(loss)
        engine.step()
        print(f"{datetime.datetime.now():%H:%M:%S} [rank{rank}] step {step} loss {loss.item():.4f}", flush=True)
    print(f"[rank{rank}] training finished", flush=True)


if __name__ == "__main__":
    main()
