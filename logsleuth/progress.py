"""Per-rank training progress from log lines: the last step each rank printed, and when.

A fact for hang diagnosis (issue 13): in a hang every healthy rank waits in a collective, and the rank that caused
it is usually the one whose progress stopped first. A *progress line* is an info-level line that names a step
counter (``step 12``, ``global_step=12``, ``iter 12``, ``iteration: 12``, OpenMMLab's ``Epoch [1][100/625]``,
optionally an ``epoch`` and a
``micro``-step/``micro_batch`` counter) **and** a training metric (``loss``, ``lr``, ``grad_norm``, ``it/s``,
``elapsed``, ``tokens``, ``samples``, ``throughput``...), as training loops, HF Trainer, DeepSpeed and Lightning
print them. A line such as ``step 3: refreshing dataset shard index`` names a step but no metric: it is not
progress (a rank that announces a step and then stalls has not completed it).

Usage: ``tracker = ProgressTracker()``, ``tracker.add(event)`` for each event of the job (cheap; bounded memory:
one record per rank), then ``tracker.ranks`` and ``silent_first(tracker.ranks)``.
"""

from __future__ import annotations

import enum
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from statistics import median

import regex

from . import plausible
from .shape_memo import ShapeMemo
from .types import Event

# an epoch counter with its total ("Epoch 2/8", "epoch: [3/10]"): the epoch and the total as groups 1 and 2
EPOCH_OF = regex.compile(r"(?i)\bepoch\b(?:\(\w+\))?\s*[:=#]?\s*(?|\[\s*(\d+)\s*/\s*(\d+)\s*\]?|(\d+)\s*/\s*(\d+))")
# counters, in the order they compare: epoch, then step, then micro-step
# OpenMMLab's loggers print the counters in brackets: mmcv's ``TextLoggerHook`` "Epoch [1][100/62598]\tlr: ..."
# (the step is the iteration within the epoch) and "Iter [100/80000]", mmengine's ``LogProcessor`` "Epoch(train)
# [1][ 100/62598]" and "Iter(train) [  100/80000]"; torchvision's reference scripts' ``MetricLogger.log_every``
# "Epoch: [0]  [ 10/100]  eta: ... loss: ..." (``references/classification/utils.py``, also DETR/DeiT/MAE) and
# pytorch/examples' ImageNet ``ProgressMeter`` "Epoch: [0][  11/5005]\tTime ... Loss ..." (``imagenet/main.py``)
# timm's ``train.py`` ``train_one_epoch`` heads its line with the epoch, then the update within it: "Train: 2 [   4/12
# ( 42%)]  Loss: ... Time: 0.245s, ..." (huggingface/pytorch-image-models ``train.py``), copied by scripts built on it
_EPOCH = regex.compile(r"(?i)(?|\bepoch\b(?:\(\w+\))?\s*[:=#]?\s*\[?\s*(\d+)|\btrain:\s*(\d+)\s*\[\s*\d+/\d+)")
# XGBoost's evaluation log (``xgboost/callback.py`` ``EvaluationMonitor``: "[100]\ttrain-logloss:0.38773\tvalid-auc:
# 0.88282", the boosting round in brackets, then tab-separated "<data>-<metric>:<value>"; its native logger puts its
# clock first, "[15:22:55] [100]\t..."): the round is the step. One "<data>-<metric>:" pair, as re and RE2 both read it:
_EVAL_PAIR = r"[\w.]+-[\w@.-]+:"
_XGB_ROUND = r"|(?:^|\] )\[(\d+)\]\t" + _EVAL_PAIR + r"[-+\d.]"
_STEP = regex.compile(
    r"(?i)(?|\b(?:global[_ ]?step|step|iter(?:ation)?|it)\b\s*[:=#]?\s*\[?(\d+)"
    r"|\bepoch(?:\(\w+\))?:?\s*\[\s*\d+\]\s*\[\s*(\d+)/\d+\]|\biter\(\w+\)\s*\[\s*(\d+)/\d+\]"
    # PyTorch's examples/mnist ``train()`` ("Train Epoch: {} [{}/{} ({:.0f}%)]\tLoss: {:.6f}"), copied by Horovod's and
    # OpenCLIP's loops: the samples done in the epoch count as its step
    r"|\bepoch:?\s*\d+\s*\[\s*(\d+)/\d+\s*\(|\btrain:\s*\d+\s*\[\s*(\d+)/\d+" + _XGB_ROUND + ")"
)
# mmengine's validation and test loops ("Epoch(val) [3][4/4]", "Iter(test) [ 50/500]", ``LogProcessor``) count their
# own iterations from 1 at every run of the loop: not the training step, whose series it would send back
_EVAL_LOOP = regex.compile(r"(?i)(?:epoch|iter)\((?:val|test)\)")
_MICRO = regex.compile(r"(?i)\bmicro(?:[_ -]?(?:step|batch))?\b\s*[:=#]?\s*(\d+)")
# a metric's name, also as a part of a snake_case key ("learner_loss", "val_acc", "loss_avg"), and RL's returns and
# rewards ("episode_return_mean", "reward"), and a regression's loss under its own name ("mse 0.41648", "rmse", "mae")
_METRIC = regex.compile(
    r"(?i)(?:\b|(?<=_))(?:loss|lr|learning[_ ]rate|grad[_ ]norm|it/s|s/it|elapsed|tokens|samples|throughput|r?mse|mae"
    r"|tflops|mfu|ppl|perplexity|accuracy|acc|rewards?)(?:\b|(?=_))|_return_|\breturn_mean\b"
    # an evaluation log's own metrics (``_XGB_ROUND``: "train-logloss:0.38773")
    r"|\t" + _EVAL_PAIR + r"[-+\d.]"
)
# what a line must contain to be a progress line (RE2 syntax, for ``read.LineGate``)
GATE: tuple[str, ...] = (
    r"(?i:step|iter)",
    r"(?i:epoch)(?:\(\w+\))?\s*\[\s*\d+\]\s*\[",
    r"(?i:epoch):?\s*\d+\s*\[\s*\d+/\d+\s*\(",
    r"(?i:train):\s*\d+\s*\[\s*\d+/\d+",
    r"\[\d+\]\t" + _EVAL_PAIR,
)
MAX_INTERVALS = 64  # step intervals kept per rank (for the typical step time)
# the duration of one step that a progress line prints of itself where the line carries no clock: nanoGPT's
# "iter 100: loss 2.7652, time 122.64ms, mfu 0.00%" (karpathy/nanoGPT ``train.py``: ``dt`` is the whole iteration,
# from one ``time.time()`` to the next), LitGPT's "iter 10 step 1: loss 9.8 ... iter time: 290.19 ms" (``litgpt/
# pretrain.py``), Megatron's "elapsed time per iteration (ms): 1234.5" (``megatron/training/training.py``
# ``training_log``), "step_time=0.52s". A unit is required ("time 00:01" is an epoch's clock, mmcv's bare "time: 0.5"
# is not read), and a data-loading share ("data time 0.01s", "data_time") is not a step.
_STEP_TIME = regex.compile(
    r"(?i)(?<!data )(?<!load )(?<!wait )\b(?:(?:iter(?:ation)?|step|batch)[ _]?time|time(?:[ _]per[ _](?:iter(?:ation)?"
    r"|step|batch)|/(?:iter|step|it))?|dt)\s*[:=]?\s*(\d+(?:\.\d+)?)\s*(ms|s|sec)\b"
    r"|\belapsed time per iteration \(ms\):\s*(\d+(?:\.\d+)?)"
    # the unit in parentheses before the value: TorchTNT's ``IterationTimeLogger`` ("Train Iteration Time
    # (seconds)=0.0440", torchtnt/framework/callbacks/iteration_time_logger.py)
    r"|\b(?:iter(?:ation)?|step|batch)[ _]?time \((ms|s|sec|seconds)\)\s*[:=]\s*(\d+(?:\.\d+)?)"
)
# a running figure of seconds a progress line prints of itself where the line carries no clock: the time since the
# loop (or its epoch) began, "epoch 0 step 150: loss 0.0687 acc 0.818 (10.4s)" (wave BX's MosaicML Streaming job),
# "elapsed: 63.2s", "elapsed 0:01:03"; read only where ``_STEP_TIME`` finds no step duration (``_elapsed_clock``
# tells a running figure from a duration printed per line)
_ELAPSED = regex.compile(
    r"\((\d+(?:\.\d+)?)\s*(?:s|sec)\)\s*$"
    r"|(?i:\belapsed(?:[ _]time)?)\s*[:=]?\s*(?:(\d+(?:\.\d+)?)\s*(?:s|sec|secs|seconds)\b|(\d+):(\d\d):(\d\d)\b)"
)
# an epoch's duration printed at its end, by a line that is no step's progress: "[rank1] epoch 1 done: mean loss
# 2.3080, acc 0.116, (epsilon = 1.976, delta = 1e-05) in 3.4s" (wave BX's Opacus job), "Epoch 3 took 12.5 s",
# "Epoch 2 finished in 35.2s", "epoch 4 ... epoch time: 12s", "epoch 0 done: mean loss 4.7574 (1.0 s), saved ..."
# (wave BZ's Lightly job): a line that says the epoch ended, or names its time (not "epoch 3: checkpoint saved in
# 0.5s"); ``_epoch_clock`` adds it to the stream's step clock
_EPOCH_TOOK = regex.compile(
    r"(?i)\bepoch\b\W{0,3}(\d+)\b[^\n]*?"
    r"(?:\b(?:done|finished|completed?|ended)\b[^\n]*?(?:\bin|\()|\btook|\b(?:epoch[ _])?(?:time|duration)\s*[:=])"
    r"\s*(\d+(?:\.\d+)?)\s*(ms|s|sec|secs|seconds)\b"
)
MAX_RECENT = 512  # progress points kept per rank (``RankProgress.recent``: where a job went on after a failure)
# "INFO [rank1] train: step 5 loss ..." inside a line (a logging format, or two ranks' lines glued on one); also
# "[rank 1]", "[rank: 1]", "[rank 1/4]" (the bracketed spellings ``parse._TEXT_RANK`` reads a line's rank from)
RANK_TAG = regex.compile(r"\[rank:? ?(\d+)(?:/\d+)?\]")
UNRANKED = -1  # ``RankProgress.rank`` of ``ProgressTracker.unranked``'s streams: lines that name no rank
MAX_UNRANKED_STREAMS = 256  # pids whose rank-less progress is followed (bounded memory on logs of many processes)


