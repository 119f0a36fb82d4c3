"""Warehouse environments: an order-picking robot on a grid (`PickEnv`) and single-SKU inventory control with
stochastic demand (`InventoryEnv`, demand drawn by the C sampler libdemand.so)."""
from __future__ import annotations

import csv
import ctypes
import json
import os

import gymnasium as gym
import numpy as np
from gymnasium import spaces

MAX_LEAD = 5  # days; the pipeline part of the inventory observation is padded to this
MOVES = {0: (-1, 0), 1: (1, 0), 2: (0, -1), 3: (0, 1)}  # up, down, left, right; 4 = pick / drop at the dock


def load_orders(path: str) -> list[list[str]]:
    with open(path, newline="") as f:
        return [row["skus"].split(";") for row in csv.DictReader(f)]


class PickEnv(gym.Env):
    """A robot fetches an order's items from their shelves one at a time and brings each to the dock."""

    metadata = {"render_modes": []}

    def __init__(self, layout: str, orders: str, obs: str = "vector", max_steps: int = 120, seed: int = 0):
        with open(layout) as f:
            lay = json.load(f)
        self.h, self.w = lay["size"]
        self.dock = tuple(lay["dock"])
        self.slots = {sku: tuple(pos) for sku, pos in lay["slots"].items()}
        self.orders = load_orders(orders)
        self.obs_kind, self.max_steps = obs, max_steps
        self.action_space = spaces.Discrete(5)
        if obs == "grid":  # robot, current target, shelves
            self.observation_space = spaces.Box(0.0, 1.0, (3, self.h, self.w), np.float32)
            self.shelves = np.zeros((self.h, self.w), np.float32)
            for r, c in self.slots.values():
                self.shelves[r, c] = 1.0
        else:
            self.observation_space = spaces.Box(-1.0, 1.0, (7,), np.float32)
        self.rng = np.random.default_rng(seed)

    def _target(self):
        return self.dock if self.carrying else self.slots[self.items[0]]

    def _dist(self):
        tr, tc = self._target()
        return abs(tr - self.pos[0]) + abs(tc - self.pos[1])

    def _obs(self):
        tr, tc = self._target()
        r, c = self.pos
        if self.obs_kind == "grid":
            g = np.zeros((3, self.h, self.w), np.float32)
            g[0, r, c] = 1.0
            g[1, tr, tc] = 1.0
            g[2] = self.shelves
            return g
        return np.array([r / self.h, c / self.w, tr / self.h, tc / self.w, (tr - r) / self.h, (tc - c) / self.w,
                         float(self.carrying)], np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        if seed is not None:
            self.rng = np.random.default_rng(seed)
        self.items = list(self.orders[self.rng.integers(len(self.orders))])
        self.pos, self.carrying, self.t = self.dock, False, 0
        return self._obs(), {}

    def step(self, action):
        self.t += 1
        reward = -0.01
        a = int(action)
        before = self._dist()
        if a in MOVES:
            r, c = self.pos[0] + MOVES[a][0], self.pos[1] + MOVES[a][1]
            if 0 <= r < self.h and 0 <= c < self.w:
                self.pos = (r, c)
        elif self.pos == self._target():
            if self.carrying:
                self.carrying = False
                self.items.pop(0)
                reward += 2.0
            else:
                self.carrying = True
                reward += 1.0
        else:
            reward -= 0.05  # pick/drop in the wrong place
        done = not self.items
        if not done:
            reward += 0.02 * (before - self._dist())  # shaping: closer to the current target
        return self._obs() if not done else self._done_obs(), reward, done, self.t >= self.max_steps, {}

    def _done_obs(self):
        r, c = self.pos
        if self.obs_kind == "grid":
            g = np.zeros((3, self.h, self.w), np.float32)
            g[0, r, c] = 1.0
            g[2] = self.shelves
            return g
        return np.array([r / self.h, c / self.w, 0, 0, 0, 0, 0], np.float32)


class Demand:
    """ctypes binding of libdemand.so (one generator state per environment)."""

    lib = None

    def __init__(self, seed: int):
        if Demand.lib is None:
            Demand.lib = ctypes.CDLL(os.path.join(os.path.dirname(os.path.abspath(__file__)), "libdemand.so"))
            Demand.lib.demand_sample.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_double, ctypes.c_double,
                                                 ctypes.POINTER(ctypes.c_long), ctypes.c_int]
            Demand.lib.demand_seed.argtypes = [ctypes.c_void_p, ctypes.c_uint64]
        self.state = ctypes.create_string_buffer(8)
        Demand.lib.demand_seed(self.state, seed)
        self.buf = (ctypes.c_long * 7)()

    def week(self, model: int, mean: float, disp: float) -> np.ndarray:
        Demand.lib.demand_sample(self.state, model, mean, disp, self.buf, 7)
        return np.frombuffer(self.buf, dtype=np.int64).astype(np.float64)


def load_skus(path: str) -> list[dict]:
    with open(path, newline="") as f:
        return [dict(sku=r["sku"], model=r["model"], mean=float(r["mean_daily"]), disp=float(r["dispersion"] or 0),
                     lead=int(r["lead_days"]), unit_cost=float(r["unit_cost"])) for r in csv.DictReader(f)]


class InventoryEnv(gym.Env):
    """Daily reorder decisions for one SKU: holding, backorder and ordering costs; orders arrive after the lead time."""

    metadata = {"render_modes": []}

    def __init__(self, skus: str, index: int = 0, horizon: int = 90, reward_scale: float = 0.01, seed: int = 0):
        self.sku = load_skus(skus)[index]
        self.horizon, self.reward_scale = horizon, reward_scale
        self.max_order = 4.0 * self.sku["mean"] + 10.0
        self.action_space = spaces.Box(0.0, 1.0, (1,), np.float32)
        self.observation_space = spaces.Box(-10.0, 10.0, (4 + MAX_LEAD,), np.float32)
        self.demand = Demand(seed)
        self.model = 1 if self.sku["model"] == "negbin" else 0

    def _obs(self):
        m = self.max_order
        dow = 2 * np.pi * (self.day % 7) / 7
        return np.concatenate([[self.stock / m, self.last / m, np.sin(dow), np.cos(dow)],
                               np.asarray(self.pipeline) / m, np.zeros(MAX_LEAD - len(self.pipeline))]).astype(np.float32)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.day, self.stock, self.last = 0, 2.0 * self.sku["mean"], 0.0
        self.pipeline = [0.0] * self.sku["lead"]
        self.upcoming = list(self.demand.week(self.model, self.sku["mean"], self.sku["disp"]))
        return self._obs(), {}

    def step(self, action):
        q = float(np.clip(action[0], 0.0, 1.0)) * self.max_order
        self.pipeline.append(q)
        self.stock += self.pipeline.pop(0)
        if not self.upcoming:
            self.upcoming = list(self.demand.week(self.model, self.sku["mean"], self.sku["disp"]))
        d = self.upcoming.pop(0)
        self.stock -= d
        self.last = d
        u = self.sku["unit_cost"]
        cost = 0.02 * u * max(self.stock, 0.0) + 0.5 * u * max(-self.stock, 0.0) + (5.0 + u * q if q > 0.5 else 0.0)
        self.stock = max(self.stock, 0.0)  # lost sales
        self.day += 1
        return self._obs(), -cost * self.reward_scale, False, self.day >= self.horizon, {"cost": cost}
