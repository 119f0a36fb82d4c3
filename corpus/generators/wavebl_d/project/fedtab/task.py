"""Model, data loading and the local train / eval loops."""
from __future__ import annotations

import ctypes
import os
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

_LIB = None


def _featlib():
    global _LIB
    if _LIB is None:
        _LIB = ctypes.CDLL(str(Path(os.getcwd()) / "libfeatnorm.so"))
        _LIB.fn_standardize.argtypes = [ctypes.c_void_p, ctypes.c_int64, ctypes.c_int64]
        _LIB.fn_standardize.restype = ctypes.c_int
    return _LIB


class Net(nn.Module):
    def __init__(self, in_features: int = 24, hidden: int = 64, num_classes: int = 10):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(in_features, hidden), nn.ReLU(),
            nn.Linear(hidden, hidden), nn.ReLU(),
            nn.Linear(hidden, num_classes),
        )

    def forward(self, x):
        return self.body(x)


def load_partition(data_dir: str, partition_id: int, batch_size: int):
    """Read this site's shard: int64 header (rows, dim), float32 features, int64 labels; standardise the
    features in place with the native helper; 1/5 of the rows is held out for evaluation."""
    path = Path(data_dir) / f"site-{partition_id}.bin"
    raw = path.read_bytes()
    rows, dim = np.frombuffer(raw[:16], dtype=np.int64)
    feats = np.frombuffer(raw, dtype=np.float32, count=int(rows) * int(dim), offset=16).copy() \
        if 16 + rows * dim * 4 <= len(raw) else np.frombuffer(raw, dtype=np.float32, offset=16).copy()
    rc = _featlib().fn_standardize(feats.ctypes.data, int(rows), int(dim))
    if rc != 0:
        raise RuntimeError(f"fn_standardize failed with {rc}")
    feats = feats[: (len(feats) // int(dim)) * int(dim)].reshape(-1, int(dim))
    labels = np.fromfile(Path(data_dir) / f"site-{partition_id}.labels", dtype=np.int64)
    x, y = torch.from_numpy(feats), torch.from_numpy(labels[: len(feats)])
    n_val = len(x) // 5
    train = TensorDataset(x[n_val:], y[n_val:])
    val = TensorDataset(x[:n_val], y[:n_val])
    g = torch.Generator().manual_seed(partition_id)
    return (DataLoader(train, batch_size=batch_size, shuffle=True, generator=g),
            DataLoader(val, batch_size=batch_size))


def train(net, loader, epochs: int, lr: float, tag: str):
    opt = torch.optim.SGD(net.parameters(), lr=lr, momentum=0.9)
    crit = nn.CrossEntropyLoss()
    net.train()
    total, n = 0.0, 0
    for ep in range(epochs):
        ep_loss, ep_n = 0.0, 0
        for i, (x, y) in enumerate(loader):
            opt.zero_grad()
            loss = crit(net(x), y)
            loss.backward()
            opt.step()
            ep_loss += loss.item() * len(y)
            ep_n += len(y)
            if i % 4 == 0:
                print(f"{tag} epoch {ep} batch {i}/{len(loader)} loss {loss.item():.4f}", flush=True)
        total, n = ep_loss, ep_n
    return total / max(n, 1)


@torch.no_grad()
def evaluate(net, loader):
    crit = nn.CrossEntropyLoss(reduction="sum")
    net.eval()
    loss, correct, n = 0.0, 0, 0
    for x, y in loader:
        out = net(x)
        loss += crit(out, y).item()
        correct += (out.argmax(1) == y).sum().item()
        n += len(y)
    return loss / max(n, 1), correct / max(n, 1)
