"""Offline batch inference submitted with ``ray job submit``: prompts are read into a Ray Dataset and scored by a
pool of model replicas (``map_batches`` with a callable class, ``concurrency`` replicas, ``--gpus-per-replica`` GPUs
each, as vLLM/HF offline-inference recipes set up), then written to JSON. ``--actor-start-timeout`` sets Ray Data's
``DataContext.wait_for_min_actors_s``. The "model" is a small torch module built in place (no weights download).
"""
from __future__ import annotations

import argparse
import time

import numpy as np
import ray
import torch


class Scorer:
    def __init__(self) -> None:
        torch.manual_seed(0)
        self.model = torch.nn.Sequential(torch.nn.EmbeddingBag(256, 64), torch.nn.Linear(64, 1))
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        print(f"replica ready on {self.device}", flush=True)

    def __call__(self, batch: dict) -> dict:
        scores = []
        with torch.no_grad():
            for prompt in batch["prompt"]:
                ids = torch.tensor(list(prompt.encode()[:256])).unsqueeze(0)
                scores.append(float(self.model(ids)))
        return {"id": batch["id"], "score": np.array(scores)}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--prompts", type=int, default=5000)
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--gpus-per-replica", type=float, default=1.0)
    p.add_argument("--actor-start-timeout", type=float, default=600)
    p.add_argument("--out", default="/tmp/wavei-scores")
    a = p.parse_args()
    ray.init()
    ctx = ray.data.DataContext.get_current()
    ctx.wait_for_min_actors_s = a.actor_start_timeout
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    t0 = time.time()
    prompts = ray.data.range(a.prompts).map(lambda r: {"id": r["id"], "prompt": f"Summarize ticket {r['id']}: " * 3})
    scored = prompts.map_batches(Scorer, batch_size=64, concurrency=a.replicas, num_gpus=a.gpus_per_replica)
    scored.write_json(a.out)
    print(f"scored {a.prompts} prompts in {time.time() - t0:.1f}s", flush=True)


if __name__ == "__main__":
    main()
