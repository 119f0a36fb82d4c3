"""DQN on a cart-pole balancing task, data-parallel learners over gloo (wave W set B workload).

Each learner rank runs its own cart-pole simulator (classic Barto-Sutton-Anderson dynamics, 500-step limit), keeps a
replay buffer, and trains a Q-network (MLP 4-128-128-2) with a target network; gradients are averaged across ranks
(by hand with all_reduce under ``spawn``, DistributedDataParallel under torchrun ``ddp``, Ray Train ``ray``).
Optional actor processes (``--actors``) collect extra experience with an epsilon-greedy copy of the policy.
"""
from __future__ import annotations

import argparse
import datetime
import math
import os
import signal
import sys
import time
from collections import deque

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
import torch.nn.functional as F


class CartPole:
    def __init__(self, seed: int, max_steps: int = 500):
        self.rng = np.random.default_rng(seed)
        self.max_steps = max_steps
        self.g, self.mc, self.mp, self.l, self.fm, self.tau = 9.8, 1.0, 0.1, 0.5, 10.0, 0.02

    def reset(self):
        self.s = self.rng.uniform(-0.05, 0.05, size=4)
        self.t = 0
        return self.s.astype(np.float32)

    def step(self, a: int):
        x, xd, th, thd = self.s
        f = self.fm if a == 1 else -self.fm
        ct, st = math.cos(th), math.sin(th)
        tm = self.mc + self.mp
        temp = (f + self.mp * self.l * thd * thd * st) / tm
        thacc = (self.g * st - ct * temp) / (self.l * (4.0 / 3.0 - self.mp * ct * ct / tm))
        xacc = temp - self.mp * self.l * thacc * ct / tm
        x, xd = x + self.tau * xd, xd + self.tau * xacc
        th, thd = th + self.tau * thd, thd + self.tau * thacc
        self.s = np.array([x, xd, th, thd])
        self.t += 1
        done = bool(abs(x) > 2.4 or abs(th) > 12 * 2 * math.pi / 360)
        trunc = self.t >= self.max_steps
        return self.s.astype(np.float32), 1.0, done, trunc

    def render(self):  # an ASCII frame, 80x24, as the eval recorder writes it
        x, _, th, _ = self.s
        frame = [[" "] * 80 for _ in range(24)]
        cx = int(40 + x * 12)
        for i in range(60):
            px = int(cx + math.sin(th) * i * 0.2)
            py = int(20 - math.cos(th) * i * 0.25)
            if 0 <= px < 80 and 0 <= py < 24:
                frame[py][px] = "|"
        for dx in range(-3, 4):
            if 0 <= cx + dx < 80:
                frame[21][cx + dx] = "#"
        return "\n".join("".join(r) for r in frame)


def qnet(hidden: int) -> nn.Module:
    return nn.Sequential(nn.Linear(4, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 2))


class Replay:
    def __init__(self, capacity: int, seed: int, shared: bool = False):
        self.obs = torch.zeros((capacity, 4))
        self.nxt = torch.zeros((capacity, 4))
        self.act = torch.zeros(capacity, dtype=torch.long)
        self.rew = torch.zeros(capacity)
        self.done = torch.zeros(capacity)
        if shared:  # actor processes write into the same buffer
            for t in (self.obs, self.nxt, self.act, self.rew, self.done):
                t.share_memory_()
        self.capacity, self.size, self.pos = capacity, 0, 0
        self.rng = np.random.default_rng(seed)

    def add(self, o, a, r, n, d):
        i = self.pos
        self.obs[i] = torch.from_numpy(o)
        self.nxt[i] = torch.from_numpy(n)
        self.act[i], self.rew[i], self.done[i] = a, r, d
        self.pos = (self.pos + 1) % self.capacity
        self.size = min(self.size + 1, self.capacity)

    def sample(self, batch: int):
        idx = torch.from_numpy(self.rng.choice(self.size, batch, replace=False))
        return self.obs[idx], self.act[idx], self.rew[idx], self.nxt[idx], self.done[idx]

    def state(self):
        return {"obs": self.obs, "nxt": self.nxt, "act": self.act, "rew": self.rew, "done": self.done,
                "size": self.size, "pos": self.pos}


