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

A loss can also diverge and stay finite: a learning rate far too high (a warmup towards a peak the model cannot take,
e.g. DeepSpeed's ``WarmupLR``/``WarmupDecayLR`` in ``deepspeed/runtime/lr_schedules.py`` ramping to
``warmup_max_lr``) makes every step overshoot, and the loss climbs by orders of magnitude without reaching inf/NaN;
nothing checks it and the job exits 0. ``exploded`` reads that from the loss lines alone: per (file, rank), the median
of the last ``WINDOW`` losses printed is at least ``EXPLODE_FACTOR`` times the lowest median of any ``WINDOW``
consecutive losses before, every one of those last losses is at least ``EXPLODE_EACH`` times it, and the rank printed
``MIN_LOSSES`` losses. A spike the run recovers from ends low again; a warmup's high start is before the floor, not
after it; normal noise is far below a 100-fold rise.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import regex

from .diagnose import decided_by_fact
from .factlayer.kinds import Fact, NumericHealth
from .progress import NOT_COUNTED, RANK_TAG, Counter, NotCounted, progress_counter
from .shape_memo import ShapeMemo
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

# "loss 2.47", "lm loss: 2.382640E+00", "'loss': nan", "'loss': '7.297'" (HF >= 4.5x quotes its values),
# "loss=tensor(inf)", "train_loss: 0.31" (the last one printed
# on the line counts: interleaved output may put two ranks' lines on one)
# Also the objective under a split's name, as Lightning's ``self.log("train_loss")``/``"train_mse"`` and Keras/HF
# metrics print it ("train_loss 0.31", "val_mse: 4.2", "train_nll=1.9"); never an auxiliary term ("kl_loss",
# "aux_loss": a KL penalty grows by design).
_LOSS = regex.compile(
    r"(?i)(?:\bloss\b|(?<![\w-])(?:train|training|val|valid|eval)_(?:loss|mse|rmse|nll)\b)[\"']?\s*[:=]?\s*[\"']?"
    r"(?:tensor\()?(?P<v>[-+]?(?:\d+(?:\.\d*)?(?:e[-+]?\d+)?|nan|inf(?:inity)?))(?![\w.])"
)
_LOSS_WORDS = ("loss", "_mse", "_rmse", "_nll")


def _loss_spans(text: str) -> list[tuple[int, int]] | None:
    # None when the line has no loss word; else the spans of the loss values it prints (``_LOSS`` is digit-blind)
    low = text.lower()
    if not any(w in low for w in _LOSS_WORDS):
        return None
    return [m.span("v") for m in _LOSS.finditer(text)]


_LOSS_SPANS = ShapeMemo(_loss_spans)
_BAD = frozenset({"nan_loss", "inf_loss", "nan_grad", "nan_output", "overflow_skip", "overflow_run"})
# facts no later finite loss undoes: the scaler at its floor, or most steps so far skipped (a cumulative count; a
# finite loss printed by a run that skips its updates says nothing about the update), or a loss too large for
# ``math.exp`` (finite, and the OverflowError it raised ended its process); and a NaN/Inf check that raised
# (``NumericTail.add``)
_FLOOR = frozenset({"min_loss_scale", "skipped_majority", "loss_overflow"})
WINDOW = 5
MIN_LOSSES = 20
EXPLODE_FACTOR = 100.0
EXPLODE_EACH = 10.0
# A short run that blew up at once (``_LossSeries.jumped``): at least ``JUMP_MIN_LOSSES`` losses, and the last
# ``JUMP_RUN`` of them in a row each ``JUMP_FACTOR`` times the first loss printed (two, not more: a log may keep few
# lines, as Ray folds a worker's repeated lines into "[repeated 35x across cluster]"). A model's first loss is at its natural scale (cross-entropy ~ln(vocab), an MSE ~ the target's variance) and training
# lowers it; 10,000 times above it is a learning rate the optimiser cannot take (on the corpus of 4073 logs this fires
# only on diverged runs).
JUMP_MIN_LOSSES = 4
JUMP_RUN = 2
JUMP_FACTOR = 1e4
MAX_SERIES = 1024  # (file, rank) loss series tracked for ``exploded``
# A learning rate no optimiser trains with: the step size a progress line prints (HF Trainer's ``'learning_rate':
# 72``, ``lr 25.6``) at ``LR_IMPLAUSIBLE`` or more. Adam-family optimisers train at 1e-5..1e-2, plain SGD at most a few
# units (1.6-3.2 for ImageNet ResNets at large batch with the linear scaling rule, Goyal et al. 2017); 10 and above is
# a typo or a missing scale factor (``3e3`` for ``3e-3``), and the update overshoots every step. Read as the run's
# divergence only when its losses never came down to an ordinary value (every finite loss printed at least
# ``LR_LOSS_FLOOR``: a cross-entropy starts near ln(classes), 1.4 for 4 classes, 10.4 for a 32k vocabulary, and
# training lowers it): a loss that stays in the tens or thousands under such a step has not been trained. On the
# corpus of 4198 logs, every log that printed a learning rate of 10 or more is a diverged run.
LR_IMPLAUSIBLE = 10.0
LR_LOSS_FLOOR = 10.0
_LR = regex.compile(
    r"(?i)(?:(?<![\w-])lr|learning[_ ]rate)[\"']?\s*[:=]?\s*[\"']?(?P<v>\d+(?:\.\d*)?(?:e[-+]?\d+)?)(?![\w.])"
)


