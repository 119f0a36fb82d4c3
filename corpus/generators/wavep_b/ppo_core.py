"""Cart-pole PPO: a vectorised cart-pole simulator in numpy, an actor-critic MLP, rollouts with GAE, the clipped
PPO update (CleanRL-style: per-minibatch advantage normalisation)."""
import time

import numpy as np
import torch
import torch.nn as nn
from torch.distributions import Categorical

OBS_DIM, N_ACT = 4, 2
GRAVITY, M_CART, M_POLE, HALF_LEN, FORCE, CONTROL_HZ = 9.8, 1.0, 0.1, 0.5, 10.0, 50


class CartPoleVec:
    """n cart-poles (the classic-control constants), semi-implicit Euler at sim_hz, actions at 50 Hz.
    wind > 0: gusts push the cart and the wind speed is appended to the observation."""

    def __init__(self, n, seed=0, max_steps=500, sim_hz=50, wind=0.0, frames=0):
        self.n, self.rng, self.max_steps, self.wind, self.frames = n, np.random.default_rng(seed), max_steps, wind, frames
        self.substeps = max(1, int(sim_hz // CONTROL_HZ))
        self.dt = 1.0 / CONTROL_HZ / self.substeps
        self.obs_dim = OBS_DIM + (1 if wind else 0)
        self.finished = []
        self.reset()

    def reset(self):
        self.s = self.rng.uniform(-0.05, 0.05, (self.n, 4))
        self.t = np.zeros(self.n, dtype=np.int64)
        self.ret = np.zeros(self.n)
        self.gust = np.zeros(self.n)
        return self.obs()

    def obs(self):
        o = self.s.astype(np.float32)
        if self.wind:
            o = np.concatenate([o, self.gust[:, None].astype(np.float32)], 1)
        return o

    def render(self):
        """Greyscale 'camera' frames of the carts (frames x 96 x 96 float32 per env)."""
        img = np.zeros((self.n, self.frames, 96, 96), np.float32)
        cx = np.clip(((self.s[:, 0] + 2.4) / 4.8 * 95).astype(int), 0, 95)
        img[np.arange(self.n), :, 80, cx] = 1.0
        return img

    def _integrate(self, force):
        if self.substeps == 1:
            x, xd, th, thd = self.s.T
            ct, st = np.cos(th), np.sin(th)
            tmp = (force + M_POLE * HALF_LEN * thd ** 2 * st) / (M_CART + M_POLE)
            tha = (GRAVITY * st - ct * tmp) / (HALF_LEN * (4.0 / 3.0 - M_POLE * ct ** 2 / (M_CART + M_POLE)))
            xa = tmp - M_POLE * HALF_LEN * tha * ct / (M_CART + M_POLE)
            xd = xd + self.dt * xa
            thd = thd + self.dt * tha
            self.s = np.stack([x + self.dt * xd, xd, th + self.dt * thd, thd], 1)
            return
        # high-rate integration: per cart, per substep (the contact model of the hi-fi sim is scalar code)
        for i in range(self.n):
            x, xd, th, thd = (float(v) for v in self.s[i])
            for _ in range(self.substeps):
                ct, st = np.cos(th), np.sin(th)
                tmp = (force[i] + M_POLE * HALF_LEN * thd ** 2 * st) / (M_CART + M_POLE)
                tha = (GRAVITY * st - ct * tmp) / (HALF_LEN * (4.0 / 3.0 - M_POLE * ct ** 2 / (M_CART + M_POLE)))
                xa = tmp - M_POLE * HALF_LEN * tha * ct / (M_CART + M_POLE)
                xd += self.dt * xa
                thd += self.dt * tha
                x += self.dt * xd
                th += self.dt * thd
            self.s[i] = (x, xd, th, thd)

    def step(self, a):
        force = np.where(a == 1, FORCE, -FORCE).astype(np.float64)
        if self.wind:
            self.gust = 0.9 * self.gust + self.rng.normal(0, self.wind, self.n)
            force = force + self.gust
        self._integrate(force)
        self.t += 1
        r = np.ones(self.n, np.float32)
        self.ret += r
        term = (np.abs(self.s[:, 0]) > 2.4) | (np.abs(self.s[:, 2]) > 0.2095)
        trunc = (self.t >= self.max_steps) if self.max_steps else np.zeros(self.n, bool)
        done = term | trunc
        if done.any():
            self.finished.extend(self.ret[done].tolist())
            k = int(done.sum())
            self.s[done] = self.rng.uniform(-0.05, 0.05, (k, 4))
            self.t[done] = 0
            self.ret[done] = 0
            self.gust[done] = 0
        return self.obs(), r, term.astype(np.float32)

    def pop_returns(self):
        out, self.finished = self.finished, []
        return out


class ActorCritic(nn.Module):
    def __init__(self, obs_dim=OBS_DIM, hidden=64):
        super().__init__()
        self.pi = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                nn.Linear(hidden, N_ACT))
        self.v = nn.Sequential(nn.Linear(obs_dim, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                               nn.Linear(hidden, 1))

    def forward(self, obs):
        return self.pi(obs), self.v(obs).squeeze(-1)


@torch.no_grad()
def rollout(env, model, steps, obs=None, gamma=0.99, lam=0.95):
    """steps x env.n transitions with GAE(lambda) advantages; returns (batch dict, last obs, stats)."""
    t0 = time.time()
    obs = env.reset() if obs is None else obs
    O, A, L, V, R, D = [], [], [], [], [], []
    for _ in range(steps):
        o = torch.from_numpy(obs)
        logits, v = model(o)
        dist = Categorical(logits=logits)
        a = dist.sample()
        obs, r, d = env.step(a.numpy())
        O.append(o); A.append(a); L.append(dist.log_prob(a)); V.append(v)
        R.append(torch.from_numpy(r)); D.append(torch.from_numpy(d))
    _, last_v = model(torch.from_numpy(obs))
    V.append(last_v)
    adv = torch.zeros(steps, env.n)
    gae = torch.zeros(env.n)
    for t in reversed(range(steps)):
        nonterm = 1.0 - D[t]
        delta = R[t] + gamma * V[t + 1] * nonterm - V[t]
        gae = delta + gamma * lam * nonterm * gae
        adv[t] = gae
    values = torch.stack(V[:-1])
    batch = {"obs": torch.stack(O).reshape(-1, O[0].shape[-1]), "act": torch.stack(A).reshape(-1),
             "logp": torch.stack(L).reshape(-1), "adv": adv.reshape(-1), "ret": (adv + values).reshape(-1),
             "val": values.reshape(-1)}
    rets = env.pop_returns()
    stats = {"episodes": len(rets), "return_mean": float(np.mean(rets)) if rets else float("nan"),
             "returns": rets, "rollout_s": time.time() - t0, "fps": steps * env.n / (time.time() - t0)}
    return batch, obs, stats


def ppo_loss(model, mb, clip=0.2, ent_coef=0.01, vf_coef=0.5):
    logits, v = model(mb["obs"])
    dist = Categorical(logits=logits)
    logp = dist.log_prob(mb["act"])
    ratio = (logp - mb["logp"]).exp()
    adv = mb["adv"]
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    pg = torch.max(-adv * ratio, -adv * ratio.clamp(1 - clip, 1 + clip)).mean()
    vf = 0.5 * ((v - mb["ret"]) ** 2).mean()
    ent = dist.entropy().mean()
    loss = pg + vf_coef * vf - ent_coef * ent
    with torch.no_grad():
        kl = ((ratio - 1) - (logp - mb["logp"])).mean()
        clipfrac = ((ratio - 1).abs() > clip).float().mean()
    return loss, {"loss": loss.item(), "pg": pg.item(), "vf": vf.item(), "ent": ent.item(), "kl": kl.item(),
                  "clipfrac": clipfrac.item()}


def ppo_update(model, opt, batch, epochs=4, minibatch=128, seed=0, max_grad_norm=0.5, **kw):
    n = len(batch["act"])
    g = torch.Generator().manual_seed(seed)
    agg = {}
    k = 0
    for _ in range(epochs):
        perm = torch.randperm(n, generator=g)
        for s in range(0, n, minibatch):
            idx = perm[s:s + minibatch]
            mb = {key: val[idx] for key, val in batch.items()}
            loss, st = ppo_loss(model, mb, **kw)
            opt.zero_grad()
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), max_grad_norm)
            opt.step()
            for key, val in st.items():
                agg[key] = agg.get(key, 0.0) + val
            k += 1
    return {key: val / k for key, val in agg.items()}, k


def fmt(st):
    return " ".join(f"{k} {v:.4f}" for k, v in st.items())