@dataclass
class RankProgress:
    """One rank's progress as its log lines show it.

    Attributes:
        rank: global rank (from the line's prefix or the file's path).
        counter: the last progress line's counters ``(epoch, step, micro)``; -1 where the line names none.
        path, line: where that last progress line is (1-based line number).
        text: that line's text.
        time: its wall-clock time (naive, as printed; may be year-less), None when the line has none.
        last_time: the time of this rank's last timed line of any kind.
        lines: how many progress lines this rank printed.
        intervals: seconds between consecutive timed progress lines (the last ``MAX_INTERVALS``).
        recent: the last ``MAX_RECENT`` progress lines as ``(path, line, time, counter)`` (``recovered``: did the rank
            go past where it was when something failed).
        deduplicated: the job's output went through Ray's log deduplication (a line ends "[repeated Nx across
            cluster]", ``ray/_private/ray_logging`` ``LogDeduplicator``, on by default, ``RAY_DEDUP_LOGS``): lines
            that differ only in their numbers, from any process of the cluster, were folded into the first one, so a
            rank's last printed counter is not how far it got.
    """

    rank: int
    counter: tuple[int, int, int] = (-1, -1, -1)
    path: str = ""
    line: int = 0
    text: str = ""
    time: datetime | None = None
    last_time: datetime | None = None
    lines: int = 0
    intervals: list[float] = field(default_factory=list)
    recent: deque[tuple[str, int, datetime | None, tuple[int, int, int]]] = field(
        default_factory=lambda: deque(maxlen=MAX_RECENT), repr=False, compare=False
    )
    deduplicated: bool = False
    # the step clock of untimed progress lines that print their own step duration (``_STEP_TIME``): the time of the
    # stream's last timed line before its first such line (``clock_from``), the seconds the printed steps account for
    # since then (``clock_seconds``: each line's step advance times its printed duration) and the printed durations
    clock_from: datetime | None = field(default=None, repr=False, compare=False)
    clock_seconds: float = field(default=0.0, repr=False, compare=False)
    clock_steps: list[float] = field(default_factory=list, repr=False, compare=False)
    clock_counter: tuple[int, int, int] | None = field(default=None, repr=False, compare=False)
    # a running elapsed figure's clock (``_ELAPSED``): the seconds of its finished runs (it restarted, or each line
    # printed a duration of its own), the last figure and the lines of the run it belongs to
    elapsed_base: float = field(default=0.0, repr=False, compare=False)
    elapsed_last: float | None = field(default=None, repr=False, compare=False)
    elapsed_run_lines: int = field(default=0, repr=False, compare=False)
    # the last timed line before the stream's last clocked line: that line came after it, wherever the clock says
    clock_floor: datetime | None = field(default=None, repr=False, compare=False)
    # epochs whose printed durations the clock holds (``_EPOCH_TOOK``): one may date a stall, as its floor is
    # ``STALL_FACTOR`` epochs
    clock_epochs: int = field(default=0, repr=False, compare=False)
    # untimed progress dated by its file's dated lines around it (``ProgressTracker._bracket``): the time of the dated
    # line before its first and before its last progress line, how many such lines, and the time of the first dated line
    # of the same file printed after its last progress line (an upper bound of when that step was printed), None until
    # one is printed
    bracket_first: datetime | None = field(default=None, repr=False, compare=False)
    bracket_last: datetime | None = field(default=None, repr=False, compare=False)
    bracket_lines: int = field(default=0, repr=False, compare=False)
    bracket_after: datetime | None = field(default=None, repr=False, compare=False)
    # progress lines printed since ``bracket_last`` (the ones its date is the last one before)
    bracket_since: int = field(default=0, repr=False, compare=False)

    def to_dict(self) -> dict[str, object]:
        from .parse.timestamps import iso_dated

        return {
            "rank": self.rank,
            "step": self.counter[1],
            "epoch": self.counter[0],
            "micro": self.counter[2],
            "path": self.path,
            "line": self.line,
            "time": iso_dated(self.time),
            "last_time": iso_dated(self.last_time),
            "lines": self.lines,
            "text": self.text[:300],
        }


