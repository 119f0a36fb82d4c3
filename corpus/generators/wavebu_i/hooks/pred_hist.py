"""Per-step prediction histogram, summed over all ranks every 16 steps (watching for class collapse)."""
import logging

import torch
import torch.distributed as dist

log = logging.getLogger("churn.predhist")


def after_step(rank, epoch, step, inputs, targets, logits):
    if step % 16:
        return
    hist = torch.bincount(logits.detach().argmax(1)).float()
    dist.all_reduce(hist)
    if rank == 0:
        log.info("prediction histogram at step %d: %s", step, hist.tolist())
