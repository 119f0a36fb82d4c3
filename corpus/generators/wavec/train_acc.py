"""accelerate wave C job: a tiny MLP trained with ``Accelerator`` (CPU processes, gloo), data from a DataLoader with
worker processes, loss gathered across ranks for logging every step.

``--fault``: ``loader-raise`` (a worker of ``--fault-rank`` raises on a corrupt record at ``--fault-step``),
``uneven`` (that rank's shard ends at ``--fault-step`` and it goes to the final barrier; its peers wait in the
next ``accelerator.gather`` until the process-group timeout ``--timeout`` set through ``InitProcessGroupKwargs``).
``--deepspeed-config`` hands a DeepSpeed JSON config to ``DeepSpeedPlugin`` (its batch sizes are checked by
DeepSpeed at ``prepare``).
"""
from __future__ import annotations

import argparse
import datetime
import time

import torch
from accelerate import Accelerator, DeepSpeedPlugin, InitProcessGroupKwargs
from torch.utils.data import DataLoader, Dataset


class Records(Dataset):
    def __init__(self, n: int, bad: set[int]) -> None:
        g = torch.Generator().manual_seed(0)
        self.x = torch.randn(n, 32, generator=g)
        self.bad = bad

    def __len__(self) -> int:
        return len(self.x)

    def __getitem__(self, i: int):
        if i in self.bad:
            raise ValueError(f"record {i}: label column missing in parquet row group (schema drift?)")
        return self.x[i], self.x[i, :1] * 2.0


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-rank", type=int, default=1)
    p.add_argument("--fault-step", type=int, default=10)
    p.add_argument("--timeout", type=float, default=1800.0)
    p.add_argument("--sleep", type=float, default=0.0, help="seconds per step (a slower model)")
    p.add_argument("--deepspeed-config", default="")
    a = p.parse_args()
    kwargs = [InitProcessGroupKwargs(backend="gloo", timeout=datetime.timedelta(seconds=a.timeout))]
    plugin = DeepSpeedPlugin(hf_ds_config=a.deepspeed_config) if a.deepspeed_config else None
    acc = Accelerator(cpu=True, kwargs_handlers=kwargs, deepspeed_plugin=plugin)
    print(acc.state, flush=True)
    world = acc.num_processes
    n = a.batch * world * (a.steps + 2)
    bad = set()
    if a.fault == "loader-raise":  # accelerate shards batches round-robin: batch k*world+r goes to rank r
        first = a.batch * (world * a.fault_step + a.fault_rank)
        bad = set(range(first, first + a.batch))
    loader = DataLoader(Records(n, bad), batch_size=a.batch, num_workers=a.workers)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.05)
    model, opt, loader = acc.prepare(model, opt, loader)
    for step, (x, y) in enumerate(loader):
        if step >= a.steps:
            break
        loss = torch.nn.functional.mse_loss(model(x), y)
        acc.backward(loss)
        opt.step()
        opt.zero_grad()
        time.sleep(a.sleep)
        if a.fault == "uneven" and acc.process_index == a.fault_rank and step == a.fault_step:
            print(f"[rank{acc.process_index}] step {step}: local shard exhausted, leaving the epoch", flush=True)
            break
        mean = acc.gather(loss.detach()[None]).mean()
        print(f"{datetime.datetime.now():%H:%M:%S} [rank{acc.process_index}] step {step} loss {loss.item():.4f} "
              f"mean_loss {mean.item():.4f}", flush=True)
    acc.wait_for_everyone()
    acc.print("training finished")
    acc.end_training()


if __name__ == "__main__":
    main()
