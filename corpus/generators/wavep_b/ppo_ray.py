"""Cart-pole PPO on a local Ray cluster: rollout-worker actors feeding a learner (actors), Ray Train TorchTrainer
with every worker rolling out its own cart-poles (train), a Ray Tune sweep over PPO hyper-parameters (tune)."""
import argparse
import os
import tempfile
import time

import numpy as np
import ray
import torch

import ppo_core as pc


@ray.remote(num_cpus=0.5)
class RolloutWorker:
    def __init__(self, idx, envs, frames=0, crash_once_at=-1, marker=""):
        torch.set_num_threads(1)
        self.idx, self.env = idx, pc.CartPoleVec(envs, seed=100 + idx, frames=frames)
        self.model, self.obs = pc.ActorCritic(), None
        self.crash_once_at, self.marker = crash_once_at, marker
        print(f"rollout worker {idx} up on pid {os.getpid()}: {envs} cart-poles", flush=True)

    def rollout(self, weights, steps, it):
        if it == self.crash_once_at and not os.path.exists(self.marker):
            open(self.marker, "w").close()
            # the simulator's C physics plugin aborts once on a degenerate contact (modelled as a hard exit)
            os._exit(134)
        self.model.load_state_dict(weights)
        batch, self.obs, st = pc.rollout(self.env, self.model, steps, self.obs)
        frames = self.env.render() if self.env.frames else None
        st.pop("returns")
        return batch, st, frames

    def rollout_synced(self, ps, steps, it):
        weights = ray.get(ps.get_weights.remote())  # always roll out with the newest policy
        return self.rollout(weights, steps, it)


@ray.remote(num_cpus=0)
class ReplayBuffer:
    """Keeps every transition (and its camera frames) for the offline-RL dataset export."""

    def __init__(self):
        self.chunks, self.frames, self.n = [], [], 0

    def add(self, batch, frames, steps):
        self.chunks.append(batch)
        if frames is not None:
            # one frame stack per transition: the env's current frames repeated for the chunk
            self.frames.append(np.repeat(frames[None], steps, 0).copy())
        self.n += len(batch["act"])
        return self.n, sum(f.nbytes for f in self.frames)


@ray.remote(num_cpus=1)
class Learner:
    def __init__(self, lr):
        torch.set_num_threads(1)
        self.model = pc.ActorCritic()
        self.opt = torch.optim.Adam(self.model.parameters(), lr=lr, eps=1e-5)
        self.it = 0

    def get_weights(self):
        return {k: v.clone() for k, v in self.model.state_dict().items()}

    def update(self, batches):
        batch = {k: torch.cat([b[k] for b in batches]) for k in batches[0]}
        st, k = pc.ppo_update(self.model, self.opt, batch, seed=self.it)
        self.it += 1
        return st, k

    def collect_and_update(self, workers, steps):
        """Parameter-server step: ask every worker for a rollout with the current weights, then update."""
        out = ray.get([w.rollout_synced.remote(self_handle(), steps, self.it) for w in workers])
        return self.update([b for b, _, _ in out]), [s for _, s, _ in out]


def self_handle():
    return ray.get_runtime_context().current_actor


def run_actors(a):
    opts = {"max_restarts": 1, "max_task_retries": 1} if a.restarts else {}
    marker = os.path.abspath("worker_crash.marker")
    workers = [RolloutWorker.options(**opts).remote(i, a.envs, a.frames, a.crash_once_at if i == 1 else -1, marker)
               for i in range(a.workers)]
    print(f"{a.workers} rollout workers x {a.envs} cart-poles, {a.steps} steps per rollout", flush=True)
    learner = Learner.remote(a.lr) if (a.learner_actor or a.param_server) else None
    local = None if learner else pc.ActorCritic()
    opt = None if learner else torch.optim.Adam(local.parameters(), lr=a.lr, eps=1e-5)
    replay = ReplayBuffer.remote() if a.frames else None
    t0, total = time.time(), 0
    for it in range(a.iters):
        if a.param_server:
            print(f"iter {it}: parameter-server step (learner collects rollouts)", flush=True)
            (upd, k), stats = ray.get(learner.collect_and_update.remote(workers, a.steps))
        else:
            if learner:
                print(f"iter {it}: fetching weights from the learner actor", flush=True)
            if learner:
                ref, waited = learner.get_weights.remote(), 0
                while not ray.wait([ref], timeout=20)[0]:
                    waited += 20
                    print(f"iter {it}: still waiting for the learner's weights ({waited}s); available resources: "
                          f"{ray.available_resources()}", flush=True)
                weights = ray.get(ref)
            else:
                weights = local.state_dict()
            wref = ray.put(weights)
            out = ray.get([w.rollout.remote(wref, a.steps, it) for w in workers])
            batches, stats = [b for b, _, _ in out], [s for _, s, _ in out]
            if replay is not None:
                for b, _, f in out:
                    n, nbytes = ray.get(replay.add.remote(b, f, a.steps))
                print(f"iter {it}: replay buffer {n} transitions, frames {nbytes / 2**30:.2f} GiB", flush=True)
            if learner:
                upd, k = ray.get(learner.update.remote(batches))
            else:
                batch = {key: torch.cat([b[key] for b in batches]) for key in batches[0]}
                upd, k = pc.ppo_update(local, opt, batch, seed=it)
        total += a.workers * a.envs * a.steps
        eps = sum(s["episodes"] for s in stats)
        rets = [s["return_mean"] for s in stats if s["episodes"]]
        print(f"iter {it}: {eps} episodes, mean return {np.mean(rets):.1f}, {pc.fmt(upd)}, {total} env-steps, "
              f"{total / (time.time() - t0):.0f} steps/s", flush=True)
    if local is not None:
        torch.save(local.state_dict(), "ppo_cartpole_ray.pt")
        print("saved ppo_cartpole_ray.pt", flush=True)
    print("done", flush=True)


