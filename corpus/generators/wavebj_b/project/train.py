"""PPO on a gymnasium env with TorchRL: multi-process collection (MultiSyncCollector, one env per worker),
clipped PPO loss with GAE, per-iteration logging, periodic checkpoints."""
from __future__ import annotations

import argparse
import json
import logging
import math
import os
import signal
import sys
import time
from pathlib import Path

import torch
from torch import nn
from tensordict.nn import TensorDictModule, NormalParamExtractor
from torchrl.collectors import MultiSyncCollector, MultiAsyncCollector
from torchrl.envs import GymEnv, TransformedEnv, StepCounter, DoubleToFloat, Compose
from torchrl.modules import ProbabilisticActor, ValueOperator, TanhNormal, OneHotCategorical
from torchrl.objectives import ClipPPOLoss
from torchrl.objectives.value import GAE
from torchrl.data import ReplayBuffer, LazyTensorStorage, SamplerWithoutReplacement

log = logging.getLogger("ppo")


def make_env(env_name: str, env_kwargs: dict):
    env = GymEnv(env_name, **env_kwargs)
    return TransformedEnv(env, Compose(DoubleToFloat(), StepCounter()))


class EnvFactory:
    def __init__(self, env_name, env_kwargs):
        self.env_name, self.env_kwargs = env_name, env_kwargs

    def __call__(self):
        return make_env(self.env_name, self.env_kwargs)


def build(cfg, env):
    obs_dim = env.observation_spec["observation"].shape[-1]
    spec = env.action_spec
    h = cfg["hidden"]
    discrete = spec.dtype in (torch.int64, torch.long, torch.bool) or "OneHot" in type(spec).__name__
    if discrete:
        n = spec.shape[-1]
        net = nn.Sequential(nn.Linear(obs_dim, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, n))
        mod = TensorDictModule(net, in_keys=["observation"], out_keys=["logits"])
        actor = ProbabilisticActor(mod, spec=spec, in_keys=["logits"], distribution_class=OneHotCategorical,
                                   return_log_prob=True)
    else:
        n = spec.shape[-1]
        net = nn.Sequential(nn.Linear(obs_dim, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 2 * n),
                            NormalParamExtractor())
        mod = TensorDictModule(net, in_keys=["observation"], out_keys=["loc", "scale"])
        actor = ProbabilisticActor(mod, spec=spec, in_keys=["loc", "scale"], distribution_class=TanhNormal,
                                   distribution_kwargs={"low": spec.space.low, "high": spec.space.high},
                                   return_log_prob=True)
    vnet = nn.Sequential(nn.Linear(obs_dim, h), nn.Tanh(), nn.Linear(h, h), nn.Tanh(), nn.Linear(h, 1))
    critic = ValueOperator(vnet, in_keys=["observation"])
    return actor, critic