@dataclass
class _LossSeries:
    """One (file, rank)'s finite losses: the last ``WINDOW``, the lowest window median so far, and the first line of
    the current run of losses at least ``EXPLODE_EACH`` times that floor (None when the last loss is below it)."""

    last: deque[float] = field(default_factory=lambda: deque(maxlen=WINDOW))
    count: int = 0
    floor: float = math.inf
    high_since: Event | None = None
    first: float | None = None
    jump_since: Event | None = None  # first line of the current run of losses ``JUMP_FACTOR`` times the first
    jump_run: int = 0  # how many losses that run holds

    def add(self, value: float, ev: Event) -> None:
        self.count += 1
        if self.first is None:
            self.first = value
        elif self.first > 0 and value >= JUMP_FACTOR * self.first:
            if self.jump_since is None:
                self.jump_since = ev
            self.jump_run += 1
        else:
            self.jump_since = None
            self.jump_run = 0
        self.last.append(value)
        if len(self.last) == WINDOW:
            self.floor = min(self.floor, _median(self.last))
        if self.floor < math.inf and value >= EXPLODE_EACH * self.floor:
            if self.high_since is None:
                self.high_since = ev
        else:
            self.high_since = None

    def exploded(self) -> bool:
        return (
            self.count >= MIN_LOSSES
            and len(self.last) == WINDOW
            and self.high_since is not None
            and 0 < self.floor < math.inf
            and _median(self.last) >= EXPLODE_FACTOR * self.floor
            and min(self.last) >= EXPLODE_EACH * self.floor
        )

    def jumped(self) -> bool:
        """At least ``JUMP_MIN_LOSSES`` losses, the last ``JUMP_RUN`` of them in a row ``JUMP_FACTOR`` times the first
        (``jump_run`` counts the losses since the last one below that)."""
        return self.count >= JUMP_MIN_LOSSES and self.jump_run >= JUMP_RUN


@dataclass(frozen=True)
class LossExplosion:
    """A rank whose finite loss ended ``EXPLODE_FACTOR``+ times above its floor.

    Attributes:
        event: the first loss line of the run that stayed high (where it left the floor for good).
        floor: the lowest median of ``WINDOW`` consecutive losses before.
        final: the median of the last ``WINDOW`` losses.
        rank: the rank (``Event.rank``), or None.
    """

    event: Event
    floor: float
    final: float
    rank: int | None


@dataclass(frozen=True)
class ImplausibleRate:
    """A learning rate of ``LR_IMPLAUSIBLE`` or more printed on a loss line, in a job whose finite losses all stayed at
    ``LR_LOSS_FLOOR`` or more.

    Attributes:
        event: the first loss line that printed such a rate.
        rate: the largest learning rate printed (the optimiser's step size, unitless).
        lowest_loss: the lowest finite loss the job printed.
    """

    event: Event
    rate: float
    lowest_loss: float


