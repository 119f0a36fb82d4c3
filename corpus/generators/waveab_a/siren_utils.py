"""Helpers vendored from an older INR codebase (a SIREN fork, 2021): coordinate grids, image reshaping and a
parameter summary."""
import numpy as np
import torch


def get_mgrid(sidelen, dim=2):
    """A flattened grid of coordinates in [-1, 1]^dim."""
    tensors = tuple(dim * [torch.linspace(-1, 1, steps=sidelen)])
    mgrid = torch.stack(torch.meshgrid(*tensors, indexing="ij"), dim=-1)
    return mgrid.reshape(-1, dim)


def lin2img(tensor, image_resolution=None):
    batch_size, num_samples, channels = tensor.shape
    if image_resolution is None:
        width = np.sqrt(num_samples).astype(int)
        height = width
    else:
        height, width = image_resolution
    return tensor.permute(0, 2, 1).view(batch_size, channels, height, width)


def model_summary(model):
    rows = []
    for name, p in model.named_parameters():
        w = p.detach().cpu().numpy()
        assert np.alltrue(np.isfinite(w)), f"non-finite values in {name}"
        rows.append((name, tuple(p.shape), int(np.prod(p.shape))))
    total = sum(r[2] for r in rows)
    return rows, total
