"""Gradient clipping helper vendored from the team's 2021 speech toolkit (torch 1.8 era)."""
import torch
from torch._six import inf


def clip_grad_norm_(parameters, max_norm, norm_type=2.0):
    parameters = [p for p in parameters if p.grad is not None]
    norm_type = float(norm_type)
    if norm_type == inf:
        total = max(p.grad.detach().abs().max() for p in parameters)
    else:
        total = torch.norm(torch.stack([torch.norm(p.grad.detach(), norm_type) for p in parameters]), norm_type)
    coef = max_norm / (total + 1e-6)
    if coef < 1:
        for p in parameters:
            p.grad.detach().mul_(coef)
    return total