def actor_proc(idx: int, seed: int, n: int, q, state_dict, hidden: int, eps: float):
    """An experience-collecting actor: epsilon-greedy with a snapshot of the learner's policy."""
    env = CartPole(seed)
    net = qnet(hidden)
    net.load_state_dict(state_dict)
    rng = np.random.default_rng(seed)
    o = env.reset()
    for _ in range(n):
        with torch.no_grad():
            a = int(rng.integers(2)) if rng.random() < eps else int(net(torch.from_numpy(o)).argmax())
        n_o, r, d, tr = env.step(a)
        q.put((o, a, r, n_o, float(d)))
        o = env.reset() if d or tr else n_o
    print(f"[actor {idx}] collected {n} transitions", flush=True)


def shared_actor(idx: int, seed: int, n: int, buf_tensors, offset: int):
    env = CartPole(seed)
    rng = np.random.default_rng(seed)
    obs, nxt, act, rew, done = buf_tensors
    o = env.reset()
    for i in range(n):
        a = int(rng.integers(2))
        n_o, r, d, tr = env.step(a)
        j = offset + i
        obs[j], nxt[j] = torch.from_numpy(o), torch.from_numpy(n_o)
        act[j], rew[j], done[j] = a, r, float(d)
        o = env.reset() if d or tr else n_o
    print(f"[actor {idx}] wrote {n} transitions into the shared replay buffer", flush=True)


preempted = False


def on_sigterm(signum, frame):
    global preempted
    preempted = True


def evaluate(net, seed: int, episodes: int, render: bool = False):
    env = CartPole(seed)
    rets, frames = [], []
    for _ in range(episodes):
        o, ret = env.reset(), 0.0
        while True:
            with torch.no_grad():
                a = int(net(torch.from_numpy(o)).argmax())
            o, r, d, tr = env.step(a)
            ret += r
            if render:
                frames.append(env.render())
            if d or tr:
                break
        rets.append(ret)
    return rets, frames


