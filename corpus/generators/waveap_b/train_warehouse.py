"""Train a warehouse control policy with Stable-Baselines3, environments stepped in worker processes.

Tasks: `pick` (an order-picking robot on a grid, discrete actions) and `inventory` (daily reorder quantities for
SKUs with stochastic demand from libdemand.so, continuous action). Under torchrun (WORLD_SIZE > 1) every process
trains its own copy with its own seed and, every --exchange-every rollouts, the copies exchange their recent mean
episode reward over a gloo process group and all take the best copy's policy weights (a small population-based
training loop)."""
from __future__ import annotations

import argparse
import faulthandler
import os
import time
from datetime import timedelta

import numpy as np
import torch
import torch.distributed as dist
from stable_baselines3 import A2C, PPO, SAC
from stable_baselines3.common.callbacks import BaseCallback, CheckpointCallback, EvalCallback
from stable_baselines3.common.env_util import make_vec_env
from stable_baselines3.common.logger import configure
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import DummyVecEnv, SubprocVecEnv, VecCheckNan, VecMonitor, VecNormalize

from warehouse_env import InventoryEnv, PickEnv, load_skus

faulthandler.enable()
ALGOS = {"ppo": PPO, "a2c": A2C, "sac": SAC}


def parse() -> argparse.Namespace:
    p = argparse.ArgumentParser()
    p.add_argument("--task", choices=("pick", "inventory"), default="pick")
    p.add_argument("--algo", choices=tuple(ALGOS), default="ppo")
    p.add_argument("--timesteps", type=int, default=20000)
    p.add_argument("--n-envs", type=int, default=4)
    p.add_argument("--vec", choices=("subproc", "dummy"), default="subproc")
    p.add_argument("--start-method", choices=("fork", "forkserver", "spawn"), default="fork")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--n-steps", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--net", default="64,64")
    p.add_argument("--buffer-size", type=int, default=100000)
    p.add_argument("--layout", default="data/layout.json")
    p.add_argument("--layouts", default="", help="comma list: process r uses layouts[r % n]")
    p.add_argument("--orders", default="data/orders.csv")
    p.add_argument("--obs", choices=("vector", "grid"), default="vector")
    p.add_argument("--skus", default="data/skus.csv")
    p.add_argument("--reward-scale", type=float, default=0.01)
    p.add_argument("--normalize", action="store_true", help="VecNormalize observations and rewards")
    p.add_argument("--check-nan", action="store_true", help="VecCheckNan(raise_exception=True)")
    p.add_argument("--vec-monitor", action="store_true", help="VecMonitor instead of a Monitor per env")
    p.add_argument("--ckpt-dir", default="checkpoints")
    p.add_argument("--ckpt-every", type=int, default=4000)
    p.add_argument("--save-replay-buffer", action="store_true")
    p.add_argument("--eval-every", type=int, default=4000)
    p.add_argument("--eval-episodes", type=int, default=8)
    p.add_argument("--eval-envs", type=int, default=2)
    p.add_argument("--eval-vec", choices=("subproc", "dummy"), default="subproc")
    p.add_argument("--resume", default="")
    p.add_argument("--out", default="policy")
    p.add_argument("--exchange-every", type=int, default=4, help="rollouts between population exchanges (torchrun)")
    p.add_argument("--dist-timeout", type=int, default=300)
    return p.parse_args()


class Exchange(BaseCallback):
    """Every k rollouts: all-gather each copy's recent mean episode reward, copy the best copy's weights."""

    def __init__(self, every: int, rank: int, world: int):
        super().__init__()
        self.every, self.rank, self.world, self.rollouts, self.round = every, rank, world, 0, 0

    def _on_step(self) -> bool:
        return True

    def _on_rollout_end(self) -> None:
        self.rollouts += 1
        if self.rollouts % self.every:
            return
        self.round += 1
        buf = self.model.ep_info_buffer
        score = float(np.mean([e["r"] for e in buf])) if buf else -1e9
        t = torch.tensor([score], dtype=torch.float64)
        scores = [torch.zeros(1, dtype=torch.float64) for _ in range(self.world)]
        dist.all_gather(scores, t)
        scores = [float(s) for s in scores]
        best = int(np.argmax(scores))
        print(f"[rank {self.rank}] exchange {self.round} at {self.num_timesteps} steps: mean episode reward "
              f"{', '.join(f'{s:.2f}' for s in scores)}; taking weights of rank {best}", flush=True)
        with torch.no_grad():
            for prm in self.model.policy.parameters():
                dist.broadcast(prm.data, src=best)