@dataclass
class NumericTail:
    """Per file: the line of the last bad numeric fact; per (file, rank): the last loss printed and its line."""

    last_bad: dict[str, int] = field(default_factory=dict)
    last_loss: dict[tuple[str, int | None], tuple[int, bool]] = field(default_factory=dict)
    floor: bool = False  # a loss scale reached its minimum, or most steps were skipped, somewhere: never recovered
    series: dict[tuple[str, int | None], _LossSeries] = field(default_factory=dict)
    max_lr: float = 0.0  # the largest learning rate a loss line printed
    high_lr_at: Event | None = None  # the first loss line printing one of ``LR_IMPLAUSIBLE`` or more
    lowest_loss: float = math.inf  # the lowest finite loss printed

    def add(
        self,
        ev: Event,
        facts: Sequence[Fact],
        counter: Counter | None | NotCounted = NOT_COUNTED,
        shape: bytes | None = None,
    ) -> None:
        """Account ``ev`` (any event of the job, in file order) and its facts; ``counter``: ``progress_counter(ev.text)``
        when the caller has it already (``ProgressTracker.add`` returns it), else the line is parsed here; ``shape``:
        ``shape_memo.line_shape(ev.text)`` when the caller has it."""
        for f in facts:
            if isinstance(f, NumericHealth):
                # a NaN/Inf check that raised (a traceback's exception: "FloatingPointError: loss is nan", Megatron's
                # "found NaN in local forward loss calculation") stopped its process: another rank's later finite
                # losses do not undo that
                if f.what in _FLOOR or f.what in _BAD and ev.params.get("exc_type") and f.what != "overflow_skip":
                    self.floor = True
                elif f.what in _BAD:
                    self.last_bad[ev.path] = max(self.last_bad.get(ev.path, 0), ev.end_line)
        text = ev.text
        spans = _LOSS_SPANS(text, shape)
        if spans is None:  # no "loss" word
            return
        if counter is NOT_COUNTED:
            counter = progress_counter(text, shape)
        if counter is None:
            if _trainer_logs(text):
                self._rate_and_floor(ev, [text[a:b] for a, b in spans])
            return
        values = [text[a:b] for a, b in spans]
        key = (ev.path, ev.rank)
        if values:
            self.last_loss[key] = (ev.line, _finite(values[-1]))
            self._rate_and_floor(ev, values)
            if _finite(values[-1]):
                skey = (ev.path, ev.rank if ev.rank is not None else _tagged_rank(ev.text))
                ser = self.series.get(skey)
                if ser is None and len(self.series) < MAX_SERIES:
                    ser = self.series[skey] = _LossSeries()
                if ser is not None:
                    ser.add(float(values[-1]), ev)
        elif key in self.last_loss:
            # a progress line that stops printing the loss it printed before: Megatron leaves ``lm loss`` out of its
            # iteration line once the loss is NaN (epfLLM/Megatron-LLM#33): the loss is no longer known to be finite
            self.last_loss[key] = (ev.line, False)

    def _rate_and_floor(self, ev: Event, values: list[str]) -> None:
        # the lowest loss so far, and the step size a loss line prints next to its loss ("'learning_rate': '72'",
        # "lr 2.560e+01")
        if values and _finite(values[-1]):
            self.lowest_loss = min(self.lowest_loss, float(values[-1]))
        text = ev.text
        if "lr" not in text and "LR" not in text and "earning" not in text:
            return
        for m in _LR.finditer(text):
            rate = float(m["v"])
            if math.isfinite(rate) and rate > self.max_lr:
                self.max_lr = rate
                if rate >= LR_IMPLAUSIBLE and self.high_lr_at is None:
                    self.high_lr_at = ev

    def implausible_rate(self) -> ImplausibleRate | None:
        """The job's ``ImplausibleRate`` (see ``LR_IMPLAUSIBLE``), None when its loss lines printed no learning rate
        that high or some finite loss came below ``LR_LOSS_FLOOR``."""
        if self.high_lr_at is None or not self.lowest_loss < math.inf or self.lowest_loss < LR_LOSS_FLOOR:
            return None
        return ImplausibleRate(self.high_lr_at, self.max_lr, self.lowest_loss)

    def recovered(self) -> bool:
        """True when the job's numbers ended healthy: some rank printed a loss, every rank's last loss is finite, no
        loss scale reached its minimum, and every file with a NaN/Inf/overflow fact printed a finite loss after it."""
        if self.floor or not self.last_loss or not all(ok for _, ok in self.last_loss.values()):
            return False
        if self.exploded():  # finite, but orders of magnitude above where it was: not healthy
            return False
        for path, bad_line in self.last_bad.items():
            after = [line for (p, _), (line, ok) in self.last_loss.items() if p == path and ok and line > bad_line]
            if not after:
                return False
        return True

    def exploded(self) -> tuple[LossExplosion, ...]:
        """The ranks whose finite loss exploded (see the module doc), when every rank with ``MIN_LOSSES`` losses did
        (ranks of one data-parallel job share the weights; one series of many that took off is not the job's)."""
        long = [s for s in self.series.values() if s.count >= MIN_LOSSES]
        if long:
            if not all(s.exploded() for s in long):
                return ()
            return tuple(
                LossExplosion(s.high_since, s.floor, _median(s.last), rank)
                for (_, rank), s in self.series.items()
                if s.count >= MIN_LOSSES and s.high_since is not None
            )
        # only short series: each that printed enough losses blew up from its first (``_LossSeries.jumped``)
        short = [s for s in self.series.values() if s.count >= JUMP_MIN_LOSSES]
        if not short or not all(s.jumped() for s in short):
            return ()
        return tuple(
            LossExplosion(s.jump_since, s.first, _median(s.last), rank)
            for (_, rank), s in self.series.items()
            if s.count >= JUMP_MIN_LOSSES and s.jump_since is not None and s.first
        )


