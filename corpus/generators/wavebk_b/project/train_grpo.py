"""GRPO on a toy policy with Ray actors: trainer actors (gloo DDP among themselves) and rollout actors that
receive weights from trainer rank 0 through a second gloo group (the OpenRLHF / verl layout, CPU only)."""
import argparse
import signal
import datetime
import json
import logging
import os
import shutil
import socket
import sys
import time

import ray
import torch
import torch.distributed as dist
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

def setup_logging():
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s", force=True)


setup_logging()
log = logging.getLogger("grpo")


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


class Policy(torch.nn.Module):
    def __init__(self, obs_dim, n_actions, hidden):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Linear(obs_dim, hidden), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.Tanh(),
                                       torch.nn.Linear(hidden, n_actions))

    def forward(self, x):
        return self.net(x)


def load_prompts(path):
    rows = []
    with open(path) as f:
        for line in f:
            rows.append(json.loads(line))
    return rows


def reward_fn(row, action, kind):
    if kind == "rule":
        return 1.0 if action == int(row["target"]) else -0.1 * abs(action - int(row["target"]))
    if kind == "rouge":
        from rouge_score import rouge_scorer  # optional dependency of the text reward
        scorer = rouge_scorer.RougeScorer(["rougeL"])
        return scorer.score(str(row["target"]), str(action))["rougeL"].fmeasure
    raise ValueError(f"unknown reward {kind}")


@ray.remote
class RolloutActor:
    def __init__(self, idx, cfg):
        setup_logging()
        self.idx, self.cfg = idx, cfg
        self.log = logging.getLogger(f"rollout{idx}")
        self.policy = Policy(cfg["obs_dim"], cfg["n_actions"], cfg["hidden"])
        self.prompts = load_prompts(cfg["prompts"])
        self.bad_rows = 0
        self.log.info("rollout engine %d ready (%d prompts, pid %d)", idx, len(self.prompts), os.getpid())

    def init_weight_sync(self, addr, port, world, timeout_s):
        self.log.info("joining weight-sync group %s:%d as rank %d/%d", addr, port, self.idx + 1, world)
        store = dist.TCPStore(addr, port, world, False, timeout=datetime.timedelta(seconds=timeout_s))
        self.pg = dist.ProcessGroupGloo(store, self.idx + 1, world, datetime.timedelta(seconds=timeout_s))
        self.log.info("weight-sync group ready")
        return True

    def receive_weights(self, version):
        for p in self.policy.parameters():
            self.pg.broadcast(p.data, 0).wait()
        self.log.info("loaded policy weights v%d", version)
        return version

    def generate(self, start, n, group_size, seed):
        g = torch.Generator().manual_seed(seed)
        out = []
        for i in range(n):
            row = self.prompts[(start + i) % len(self.prompts)]
            obs = torch.tensor(row["obs"], dtype=torch.float32)
            with torch.no_grad():
                h = obs
                for _ in range(self.cfg["response_len"]):  # decode loop of the toy engine
                    logits = self.policy(h)
                    h = torch.tanh(h + 0.01 * logits.sum())
                probs = torch.softmax(self.policy(obs), -1)
            acts = torch.multinomial(probs, group_size, replacement=True, generator=g)
            rews = []
            for a in acts.tolist():
                try:
                    rews.append(reward_fn(row, a, self.cfg["reward"]))
                except (KeyError, TypeError) as e:
                    if not self.cfg.get("skip_bad_rows"):
                        raise
                    self.bad_rows += 1
                    self.log.exception("reward failed for prompt %s, sample dropped", row.get("id"))
                    rews = None
                    break
            if rews is None:
                continue
            out.append((row["obs"], acts.tolist(), rews))
        return out


