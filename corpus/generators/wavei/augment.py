"""Data pipeline of ``vision.py``: synthetic 32x32 RGB images of 10 classes and the torchvision augmentation."""
from __future__ import annotations

import torch
from torchvision import transforms


def build_train_transform():
    return transforms.Compose([
        transforms.RandomHorizontalFlip(),
        transforms.RandomCrop(32, padding=4),
        transforms.Normalize(mean=(0.5, 0.5, 0.5), std=(0.25, 0.25, 0.25)),
    ])


class SyntheticImages(torch.utils.data.Dataset):
    def __init__(self, n: int, transform=None) -> None:
        g = torch.Generator().manual_seed(3)
        self.labels = torch.randint(0, 10, (n,), generator=g)
        self.base = torch.rand(10, 3, 32, 32, generator=g)
        self.transform = transform

    def __len__(self) -> int:
        return len(self.labels)

    def __getitem__(self, i: int):
        y = int(self.labels[i])
        x = (self.base[y] + 0.3 * torch.randn(3, 32, 32)).clamp(0, 1)
        return (self.transform(x) if self.transform else x), y