def train(rank: int, world: int, a, ddp_wrap: bool = False, report=None) -> None:
    torch.manual_seed(a.seed)
    if a.sigterm_checkpoint:
        signal.signal(signal.SIGTERM, on_sigterm)
    if world > 1 and not dist.is_initialized():
        dist.init_process_group("gloo", init_method="env://", rank=rank, world_size=world,
                                timeout=datetime.timedelta(seconds=a.pg_timeout))
    restart = int(os.environ.get("TORCHELASTIC_RESTART_COUNT", "0"))
    print(f"[rank {rank}] process group up: backend gloo, world {world}, pid {os.getpid()}", flush=True)
    net, target = qnet(a.hidden), qnet(a.hidden)
    if world > 1 and not ddp_wrap:
        for p in net.parameters():
            dist.broadcast(p.data, 0)
    model = nn.parallel.DistributedDataParallel(net) if ddp_wrap else net
    target.load_state_dict(net.state_dict())
    opt = torch.optim.Adam(net.parameters(), lr=a.lr)
    if rank == 0:
        n = sum(p.numel() for p in net.parameters())
        print(f"[rank 0] Q-network MLP 4-{a.hidden}-{a.hidden}-2: {n} parameters; gamma {a.gamma}, lr {a.lr}, "
              f"batch {a.batch} per rank, replay capacity {a.capacity}, target sync every {a.target_every} steps, "
              f"loss {a.loss}", flush=True)
    learning_starts = a.learning_starts // world if a.split_warmup else a.learning_starts
    buf = Replay(a.capacity, a.seed + rank, shared=a.shared_replay)
    if rank == 0:
        mb = sum(t.numel() * t.element_size() for t in (buf.obs, buf.nxt, buf.act, buf.rew, buf.done)) / 2**20
        print(f"[rank 0] replay buffer allocated: {a.capacity} transitions, {mb:.1f} MiB per rank"
              f"{' (shared memory)' if a.shared_replay else ''}", flush=True)
    start_step = 1
    ckpt = os.path.join(a.ckpt_dir, "last.pt")
    if a.resume and os.path.exists(ckpt):
        st = torch.load(ckpt, weights_only=False)
        net.load_state_dict(st["model"])
        target.load_state_dict(st["model"])
        opt.load_state_dict(st["opt"])
        start_step = st["step"] + 1
        print(f"[rank {rank}] resumed from {ckpt} at step {st['step']}", flush=True)
    if a.actors:
        import multiprocessing as pymp
        if a.shared_replay:
            per = a.actor_steps
            procs = [pymp.Process(target=shared_actor, args=(i, a.seed * 100 + rank * 10 + i, per,
                                                             (buf.obs, buf.nxt, buf.act, buf.rew, buf.done), i * per))
                     for i in range(a.actors)]
            for p in procs:
                p.start()
            for p in procs:
                p.join()
            buf.size = buf.pos = a.actors * per
        else:
            q = pymp.Queue()
            sd = {k: v.clone() for k, v in net.state_dict().items()}
            procs = [pymp.Process(target=actor_proc, args=(i, a.seed * 100 + rank * 10 + i, a.actor_steps, q, sd,
                                                           a.hidden, 1.0)) for i in range(a.actors)]
            for p in procs:
                p.start()
            print(f"[rank {rank}] started {a.actors} actor processes ({a.actor_steps} warm-up transitions each)",
                  flush=True)
            for p in procs:  # wait for the warm-up experience, then move it into the replay buffer
                p.join()
            while not q.empty():
                buf.add(*q.get())
        print(f"[rank {rank}] warm-up experience in replay: {buf.size} transitions", flush=True)
    env = CartPole(a.seed * 7 + rank)
    o = env.reset()
    ep_ret, returns, ep_count = 0.0, deque(maxlen=20), 0
    all_returns = []
    t0, losses = time.time(), []
    step = start_step
    for step in range(start_step, a.steps + 1):
        eps = max(0.05, 1.0 - step / (0.5 * a.steps))
        with torch.no_grad():
            act = int(np.random.randint(2)) if np.random.rand() < eps else int(net(torch.from_numpy(o)).argmax())
        n_o, r, d, tr = env.step(act)
        if d and a.fall_penalty:
            r = a.fall_penalty
        buf.add(o, act, r, n_o, float(d))
        ep_ret += r
        o = n_o
        if d or tr:
            returns.append(ep_ret)
            all_returns.append(ep_ret)
            ep_count += 1
            ep_ret, o = 0.0, env.reset()
        if step >= learning_starts and step % a.train_every == 0:
            ob, ac, rw, nx, dn = buf.sample(a.batch)
            q = model(ob).gather(1, ac[:, None]).squeeze(1)
            with torch.no_grad():
                nq = target(nx).max(1).values
                tgt = rw + a.gamma * nq * (1.0 if a.no_done_mask else (1.0 - dn))
            loss = F.mse_loss(q, tgt) if a.loss == "mse" else F.smooth_l1_loss(q, tgt)
            if a.check_finite and not torch.isfinite(loss):
                raise FloatingPointError(f"rank {rank}: non-finite TD loss {loss.item()} at step {step} "
                                         f"(max |Q| {q.abs().max().item():.3g})")
            opt.zero_grad()
            loss.backward()
            if world > 1 and not ddp_wrap:
                for p in net.parameters():
                    dist.all_reduce(p.grad)
                    p.grad /= world
            if a.clip:
                nn.utils.clip_grad_norm_(net.parameters(), a.clip)
            opt.step()
            losses.append(loss.item())
        if a.flaky_once and restart == 0 and rank == 1 and step == a.flaky_once:
            raise ConnectionResetError(104, "Connection reset by peer", "simulator snapshot share /mnt/sim")
        if step % a.target_every == 0:
            target.load_state_dict(net.state_dict())
        if step % a.log_every == 0 and (rank == 0 or a.log_all_ranks):
            sps = a.log_every / (time.time() - t0)
            ml = np.mean(losses) if losses else float("nan")
            mr = np.mean(returns) if returns else float("nan")
            with torch.no_grad():
                mq = net(buf.obs[:min(buf.size, 512)]).max(1).values.mean().item()
            print(f"[rank {rank}] step {step:5d}/{a.steps} | eps {eps:.3f} | td loss {ml:.4f} | mean Q {mq:8.3f} | "
                  f"return(20) {mr:6.1f} | episodes {ep_count} | replay {buf.size} | {sps:.0f} env steps/s", flush=True)
            t0, losses = time.time(), []
        if preempted:
            print(f"[rank {rank}] SIGTERM received at step {step}: saving checkpoint and exiting", flush=True)
            if rank == 0:
                os.makedirs(a.ckpt_dir, exist_ok=True)
                torch.save({"model": net.state_dict(), "opt": opt.state_dict(), "step": step}, ckpt)
                print(f"[rank 0] checkpoint saved to {ckpt} (step {step})", flush=True)
            sys.exit(143)
        if step % a.eval_every == 0:
            if a.gather_returns and world > 1:
                mine = torch.tensor(all_returns, dtype=torch.float32)
                got = [torch.zeros_like(mine) for _ in range(world)]
                dist.all_gather(got, mine)
                if rank == 0:
                    allr = torch.cat(got)
                    print(f"[rank 0] training episodes so far (all ranks): {allr.numel()}, best {allr.max():.0f}",
                          flush=True)
            if a.record_eval and rank == 0:
                rets, frames = evaluate(net, 1234 + step, a.record_eval, render=True)
                os.makedirs("eval_videos", exist_ok=True)
                with open(f"eval_videos/step{step:05d}.txt", "w") as f:
                    f.write("\n\f\n".join(frames))
                print(f"[rank 0] recorded {a.record_eval} eval episodes ({len(frames)} frames) to "
                      f"eval_videos/step{step:05d}.txt", flush=True)
            rets, _ = evaluate(net, 1000 * rank + step, a.eval_episodes)
            m = torch.tensor([float(np.mean(rets))])
            if world > 1:
                dist.all_reduce(m)
                m /= world
            if rank == 0:
                print(f"[rank 0] eval @ step {step}: greedy return {m.item():.1f} over {a.eval_episodes * world} "
                      f"episodes", flush=True)
            if rank == 0:
                os.makedirs(a.ckpt_dir, exist_ok=True)
                st = {"model": net.state_dict(), "opt": opt.state_dict(), "step": step}
                if a.ckpt_replay:
                    st["replay"] = buf.state()
                torch.save(st, ckpt)
                print(f"[rank 0] checkpoint saved to {ckpt} (step {step}"
                      f"{', with replay buffer' if a.ckpt_replay else ''})", flush=True)
            if report is not None:
                report(step, m.item(), net, opt)
    if world > 1:
        dist.barrier()
    print(f"[rank {rank}] done ({step} steps, {ep_count} episodes)", flush=True)


