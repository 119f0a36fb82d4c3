"""Accelerate version of the fresh workload: ``Accelerator(cpu=True)`` prepares a tiny MLP, optimizer and loader.

Faults as in workload.py (``--fault segv|abort`` on ``--fault-rank`` at ``--fault-step``, large ``--lr`` with the
loop's NaN check); ``--ckpt-dir`` calls ``accelerator.save_state`` every ``--ckpt-every`` steps (a tiny tmpfs in
the generator).
"""
from __future__ import annotations

import argparse
import ctypes
import math
import os

import torch
from accelerate import Accelerator
from accelerate.logging import get_logger
from torch.utils.data import DataLoader, TensorDataset
import logging


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--lr", type=float, default=0.01)
    p.add_argument("--hidden", type=int, default=64)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=10)
    p.add_argument("--ckpt-dir", default="")
    p.add_argument("--ckpt-every", type=int, default=10)
    a = p.parse_args()
    acc = Accelerator(cpu=True)
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(name)s - %(message)s", level=logging.INFO)
    log = get_logger("train")
    log.info(acc.state, main_process_only=False)
    torch.manual_seed(0)
    x = torch.randn(4096, 32)
    y = x @ torch.randn(32, 1)
    model = torch.nn.Sequential(torch.nn.Linear(32, a.hidden), torch.nn.ReLU(), torch.nn.Linear(a.hidden, 1))
    opt = torch.optim.SGD(model.parameters(), lr=a.lr)
    model, opt, dl = acc.prepare(model, opt, DataLoader(TensorDataset(x, y), batch_size=32, shuffle=True))
    step = 0
    while step < a.steps:
        for xb, yb in dl:
            step += 1
            loss = torch.nn.functional.mse_loss(model(xb), yb)
            acc.backward(loss)
            opt.step()
            opt.zero_grad()
            log.info(f"step {step} loss {loss.item():.4f}", main_process_only=False)
            if not math.isfinite(loss.item()):
                raise ValueError(f"Loss is {loss.item()} at step {step}, stopping training")
            if acc.process_index == a.fault_rank and step == a.fault_step:
                if a.fault == "segv":
                    ctypes.string_at(0)
                elif a.fault == "abort":
                    os.abort()
                elif a.fault == "memoryerror":
                    staging = bytearray(64 * 2**30)  # a 64 GiB staging buffer on a 23 GiB host
                    del staging
            if a.ckpt_dir and step % a.ckpt_every == 0:
                acc.save_state(os.path.join(a.ckpt_dir, f"step_{step}"))
                log.info(f"saved state at step {step}")
            if step >= a.steps:
                break
    acc.wait_for_everyone()
    log.info("training finished")
    acc.end_training()


if __name__ == "__main__":
    main()
