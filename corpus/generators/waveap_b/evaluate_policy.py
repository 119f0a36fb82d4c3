"""Evaluate a saved warehouse policy on fresh environments (worker processes) and print the episode statistics."""
from __future__ import annotations

import argparse

import numpy as np
from stable_baselines3 import A2C, PPO, SAC
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.evaluation import evaluate_policy
from stable_baselines3.common.vec_env import SubprocVecEnv

from warehouse_env import PickEnv


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--policy", required=True)
    p.add_argument("--algo", default="ppo")
    p.add_argument("--layout", default="data/layout.json")
    p.add_argument("--orders", default="data/orders.csv")
    p.add_argument("--episodes", type=int, default=20)
    p.add_argument("--n-envs", type=int, default=2)
    a = p.parse_args()
    print(f"numpy {np.__version__}; evaluating {a.policy} on {a.layout}", flush=True)
    env = make_vec_env(PickEnv, n_envs=a.n_envs, seed=123, vec_env_cls=SubprocVecEnv,
                       env_kwargs=dict(layout=a.layout, orders=a.orders))
    model = {"ppo": PPO, "a2c": A2C, "sac": SAC}[a.algo].load(a.policy, env=env, device="cpu")
    mean, std = evaluate_policy(model, env, n_eval_episodes=a.episodes)
    print(f"mean episode reward {mean:.3f} +/- {std:.3f} over {a.episodes} episodes", flush=True)
    env.close()


if __name__ == "__main__":
    main()