Counter = tuple[int, int, int]  # (epoch, step, micro), -1 where the line omits one


class NotCounted(enum.Enum):
    """``ProgressTracker.add`` did not parse the event's whole text (no rank, an error line, glued ranks' lines)."""

    NOT_COUNTED = enum.auto()


NOT_COUNTED = NotCounted.NOT_COUNTED


def _counter_spans(text: str) -> tuple[tuple[int, int], tuple[int, int] | None, tuple[int, int] | None] | None:
    # the step, epoch and micro-step digits' spans (digit-blind regexes: ``shape_memo``)
    m = _STEP.search(text)
    if m is None or not _METRIC.search(text) or _EVAL_LOOP.match(m[0]):
        return None
    e = _EPOCH.search(text)
    mi = _MICRO.search(text, m.end())
    return (m.span(1), e.span(1) if e else None, mi.span(1) if mi else None)


_SPANS = ShapeMemo(_counter_spans)


def progress_counter(text: str, shape: bytes | None = None) -> Counter | None:
    """``(epoch, step, micro)`` a progress line states (-1 for a counter it omits), or None if it is not one.

    ``shape``: ``shape_memo.line_shape(text)`` when the caller has it (the regexes then run once per line shape)."""
    if "\n" in text:
        return None
    spans = _SPANS(text, shape)
    if spans is None:
        return None
    (a, b), e, mi = spans
    step = plausible.number(text[a:b])
    if step is None:
        return None
    epoch = plausible.number(text[e[0] : e[1]]) if e else None
    micro = plausible.number(text[mi[0] : mi[1]]) if mi else None
    return (-1 if epoch is None else epoch, step, -1 if micro is None else micro)


