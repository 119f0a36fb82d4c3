"""Whether a run's numbers recovered: the loss every rank printed last is finite, after any NaN/Inf it showed.

Why: fp16 training with a dynamic loss scaler overflows by design. PyTorch's ``torch.amp.GradScaler.step`` skips
the optimizer step when the scaled gradients hold inf/NaN and ``update`` halves the scale; DeepSpeed's
``DynamicLossScaler.update_scale`` (``deepspeed/runtime/fp16/loss_scaler.py``) and its fp16 optimizers
(``runtime/fp16/fused_optimizer.py``/``unfused_optimizer.py`` ``_update_scale``: "Grad overflow on iteration",
"Reducing dynamic loss scale from A to B") do the same and raise the scale again after ``loss_scale_window`` clean
steps (https://pytorch.org/docs/stable/amp.html#gradient-scaling, https://www.deepspeed.ai/docs/config-json/
#fp16-training-options). One step's ``loss inf`` followed by finite losses is that mechanism working, not
``training_divergence``; a run diverged when its loss stays NaN/Inf, a NaN check stops it, or the scale reaches its
minimum. Likewise a Megatron iteration line (``megatron/training/training.py`` ``training_log``: ``lm loss:
2.38E+00 | loss scale: 1.0 | ... | number of nan iterations: 0``) is a healthy line: ``loss scale: 1.0`` is what bf16
and fp32 runs print, not a collapsed fp16 scale.

A *loss line* is a progress line (``progress.progress_counter``: a step counter and a metric, so its words are in the
reader's gate) that prints a loss value; a later progress line of the same rank without one leaves the loss unknown. Streaming state, one per job: ``add`` each event with its facts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import regex

from .factlayer.kinds import Fact, NumericHealth
from .progress import NOT_COUNTED, Counter, NotCounted, progress_counter
from .types import Event

# "loss 2.47", "lm loss: 2.382640E+00", "'loss': nan", "loss=tensor(inf)", "train_loss: 0.31" (the last one printed
# on the line counts: interleaved output may put two ranks' lines on one)
_LOSS = regex.compile(
    r"(?i)\bloss\b[\"']?\s*[:=]?\s*(?:tensor\()?(?P<v>[-+]?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|nan|inf(?:inity)?))(?![\w.])"
)
_BAD = frozenset({"nan_loss", "inf_loss", "nan_grad", "overflow_skip", "overflow_run"})
# facts no later finite loss undoes: the scaler at its floor, or most steps so far skipped (a cumulative count; a
# finite loss printed by a run that skips its updates says nothing about the update)
_FLOOR = frozenset({"min_loss_scale", "skipped_majority"})


@dataclass
class NumericTail:
    """Per file: the line of the last bad numeric fact; per (file, rank): the last loss printed and its line."""

    last_bad: dict[str, int] = field(default_factory=dict)
    last_loss: dict[tuple[str, int | None], tuple[int, bool]] = field(default_factory=dict)
    floor: bool = False  # a loss scale reached its minimum, or most steps were skipped, somewhere: never recovered

    def add(self, ev: Event, facts: Sequence[Fact], counter: Counter | None | NotCounted = NOT_COUNTED) -> None:
        """Account ``ev`` (any event of the job, in file order) and its facts; ``counter``: ``progress_counter(ev.text)``
        when the caller has it already (``ProgressTracker.add`` returns it), else the line is parsed here."""
        for f in facts:
            if isinstance(f, NumericHealth):
                if f.what in _FLOOR:
                    self.floor = True
                elif f.what in _BAD:
                    self.last_bad[ev.path] = max(self.last_bad.get(ev.path, 0), ev.end_line)
        if "loss" not in ev.text.lower():
            return
        if counter is NOT_COUNTED:
            counter = progress_counter(ev.text)
        if counter is None:
            return
        values = [m["v"] for m in _LOSS.finditer(ev.text)]
        key = (ev.path, ev.rank)
        if values:
            self.last_loss[key] = (ev.line, _finite(values[-1]))
        elif key in self.last_loss:
            # a progress line that stops printing the loss it printed before: Megatron leaves ``lm loss`` out of its
            # iteration line once the loss is NaN (epfLLM/Megatron-LLM#33): the loss is no longer known to be finite
            self.last_loss[key] = (ev.line, False)

    def recovered(self) -> bool:
        """True when the job's numbers ended healthy: some rank printed a loss, every rank's last loss is finite, no
        loss scale reached its minimum, and every file with a NaN/Inf/overflow fact printed a finite loss after it."""
        if self.floor or not self.last_loss or not all(ok for _, ok in self.last_loss.values()):
            return False
        for path, bad_line in self.last_bad.items():
            after = [line for (p, _), (line, ok) in self.last_loss.items() if p == path and ok and line > bad_line]
            if not after:
                return False
        return True


def _finite(v: str) -> bool:
    try:
        return math.isfinite(float(v))
    except ValueError:
        return False
