"""PPO driver: python -m tutorrlhf.main_ppo --data.train-files data/prompts.jsonl ...

Creates a placement group for the trainer actor group, starts 2 PolicyTrainer actors (a gloo group), a RolloutWorker
and a RewardWorker, then loops rollout -> reward -> advantages -> sharded PPO update, validating and checkpointing.
"""
import argparse
import json
import logging
import os
import random
import time

import ray
import torch
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from .workers import PolicyTrainer, RewardWorker, RolloutWorker

logger = logging.getLogger("tutorrlhf")


def parse_args(argv=None):
    ap = argparse.ArgumentParser("tutorrlhf.main_ppo")
    ap.add_argument("--data.train-files", dest="train_files", default="data/prompts.jsonl")
    ap.add_argument("--data.val-files", dest="val_files", default="data/valid.jsonl")
    ap.add_argument("--data.rollout-batch-size", dest="rollout_batch_size", type=int, default=64)
    ap.add_argument("--rollout.n", dest="n_samples", type=int, default=1)
    ap.add_argument("--rollout.max-response-length", dest="max_response_length", type=int, default=24)
    ap.add_argument("--actor.lr", dest="actor_lr", type=float, default=1e-3)
    ap.add_argument("--actor.hidden", dest="hidden", type=int, default=64)
    ap.add_argument("--actor.micro-batch-size", dest="micro_batch_size", type=int, default=16)
    ap.add_argument("--actor.clip-ratio", dest="clip_ratio", type=float, default=0.2)
    ap.add_argument("--actor.log-kl", dest="log_kl", action="store_true")
    ap.add_argument("--reward.fn", dest="reward_fn", default="length_penalty", choices=["length_penalty", "rouge"])
    ap.add_argument("--reward.length-coef", dest="length_coef", type=float, default=0.1)
    ap.add_argument("--trainer.nnodes", dest="nnodes", type=int, default=1)
    ap.add_argument("--trainer.n-trainers-per-node", dest="n_trainers", type=int, default=2)
    ap.add_argument("--trainer.cpus-per-trainer", dest="cpus_per_trainer", type=float, default=1)
    ap.add_argument("--trainer.total-epochs", dest="total_epochs", type=int, default=2)
    ap.add_argument("--trainer.save-freq", dest="save_freq", type=int, default=2)
    ap.add_argument("--trainer.test-freq", dest="test_freq", type=int, default=4)
    ap.add_argument("--trainer.default-local-dir", dest="ckpt_dir", default="checkpoints")
    ap.add_argument("--trainer.resume-mode", dest="resume_mode", default="disable", choices=["disable", "auto"])
    ap.add_argument("--trainer.step-delay", dest="step_delay", type=float, default=1.0)
    ap.add_argument("--trainer.dist-timeout", dest="dist_timeout", type=int, default=1800,
                    help="seconds for the trainers' gloo process group")
    ap.add_argument("--trainer.dist-port", dest="dist_port", type=int, default=0)
    ap.add_argument("--trainer.pg-ready-timeout", dest="pg_ready_timeout", type=float, default=60)
    ap.add_argument("--trainer.ray-get-timeout", dest="ray_get_timeout", type=float, default=None)
    ap.add_argument("--ray.num-cpus", dest="ray_num_cpus", type=int, default=4)
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args(argv)


def load_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f]


def latest_step(ckpt_dir):
    p = os.path.join(ckpt_dir, "latest_checkpointed_iteration.txt")
    return int(open(p).read().strip()) if os.path.exists(p) else 0