class ProgressTracker:
    """Accumulates ``RankProgress`` per rank from a job's events (any order of files; per rank, file order)."""

    def __init__(self) -> None:
        self.ranks: dict[int, RankProgress] = {}
        # progress lines that name no rank (a loop printing on rank 0 only, with no rank prefix), one stream per pid the
        # line names (None: no pid): they cannot tell which rank stalled, but they show a job that restarted and went
        # on (``recovered``). Two processes' lines (Ray trials, "(train_loop pid=N)") must not be read as one stream
        # whose counter went back.
        self.unranked: dict[int | None, RankProgress] = {}
        # Ray folded similar lines of the cluster's processes into one (``RankProgress.deduplicated``)
        self.deduplicated = False
        # path -> streams whose last progress line was untimed and no dated line of that file has followed it yet
        self._awaiting: dict[str, list[RankProgress]] = {}

    def add(self, ev: Event, when: datetime | None = None, shape: bytes | None = None) -> Counter | None | NotCounted:
        """Account one event; ``when`` is its time or the file's last time before it (defaults to ``ev.time``);
        ``shape``: ``shape_memo.line_shape(ev.text)`` when the caller has it.

        Two ranks writing to one terminal without line buffering glue their lines ("01:58:43 [rank1] step 39 loss
        3.3477 01:58:43 [rank0] step 39 loss 3.3477" on one line): each ``[rankN]`` tag inside the line starts that
        rank's own progress text, so neither rank looks behind.

        Returns:
            ``progress_counter(ev.text)`` when this call computed it (an info/debug/warning line of one rank, or a
            rank-less one holding a step/iteration/epoch word or an evaluation log's "[round]\t", counted in ``unranked``
            by its pid), so the caller need not parse the line again (``numeric_tail.NumericTail.add``); else
            ``NOT_COUNTED``.
        """
        when = when or ev.time
        if ev.time is not None and self._awaiting:
            for waiting in self._awaiting.pop(ev.path, ()):
                waiting.bracket_after = ev.time
        if not self.deduplicated and (
            ev.params.get("repeated") or "x across cluster]" in ev.text and "[repeated " in ev.text
        ):
            self.deduplicated = True  # once is enough: no substring test on the job's later lines
        if ev.rank is None:
            # most rank-less lines of a big log are no progress (NCCL INFO, Ray's own output): a substring test first,
            # so the counter regexes run only where a step/iteration/epoch word is
            low = ev.text.lower()
            if (
                "step" not in low
                and "iter" not in low
                and "epoch" not in low
                and "]\t" not in low
                and "train:" not in low
            ):
                return NOT_COUNTED
            rp = self.unranked.get(ev.pid)
            if rp is None:
                if len(self.unranked) >= MAX_UNRANKED_STREAMS:
                    return NOT_COUNTED
                rp = self.unranked[ev.pid] = RankProgress(UNRANKED)
            return self._record(UNRANKED, ev.text, ev, when, shape=shape, into=rp)
        # the line's own tag, then the glued lines' tags
        tags = list(RANK_TAG.finditer(ev.text)) if ev.text.count("[rank") > 1 and "\n" not in ev.text else []
        if len(tags) < 2:
            return self._record(ev.rank, ev.text, ev, when, shape=shape)
        self._record(ev.rank, ev.text[: tags[1].start()], ev, when)
        for i, m in enumerate(tags[1:], 1):
            rank = plausible.rank(m[1])
            if rank is not None:
                end = tags[i + 1].start() if i + 1 < len(tags) else len(ev.text)
                self._record(rank, ev.text[m.start() : end], ev, when, timed=False)
        return NOT_COUNTED

    def _record(
        self,
        rank: int,
        text: str,
        ev: Event,
        when: datetime | None,
        timed: bool = True,
        shape: bytes | None = None,
        into: RankProgress | None = None,
    ) -> Counter | None | NotCounted:
        rp = into if into is not None else self.ranks.get(rank)
        if rp is None:
            rp = self.ranks[rank] = RankProgress(rank)
        if when is not None:
            rp.last_time = when
        if ev.level not in ("info", "debug", "warning"):
            return NOT_COUNTED
        c = progress_counter(text, shape)
        if c is None:
            if timed and ev.time is None and rp.time is None and when is not None and "poch" in text:
                self._epoch_clock(rp, text, when)
            return None
        t = ev.time if timed else None
        if t is not None and rp.time is not None:
            gap = (t - rp.time).total_seconds()
            if gap >= 0:
                rp.intervals.append(gap)
                del rp.intervals[:-MAX_INTERVALS]
        if t is None and rp.time is None and ("time" in text.lower() or "dt" in text or "s)" in text[-6:]):
            self._clock(rp, text, c, when)
        if t is None and when is not None:
            self._bracket(rp, ev.path, when)
        rp.counter, rp.path, rp.line, rp.text, rp.lines = c, ev.path, ev.line, ev.text, rp.lines + 1
        rp.time = t or rp.time
        rp.recent.append((ev.path, ev.line, t if t is not None else when, c))
        return c

    def _bracket(self, rp: RankProgress, path: str, when: datetime) -> None:
        """Date an untimed progress line by its file's last dated line before it (``when``), and wait for the file's
        next dated line to bound it from above (``RankProgress.bracket_after``)."""
        if rp.bracket_first is None:
            rp.bracket_first = when
        rp.bracket_since = rp.bracket_since + 1 if when == rp.bracket_last else 1
        rp.bracket_last, rp.bracket_lines, rp.bracket_after = when, rp.bracket_lines + 1, None
        waiting = self._awaiting.setdefault(path, [])
        if rp not in waiting:
            waiting.append(rp)

    @staticmethod
    def _clock(rp: RankProgress, text: str, c: Counter, when: datetime | None) -> None:
        """Advance ``rp``'s step clock by an untimed progress line's printed step duration (``_STEP_TIME``)."""
        m = _STEP_TIME.search(text)
        if m is None:
            ProgressTracker._elapsed_clock(rp, text, c, when)
            return
        if m[3] is not None:
            sec = float(m[3]) / 1000.0
        elif m[5] is not None:
            sec = float(m[5]) / (1000.0 if m[4].lower() == "ms" else 1.0)
        else:
            sec = float(m[1]) / (1000.0 if m[2].lower() == "ms" else 1.0)
        if not 0.0 < sec < 86400.0:
            return
        prev = rp.clock_counter
        if prev is None:
            if when is None:
                return
            rp.clock_from, advance = when, 1  # the printed step itself ran after the last timed line
        elif c[0] == prev[0] and c[1] > prev[1]:
            advance = c[1] - prev[1]
        else:  # a new epoch restarts the step, or a counter went back: count one step
            advance = 1
        rp.clock_counter = c
        rp.clock_floor = when or rp.clock_floor
        rp.clock_seconds += advance * sec
        rp.clock_steps.append(sec)
        del rp.clock_steps[:-MAX_INTERVALS]

    @staticmethod
    def _elapsed_clock(rp: RankProgress, text: str, c: Counter, when: datetime | None) -> None:
        """Set ``rp``'s step clock from a running elapsed figure an untimed progress line prints (``_ELAPSED``).

        A figure that grew by at least half the mean growth per line of its run so far (``ELAPSED_GROWTH``) goes on
        that run; any other (the loop restarted its count at an epoch, or the lines print each their own duration)
        starts a new one, whose predecessor's last figure is added to the clock. The figures summed this way never
        exceed the time they cover."""
        m = _ELAPSED.search(text)
        if m is None:
            return
        if m[1] is not None:
            sec = float(m[1])
        elif m[2] is not None:
            sec = float(m[2])
        else:
            sec = int(m[3]) * 3600.0 + int(m[4]) * 60.0 + int(m[5])
        if not 0.0 <= sec < 86400.0 * 30:
            return
        last = rp.elapsed_last
        if rp.clock_counter is None:
            if when is None:
                return
            rp.clock_from = when  # the figure counts from the loop's start, after the last timed line
        if last is not None and sec - last >= ELAPSED_GROWTH * last / max(rp.elapsed_run_lines, 1):
            rp.elapsed_run_lines += 1
            step = sec - last
        else:
            rp.elapsed_base += last or 0.0
            rp.elapsed_run_lines = 1
            step = sec
        rp.elapsed_last = sec
        rp.clock_counter = c
        rp.clock_floor = when or rp.clock_floor
        rp.clock_seconds = rp.elapsed_base + sec
        if step > 0:
            rp.clock_steps.append(step)
            del rp.clock_steps[:-MAX_INTERVALS]

    @staticmethod
    def _epoch_clock(rp: RankProgress, text: str, when: datetime) -> None:
        """Add an epoch's printed duration (``_EPOCH_TOOK``) to ``rp``'s step clock, started at the last timed line
        before the stream's first clocked line."""
        m = _EPOCH_TOOK.search(text)
        if m is None:
            return
        sec = float(m[2]) / (1000.0 if m[3].lower() == "ms" else 1.0)
        if not 0.0 < sec < 86400.0 * 7:
            return
        if rp.clock_from is None:
            rp.clock_from = when  # the first epoch ended after this: its own duration lies before it, uncounted
        else:
            rp.clock_seconds += sec
        rp.clock_floor = when
        rp.clock_epochs += 1
        rp.clock_steps.append(sec)
        del rp.clock_steps[:-MAX_INTERVALS]


