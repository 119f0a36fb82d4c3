"""A Ray learner actor with an injected native fault, on a local Ray cluster (``ray.init`` starts one):
``python ray_actor.py --fault segv|abort|none --fault-step N``. The driver logs each step's loss and waits on the
actor with ``ray.get``; a crashed actor surfaces as ``ActorDiedError``."""
from __future__ import annotations

import argparse
import ctypes
import logging
import math
import os

import ray


@ray.remote
class Learner:
    def __init__(self, fault: str, fault_step: int, lr: float) -> None:
        import torch

        self.fault, self.fault_step = fault, fault_step
        torch.manual_seed(0)
        self.model = torch.nn.Linear(16, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=lr)

    def train_step(self, step: int) -> float:
        import torch

        x = torch.randn(32, 16)
        loss = ((self.model(x) - x.sum(1, keepdim=True)) ** 2).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        if step == self.fault_step:
            if self.fault == "segv":
                ctypes.string_at(0)
            elif self.fault == "abort":
                os.abort()
        print(f"learner step {step} loss {loss.item():.4f}", flush=True)
        return loss.item()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--fault", default="none")
    p.add_argument("--fault-step", type=int, default=6)
    p.add_argument("--steps", type=int, default=12)
    p.add_argument("--lr", type=float, default=0.01)
    a = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s driver: %(message)s")
    ray.init(num_cpus=2, include_dashboard=False)
    learner = Learner.remote(a.fault, a.fault_step, a.lr)
    for step in range(1, a.steps + 1):
        loss = ray.get(learner.train_step.remote(step))
        logging.info("iteration %d learner loss %.4f", step, loss)
        if not math.isfinite(loss):
            raise RuntimeError(f"learner loss is {loss} at iteration {step}; stopping the run")
    logging.info("training finished")
    ray.shutdown()


if __name__ == "__main__":
    main()
