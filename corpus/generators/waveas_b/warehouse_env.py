"""WarehouseDispatch: a grid warehouse where robots carry orders from the pick station to shelves.

One agent dispatches every robot: each step it gives a move (stay/up/down/left/right) to the robot whose turn it is.
Reward +1 per delivered order, -0.5 per collision (two robots on one cell, or a robot on a rack), -0.01 per step.
"""
from __future__ import annotations

import json
import os

import gymnasium as gym
import numpy as np

MOVES = np.array([[0, 0], [-1, 0], [1, 0], [0, -1], [0, 1]])


def load_layout(path: str | None, size: int, n_robots: int, n_shelves: int) -> dict:
    if path:
        with open(path) as f:
            return json.load(f)
    rng = np.random.default_rng(7)
    cells = [(r, c) for r in range(1, size - 1) for c in range(1, size - 1) if (r + c) % 3 == 0]
    pick = rng.choice(len(cells), n_shelves, replace=False)
    return {"size": size, "robots": n_robots, "station": [0, 0],
            "shelves": [list(map(int, cells[i])) for i in pick], "racks": []}


class WarehouseDispatch(gym.Env):
    metadata = {"render_modes": []}

    def __init__(self, config: dict | None = None):
        worker = getattr(config, "worker_index", 0)
        config = dict(config or {})
        if config.get("layout"):  # one layout per zone: zone-{worker}.json, one zone per env runner
            config["layout"] = config["layout"].format(worker=worker)
        self.layout = load_layout(config.get("layout"), config.get("size", 8), config.get("robots", 3),
                                  config.get("shelves", 6))
        self.size = int(config.get("size", self.layout["size"]))
        self.fleet = int(self.layout["robots"])
        self.n_robots = int(config.get("robots") or self.fleet)
        self.max_steps = int(config.get("max_steps", 200))
        self.record_frames = config.get("record_frames", False)
        self.planner = None
        if config.get("planner"):
            from planner import Planner
            self.planner = Planner(config["planner"], self.size)
        self.shelves = [tuple(s) for s in self.layout["shelves"]]
        self.racks = {tuple(r) for r in self.layout.get("racks", [])}
        self.station = tuple(self.layout["station"])
        # per robot: row, col, carrying, target row, target col
        self.observation_space = gym.spaces.Box(0.0, 1.0, (self.n_robots * 5 + 1,), np.float32)
        self.action_space = gym.spaces.Discrete(5)
        self.frames: list = []

    def _obs(self):
        o = np.zeros(len(self.robots) * 5 + 1, np.float32)
        for i, r in enumerate(self.robots):
            o[i * 5:i * 5 + 5] = [r[0] / (self.size - 1), r[1] / (self.size - 1), r[2], r[3] / (self.size - 1),
                                  r[4] / (self.size - 1)]
        o[-1] = self.turn / max(1, self.fleet - 1)
        return o

    def _new_order(self, i):
        # the next order from the zone's order list (WMS export), else any shelf
        orders = self.layout.get("orders")
        shelf = orders[int(self.rng.integers(len(orders)))] if orders else int(self.rng.integers(len(self.shelves)))
        self.robots[i][3:5] = self.shelves[shelf]

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.rng = np.random.default_rng(seed)
        self.t, self.turn = 0, 0
        self.robots = [[int(self.rng.integers(self.size)), int(self.rng.integers(self.size)), 1, 0, 0]
                       for _ in range(self.fleet)]
        for i in range(self.fleet):
            self._new_order(i)
        return self._obs(), {}

    def render_frame(self):
        img = np.zeros((self.size * 64, self.size * 64, 3), np.float64)
        for r in self.robots:
            img[r[0] * 64:(r[0] + 1) * 64, r[1] * 64:(r[1] + 1) * 64] = (1.0, 0.5 * r[2], 0.0)
        return img

    def step(self, action):
        r = self.robots[self.turn]
        if self.planner is not None:
            action = self.planner.suggest(r, action)
        nr, nc = np.clip(np.array(r[:2]) + MOVES[int(action)], 0, self.size - 1)
        reward = -0.01
        if (nr, nc) in self.racks or any(o is not r and o[:2] == [nr, nc] for o in self.robots):
            reward -= 0.5
        else:
            r[0], r[1] = int(nr), int(nc)
        if r[:2] == list(r[3:5]):
            if r[2]:  # delivered: back to the pick station
                reward += 1.0
                r[2], r[3], r[4] = 0, *self.station
            else:  # picked up at the station: the next order
                r[2] = 1
                self._new_order(self.turn)
        if self.record_frames:  # debug video of the episode
            self.frames.append(self.render_frame())
        self.turn = (self.turn + 1) % self.fleet
        self.t += 1
        return self._obs(), reward, False, self.t >= self.max_steps, {}