@dataclass(frozen=True)
class StepClock:
    """Where untimed progress got to on the clock, from the durations its lines print: each step's (``_STEP_TIME``),
    a running elapsed figure (``_ELAPSED``) or each epoch's (``_EPOCH_TOOK``, counted from the first such line).

    Attributes:
        reached: when the last progress line was printed if every step took what the lines say and nothing else
            took time: the stream's last timed line before its first step (``RankProgress.clock_from``) plus the
            seconds the printed steps account for, and never before the last timed line preceding its last clocked
            line (``RankProgress.clock_floor``). Start-up, evaluation and checkpoint saves make the true time later;
            a counter printed again (two nodes' rank 0 each printing the step) counts a step more, which only moves
            it later too, away from a stall.
        accounted_s: those seconds.
        step_s: the median printed step duration (seconds).
    """

    reached: datetime
    accounted_s: float
    step_s: float


MIN_CLOCK_LINES = 3  # printed step durations a stream needs before its clock is read
ELAPSED_GROWTH = 0.5  # ``_elapsed_clock``: the share of its run's mean growth per line a running figure must grow by


def step_clock(streams: list[RankProgress]) -> StepClock | None:
    """The furthest ``StepClock`` over ``streams`` that printed at least ``MIN_CLOCK_LINES`` step durations and no
    timed progress line (a timed line is a better clock: ``last_progress_time``); None when no stream qualifies."""
    best: StepClock | None = None
    for rp in streams:
        if rp.time is not None or rp.clock_from is None:
            continue
        if len(rp.clock_steps) < MIN_CLOCK_LINES and not rp.clock_epochs:
            continue
        reached = rp.clock_from + timedelta(seconds=rp.clock_seconds)
        if rp.clock_floor is not None and rp.clock_floor > reached:
            reached = rp.clock_floor
        if best is None or reached > best.reached:
            best = StepClock(reached, round(rp.clock_seconds, 3), median(rp.clock_steps))
    return best


