"""A second Ray RL job (PPO-style, generator/reward/learner split) used by ``generate.py``.

Different in shape from ``rollout_ray.py``: ``Generator`` actors run a per-prompt rollout loop
and print progress with ``print`` (so Ray prefixes ``(Generator pid=...)``), rewards are scored
by Ray tasks in batches, a ``Learner`` actor owns the policy and optimizer, and the driver logs
with its own format. ``--placement`` instead reserves a placement group for ``--learners``
learner actors with ``--learner-gpus`` each and waits ``--pg-timeout`` seconds for it.
Everything printed is what it really does on this machine.

Faults come from ``TRAINER_FAULT`` (never printed): ``long_prompt:actor=1:iter=6`` puts an
over-long prompt into actor 1's batch at iteration 6 (ValueError in the rollout loop);
``reward_cache:iter=4`` makes the reward task at iteration 4 build a lookup table that keeps
growing (the node runs low on memory).
"""

from __future__ import annotations

import argparse
import logging
import os
import random
import sys
import time

import ray
import torch
from ray.util.placement_group import placement_group, placement_group_table
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

log = logging.getLogger("ppo")
VOCAB = 64
MAX_LEN = 24


def fault() -> dict:
    raw = os.environ.get("TRAINER_FAULT", "")
    if not raw:
        return {}
    kind, *kvs = raw.split(":")
    return {"kind": kind, **{k: int(v) for k, v in (kv.split("=") for kv in kvs)}}


def policy_net() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.EmbeddingBag(VOCAB, 32), torch.nn.Tanh(), torch.nn.Linear(32, VOCAB))


@ray.remote(num_cpus=0.5)
class Generator:
    def __init__(self, idx: int, max_len: int) -> None:
        torch.set_num_threads(1)
        self.idx, self.max_len = idx, max_len
        self.policy = policy_net()
        print(f"Generator {idx} initialised on {ray.util.get_node_ip_address()}, max_len={max_len}")

    def load_weights(self, state: dict, version: int) -> int:
        self.policy.load_state_dict(state)
        return version

    def generate(self, prompts: list[list[int]], it: int) -> list[dict]:
        out = []
        for n, prompt in enumerate(prompts):
            if len(prompt) > self.max_len:
                raise ValueError(f"prompt {n} of batch {it} has {len(prompt)} tokens, "
                                 f"longer than max_len={self.max_len}")
            seq = list(prompt)
            with torch.no_grad():
                for _ in range(6):
                    logits = self.policy(torch.tensor([seq]))
                    seq.append(int(torch.distributions.Categorical(logits=logits).sample()))
            out.append({"prompt": prompt, "response": seq[len(prompt):]})
        if it % 4 == 0:
            print(f"[gen {self.idx}] iter {it}: generated {len(out)} responses")
        return out


