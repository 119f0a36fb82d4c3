"""Compressed image records shared by ``train_pl_images.py`` and ``ray_train_images.py``.

Each record of a data file is a zlib-compressed uint8 image (3 x size x size) plus a label byte, written by
``make_data``; ``ImageRecords.__getitem__`` decompresses it to float32, normalises, random-crops to ``crop`` x ``crop`` (64) and flips.
With ``decode_cache`` the decoded full-size float32 image is memoised in a per-process dict (never evicted) so later
epochs skip the decompression.
"""
from __future__ import annotations

import zlib

import numpy as np
import torch
from torch.utils.data import Dataset


def make_data(path: str, n: int, size: int, seed: int = 0) -> None:
    rng = np.random.default_rng(seed)
    with open(path, "wb") as f:
        for i in range(n):
            label = int(rng.integers(0, 10))
            base = np.linspace(0, 255, size, dtype=np.float32)
            img = (np.add.outer(base * (label + 1) / 11, base[::-1] * (10 - label) / 11) % 256).astype(np.uint8)
            img = np.stack([img, np.roll(img, label * 7, 0), np.roll(img, label * 3, 1)])
            img = np.clip(img.astype(np.int16) + rng.integers(-20, 20, img.shape), 0, 255).astype(np.uint8)
            blob = zlib.compress(img.tobytes(), 6)
            f.write(len(blob).to_bytes(4, "little") + label.to_bytes(1, "little") + blob)


class ImageRecords(Dataset):
    def __init__(self, path: str, size: int, decode_cache: bool, crop: int = 64) -> None:
        self.path, self.size, self.decode_cache, self.crop = path, size, decode_cache, crop
        self.offsets, self.labels = [], []
        with open(path, "rb") as f:
            off = 0
            while head := f.read(5):
                n = int.from_bytes(head[:4], "little")
                self.offsets.append((off + 5, n))
                self.labels.append(head[4])
                f.seek(n, 1)
                off += 5 + n
        self.cache: dict[int, np.ndarray] = {}
        self.mean = np.array([120.0, 120.0, 120.0], dtype=np.float32)[:, None, None]
        self.std = np.array([70.0, 70.0, 70.0], dtype=np.float32)[:, None, None]

    def __len__(self) -> int:
        return len(self.offsets)

    def decode(self, i: int) -> np.ndarray:
        if i in self.cache:
            return self.cache[i]
        off, n = self.offsets[i]
        with open(self.path, "rb") as f:
            f.seek(off)
            raw = zlib.decompress(f.read(n))
        img = (np.frombuffer(raw, dtype=np.uint8).reshape(3, self.size, self.size).astype(np.float32) - self.mean)
        img /= self.std
        if self.decode_cache:
            self.cache[i] = img
        return img

    def __getitem__(self, i: int):
        img = self.decode(i)
        rng = np.random.default_rng()
        y0, x0 = rng.integers(0, self.size - self.crop + 1, 2)
        crop = img[:, y0:y0 + self.crop, x0:x0 + self.crop]
        if rng.random() < 0.5:
            crop = crop[:, :, ::-1]
        return torch.from_numpy(np.ascontiguousarray(crop)), self.labels[i]
