"""Shared pieces of the small RL-style Ray jobs that the generator runs.

A toy PPO/GRPO-like loop: one trainer actor holds a tiny torch policy, a few
rollout actors in a placement group "generate" rollouts with the latest
weights (tensors go through the object store), the trainer does a step and the
driver logs progress.  Everything is sized for a 2-CPU machine.
"""
import logging
import os
import sys
import time

import ray
import torch
from ray.util.placement_group import placement_group, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

LOG_FORMAT = "%(asctime)s %(levelname)s [%(name)s] %(message)s"


def setup_logging(name="rlhf.driver"):
    logging.basicConfig(level=logging.INFO, format=LOG_FORMAT, stream=sys.stdout)
    return logging.getLogger(name)


def init_ray(**kw):
    args = dict(num_cpus=2, include_dashboard=False,
                object_store_memory=100 * 1024 * 1024)
    args.update(kw)
    return ray.init(**args)


def make_policy(hidden=64, vocab=128):
    torch.manual_seed(0)
    return torch.nn.Sequential(
        torch.nn.Embedding(vocab, hidden),
        torch.nn.Linear(hidden, hidden),
        torch.nn.Tanh(),
        torch.nn.Linear(hidden, vocab),
    )


class PolicyTrainer:
    """Policy trainer (like OpenRLHF's PolicyModelActor / verl's actor worker)."""

    def __init__(self, lr=1e-3, hidden=64):
        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT, stream=sys.stdout)
        self.log = logging.getLogger("rlhf.trainer")
        torch.set_num_threads(1)
        self.model = make_policy(hidden)
        self.opt = torch.optim.AdamW(self.model.parameters(), lr=lr)
        self.step = 0
        n = sum(p.numel() for p in self.model.parameters())
        self.log.info("trainer ready on pid %d: policy has %d parameters", os.getpid(), n)

    def get_weights(self):
        return {k: v.detach().clone() for k, v in self.model.state_dict().items()}

    def train_step(self, rollouts):
        tokens = torch.cat([r["tokens"] for r in rollouts])
        rewards = torch.cat([r["rewards"] for r in rollouts])
        logits = self.model(tokens[:, :-1])
        logp = torch.log_softmax(logits, -1).gather(-1, tokens[:, 1:, None]).squeeze(-1)
        adv = (rewards - rewards.mean()) / (rewards.std() + 1e-6)
        loss = -(logp.mean(-1) * adv).mean()
        self.opt.zero_grad()
        loss.backward()
        gnorm = torch.nn.utils.clip_grad_norm_(self.model.parameters(), 1.0)
        self.opt.step()
        self.step += 1
        stats = {"step": self.step, "loss": round(loss.item(), 4),
                 "grad_norm": round(float(gnorm), 4),
                 "reward_mean": round(rewards.mean().item(), 4)}
        self.log.info("train step %d: %s", self.step, stats)
        return stats


class RolloutWorker:
    """Rollout worker (like a vLLM engine actor): samples with the current weights."""

    def __init__(self, rank, hidden=64):
        logging.basicConfig(level=logging.INFO, format=LOG_FORMAT, stream=sys.stdout)
        self.log = logging.getLogger("rlhf.rollout")
        torch.set_num_threads(1)
        self.rank = rank
        self.model = make_policy(hidden)
        self.version = 0
        self.log.info("rollout worker %d initialised (pid %d)", rank, os.getpid())

    def update_weights(self, weights, version):
        self.model.load_state_dict(weights)
        self.version = version
        print(f"[rollout {self.rank}] loaded weights version {version}", flush=True)
        return version

    @torch.no_grad()
    def generate(self, n_prompts=8, seq_len=16):
        g = torch.Generator().manual_seed(1000 * self.rank + self.version)
        tokens = torch.randint(0, 128, (n_prompts, 4), generator=g)
        while tokens.shape[1] < seq_len:
            logits = self.model(tokens)[:, -1]
            nxt = torch.multinomial(torch.softmax(logits, -1), 1, generator=g)
            tokens = torch.cat([tokens, nxt], 1)
        rewards = (tokens[:, 4:] % 7 == 0).float().mean(-1)
        time.sleep(0.2)  # stand-in for decode time
        print(f"[rollout {self.rank}] generated {n_prompts} samples, "
              f"mean reward {rewards.mean().item():.3f}", flush=True)
        return {"tokens": tokens, "rewards": rewards}


Trainer = ray.remote(PolicyTrainer)
Rollout = ray.remote(RolloutWorker)


def make_group(n_rollout, cpu_per_bundle=0.5, strategy="PACK", extra=None, log=None):
    bundles = [{"CPU": cpu_per_bundle} for _ in range(n_rollout + 1)]
    if extra:
        for b in bundles:
            b.update(extra)
    pg = placement_group(bundles, strategy=strategy, name="rlhf_pg")
    if log:
        log.info("created placement group %s with bundles=%s strategy=%s", pg.id.hex()[:12], bundles, strategy)
    return pg


def spawn_in_group(pg, n_rollout, cpu_per_bundle=0.5, trainer_cls=None, rollout_cls=None):
    trainer_cls = trainer_cls or Trainer
    rollout_cls = rollout_cls or Rollout
    trainer = trainer_cls.options(
        num_cpus=cpu_per_bundle, name="PolicyTrainer",
        scheduling_strategy=PlacementGroupSchedulingStrategy(pg, placement_group_bundle_index=0),
    ).remote()
    rollouts = [
        rollout_cls.options(
            num_cpus=cpu_per_bundle,
            scheduling_strategy=PlacementGroupSchedulingStrategy(pg, placement_group_bundle_index=i + 1),
        ).remote(i)
        for i in range(n_rollout)
    ]
    return trainer, rollouts


def rl_loop(trainer, rollouts, n_iters, log, n_prompts=8):
    for it in range(1, n_iters + 1):
        t0 = time.time()
        weights_ref = trainer.get_weights.remote()
        ray.get([r.update_weights.remote(weights_ref, it) for r in rollouts])
        batch = ray.get([r.generate.remote(n_prompts) for r in rollouts])
        stats = ray.get(trainer.train_step.remote(batch))
        log.info("iter %d/%d done in %.2fs: loss=%s reward=%s samples=%d",
                 it, n_iters, time.time() - t0, stats["loss"], stats["reward_mean"],
                 sum(b["tokens"].shape[0] for b in batch))
    return stats