@ray.remote
class TrainerActor:
    def __init__(self, rank, world, cfg):
        setup_logging()
        self.rank, self.world, self.cfg = rank, world, cfg
        self.log = logging.getLogger(f"trainer{rank}")
        torch.manual_seed(cfg["seed"])
        self.policy = Policy(cfg["obs_dim"], cfg["n_actions"], cfg["hidden"])
        self.opt = torch.optim.Adam(self.policy.parameters(), lr=cfg["lr"])
        self.step = 0

    def get_master(self):
        return socket.gethostbyname(socket.gethostname()), free_port()

    def init_process_group(self, addr, port):
        os.environ["MASTER_ADDR"], os.environ["MASTER_PORT"] = addr, str(port)
        self.log.info("init_process_group gloo rank %d/%d master %s:%d", self.rank, self.world, addr, port)
        dist.init_process_group("gloo", rank=self.rank, world_size=self.world,
                                timeout=datetime.timedelta(seconds=self.cfg["dist_timeout"]))
        for p in self.policy.parameters():
            dist.broadcast(p.data, 0)
        self.log.info("process group ready, %d params", sum(p.numel() for p in self.policy.parameters()))
        return True

    def load_checkpoint(self, path):
        if not os.path.exists(path):
            return 0
        st = torch.load(path)
        self.policy.load_state_dict(st["model"])
        self.opt.load_state_dict(st["optim"])
        self.step = st["step"]
        self.log.info("resumed from %s at step %d", path, self.step)
        return self.step

    def init_weight_sync(self, port, world):
        addr = socket.gethostbyname(socket.gethostname())
        self.log.info("creating weight-sync group on %s:%d, world %d", addr, port, world)
        t = datetime.timedelta(seconds=self.cfg["dist_timeout"])
        store = dist.TCPStore(addr, port, world, True, timeout=t)
        self.sync_pg = dist.ProcessGroupGloo(store, 0, world, t)
        self.log.info("weight-sync group ready")
        return addr

    def broadcast_weights(self):
        for p in self.policy.parameters():
            self.sync_pg.broadcast(p.data, 0).wait()
        return True

    def train_step(self, samples):
        obs = torch.tensor([s[0] for s in samples], dtype=torch.float32)
        acts = torch.tensor([s[1] for s in samples])
        rews = torch.tensor([s[2] for s in samples], dtype=torch.float32)
        adv = (rews - rews.mean(1, keepdim=True)) / (rews.std(1, keepdim=True) + 1e-6)
        logp = torch.log_softmax(self.policy(obs), -1)
        lp = logp.gather(1, acts)
        loss = -(lp * adv).mean() * self.cfg["loss_scale"]
        self.opt.zero_grad()
        loss.backward()
        for p in self.policy.parameters():
            dist.all_reduce(p.grad)
            p.grad /= self.world
        gn = torch.nn.utils.clip_grad_norm_(self.policy.parameters(), self.cfg["max_grad_norm"])
        self.opt.step()
        self.step += 1
        lv = loss.detach().clone()
        dist.all_reduce(lv)
        lv = lv.item() / self.world
        self.log.info("step %d loss %.4f grad_norm %.3f reward %.3f", self.step, lv, gn.item(), rews.mean().item())
        return {"loss": lv, "reward": rews.mean().item(), "grad_norm": gn.item()}

    def save(self, d):
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, f"policy_step{self.step}.pt")
        blob = torch.randn(self.cfg["ckpt_pad"]) if self.cfg["ckpt_pad"] else None
        torch.save({"model": self.policy.state_dict(), "optim": self.opt.state_dict(), "step": self.step,
                    "rng": blob}, path)
        self.log.info("saved checkpoint %s", path)
        return path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/grpo_toy.json")
    ap.add_argument("--num-trainers", type=int)
    ap.add_argument("--num-rollouts", type=int)
    ap.add_argument("--rollout-batch-size", type=int)
    ap.add_argument("--n-samples-per-prompt", type=int)
    ap.add_argument("--trainer-num-cpus", type=float)
    ap.add_argument("--lr", type=float)
    ap.add_argument("--max-steps", type=int)
    ap.add_argument("--ckpt-dir")
    ap.add_argument("--save-steps", type=int)
    ap.add_argument("--sync-port", type=int)
    ap.add_argument("--dist-timeout", type=int)
    ap.add_argument("--reward", choices=["rule", "rouge"])
    ap.add_argument("--prompts")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--skip-bad-rows", action="store_true")
    ap.add_argument("--max-restarts", type=int)
    a = ap.parse_args()

    def on_term(signum, frame):
        log.warning("received signal %d, shutting down the driver", signum)
        sys.exit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    cfg = json.load(open(a.config))
    for k, v in vars(a).items():
        if k not in ("config", "resume") and v is not None:
            cfg[k] = v
    log.info("config: %s", json.dumps(cfg, sort_keys=True))
    nt, nr = cfg["num_trainers"], cfg["num_rollouts"]
    if cfg["rollout_batch_size"] % nt != 0:
        raise ValueError(f"rollout_batch_size ({cfg['rollout_batch_size']}) must be divisible by the number of "
                         f"trainer actors ({nt})")

    ray.init(address="auto")
    log.info("cluster resources: %s", ray.cluster_resources())
    bundles = [{"CPU": cfg["trainer_num_cpus"]} for _ in range(nt)] + [{"CPU": cfg["rollout_num_cpus"]}] * nr
    pg = placement_group(bundles, strategy="PACK")
    log.info("waiting for placement group with %d bundles", len(bundles))
    ray.get(pg.ready())
    log.info("placement group ready")

    def strat(i):
        return PlacementGroupSchedulingStrategy(placement_group=pg, placement_group_bundle_index=i)

    trainers = [TrainerActor.options(num_cpus=cfg["trainer_num_cpus"], scheduling_strategy=strat(i),
                                     runtime_env={"env_vars": {"RANK": str(i)}})
                .remote(i, nt, cfg) for i in range(nt)]
    rollouts = [RolloutActor.options(num_cpus=cfg["rollout_num_cpus"], scheduling_strategy=strat(nt + j),
                                     max_restarts=cfg.get("max_restarts", 0), max_task_retries=cfg.get("max_restarts", 0),
                                     runtime_env={"env_vars": {"ROLLOUT_RANK": str(j)}})
                .remote(j, cfg) for j in range(nr)]
    addr, port = ray.get(trainers[0].get_master.remote())
    ray.get([t.init_process_group.remote(addr, port) for t in trainers])
    start = 0
    ckpt = os.path.join(cfg["ckpt_dir"], "latest.pt")
    if a.resume:
        start = max(ray.get([t.load_checkpoint.remote(ckpt) for t in trainers]))
    world = 1 + nr
    refs = [trainers[0].init_weight_sync.remote(cfg["sync_port"], world)]
    sync_addr = addr
    refs += [r.init_weight_sync.remote(sync_addr, cfg["sync_port"], world, cfg["dist_timeout"]) for r in rollouts]
    ray.get(refs)
    log.info("weight sync group formed: 1 trainer + %d rollout engines", nr)

    def sync(v):
        ray.get([trainers[0].broadcast_weights.remote()] + [r.receive_weights.remote(v) for r in rollouts])

    sync(start)
    bs, k = cfg["rollout_batch_size"], cfg["n_samples_per_prompt"]
    per = bs // nr
    for step in range(start + 1, cfg["max_steps"] + 1):
        t0 = time.time()
        got = ray.get([r.generate.remote(step * bs + j * per, per, k, step * 100 + j) for j, r in enumerate(rollouts)])
        samples = [s for g in got for s in g]
        n = len(samples) // nt
        stats = ray.get([t.train_step.remote(samples[i * n:(i + 1) * n]) for i, t in enumerate(trainers)])
        loss = stats[0]["loss"]
        if loss != loss or abs(loss) == float("inf"):
            raise RuntimeError(f"loss is {loss} at step {step}, stopping (lr={cfg['lr']})")
        sync(step)
        log.info("iter %d/%d | loss %.4f | reward %.3f | grad_norm %.3f | samples %d | %.2fs", step,
                 cfg["max_steps"], loss, stats[0]["reward"], stats[0]["grad_norm"], len(samples), time.time() - t0)
        if step % cfg["save_steps"] == 0 or step == cfg["max_steps"]:
            p = ray.get(trainers[0].save.remote(cfg["ckpt_dir"]))
            shutil.copy(p, ckpt)
            log.info("checkpoint written: %s", p)
    log.info("training finished after %d steps", cfg["max_steps"])


if __name__ == "__main__":
    main()
