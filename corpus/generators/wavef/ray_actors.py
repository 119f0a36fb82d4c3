"""Wave F plain Ray actors job: a driver-side parameter average over ``--workers`` ``Learner`` actors (1 CPU each)
on a local Ray cluster; each iteration the driver sends the weights, every actor computes a gradient on its shard
and the driver averages them. ``logging`` lines from the actors are forwarded by Ray.

``--leak-rank R``: learner R keeps ``--cache-mb`` MiB of "rollout history" per iteration (a real, growing
allocation) until a memory limit ends its process. ``--strategy STRICT_SPREAD``: the learners are placed through a
placement group (one bundle per learner) with that strategy; the driver waits ``--pg-timeout`` s for it to be
ready (0: it does not wait and goes straight to the actors' first calls). Nothing here prints a message that
stands in for Ray's.
"""
from __future__ import annotations

import argparse
import logging
import os
import time

import ray
import torch
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

log = logging.getLogger("learner")


@ray.remote(num_cpus=1)
class Learner:
    def __init__(self, rank: int, leak: bool, cache_mb: int) -> None:
        logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
        self.rank, self.leak, self.cache_mb, self.history = rank, leak, cache_mb, []
        self.model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
        self.g = torch.Generator().manual_seed(rank)
        log.info("learner %d ready on pid %d", rank, os.getpid())

    def grad(self, state: dict, it: int) -> tuple[list, float]:
        self.model.load_state_dict(state)
        x = torch.randn(64, 16, generator=self.g)
        loss = torch.nn.functional.mse_loss(self.model(x), x.sum(1, keepdim=True))
        self.model.zero_grad()
        loss.backward()
        if self.leak:
            self.history.append(torch.ones(self.cache_mb * 2**20 // 4))
        log.info("learner %d iteration %d loss %.4f history %d MiB", self.rank, it, loss.item(),
                 self.cache_mb * len(self.history) if self.leak else 0)
        return [p.grad for p in self.model.parameters()], loss.item()


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--iters", type=int, default=40)
    p.add_argument("--leak-rank", type=int, default=-1)
    p.add_argument("--cache-mb", type=int, default=128)
    p.add_argument("--sleep", type=float, default=0.2)
    p.add_argument("--strategy", default="")
    p.add_argument("--pg-timeout", type=float, default=60.0)
    a = p.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s driver: %(message)s")
    ray.init(num_cpus=a.workers, include_dashboard=False)
    opts = [{} for _ in range(a.workers)]
    if a.strategy:
        pg = placement_group([{"CPU": 1}] * a.workers, strategy=a.strategy, name="learners")
        logging.info("placement group %s (%d x 1 CPU, %s) created; ready timeout %.0f s (0: do not wait)",
                     pg.id.hex(), a.workers, a.strategy, a.pg_timeout)
        ready, _ = ray.wait([pg.ready()], timeout=a.pg_timeout) if a.pg_timeout > 0 else ([None], [])
        if not ready:
            raise TimeoutError(f"placement group for {a.workers} learners not ready after {a.pg_timeout:.0f} s: "
                               f"{ray.util.placement_group_table(pg)}")
        opts = [{"scheduling_strategy": PlacementGroupSchedulingStrategy(pg, placement_group_bundle_index=r)}
                for r in range(a.workers)]
    learners = [Learner.options(**opts[r]).remote(r, r == a.leak_rank, a.cache_mb) for r in range(a.workers)]
    model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for it in range(a.iters):
        state = ray.put(model.state_dict())
        results = ray.get([w.grad.remote(state, it) for w in learners])
        for i, param in enumerate(model.parameters()):
            param.grad = torch.stack([r[0][i] for r in results]).mean(0)
        opt.step()
        logging.info("iteration %d mean loss %.4f", it, sum(r[1] for r in results) / len(results))
        time.sleep(a.sleep)
    logging.info("training finished")


if __name__ == "__main__":
    main()