@dataclass(frozen=True)
class Bracket:
    """Where untimed progress got to, bounded by the dated lines its files printed around it.

    Attributes:
        after: the latest, over the streams, of the first dated line printed after a stream's last progress line: the
            last step was printed before it, so the job's silence after that step is at least the time from it to the
            job's end.
        line_s: the mean seconds between the streams' progress lines as their preceding dated lines date them (the
            first to the last such date over the lines between), the job's own cadence.
        before: the latest, over the streams, of the last dated line printed before a stream's last progress line.
        since: the progress lines that stream printed after ``before``: at the job's cadence its last step came about
            ``since * line_s`` seconds after ``before``.
    """

    after: datetime
    line_s: float
    before: datetime | None = None
    since: int = 0


MIN_BRACKET_LINES = 3  # untimed progress lines a stream needs before its bracket is read


def bracket(streams: list[RankProgress]) -> Bracket | None:
    """The ``Bracket`` of ``streams`` whose progress lines carry no time of their own, or None where a stream has
    timed progress (a better clock: ``last_progress_time``), where a stream printed fewer than ``MIN_BRACKET_LINES``
    such lines, or where any stream's last progress line has no dated line after it (then nothing bounds when it was
    printed)."""
    after: datetime | None = None
    before: tuple[datetime, int] | None = None
    spans: list[float] = []
    for rp in streams:
        if rp.bracket_lines == 0:
            continue
        if rp.time is not None or rp.bracket_after is None or rp.bracket_first is None or rp.bracket_last is None:
            return None
        if rp.bracket_lines < MIN_BRACKET_LINES:
            continue
        # the dates may mix a glog header's year-less form and a dated one: compare them in one year
        span = (rp.bracket_last.replace(year=1900) - rp.bracket_first.replace(year=1900)).total_seconds()
        if span >= 0:
            spans.append(span / (rp.bracket_lines - 1))
        if before is None or rp.bracket_last.replace(year=1900) > before[0].replace(year=1900):
            before = (rp.bracket_last, rp.bracket_since)
        if after is None or rp.bracket_after.replace(year=1900) > after.replace(year=1900):
            after = rp.bracket_after
    if after is None or not spans:
        return None
    return Bracket(after, max(spans), *(before or (None, 0)))