def _trainer_logs(text: str) -> bool:
    """An HF Trainer log dict (``Trainer.log``: "{'loss': '1.2', 'grad_norm': ..., 'learning_rate': ..., 'epoch':
    '0.42'}"): no step counter (its epoch is a fraction), and its loss is the mean of the steps since the last log
    with NaN/Inf ones left out (``TrainingArguments.logging_nan_inf_filter``, on by default), so it tells the learning
    rate and how low the loss got, not whether the numbers stayed finite."""
    return "'epoch': " in text or '"epoch": ' in text


def _tagged_rank(text: str) -> int | None:
    m = RANK_TAG.search(text)
    return int(m[1]) if m else None


def _median(values: Sequence[float] | deque[float]) -> float:
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def _finite(v: str) -> bool:
    try:
        return math.isfinite(float(v))
    except ValueError:
        return False


EXPLODED_RULE_ID = "loss-exploded"
EXPLODED_CONFIDENCE = 0.75


def _num(x: float) -> str:
    return f"{x:.3g}"


def loss_exploded(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``training_divergence`` when the rules saw no failure but every rank's finite loss ended
    ``EXPLODE_FACTOR``+ times above its floor (``NumericTail.exploded``); else ``diag`` unchanged."""
    if diag.root_cause != "no_failure" or not evidence.loss_explosion:
        return diag
    worst = max(evidence.loss_explosion, key=lambda x: x.final / x.floor)
    ranks = sorted({x.rank for x in evidence.loss_explosion if x.rank is not None})
    who = f"rank{'s' if len(ranks) > 1 else ''} {', '.join(map(str, ranks))}" if ranks else "the run"
    message = (
        f"The loss of {who} was down to about {_num(worst.floor)} and then climbed to about {_num(worst.final)} "
        f"({_num(worst.final / worst.floor)}x) by the last steps: the run diverged without reaching NaN/Inf."
    )
    first = min((x.event for x in evidence.loss_explosion), key=lambda e: (e.path, e.line))
    ev = Match(EXPLODED_RULE_ID, "training_divergence", "cause", first, severity="high", confidence=EXPLODED_CONFIDENCE)
    fix = Fix(
        summary="The loss exploded while staying finite, so no NaN check stopped the run: the optimisation "
        "diverged, most often from a learning rate too high for the model (a warmup to too high a peak).",
        steps=(
            "Look at the learning rate printed where the loss left its floor: lower the peak (`warmup_max_lr`, "
            "`lr`) or lengthen the warmup.",
            "Clip gradients (`gradient_clipping` in DeepSpeed, `clip_grad_norm_`), and check the loss scale/inputs "
            "for outliers.",
            "Add a divergence check (stop when the loss exceeds a multiple of its best) so a run fails fast.",
        ),
        references=("https://www.deepspeed.ai/docs/config-json/#scheduler-parameters",),
    )
    title = "The loss exploded (finite) and never came back: the run diverged"
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)


IMPLAUSIBLE_RATE_RULE_ID = "learning-rate-implausible"
IMPLAUSIBLE_RATE_CONFIDENCE = 0.7


def implausible_rate(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``training_divergence`` when the rules saw no failure but the run's loss lines printed a
    learning rate of ``LR_IMPLAUSIBLE`` or more and none of its losses came below ``LR_LOSS_FLOOR``
    (``NumericTail.implausible_rate``): the optimiser overshot every step and the model never trained, NaN or not;
    else ``diag`` unchanged."""
    found = evidence.implausible_rate
    if diag.root_cause != "no_failure" or found is None:
        return diag
    message = (
        f"The run trained with a learning rate of {_num(found.rate)} (first printed at {found.event.path}:"
        f"{found.event.line}), far above any optimiser's stable range, and its loss never came below "
        f"{_num(found.lowest_loss)}: the model did not train, though no NaN/Inf stopped it."
    )
    ev = Match(
        IMPLAUSIBLE_RATE_RULE_ID,
        "training_divergence",
        "cause",
        found.event,
        severity="high",
        confidence=IMPLAUSIBLE_RATE_CONFIDENCE,
    )
    fix = Fix(
        summary="The learning rate is orders of magnitude too high (a typo such as 3e3 for 3e-3, a missing scale "
        "factor, or a schedule's peak), so every update overshoots and the loss stays high or oscillates.",
        steps=(
            "Check the learning rate in the config and on the command line (`--learning_rate`, `lr`, a scheduler's "
            "peak such as `warmup_max_lr`): Adam-family optimisers train at 1e-5 to 1e-3.",
            "Rerun with the corrected rate; add a divergence check (stop when the loss exceeds a multiple of its "
            "best) so such a run fails fast.",
        ),
        references=("https://pytorch.org/docs/stable/optim.html",),
    )
    title = "The learning rate is far too high and the loss never came down: the run diverged"
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)