def spawn_main(rank, world, a):
    train(rank, world, a)


def ray_main(a) -> None:
    import ray
    import ray.train
    from ray.train import CheckpointConfig, RunConfig, ScalingConfig
    from ray.train.torch import TorchTrainer

    ray.init(address=os.environ.get("RAY_ADDRESS", "auto"))
    if a.rollout_actors:
        @ray.remote(num_cpus=1)
        class RolloutActor:
            def __init__(self, idx: int, seed_base: int):
                np.random.seed(seed_base * 1000 + idx)
                self.env, self.idx = CartPole(seed_base * 1000 + idx), idx

            def collect(self, n: int) -> int:
                o, steps = self.env.reset(), 0
                for _ in range(n):
                    o, _, d, tr = self.env.step(int(np.random.randint(2)))
                    steps += 1
                    if d or tr:
                        o = self.env.reset()
                return steps

        seed_base = int(time.time()) if a.seed_from_clock else a.seed
        actors = [RolloutActor.remote(i, seed_base) for i in range(a.rollout_actors)]
        got = ray.get([x.collect.remote(2000) for x in actors])
        print(f"rollout actors ready: {len(actors)} actors, {sum(got)} exploration steps collected", flush=True)

    def loop(cfg):
        import tempfile
        ctx = ray.train.get_context()
        args = argparse.Namespace(**cfg)

        def report(step, ret, net, opt):
            with tempfile.TemporaryDirectory() as d:
                torch.save({"model": net.state_dict(), "step": step}, os.path.join(d, "model.pt"))
                ray.train.report({"step": step, "eval_return": ret},
                                 checkpoint=ray.train.Checkpoint.from_directory(d))
        train(ctx.get_world_rank(), ctx.get_world_size(), args, ddp_wrap=True, report=report)

    trainer = TorchTrainer(
        loop, train_loop_config=vars(a),
        scaling_config=ScalingConfig(num_workers=2, resources_per_worker={"CPU": 0.5}),
        run_config=RunConfig(name="dqn-cartpole", storage_path=os.path.abspath("ray_results"),
                             checkpoint_config=CheckpointConfig(num_to_keep=2)))
    result = trainer.fit()
    print(f"training finished: {result.metrics}", flush=True)
    print(f"best checkpoint: {result.checkpoint}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["spawn", "ddp", "ray"])
    ap.add_argument("--nprocs", type=int, default=2)
    ap.add_argument("--steps", type=int, default=3000)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--gamma", type=float, default=0.99)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--capacity", type=int, default=50000)
    ap.add_argument("--learning-starts", type=int, default=500)
    ap.add_argument("--split-warmup", action="store_true")
    ap.add_argument("--train-every", type=int, default=1)
    ap.add_argument("--target-every", type=int, default=250)
    ap.add_argument("--log-every", type=int, default=100)
    ap.add_argument("--eval-every", type=int, default=500)
    ap.add_argument("--eval-episodes", type=int, default=3)
    ap.add_argument("--loss", choices=["huber", "mse"], default="huber")
    ap.add_argument("--clip", type=float, default=10.0)
    ap.add_argument("--no-done-mask", action="store_true")
    ap.add_argument("--fall-penalty", type=float, default=0.0)
    ap.add_argument("--check-finite", action="store_true")
    ap.add_argument("--gather-returns", action="store_true")
    ap.add_argument("--record-eval", type=int, default=0)
    ap.add_argument("--ckpt-dir", default="checkpoints")
    ap.add_argument("--ckpt-replay", action="store_true")
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--actors", type=int, default=0)
    ap.add_argument("--actor-steps", type=int, default=2000)
    ap.add_argument("--actors-in-world", action="store_true")
    ap.add_argument("--shared-replay", action="store_true")
    ap.add_argument("--sigterm-checkpoint", action="store_true")
    ap.add_argument("--flaky-once", type=int, default=0)
    ap.add_argument("--log-all-ranks", action="store_true")
    ap.add_argument("--pg-timeout", type=int, default=1800)
    ap.add_argument("--rollout-actors", type=int, default=0)
    ap.add_argument("--seed-from-clock", action="store_true")
    ap.add_argument("--seed", type=int, default=7)
    a = ap.parse_args()
    torch.set_num_threads(1)
    if a.mode == "spawn":
        os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
        world = a.nprocs + (a.nprocs * a.actors if a.actors_in_world else 0)
        print(f"launching {a.nprocs} learner ranks (world size {world}) with torch.multiprocessing.spawn, "
              f"master {os.environ['MASTER_ADDR']}:{os.environ['MASTER_PORT']}", flush=True)
        torch.multiprocessing.spawn(spawn_main, args=(world, a), nprocs=a.nprocs, join=True)
        print("all ranks finished", flush=True)
    elif a.mode == "ddp":
        train(int(os.environ["RANK"]), int(os.environ["WORLD_SIZE"]), a, ddp_wrap=True)
    else:
        ray_main(a)


if __name__ == "__main__":
    main()
