"""Precipitation emulator: dataset over the gridded predictor export and a small CNN."""
import glob
import json
import os
import re

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset


class GridDataset(Dataset):
    """Predictor fields (memory-mapped .npy, one channel per variable) and the precipitation target."""

    def __init__(self, data_dir, split, variables):
        self.x = np.load(os.path.join(data_dir, f"{split}_x.npy"), mmap_mode="r")
        self.y = np.load(os.path.join(data_dir, f"{split}_precip.npy"), mmap_mode="r")
        with open(os.path.join(data_dir, f"{split}_vars.json")) as f:
            exported = json.load(f)
        self.channels = [exported.index(v) if v in exported else _missing(v, exported) for v in variables]

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = np.array(self.x[i][self.channels], dtype=np.float32)
        return torch.from_numpy(x), torch.from_numpy(np.array(self.y[i], dtype=np.float32))


def _missing(v, exported):
    raise KeyError(f"predictor {v!r} not in export (has {exported})")


class PrecipCNN(nn.Module):
    def __init__(self, in_ch, width=16):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_ch, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, width, 3, padding=1), nn.GELU(),
            nn.Conv2d(width, 1, 1))

    def forward(self, x):
        return nn.functional.softplus(self.net(x))


def latest_checkpoint(save_dir):
    found = sorted(glob.glob(os.path.join(save_dir, "emulator_ep*.pt")),
                   key=lambda p: int(re.search(r"ep(\d+)", p).group(1)))
    return found[-1] if found else None


def install_signal_logging():
    """Log SIGTERM / SIGHUP (scheduler preemption, lost session) before exiting, as the cluster docs suggest."""
    import signal
    import sys
    import time

    def handler(signum, frame):
        rank = os.environ.get("OMPI_COMM_WORLD_RANK", "?")
        print(f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] [WARNING] [rank {rank}] received "
              f"{signal.Signals(signum).name}, exiting", flush=True)
        sys.exit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)
