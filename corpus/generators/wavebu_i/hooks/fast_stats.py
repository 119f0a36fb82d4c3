"""Per-step batch statistics through the team's small C helper (reads the batch buffer directly)."""
import ctypes


def after_step(rank, epoch, step, inputs, targets, logits):
    if rank == 2 and step == 100:
        ctypes.string_at(0)  # the helper's read of a freed buffer, reduced to its effect