@dataclass(frozen=True)
class SilentFirst:
    """The rank(s) whose progress stopped first, and why we think so.

    Attributes:
        ranks: the silent-first rank(s), sorted.
        reason: ``behind`` (their last step is lower than the others') or ``quiet`` (same step, but their output
            stopped at least ``QUIET_SECONDS`` before every other rank's).
        detail: one sentence for reports.
        progress: the rank(s)' last progress records.
    """

    ranks: tuple[int, ...]
    reason: str
    detail: str
    progress: tuple[RankProgress, ...]


QUIET_SECONDS = 30.0


def _fmt(c: tuple[int, int, int]) -> str:
    s = f"step {c[1]}"
    if c[2] >= 0:
        s += f" micro-step {c[2]}"
    if c[0] >= 0:
        s = f"epoch {c[0]} " + s
    return s


def silent_first(ranks: dict[int, RankProgress]) -> SilentFirst | None:
    """The rank(s) that went silent first, when the logs can tell; None otherwise.

    ``behind``: a minority of the ranks that print progress is behind the furthest rank (all ranks at the lowest
    counter are named). ``quiet``: every rank printed the same counter, but one rank's last line of any kind is at
    least ``QUIET_SECONDS`` older than every other rank's (times must be comparable: same year form).
    Needs at least two ranks with progress lines, not folded by Ray's log deduplication (``deduplicated``: a rank's
    later lines may have been folded into another's, or into a summary printed seconds later).
    """
    printing = [r for r in ranks.values() if r.lines]
    if len(printing) < 2 or any(r.deduplicated for r in printing):
        return None
    # compare only the counters every rank prints: a rank whose lines omit the epoch ("step 400" beside the others'
    # "epoch 3 step 400") is not behind them
    keep = [i for i in range(3) if all(r.counter[i] >= 0 for r in printing) or all(r.counter[i] < 0 for r in printing)]

    def key(r: RankProgress) -> tuple[int, ...]:
        return tuple(r.counter[i] for i in keep)

    top_key = max(key(r) for r in printing)
    top = max(r.counter for r in printing if key(r) == top_key)
    behind = [r for r in printing if key(r) < top_key]
    if behind and len(behind) * 2 <= len(printing):
        low_key = min(key(r) for r in behind)
        low = min(r.counter for r in behind if key(r) == low_key)
        culprits = tuple(sorted((r for r in behind if key(r) == low_key), key=lambda r: r.rank))
        names = ", ".join(str(r.rank) for r in culprits)
        return SilentFirst(
            tuple(r.rank for r in culprits),
            "behind",
            f"rank {names} last printed {_fmt(low)}; other ranks reached {_fmt(top)}",
            culprits,
        )
    if behind:
        return None
    timed = [(r.last_time, r) for r in ranks.values() if r.last_time is not None]
    if len(timed) < 2 or len({t.year for t, _ in timed}) > 1:
        return None
    timed.sort(key=lambda tr: tr[0])
    (t_first, first), (t_second, _) = timed[0], timed[1]
    gap = (t_second - t_first).total_seconds()
    if gap < QUIET_SECONDS:
        return None
    return SilentFirst(
        (first.rank,), "quiet", f"rank {first.rank}'s output stopped {gap:.0f}s before any other rank's", (first,)
    )


def typical_step_seconds(ranks: dict[int, RankProgress]) -> float | None:
    """Median seconds between consecutive progress lines over all ranks (None without two timed lines per rank)."""
    vals = [v for r in ranks.values() for v in r.intervals]
    return median(vals) if vals else None


def last_progress_time(ranks: dict[int, RankProgress]) -> datetime | None:
    """The latest progress line's time over all ranks (same year form as the lines print)."""
    times = [r.time for r in ranks.values() if r.time is not None]
    return max(times) if times else None
