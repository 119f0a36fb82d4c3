"""Shared pieces of the keyword-spotting trainer: dataset, model, checkpoint helpers."""
import glob
import logging
import os
import re

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset

logger = logging.getLogger("kws")


def read_keywords(path):
    with open(path) as f:
        return [w.strip() for w in f if w.strip()]


class FeatureDataset(Dataset):
    """Log-mel frames exported by the feature pipeline (memory-mapped .npy) plus one keyword per line."""

    def __init__(self, data_dir, split, keywords, augment=None):
        self.feats = np.load(os.path.join(data_dir, f"{split}_feats.npy"), mmap_mode="r")
        with open(os.path.join(data_dir, f"{split}_labels.txt")) as f:
            self.words = [w.strip() for w in f if w.strip()]
        self.index = {w: i for i, w in enumerate(keywords)}
        self.augment = augment
        assert len(self.words) == len(self.feats), "labels and features out of sync"

    def __len__(self):
        return len(self.feats)

    def __getitem__(self, i):
        x = torch.from_numpy(np.array(self.feats[i], dtype=np.float32)).unsqueeze(0)
        if self.augment is not None:
            x = self.augment(x)
        return x, self.index[self.words[i]]


class KWSNet(nn.Module):
    """A small conv net over (1, 40, 98) log-mel frames."""

    def __init__(self, n_classes, width=16):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(2 * width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(),
            nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(2 * width, n_classes)

    def forward(self, x):
        return self.head(self.body(x).flatten(1))


def latest_checkpoint(save_dir):
    found = sorted(glob.glob(os.path.join(save_dir, "checkpoint_epoch*.pth")),
                   key=lambda p: int(re.search(r"epoch(\d+)", p).group(1)))
    return found[-1] if found else None
