"""Wave G accelerate job (copied from wave F; ``--feature-dim`` sets the record size, so DataLoader workers pass
larger batches through shared memory): ``Accelerator(gradient_accumulation_steps=...)`` around a tiny MLP, a DataLoader with
worker processes that tokenise/augment records, ``accelerate.logging`` output (``main_process_only=False`` so every
rank logs) and an end-of-run ``accelerator.save_state``.

``--worker-leak``: each DataLoader worker of rank ``--leak-rank`` keeps every batch it produced in a module-level
list (a "record cache" bug): the worker's memory grows until a memory limit (cgroup) makes the kernel OOM killer end
it. Nothing here prints a library's message.
"""
from __future__ import annotations

import argparse
import datetime
import logging
import os

import torch
from accelerate import Accelerator, InitProcessGroupKwargs
from accelerate.logging import get_logger
from torch.utils.data import DataLoader, Dataset

log = get_logger("train_acc")
CACHE: list = []


class Records(Dataset):
    def __init__(self, n: int, leak: bool, dim: int = 16) -> None:
        self.n, self.leak, self.dim = n, leak, dim

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        x = torch.randn(self.dim, generator=g)
        if self.leak:
            CACHE.append(torch.ones(8 * 2**20 // 4))  # 8 MiB per record "cached for the next epoch", never freed
        return x, x.sum().unsqueeze(0)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=60)
    p.add_argument("--accum", type=int, default=2)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--feature-dim", type=int, default=16)
    p.add_argument("--leak-rank", type=int, default=-1)
    p.add_argument("--timeout", type=float, default=1800.0, help="process-group timeout, seconds")
    a = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    kwargs = [InitProcessGroupKwargs(backend="gloo", timeout=datetime.timedelta(seconds=a.timeout))]
    acc = Accelerator(cpu=True, gradient_accumulation_steps=a.accum, kwargs_handlers=kwargs)
    log.info("process %d/%d pid %d device %s", acc.process_index, acc.num_processes, os.getpid(), acc.device,
             main_process_only=False)
    model = torch.nn.Sequential(torch.nn.Linear(a.feature_dim, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    data = Records(a.steps * a.accum * 16 * acc.num_processes, acc.process_index == a.leak_rank, a.feature_dim)
    loader = DataLoader(data, batch_size=16, num_workers=a.workers, shuffle=True)
    model, opt, loader = acc.prepare(model, opt, loader)
    log.info("%d batches per process, gradient accumulation %d", len(loader), a.accum, main_process_only=False)
    for i, (x, y) in enumerate(loader):
        with acc.accumulate(model):
            loss = torch.nn.functional.mse_loss(model(x), y)
            acc.backward(loss)
            opt.step()
            opt.zero_grad()
        if acc.sync_gradients:
            mean = acc.reduce(loss.detach(), reduction="mean")
            log.info("update %d (batch %d) loss %.4f mean loss %.4f", i // a.accum + 1, i + 1, loss.item(),
                     mean.item(), main_process_only=False)
    acc.wait_for_everyone()
    acc.save_state("checkpoint")
    log.info("saved state to checkpoint/; training finished", main_process_only=False)
    acc.end_training()


if __name__ == "__main__":
    main()
