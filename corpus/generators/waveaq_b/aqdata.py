"""Shared by tune_pm25.py and ddp_trial.py: station loading, gap filling, forecast windows, the models."""
from __future__ import annotations

import ctypes
import glob
import os

import numpy as np
import torch
from torch import nn

FEATURES = ["pm25", "temp_c", "rh", "wind_ms", "wdir_sin", "wdir_cos", "pressure_hpa", "blh_m"]
HORIZON = 6  # forecast PM2.5 6 hours ahead


def fill_gaps(x: np.ndarray, how: str) -> np.ndarray:
    pm = np.ascontiguousarray(x[:, 0], dtype=np.float32)
    if how == "native":  # the team's C helper (much faster on year-long exports)
        lib = ctypes.CDLL(os.path.abspath("libgapfill.so"))
        lib.fill_gaps.argtypes = [ctypes.POINTER(ctypes.c_float), ctypes.c_int]
        lib.fill_gaps.restype = ctypes.c_int
        n = lib.fill_gaps(pm.ctypes.data_as(ctypes.POINTER(ctypes.c_float)), len(pm))
    else:
        bad = np.isnan(pm)
        n = int(bad.sum())
        if n:
            pm[bad] = np.interp(np.flatnonzero(bad), np.flatnonzero(~bad), pm[~bad])
    x = x.copy()
    x[:, 0] = pm
    return x, n


def load_stations(data: str, gap_fill: str = "linear") -> dict:
    out = {}
    for f in sorted(glob.glob(os.path.join(data, "station-*.npz"))):
        d = np.load(f)
        x, n = fill_gaps(d["x"], gap_fill)
        out[os.path.basename(f)[:-4]] = x
        if n:
            print(f"{os.path.basename(f)}: filled {n} missing hours", flush=True)
    return out


def windows(stations: dict, window: int, context: str = "station", val_frac: float = 0.2):
    """(train_x, train_y, val_x, val_y): each sample is `window` hours of a station's channels (or, with context
    'all-stations', every station's channels side by side) and the target is PM2.5 HORIZON hours later."""
    names = sorted(stations)
    cuts = {n: int(len(stations[n]) * (1 - val_frac)) for n in names}
    train = np.concatenate([stations[n][:cuts[n]] for n in names])
    mean, std = train.mean(0), train.std(0) + 1e-6
    xs, ys, vx, vy = [], [], [], []
    for n in names:
        z = (stations[n] - mean) / std
        if context == "all-stations":
            z = np.concatenate([(stations[m] - mean) / std for m in names], 1).astype(np.float64)
        idx = np.arange(len(z) - window - HORIZON)
        w = np.stack([z[i:i + window] for i in idx])
        y = stations[n][idx + window + HORIZON - 1, 0]
        tr = idx + window + HORIZON - 1 < cuts[n]
        xs.append(w[tr]); ys.append(y[tr]); vx.append(w[~tr]); vy.append(y[~tr])
    f = lambda a: torch.tensor(np.concatenate(a), dtype=torch.float32)  # noqa: E731
    return f(xs), f(ys), f(vx), f(vy)


class GRUForecaster(nn.Module):
    def __init__(self, n_in: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        self.gru = nn.GRU(n_in, hidden, layers, batch_first=True, dropout=dropout if layers > 1 else 0.0)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.gru(x)
        return self.head(h[:, -1]).squeeze(-1)


class MLPForecaster(nn.Module):
    def __init__(self, n_in: int, window: int, hidden: int, layers: int, dropout: float) -> None:
        super().__init__()
        mods, d = [nn.Flatten()], n_in * window
        for _ in range(layers):
            mods += [nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(dropout)]
            d = hidden
        mods.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*mods)

    def forward(self, x):
        return self.net(x).squeeze(-1)


def build(model: str, n_in: int, window: int, hidden: int, layers: int, dropout: float) -> nn.Module:
    if model == "gru":
        return GRUForecaster(n_in, hidden, layers, dropout)
    return MLPForecaster(n_in, window, hidden, layers, dropout)
