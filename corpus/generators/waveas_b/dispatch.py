"""Train a warehouse robot dispatcher with RLlib (new API stack) on a Ray cluster.

    python dispatch.py --algo PPO --iterations 8 --env-runners 2 --learners 2
    RAY_ADDRESS=127.0.0.1:PORT python dispatch.py ...     # on a running cluster (ray start --head ...)
    python dispatch.py --tune ...                          # the same as one Tune trial
"""
from __future__ import annotations

import argparse
import json
import math
import os
import signal
import sys
import time

import ray
from ray.tune.registry import register_env

from warehouse_env import WarehouseDispatch


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("--algo", default="PPO", choices=["PPO", "APPO", "IMPALA", "DQN"])
    ap.add_argument("--iterations", type=int, default=8)
    ap.add_argument("--num-cpus", type=int, default=4, help="local cluster only (no RAY_ADDRESS)")
    ap.add_argument("--env-runners", type=int, default=2)
    ap.add_argument("--envs-per-runner", type=int, default=1)
    ap.add_argument("--cpus-per-runner", type=float, default=1)
    ap.add_argument("--runner-resource", default=None, help="custom resource each env runner needs (e.g. sim)")
    ap.add_argument("--learners", type=int, default=2)
    ap.add_argument("--train-batch-per-learner", type=int, default=400)
    ap.add_argument("--minibatch", type=int, default=100)
    ap.add_argument("--epochs", type=int, default=4)
    ap.add_argument("--lr", type=float, default=3e-4)
    ap.add_argument("--layout", default=None)
    ap.add_argument("--size", type=int, default=8)
    ap.add_argument("--robots", type=int, default=None)
    ap.add_argument("--max-steps", type=int, default=200)
    ap.add_argument("--planner", default=None, help="path of libplanner.so")
    ap.add_argument("--record-frames", action="store_true")
    ap.add_argument("--checkpoint-dir", default="checkpoints")
    ap.add_argument("--checkpoint-every", type=int, default=2)
    ap.add_argument("--restore", default=None)
    ap.add_argument("--eval-every", type=int, default=0)
    ap.add_argument("--runner-failures", default="restart", choices=["restart", "fail"],
                    help="restart a failed env runner (RLlib's default) or stop the run")
    ap.add_argument("--tune", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    return ap.parse_args()


def build_config(a):
    from ray.rllib.algorithms.appo import APPOConfig
    from ray.rllib.algorithms.dqn import DQNConfig
    from ray.rllib.algorithms.impala import IMPALAConfig
    from ray.rllib.algorithms.ppo import PPOConfig
    config_cls = {"PPO": PPOConfig, "APPO": APPOConfig, "IMPALA": IMPALAConfig, "DQN": DQNConfig}[a.algo]
    env_config = {"size": a.size, "max_steps": a.max_steps, "record_frames": a.record_frames}
    if a.layout:
        env_config["layout"] = os.path.abspath(a.layout)
    if a.robots:
        env_config["robots"] = a.robots
    if a.planner:
        env_config["planner"] = os.path.abspath(a.planner)
    cfg = (config_cls()
           .environment("warehouse-dispatch", env_config=env_config)
           .framework("torch")
           .env_runners(num_env_runners=a.env_runners, num_envs_per_env_runner=a.envs_per_runner,
                        num_cpus_per_env_runner=a.cpus_per_runner, rollout_fragment_length="auto",
                        custom_resources_per_env_runner={a.runner_resource: 1} if a.runner_resource else {})
           .learners(num_learners=a.learners, num_cpus_per_learner=1)
           .debugging(seed=a.seed))
    if a.algo == "DQN":
        cfg = cfg.training(lr=a.lr, train_batch_size_per_learner=a.train_batch_per_learner)
    else:
        cfg = cfg.training(lr=a.lr, train_batch_size_per_learner=a.train_batch_per_learner,
                           minibatch_size=a.minibatch, num_epochs=a.epochs)
    if a.eval_every:
        cfg = cfg.evaluation(evaluation_interval=a.eval_every, evaluation_duration=4,
                             evaluation_duration_unit="episodes", evaluation_num_env_runners=0)
    cfg = cfg.fault_tolerance(restart_failed_env_runners=a.runner_failures == "restart")
    return cfg


def metrics(result):
    er = result.get("env_runners", {})
    learners = result.get("learners", {}).get("default_policy", {})
    loss = learners.get("total_loss", learners.get("qf_loss", float("nan")))
    return er.get("episode_return_mean", float("nan")), float(loss), er.get("num_env_steps_sampled_lifetime", 0)


def main():
    a = parse()
    print("dispatch.py args: " + json.dumps(vars(a), sort_keys=True), flush=True)
    register_env("warehouse-dispatch", lambda cfg: WarehouseDispatch(cfg))
    if os.environ.get("RAY_ADDRESS"):
        ray.init(runtime_env={"working_dir": ".", "excludes": ["checkpoints", "*.log"]})
    else:
        ray.init(num_cpus=a.num_cpus, include_dashboard=False, runtime_env={"env_vars": {"PYTHONPATH": os.getcwd()}})
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    cfg = build_config(a)
    ckpt_root = os.path.abspath(a.checkpoint_dir)
    os.makedirs(ckpt_root, exist_ok=True)

    if a.tune:
        from ray import tune
        tuner = tune.Tuner(a.algo, param_space=cfg, run_config=tune.RunConfig(
            name="dispatch", storage_path=ckpt_root, stop={"training_iteration": a.iterations},
            checkpoint_config=tune.CheckpointConfig(checkpoint_frequency=a.checkpoint_every, checkpoint_at_end=True),
            verbose=1))
        results = tuner.fit()
        best = results.get_best_result(metric="env_runners/episode_return_mean", mode="max")
        print(f"best trial: episode_return_mean={best.metrics['env_runners']['episode_return_mean']:.3f} "
              f"checkpoint={best.checkpoint}", flush=True)
        print("training finished", flush=True)
        return

    algo = cfg.build_algo()
    if a.restore:
        algo.restore(os.path.abspath(a.restore))
        print(f"restored from {a.restore} at iteration {algo.iteration}", flush=True)
    start_iter = algo.iteration
    for it in range(start_iter + 1, start_iter + a.iterations + 1):
        t0 = time.time()
        result = algo.train()
        ret, loss, steps = metrics(result)
        print(f"iter {it} env_steps={steps} episode_return_mean={ret:.3f} learner_loss={loss:.4f} "
              f"time={time.time() - t0:.1f}s", flush=True)
        if a.eval_every and it % a.eval_every == 0 and "evaluation" in result:
            ev = result["evaluation"].get("env_runners", {}).get("episode_return_mean", float("nan"))
            print(f"eval iter {it}: episode_return_mean={ev:.3f}", flush=True)
        if it % a.checkpoint_every == 0:
            path = os.path.join(ckpt_root, f"iter-{it:03d}")
            algo.save(path)
            print(f"saved checkpoint {path}", flush=True)
    algo.stop()
    print(f"training finished after {a.iterations} iterations", flush=True)


if __name__ == "__main__":
    main()
