import math
import time

from mmengine.hooks import Hook
from mmengine.registry import HOOKS


@HOOKS.register_module()
class FieldPaceHook(Hook):
    """Sleep after each training iteration (the shared scouting box runs other jobs; keeps a run 10-40 s)."""

    def __init__(self, step_delay=0.0):
        self.step_delay = step_delay

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        if self.step_delay:
            time.sleep(self.step_delay)


@HOOKS.register_module()
class CheckInvalidLossHook(Hook):
    """Stop the run when the loss becomes NaN or Inf (same idea as mmdet's CheckInvalidLossHook)."""

    def __init__(self, interval=1):
        self.interval = interval

    def after_train_iter(self, runner, batch_idx, data_batch=None, outputs=None):
        if self.every_n_train_iters(runner, self.interval):
            loss = float(outputs["loss"])
            assert math.isfinite(loss), runner.logger.info("loss become infinite or NaN!")
