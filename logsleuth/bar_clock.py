"""tqdm progress bars as a clock: when a job's bars last moved, for logs whose progress lines carry no time.

The Hugging Face Trainer, TRL and Accelerate scripts print their steps as a tqdm bar and their metrics as untimed
dicts (``{'loss': 0.41, ..., 'epoch': 0.3}``); only their ``[INFO|trainer.py:...] <time> >>`` lines and the
launcher's are timed. A rank that stopped (SIGSTOP, a deadlock) and a scheduler's SIGTERM minutes later then read as
a plain preemption: no timed progress line says the job had stopped first.

tqdm's meter (``tqdm.std.tqdm.format_meter``) prints ``{n}/{total} [{elapsed}<{remaining}, {rate}]``, the elapsed
time counted from the bar's start (``format_interval``: ``MM:SS`` or ``H:MM:SS``) and the rate as ``N.NNit/s`` or,
below one per second, ``N.NNs/it`` (other units: ``examples/s``, ``ba/s``). A timed line written after a frame
bounds the bar's start from above (start <= time - elapsed); so the time of the bar's last frame is at most that
bound plus the last frame's elapsed time. ``BarClock.last_moved`` returns that upper bound: a gap from it to the
job's end is a lower bound on how long nothing moved, never an overstatement.

Usage: ``clock = BarClock()``, ``clock.add(event)`` for every event of the job in file order, then
``clock.last_moved(normalise)`` after the job's year is known.

The reader's gate parses only each bar's last frame per block of lines (``rules.linegate._tap_bars``): frames can be a
tenth of a trainer's lines, and parsing each halved throughput. Skipped frames only loosen the bound (an earlier
frame before a timed line bounds the start less tightly; the last frame of a file is the last of its block).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta

import regex

from .parse.timestamps import YEARLESS
from .types import Event

# "80/728 [00:20<00:49, 13.00it/s]", "3/60 [01:02:03<?, ?it/s]", "41/600 [00:13<03:00,  3.29s/it]"
FRAME = regex.compile(
    r"(\d+)/(\d+) \[(?:(\d+):)?(\d\d):(\d\d)<[^,\]]*, *(?:([\d.]+) ?([A-Za-z]*/s|s/[A-Za-z]+)|\?[A-Za-z]*/s)"
)
# what a line must hold to carry a frame, its total as group 1 (RE2 syntax over bytes, for ``rules.linegate``'s tap)
TAP = rb"\d/(\d+) \[\d+:\d\d"
MAX_BARS = 64  # bars followed per job (bounded memory on logs of many bars)


@dataclass
class _Bar:
    n: int = -1
    elapsed: float = -1.0  # seconds, the last frame's
    step_s: float | None = None  # seconds per item, from the last frame's rate
    pending: bool = False  # a frame seen since this file's last timed line
    # the bar's start bounded from above, per time form (a full date, or a year-less clock such as glog's W1203)
    start_full: datetime | None = None
    start_yearless: datetime | None = None


@dataclass(frozen=True)
class BarMoved:
    """When a job's progress bars last moved, at the latest.

    Attributes:
        time: the latest time any bar's last frame can have been drawn (naive, the job's year).
        step_s: seconds per item of the bar that moved last (from its printed rate), None when it printed none.
        path: the file of that bar.
    """

    time: datetime
    step_s: float | None
    path: str


class BarClock:
    """Follows tqdm bars through a job's events (per file, per bar total)."""

    def __init__(self) -> None:
        self._bars: dict[tuple[str, int], _Bar] = {}
        self._pending: dict[str, list[_Bar]] = {}  # per file: bars with a frame since its last timed line
        self.unanchored: set[str] = set()  # files whose last bar frame no timed line followed

    def add(self, ev: Event) -> None:
        """Account one event (cheap unless its text holds a bar frame)."""
        text = ev.text
        if "<" in text and "/" in text and "[" in text:
            for m in _last_frames(text):
                self._frame(ev.path, m)
        if ev.time is not None:
            waiting = self._pending.pop(ev.path, None)
            if waiting:
                self.unanchored.discard(ev.path)
                for bar in waiting:
                    _anchor(bar, ev.time)

    def _frame(self, path: str, m: regex.Match[str]) -> None:
        n, total = int(m[1]), int(m[2])
        elapsed = int(m[3] or 0) * 3600 + int(m[4]) * 60 + int(m[5])
        key = (path, total)
        bar = self._bars.get(key)
        if bar is None:
            if len(self._bars) >= MAX_BARS:
                return
            bar = self._bars[key] = _Bar()
        elif n < bar.n or elapsed < bar.elapsed:  # a new bar of the same length (the next epoch, another process)
            bar.start_full = bar.start_yearless = None
        bar.n, bar.elapsed = n, float(elapsed)
        if m[6]:
            rate = float(m[6])
            if rate > 0:
                bar.step_s = rate if m[7].startswith("s/") else 1.0 / rate
        if not bar.pending:
            bar.pending = True
            self._pending.setdefault(path, []).append(bar)
        self.unanchored.add(path)

    def last_moved(self, normalise: Callable[[datetime | None], datetime | None]) -> BarMoved | None:
        """The latest time a bar can have last moved, or None when a file's last bar frame had no timed line after it
        (its time is unknown) or the job printed no bar. ``normalise`` gives a year-less time the job's year."""
        if not self._bars or self.unanchored:
            return None
        best: BarMoved | None = None
        for (path, _total), bar in self._bars.items():
            starts = [normalise(bar.start_full), normalise(bar.start_yearless)]
            known = [s for s in starts if s is not None]
            if not known:
                return None
            at = min(known) + timedelta(seconds=bar.elapsed)
            if best is None or at > best.time:
                best = BarMoved(at, bar.step_s, path)
        return best


def _last_frames(text: str) -> list[regex.Match[str]]:
    """Each bar's last frame in ``text`` (a redrawn line folded to its end may hold several bars)."""
    last: dict[str, regex.Match[str]] = {}
    for m in FRAME.finditer(text):
        last[m[2]] = m
    return list(last.values())


def _anchor(bar: _Bar, t: datetime) -> None:
    """A timed line at ``t`` came after ``bar``'s last frame: its start is at most ``t - elapsed``."""
    bar.pending = False
    start = t - timedelta(seconds=bar.elapsed)
    if t.year == YEARLESS:
        if bar.start_yearless is None or start < bar.start_yearless:
            bar.start_yearless = start
    elif bar.start_full is None or start < bar.start_full:
        bar.start_full = start
