"""A small Ray-based RL fine-tuning loop (REINFORCE with a group baseline) used by ``generate.py``.

The driver starts a local Ray instance, pre-processes a prompt set with Ray tasks, then either
runs the loop — ``EnvRunner`` actors sample answers from the current policy and score them with a
rule-based reward, the driver-side learner updates the policy and pushes the weights back through
the object store — or (``--placement``) first reserves a placement group for a set of
data-parallel learner workers and waits for it. Everything printed is what it really does.

Faults come from the ``TRAINER_FAULT`` environment variable (never printed):
``unknown_task:runner=1:iter=6`` makes one prompt of an unseen task type reach runner 1 at
iteration 6, so the reward function raises ``KeyError`` inside that actor.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import random
import sys
import time

import ray
import torch
from ray.util.placement_group import placement_group
from tqdm import tqdm

log = logging.getLogger("rl.driver")
FMT = "%(asctime)s %(levelname)-7s %(name)s: %(message)s"

TASKS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "max": max, "min": min}
N_ANSWERS = 32  # answers are integers 0..31


def fault() -> dict:
    raw = os.environ.get("TRAINER_FAULT", "")
    if not raw:
        return {}
    kind, *kvs = raw.split(":")
    return {"kind": kind, **{k: int(v) for k, v in (kv.split("=") for kv in kvs)}}


def make_policy() -> torch.nn.Module:
    torch.manual_seed(0)
    return torch.nn.Sequential(torch.nn.Embedding(len(TASKS) * 16 * 16, 48), torch.nn.ReLU(),
                               torch.nn.Linear(48, N_ANSWERS))


def encode(p: dict) -> int:
    return list(TASKS).index(p["task"]) * 256 + p["a"] * 16 + p["b"] if p["task"] in TASKS else 0


@ray.remote
def preprocess_shard(shard_id: int, n: int, seed: int) -> list[dict]:
    rng = random.Random(seed + shard_id)
    prompts = []
    for _ in range(n):
        task = rng.choice(list(TASKS))
        a, b = rng.randrange(16), rng.randrange(16)
        if task == "sub" and a < b:
            a, b = b, a
        prompts.append({"task": task, "a": a, "b": b, "text": f"{task}({a}, {b}) = ?"})
    print(f"shard {shard_id}: {n} prompts, task mix "
          + ", ".join(f"{t}={sum(p['task'] == t for p in prompts)}" for t in TASKS))
    return prompts


@ray.remote(num_cpus=0.5)
class EnvRunner:
    def __init__(self, runner_id: int, group_size: int) -> None:
        logging.basicConfig(level=logging.INFO, format=FMT, stream=sys.stdout)
        self.log = logging.getLogger(f"rl.runner{runner_id}")
        torch.set_num_threads(1)
        self.id = runner_id
        self.group = group_size
        self.policy = make_policy()
        self.rewards = {t: 0 for t in TASKS}
        self.log.info("EnvRunner %d ready (pid %d, group_size=%d)", runner_id, os.getpid(), group_size)

    def set_weights(self, weights: dict) -> None:
        self.policy.load_state_dict(weights)

    def reward(self, prompt: dict, answer: int) -> float:
        target = TASKS[prompt["task"]](prompt["a"], prompt["b"])
        return 1.0 if answer == target else -abs(answer - target) / N_ANSWERS

    def rollout(self, prompts: list[dict], it: int) -> dict:
        t0 = time.time()
        with torch.no_grad():
            logits = self.policy(torch.tensor([encode(p) for p in prompts]))
            dist_ = torch.distributions.Categorical(logits=logits)
            answers = dist_.sample((self.group,)).T  # [prompts, group]
        rewards = torch.tensor([[self.reward(p, int(a)) for a in row] for p, row in zip(prompts, answers)])
        if it % 5 == 0:
            self.log.info("iter %d: %d prompts x %d samples in %.0f ms, mean reward %.3f", it, len(prompts),
                          self.group, 1000 * (time.time() - t0), rewards.mean().item())
        return {"ids": [encode(p) for p in prompts], "answers": answers, "rewards": rewards}


def run_placement(args, cfg) -> int:
    bundles = [{"CPU": args.cpus_per_worker} for _ in range(args.learners)]
    log.info("Reserving placement group for %d learner workers: bundles=%s strategy=%s", args.learners, bundles,
             args.strategy)
    pg = placement_group(bundles, strategy=args.strategy, name="learner-group")
    t0 = time.time()
    ready = pg.ready()
    while True:
        done, _ = ray.wait([ready], timeout=10)
        if done:
            break
        waited = time.time() - t0
        log.warning("Placement group learner-group not ready after %.0fs (available: %s)", waited,
                    ray.available_resources())
        if waited >= args.pg_timeout:
            from ray.util import placement_group_table
            log.error("placement group state: %s", placement_group_table(pg))
            raise TimeoutError(f"placement group for {args.learners} learner workers was not scheduled "
                               f"within {args.pg_timeout}s")
    log.info("placement group ready in %.1fs", time.time() - t0)
    return 0


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--runners", type=int, default=2)
    ap.add_argument("--prompts-per-iter", type=int, default=64)
    ap.add_argument("--group-size", type=int, default=8)
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--shards", type=int, default=8)
    ap.add_argument("--eval-every", type=int, default=5)
    ap.add_argument("--save-every", type=int, default=10)
    ap.add_argument("--output-dir", default="outputs/rl-arith")
    ap.add_argument("--placement", action="store_true")
    ap.add_argument("--learners", type=int, default=3)
    ap.add_argument("--cpus-per-worker", type=float, default=1.0)
    ap.add_argument("--strategy", default="PACK")
    ap.add_argument("--pg-timeout", type=float, default=40.0)
    args = ap.parse_args()
    f = fault()
    logging.basicConfig(level=logging.INFO, format=FMT, stream=sys.stdout)
    log.info("config: %s", json.dumps(vars(args), sort_keys=True))
    ctx = ray.init(num_cpus=2, include_dashboard=False, object_store_memory=80 * 2**20)
    log.info("Ray %s, python %s, cluster resources: %s", ray.__version__, sys.version.split()[0],
             ray.cluster_resources())

    # 1. prompt set via Ray tasks -------------------------------------------------------------
    t0 = time.time()
    refs = [preprocess_shard.remote(i, 96, 7) for i in range(args.shards)]
    prompts: list[dict] = []
    with tqdm(total=len(refs), desc="preprocess", mininterval=0.5) as bar:
        pending = refs
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            prompts.extend(ray.get(done[0]))
            bar.update(1)
    rng = random.Random(11)
    rng.shuffle(prompts)
    evalset, trainset = prompts[:96], prompts[96:]
    log.info("prompt set: %d train / %d eval prompts from %d shards in %.1fs", len(trainset), len(evalset),
             args.shards, time.time() - t0)

    if args.placement:
        return run_placement(args, ctx)

    # 2. RL loop --------------------------------------------------------------------------------
    policy = make_policy()
    opt = torch.optim.Adam(policy.parameters(), lr=args.lr)
    runners = [EnvRunner.remote(i, args.group_size) for i in range(args.runners)]
    ray.get([r.set_weights.remote(policy.state_dict()) for r in runners])
    log.info("%d EnvRunner actors up; starting %d iterations", len(runners), args.iterations)
    per_runner = args.prompts_per_iter // args.runners
    os.makedirs(args.output_dir, exist_ok=True)
    for it in range(1, args.iterations + 1):
        t_it = time.time()
        batch = [trainset[(it * args.prompts_per_iter + j) % len(trainset)] for j in range(args.prompts_per_iter)]
        shards = [batch[i * per_runner:(i + 1) * per_runner] for i in range(args.runners)]
        if f.get("kind") == "unknown_task" and it == f["iter"]:
            shards[f["runner"]][3] = {"task": "mul", "a": 3, "b": 4, "text": "mul(3, 4) = ?"}
        results = ray.get([r.rollout.remote(s, it) for r, s in zip(runners, shards)])
        ids = torch.tensor(sum((r["ids"] for r in results), []))
        answers = torch.cat([r["answers"] for r in results])
        rewards = torch.cat([r["rewards"] for r in results])
        adv = (rewards - rewards.mean(1, keepdim=True)) / (rewards.std(1, keepdim=True) + 1e-6)
        logp = torch.log_softmax(policy(ids), -1).gather(1, answers)
        loss = -(adv * logp).mean()
        opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm(policy.parameters(), 1.0)
        opt.step()
        weights = ray.put(policy.state_dict())
        ray.get([r.set_weights.remote(weights) for r in runners])
        acc = (rewards == 1.0).float().mean().item()
        log.info("iter %d/%d | reward %.3f +/- %.3f | acc %.3f | pg_loss %.4f | grad_norm %.3f | %.2fs/iter",
                 it, args.iterations, rewards.mean().item(), rewards.std().item(), acc, loss.item(), gnorm.item(),
                 time.time() - t_it)
        if it % args.eval_every == 0:
            with torch.no_grad():
                pred = policy(torch.tensor([encode(p) for p in evalset])).argmax(-1)
            correct = sum(int(a) == TASKS[p["task"]](p["a"], p["b"]) for a, p in zip(pred, evalset))
            log.info("eval @ iter %d: greedy accuracy %.3f (%d/%d)", it, correct / len(evalset), correct,
                     len(evalset))
        if it % args.save_every == 0:
            path = os.path.join(args.output_dir, f"policy_iter{it:04d}.pt")
            torch.save(policy.state_dict(), path)
            log.info("saved checkpoint %s", path)
    log.info("done: %d iterations, final mean reward %.3f", args.iterations, rewards.mean().item())
    ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