def main() -> None:
    a = parse()
    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    if world > 1:
        dist.init_process_group("gloo", timeout=timedelta(seconds=a.dist_timeout))
        print(f"[rank {rank}] process group ready: gloo, world size {world}", flush=True)
    seed = a.seed + 1000 * rank
    if rank == 0:
        print(f"args: {vars(a)}", flush=True)
    torch.set_num_threads(1)
    layout = a.layouts.split(",")[rank % len(a.layouts.split(","))] if a.layouts else a.layout

    if a.task == "pick":
        kw = dict(layout=layout, orders=a.orders, obs=a.obs)

        def make(i: int = 0):
            return PickEnv(**kw, seed=seed + i)
        print(f"[rank {rank}] task pick: layout {layout}, orders {a.orders}, observations {a.obs}", flush=True)
    else:
        skus = load_skus(a.skus)
        print(f"[rank {rank}] task inventory: {len(skus)} SKUs from {a.skus}, env i manages SKU i mod {len(skus)}",
              flush=True)

        def make(i: int = 0):
            return InventoryEnv(a.skus, index=i % len(skus), reward_scale=a.reward_scale, seed=seed + i)

    vec_cls = SubprocVecEnv if a.vec == "subproc" else DummyVecEnv
    vkw = dict(start_method=a.start_method) if a.vec == "subproc" else {}
    t0 = time.time()
    if a.task == "pick":  # identical robots: make_vec_env seeds env i with seed + i
        env = make_vec_env(PickEnv, n_envs=a.n_envs, seed=seed, vec_env_cls=vec_cls, vec_env_kwargs=vkw or None,
                           env_kwargs=kw)
    else:  # one SKU per environment
        wrap = (lambda e: e) if a.vec_monitor else Monitor
        env = vec_cls([lambda i=i: wrap(make(i)) for i in range(a.n_envs)], **vkw)
        env.seed(seed)
    if a.vec_monitor:
        env = VecMonitor(env)
    if a.check_nan:
        env = VecCheckNan(env, raise_exception=True)
    if a.normalize:
        env = VecNormalize(env, norm_obs=True, norm_reward=True)
    print(f"[rank {rank}] {a.n_envs} environments up ({type(env.unwrapped).__name__}, start method "
          f"{a.start_method if a.vec == 'subproc' else '-'}) in {time.time() - t0:.1f}s: observation "
          f"{env.observation_space}, action {env.action_space}", flush=True)

    net = [int(x) for x in a.net.split(",")]
    algo = ALGOS[a.algo]
    verbose = 1 if rank == 0 else 0
    if a.resume:
        model = algo.load(a.resume, env=env, device="cpu")
        model.learning_rate = a.lr
        print(f"[rank {rank}] resumed from {a.resume} at {model.num_timesteps} steps", flush=True)
    else:
        kw = dict(learning_rate=a.lr, seed=seed, verbose=verbose, device="cpu", policy_kwargs=dict(net_arch=net))
        if a.algo == "ppo":
            kw.update(n_steps=a.n_steps, batch_size=a.batch_size)
        elif a.algo == "a2c":
            kw.update(n_steps=a.n_steps)
        else:
            kw.update(buffer_size=a.buffer_size, batch_size=a.batch_size, learning_starts=500, train_freq=4)
        model = algo("MlpPolicy", env, **kw)
    if rank == 0:
        model.set_logger(configure(f"{a.out}/logs", ["stdout", "csv"]))

    callbacks = []
    if rank == 0 and a.ckpt_every:
        callbacks.append(CheckpointCallback(save_freq=max(a.ckpt_every // a.n_envs, 1), save_path=a.ckpt_dir,
                                            name_prefix=f"warehouse_{a.task}", save_replay_buffer=a.save_replay_buffer,
                                            save_vecnormalize=a.normalize, verbose=2))
    if a.eval_every:
        if a.task == "pick":
            efns = [lambda i=i: Monitor(PickEnv(layout=layout, orders=a.orders, obs=a.obs, seed=seed + 500 + i))
                    for i in range(a.eval_envs)]
        else:
            nsk = len(load_skus(a.skus))
            efns = [lambda i=i: Monitor(InventoryEnv(a.skus, index=i % nsk, reward_scale=a.reward_scale,
                                                 seed=seed + 500 + i)) for i in range(a.eval_envs)]
        eval_env = (SubprocVecEnv(efns, start_method=a.start_method) if a.eval_vec == "subproc"
                    else DummyVecEnv(efns))
        if a.normalize:
            eval_env = VecNormalize(eval_env, training=False, norm_reward=False)
        callbacks.append(EvalCallback(eval_env, eval_freq=max(a.eval_every // a.n_envs, 1),
                                      n_eval_episodes=a.eval_episodes, best_model_save_path=f"{a.out}/best" + (f"_rank{rank}" if world > 1 else ""),
                                      verbose=verbose, warn=False))
    if world > 1:
        callbacks.append(Exchange(a.exchange_every, rank, world))

    t0 = time.time()
    model.learn(total_timesteps=a.timesteps, callback=callbacks, reset_num_timesteps=not a.resume)
    print(f"[rank {rank}] trained {model.num_timesteps} steps in {time.time() - t0:.1f}s", flush=True)
    os.makedirs(a.out, exist_ok=True)
    name = f"{a.out}/warehouse_{a.task}" + (f"_rank{rank}" if world > 1 else "")
    model.save(name)
    if a.normalize:
        env.save(f"{a.out}/vecnormalize.pkl")
    print(f"[rank {rank}] saved policy to {name}.zip", flush=True)
    env.close()
    if world > 1:
        dist.barrier()
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