@ray.remote(num_cpus=0.5, max_retries=0)
def score(samples: list[dict], it: int, grow_table: bool) -> list[float]:
    table = []
    if grow_table:
        # a lookup table of response n-grams, built for every batch
        for _ in range(400):
            table.append(torch.ones(64 * 2**20 // 4))  # 64 MiB per entry
            time.sleep(0.02)
    return [sum(1.0 for t in s["response"] if t % 2 == 0) / len(s["response"]) for s in samples]


@ray.remote(num_cpus=0.5)
class Learner:
    def __init__(self, lr: float) -> None:
        torch.set_num_threads(1)
        self.policy = policy_net()
        self.opt = torch.optim.Adam(self.policy.parameters(), lr=lr)
        self.version = 0

    def update(self, samples: list[dict], rewards: list[float], clip: float) -> dict:
        r = torch.tensor(rewards)
        adv = (r - r.mean()) / (r.std() + 1e-6)
        with torch.no_grad():
            old = [torch.log_softmax(self.policy(torch.tensor([s["prompt"]])), -1)[0, s["response"][0]]
                   for s in samples]
        logp = torch.stack([torch.log_softmax(self.policy(torch.tensor([s["prompt"]])), -1)[0, s["response"][0]]
                            for s in samples])
        ratio = torch.exp(logp - torch.stack(old))
        loss = -torch.min(ratio * adv, torch.clamp(ratio, 1 - clip, 1 + clip) * adv).mean()
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()
        self.version += 1
        return {"loss": loss.item(), "version": self.version}

    def weights(self) -> dict:
        return self.policy.state_dict()


def run_placement(args) -> int:
    bundles = [{"CPU": 1, "GPU": args.learner_gpus} for _ in range(args.learners)]
    log.info("creating placement group: %d bundles %s, strategy=%s", len(bundles), bundles, args.strategy)
    pg = placement_group(bundles, strategy=args.strategy, name="ppo-learners")
    learners = [Learner.options(num_gpus=args.learner_gpus, scheduling_strategy=PlacementGroupSchedulingStrategy(
        placement_group=pg, placement_group_bundle_index=i)).remote(args.lr) for i in range(args.learners)]
    log.info("waiting for %d learner actors ...", len(learners))
    try:
        ray.get(pg.ready(), timeout=args.pg_timeout)
    except ray.exceptions.GetTimeoutError:
        log.error("placement group not ready after %ss: %s", args.pg_timeout, placement_group_table(pg))
        log.error("cluster resources %s, available %s", ray.cluster_resources(), ray.available_resources())
        raise
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=12)
    ap.add_argument("--generators", type=int, default=2)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--max-len", type=int, default=MAX_LEN)
    ap.add_argument("--lr", type=float, default=1e-2)
    ap.add_argument("--clip", type=float, default=0.2)
    ap.add_argument("--placement", action="store_true")
    ap.add_argument("--learners", type=int, default=2)
    ap.add_argument("--learner-gpus", type=float, default=1.0)
    ap.add_argument("--strategy", default="STRICT_PACK")
    ap.add_argument("--pg-timeout", type=float, default=30.0)
    args = ap.parse_args()
    f = fault()
    logging.basicConfig(level=logging.INFO, stream=sys.stdout,
                        format="%(asctime)s | %(levelname)s | %(name)s:%(funcName)s:%(lineno)d - %(message)s")
    log.info("PPO config:")
    for k, v in sorted(vars(args).items()):
        log.info("  %-14s %s", k, v)
    ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20)
    log.info("ray %s cluster: %s", ray.__version__, ray.cluster_resources())
    if args.placement:
        return run_placement(args)

    rng = random.Random(3)
    prompts = [[rng.randrange(VOCAB) for _ in range(rng.randrange(4, args.max_len))] for _ in range(2000)]
    gens = [Generator.remote(i, args.max_len) for i in range(args.generators)]
    learner = Learner.remote(args.lr)
    log.info("started %d generators and 1 learner", len(gens))
    t_start = time.time()
    for it in range(1, args.iterations + 1):
        t0 = time.time()
        w = ray.put(ray.get(learner.weights.remote()))
        ray.get([g.load_weights.remote(w, it) for g in gens])
        batch = prompts[(it * args.batch) % 1900: (it * args.batch) % 1900 + args.batch]
        per = len(batch) // len(gens)
        parts = [batch[i * per:(i + 1) * per] for i in range(len(gens))]
        if f.get("kind") == "long_prompt" and it == f["iter"]:
            parts[f["actor"]][5] = [rng.randrange(VOCAB) for _ in range(args.max_len + 9)]
        samples = sum(ray.get([g.generate.remote(p, it) for g, p in zip(gens, parts)]), [])
        t_gen = time.time() - t0
        grow = f.get("kind") == "reward_cache" and it == f["iter"]
        rewards = sum(ray.get([score.remote(samples[i:i + 8], it, grow) for i in range(0, len(samples), 8)]), [])
        stats = ray.get(learner.update.remote(samples, rewards, args.clip))
        log.info("iter %3d | reward_mean %.4f | ppo_loss %+.4f | policy_version %d | gen %.2fs | total %.2fs",
                 it, sum(rewards) / len(rewards), stats["loss"], stats["version"], t_gen, time.time() - t0)
    log.info("finished %d iterations in %.1fs", args.iterations, time.time() - t_start)
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