def train_loop(cfg):
    import ray.train
    torch.set_num_threads(1)
    if cfg.get("tune"):
        from ray import tune
        rank, world, report = 0, 1, tune.report
    else:
        ctx = ray.train.get_context()
        rank, world, report = ctx.get_world_rank(), ctx.get_world_size(), ray.train.report
    torch.manual_seed(0)
    env = pc.CartPoleVec(cfg["envs"], seed=1000 + rank)
    model = pc.ActorCritic()
    if not cfg.get("tune"):
        model = ray.train.torch.prepare_model(model)
    inner = model.module if hasattr(model, "module") else model
    opt = torch.optim.Adam(model.parameters(), lr=cfg["lr"], eps=1e-5)
    obs = None
    for it in range(cfg["iters"]):
        batch, obs, st = pc.rollout(env, inner, cfg["steps"], obs)
        upd, k = pc.ppo_update(model, opt, batch, seed=it, clip=cfg.get("clip", 0.2))
        print(f"[rank {rank}] iter {it}: {st['episodes']} episodes, return {st['return_mean']:.1f}, "
              f"{pc.fmt(upd)}", flush=True)
        metrics = {"iter": it, "episode_return": st["return_mean"] if st["episodes"] else 0.0, **upd}
        with tempfile.TemporaryDirectory() as d:
            ck = None
            if rank == 0 and (it + 1) % cfg.get("ckpt_every", 1) == 0:
                torch.save({"model": inner.state_dict(), "opt": opt.state_dict(), "iter": it,
                            "obs": obs, "rollout": batch}, os.path.join(d, "ppo.pt"))
                ck = ray.train.Checkpoint.from_directory(d)
            report(metrics, checkpoint=ck)


def run_train(a):
    import ray.train.torch  # noqa: F401
    from ray.train import CheckpointConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchConfig, TorchTrainer

    trainer = TorchTrainer(
        train_loop,
        train_loop_config={"iters": a.iters, "lr": a.lr, "envs": a.envs, "steps": a.steps},
        scaling_config=ScalingConfig(num_workers=a.workers, resources_per_worker={"CPU": 0.5}),
        torch_config=TorchConfig(backend="gloo"),
        run_config=RunConfig(name="ppo-cartpole", storage_path=a.storage,
                             checkpoint_config=CheckpointConfig(num_to_keep=a.keep)),
    )
    result = trainer.fit()
    print(f"final metrics: {result.metrics}", flush=True)
    print(f"checkpoint: {result.checkpoint}", flush=True)


def run_tune(a):
    from ray import tune
    from ray.tune import RunConfig

    tuner = tune.Tuner(
        tune.with_resources(train_loop, {"CPU": 1}),
        param_space={"iters": a.iters, "envs": a.envs, "steps": a.steps, "tune": True, "ckpt_every": 5,
                     "lr": tune.grid_search([2.5e-4, 1e-3]), "clip": tune.grid_search([0.1, 0.2, 0.3])},
        tune_config=tune.TuneConfig(metric="episode_return", mode="max", max_concurrent_trials=2),
        run_config=RunConfig(name="ppo-cartpole-sweep", storage_path=a.storage),
    )
    results = tuner.fit()
    best = results.get_best_result()
    print(f"best config: lr={best.config['lr']} clip={best.config['clip']} "
          f"episode_return={best.metrics.get('episode_return')}", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["actors", "train", "tune"])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--envs", type=int, default=8)
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--iters", type=int, default=15)
    ap.add_argument("--lr", type=float, default=2.5e-4)
    ap.add_argument("--keep", type=int, default=None)
    ap.add_argument("--frames", type=int, default=0)
    ap.add_argument("--restarts", action="store_true")
    ap.add_argument("--crash-once-at", type=int, default=-1)
    ap.add_argument("--learner-actor", action="store_true")
    ap.add_argument("--param-server", action="store_true")
    ap.add_argument("--storage", default=os.path.abspath("ray_results"))
    a = ap.parse_args()
    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    print(f"cluster resources: {ray.cluster_resources()}", flush=True)
    {"actors": run_actors, "train": run_train, "tune": run_tune}[a.mode](a)