def main(argv=None):
    cfg = parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    world_size = cfg.nnodes * cfg.n_trainers
    real_train_batch_size = cfg.rollout_batch_size * cfg.n_samples
    assert real_train_batch_size % (cfg.micro_batch_size * world_size) == 0, (
        f"real_train_batch_size ({real_train_batch_size}) must be divisible by micro_batch_size "
        f"({cfg.micro_batch_size}) * total n_trainers ({world_size}).")
    c = vars(cfg)
    c["ckpt_dir"] = os.path.abspath(cfg.ckpt_dir)
    logger.info("config: %s", json.dumps(c, sort_keys=True))

    if not ray.is_initialized():
        ray.init(num_cpus=cfg.ray_num_cpus, include_dashboard=False,
                 runtime_env={"env_vars": {"TOKENIZERS_PARALLELISM": "false", "OMP_NUM_THREADS": "1"}})

    train, valid = load_jsonl(cfg.train_files), load_jsonl(cfg.val_files)
    steps_per_epoch = len(train) // cfg.rollout_batch_size
    total_steps = steps_per_epoch * cfg.total_epochs
    logger.info("%d prompts, %d validation prompts, %d steps per epoch, %d total steps", len(train), len(valid),
                steps_per_epoch, total_steps)

    bundles = [{"CPU": cfg.cpus_per_trainer} for _ in range(world_size)]
    pg = placement_group(bundles, strategy="PACK")
    logger.info("waiting for placement group %s (bundles %s)", pg.id.hex(), bundles)
    try:
        ray.get(pg.ready(), timeout=cfg.pg_ready_timeout)
    except ray.exceptions.GetTimeoutError:
        raise TimeoutError(f"placement group for {world_size} trainers was not ready after "
                           f"{cfg.pg_ready_timeout:.0f}s; cluster resources: {ray.cluster_resources()}")
    trainers = [PolicyTrainer.options(num_cpus=cfg.cpus_per_trainer, scheduling_strategy=PlacementGroupSchedulingStrategy(
        placement_group=pg, placement_group_bundle_index=r)).remote(r, world_size, c) for r in range(world_size)]
    rollout = RolloutWorker.options(num_cpus=1).remote(c)
    reward = RewardWorker.options(num_cpus=1, max_restarts=1, max_task_retries=1).remote(c)

    addr, port = ray.get(trainers[0].get_master_addr_port.remote())
    logger.info("trainer group master %s:%d", addr, port)
    ray.get([t.init_process_group.remote(addr, port) for t in trainers])

    start = 0
    if cfg.resume_mode == "auto":
        start = latest_step(cfg.ckpt_dir)
        if start:
            path = os.path.join(cfg.ckpt_dir, f"global_step_{start}", "policy.pt")
            logger.info("resume_mode=auto: resuming from %s", path)
            ray.get([t.load_checkpoint.remote(path) for t in trainers])
        else:
            logger.info("resume_mode=auto: no checkpoint found in %s, training from scratch", cfg.ckpt_dir)
    if start >= total_steps:
        logger.info("global step %d already reached total_training_steps %d, nothing to do", start, total_steps)

    rng = random.Random(cfg.seed)
    order = []
    for _ in range(cfg.total_epochs):
        idx = list(range(len(train)))
        rng.shuffle(idx)
        order.extend(idx[:steps_per_epoch * cfg.rollout_batch_size])
    gt = cfg.ray_get_timeout
    for step in range(start + 1, total_steps + 1):
        t0 = time.time()
        epoch = (step - 1) // steps_per_epoch + 1
        recs = [train[i] for i in order[(step - 1) * cfg.rollout_batch_size: step * cfg.rollout_batch_size]]
        ray.get(rollout.update_weights.remote(trainers[0].get_weights.remote()), timeout=gt)
        batch = ray.get(rollout.generate.remote([r["question"] for r in recs], cfg.n_samples), timeout=gt)
        scores = ray.get(reward.score.remote(recs, batch["texts"], cfg.n_samples), timeout=gt)
        adv = (scores - scores.mean()) / (scores.std() + 1e-6)
        batch["advantages"] = adv
        n = real_train_batch_size // world_size
        shards = [{k: batch[k][r * n:(r + 1) * n] for k in ("prompts", "responses", "old_logprobs", "advantages")}
                  for r in range(world_size)]
        stats = ray.get([t.train_step.remote(shards[r], step) for r, t in enumerate(trainers)], timeout=gt)
        lens = torch.tensor([float(len(t)) for t in batch["texts"]])
        metrics = {"epoch": epoch, "actor/pg_loss": sum(s["pg_loss"] for s in stats) / world_size,
                   "actor/clipfrac": stats[0]["clipfrac"], "actor/grad_norm": stats[0]["grad_norm"],
                   "critic/score/mean": scores.mean().item(), "response_length/mean": lens.mean().item(),
                   "timing_s/step": time.time() - t0}
        print(f"step:{step} - " + " - ".join(f"{k}:{v:.4f}" if isinstance(v, float) else f"{k}:{v}"
                                            for k, v in metrics.items()), flush=True)
        if step % cfg.test_freq == 0 or step == total_steps:
            vb = ray.get(rollout.generate.remote([r["question"] for r in valid], 1, True), timeout=gt)
            vs = ray.get(reward.score.remote(valid, vb["texts"], 1), timeout=gt)
            logger.info("validation at step %d: val/score/mean %.4f val/response_length/mean %.2f", step,
                        vs.mean().item(), sum(len(t) for t in vb["texts"]) / len(vb["texts"]))
        if step % cfg.save_freq == 0 or step == total_steps:
            path = os.path.join(cfg.ckpt_dir, f"global_step_{step}", "policy.pt")
            ray.get([t.save_checkpoint.remote(path, step) for t in trainers], timeout=gt)
            with open(os.path.join(cfg.ckpt_dir, "latest_checkpointed_iteration.txt"), "w") as f:
                f.write(str(step))
    logger.info("training finished: %d steps", total_steps)
    ray.shutdown()


if __name__ == "__main__":
    main()