def save_ckpt(ckpt_dir: Path, it: int, actor, critic, optim, frames: int, keep_last: int):
    ckpt_dir.mkdir(parents=True, exist_ok=True)
    path = ckpt_dir / f"ppo_iter_{it:04d}.pt"
    tmp = path.with_suffix(".pt.tmp")
    torch.save({"iteration": it, "frames": frames, "actor": actor.state_dict(), "critic": critic.state_dict(),
                "optim": optim.state_dict()}, tmp)
    os.replace(tmp, path)
    log.info("saved checkpoint %s (%.1f KiB)", path, path.stat().st_size / 1024)
    old = sorted(ckpt_dir.glob("ppo_iter_*.pt"))[:-keep_last] if keep_last > 0 else []
    for p in old:
        p.unlink()
        log.info("removed old checkpoint %s", p)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/ppo_cartpole.json")
    ap.add_argument("--env-name")
    ap.add_argument("--env-kwargs", help="JSON dict passed to gymnasium.make")
    ap.add_argument("--num-workers", type=int)
    ap.add_argument("--frames-per-batch", type=int)
    ap.add_argument("--iterations", type=int)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--hidden", type=int)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--ckpt-every", type=int)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--collector", choices=["sync", "async"], default="sync")
    ap.add_argument("--logger", choices=["none", "csv", "tensorboard", "wandb"], default="csv")
    ap.add_argument("--log-dir", default="runs")
    ap.add_argument("--optimizer", choices=["adam", "sgd"], default="adam")
    ap.add_argument("--max-grad-norm", type=float, default=1.0, help="0 disables clipping")
    a = ap.parse_args()

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s",
                        stream=sys.stdout)
    cfg = json.loads(Path(a.config).read_text())
    for k in ("env_name", "num_workers", "frames_per_batch", "iterations", "lr", "hidden", "ckpt_every"):
        v = getattr(a, k)
        if v is not None:
            cfg[k] = v
    if a.env_kwargs:
        cfg["env_kwargs"] = json.loads(a.env_kwargs)
    torch.manual_seed(cfg["seed"])
    log.info("torch %s, torchrl %s, tensordict %s, gymnasium %s", torch.__version__,
             __import__("torchrl").__version__, __import__("tensordict").__version__, __import__("gymnasium").__version__)
    log.info("config: %s", json.dumps(cfg, sort_keys=True))

    exp_logger = None
    if a.logger == "csv":
        from torchrl.record.loggers.csv import CSVLogger
        exp_logger = CSVLogger(exp_name="ppo", log_dir=a.log_dir)
    elif a.logger == "tensorboard":
        from torchrl.record.loggers.tensorboard import TensorboardLogger
        exp_logger = TensorboardLogger(exp_name="ppo", log_dir=a.log_dir)
    elif a.logger == "wandb":
        from torchrl.record.loggers.wandb import WandbLogger
        exp_logger = WandbLogger(exp_name="ppo", offline=True, save_dir=a.log_dir)

    factory = EnvFactory(cfg["env_name"], cfg["env_kwargs"])
    probe = factory()
    log.info("env %s: observation %s, action %s", cfg["env_name"], tuple(probe.observation_spec["observation"].shape),
             type(probe.action_spec).__name__)
    actor, critic = build(cfg, probe)
    with torch.no_grad():
        td = probe.reset()
        actor(td)
        critic(td)
    probe.close()
    n_params = sum(p.numel() for p in list(actor.parameters()) + list(critic.parameters()))
    log.info("actor/critic hidden %d, %d parameters", cfg["hidden"], n_params)

    adv = GAE(gamma=cfg["gamma"], lmbda=cfg["lmbda"], value_network=critic, average_gae=True)
    loss_mod = ClipPPOLoss(actor, critic, clip_epsilon=cfg["clip_epsilon"], entropy_coeff=cfg["entropy_coef"])
    if a.optimizer == "sgd":
        optim = torch.optim.SGD(loss_mod.parameters(), lr=cfg["lr"], momentum=0.9)
    else:
        optim = torch.optim.Adam(loss_mod.parameters(), lr=cfg["lr"])
    ckpt_dir = Path(a.ckpt_dir)
    start_it, frames = 0, 0
    if a.resume:
        ck = sorted(ckpt_dir.glob("ppo_iter_*.pt"))
        if ck:
            state = torch.load(ck[-1], weights_only=True)
            actor.load_state_dict(state["actor"])
            critic.load_state_dict(state["critic"])
            optim.load_state_dict(state["optim"])
            start_it, frames = state["iteration"], state["frames"]
            log.info("resumed from %s (iteration %d, %d frames)", ck[-1], start_it, frames)
        else:
            log.warning("--resume given but no checkpoint in %s; starting from scratch", ckpt_dir)

    n_it = cfg["iterations"] - start_it
    cls = MultiSyncCollector if a.collector == "sync" else MultiAsyncCollector
    collector = cls([factory] * cfg["num_workers"], actor, frames_per_batch=cfg["frames_per_batch"],
                    total_frames=cfg["frames_per_batch"] * n_it)
    log.info("%s with %d workers, %d frames per batch, %d iterations", cls.__name__, cfg["num_workers"],
             cfg["frames_per_batch"], n_it)
    rb = ReplayBuffer(storage=LazyTensorStorage(cfg["frames_per_batch"]), sampler=SamplerWithoutReplacement(),
                      batch_size=cfg["minibatch_size"])

    def on_term(signum, frame):
        log.warning("received %s at iteration %d; stopping", signal.Signals(signum).name, it)
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    it = start_it
    t0 = time.time()
    try:
        for data in collector:
            it += 1
            t_it = time.time()
            frames += data.numel()
            with torch.no_grad():
                adv(data)
            rb.extend(data.reshape(-1))
            tot, n = {}, 0
            for _ in range(cfg["ppo_epochs"]):
                for _ in range(cfg["frames_per_batch"] // cfg["minibatch_size"]):
                    mb = rb.sample()
                    ld = loss_mod(mb)
                    loss = ld["loss_objective"] + ld["loss_critic"] + ld["loss_entropy"]
                    if not torch.isfinite(loss):
                        raise FloatingPointError(f"loss is {loss.item()} at iteration {it} "
                                                 f"(objective {ld['loss_objective'].item():.4g}, "
                                                 f"critic {ld['loss_critic'].item():.4g})")
                    optim.zero_grad()
                    loss.backward()
                    gn = nn.utils.clip_grad_norm_(loss_mod.parameters(), a.max_grad_norm or float("inf"))
                    optim.step()
                    for k in ("loss_objective", "loss_critic", "loss_entropy"):
                        tot[k] = tot.get(k, 0.0) + ld[k].item()
                    tot["grad_norm"] = tot.get("grad_norm", 0.0) + gn.item()
                    n += 1
            collector.update_policy_weights_()
            done = data["next", "done"]
            ep_steps = data["next", "step_count"][done]
            ep_len = ep_steps.float().mean().item() if ep_steps.numel() else float("nan")
            rew = data["next", "reward"].mean().item()
            m = {k: v / n for k, v in tot.items()}
            log.info("iter %d/%d frames %d reward %.4f episode_len %.1f loss_obj %.4f loss_critic %.4f "
                     "entropy %.4f grad_norm %.3f (%.2fs)", it, cfg["iterations"], frames, rew, ep_len,
                     m["loss_objective"], m["loss_critic"], m["loss_entropy"], m["grad_norm"], time.time() - t_it)
            if exp_logger is not None:
                for k, v in m.items():
                    exp_logger.log_scalar(k, v, step=frames)
                exp_logger.log_scalar("reward", rew, step=frames)
                exp_logger.log_scalar("episode_len", ep_len, step=frames)
            if it % cfg["ckpt_every"] == 0:
                save_ckpt(ckpt_dir, it, actor, critic, optim, frames, cfg["keep_last"])
    finally:
        collector.shutdown()
    log.info("training done: %d iterations, %d frames in %.1f s", it, frames, time.time() - t0)


if __name__ == "__main__":
    main()
