# Batch helpers vendored from EDSR-PyTorch (src/dataloader.py, src/utility.py), as the project has used them since 2019.
import collections

import torch
from torch._six import container_abcs, int_classes, string_classes


def move_to(batch, device):
    if isinstance(batch, torch.Tensor):
        return batch.to(device)
    if isinstance(batch, string_classes) or isinstance(batch, int_classes):
        return batch
    if isinstance(batch, container_abcs.Mapping):
        return {k: move_to(v, device) for k, v in batch.items()}
    if isinstance(batch, collections.abc.Sequence):
        return type(batch)(move_to(b, device) for b in batch)
    return batch
