"""Per-step data audit: every 100 steps the last rank tallies its batch's label mix by risk tier (one rank is
enough for a drift signal and keeps the cost off the others)."""
import logging
import os

log = logging.getLogger("churn.audit")
TIER = {0: "green", 1: "green", 2: "amber", 3: "amber", 4: "red"}
_tally = {}


def after_step(rank, epoch, step, inputs, targets, logits):
    if rank != int(os.environ["WORLD_SIZE"]) - 1 or step % 100:
        return
    for t in targets.tolist():
        tier = TIER[t]
        _tally[tier] = _tally.get(tier, 0) + 1
    log.info("label tiers so far: %s", _tally)
