"""A memory size a process kept printing, still climbing when its output ends: host memory as the missing first failure.

Why: the kernel OOM killer, and a cgroup/container memory limit (Linux ``mm/oom_kill.c`` ``__oom_kill_process``
sends SIGKILL; ``mm/memcontrol.c`` for a memory cgroup's limit) ends a process with SIGKILL, which nothing in the
process can catch or report. Under a launcher that does not report its children's exits in time, the log then holds
only the survivors' "Connection closed by peer" (``peer_process_died``: a symptom whose cause is not in the log) and
the victim's own last lines: Lightning's ``_SubprocessScriptLauncher`` starts ranks 1..N-1 with ``subprocess.Popen``
and its ``_ChildProcessObserver`` polls them only every 5 s (``lightning/fabric/strategies/launchers/
subprocess_script.py``), so rank 0 raises on the lost peer before any "Child process ... terminated with code -9";
a hand-written ``mp.spawn``/``Popen`` loop reports nothing at all. When the vanished process's last lines print a
memory size (an RSS, a cache, a buffer, memory allocated...) that grew print after print up to the moment it went
quiet, host memory is the likely first failure: ``pipeline.decide`` then names ``host_oom_killed`` at medium
confidence instead of the bare symptom. A size that grew and then levelled off (warm-up, a cache that filled) is not
growth at the end and says nothing.

A *memory line* names a memory word (``mem``, ``memory``, ``rss``, ``cache``, ``buffer``, ``heap``, ``allocated``,
``reserved``, ``resident``) and a byte size (``960 MiB``, ``1.2GB``); its first size is the series' value. A series
is one process's repeats of one line shape (the event's template, rank and pid, and the ``rank N`` the line names).
Streaming, bounded (``MAX_SERIES``): ``add`` each event; ``growing()`` at the end.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import regex

from .diagnose import decided_by_fact
from .shape_memo import ShapeMemo
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

# RE2 syntax, for ``read.LineGate``: a memory word, then a byte size on the same line
GATE: tuple[str, ...] = (r"(?i:mem|rss|cache|buffer|heap|allocated|reserved|resident)[^\n]{0,120}\d ?[KMGT]i?B\b",)
_WORD = regex.compile(r"(?i)\b(?:mem(?:ory)?|rss|cache[ds]?|buffers?|heap|allocated|reserved|resident)\b")
_SIZE = regex.compile(r"(?<![\w.])(?P<v>\d+(?:\.\d+)?) ?(?P<u>[KMGT])(?:i?B)\b")
_RANK_WORD = regex.compile(r"(?i)\brank[\s:=_]*(\d+)\b")
_UNIT = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
MAX_SERIES = 256
MIN_PRINTS = 5  # consecutive prints, each larger than the one before
MIN_FACTOR = 2.0  # the last print at least this multiple of the first of the run
MIN_BYTES = 256 << 20  # and at least this large: a process the OOM killer picks holds a lot


@dataclass(frozen=True)
class MemoryGrowth:
    """One series still growing at its last print.

    Attributes:
        event: the series' last line.
        first_bytes: the size at the start of the growing run, bytes.
        last_bytes: the size at its last print, bytes.
        prints: prints in the growing run.
        rank: the rank the line is tagged with (prefix) or names (``rank 1 ...``), or None.
    """

    event: Event
    first_bytes: float
    last_bytes: float
    prints: int
    rank: int | None

    def describe(self) -> str:
        return f"{_human(self.first_bytes)} to {_human(self.last_bytes)} over {self.prints} prints"


@dataclass
class _Series:
    first: float
    last: float
    prints: int
    event: Event
    rank: int | None


def _memory_spans(text: str) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int] | None] | None:
    # a memory line's first size (value and unit) and the ``rank N`` digits it names (digit-blind: ``shape_memo``)
    if not _WORD.search(text):
        return None
    m = _SIZE.search(text)
    if m is None:
        return None
    rw = _RANK_WORD.search(text)
    return m.span("v"), m.span("u"), rw.span(1) if rw else None


_MEMORY_SPANS = ShapeMemo(_memory_spans)


@dataclass
class MemoryTrend:
    """Per series (``_key``): the current run of growing prints."""

    series: dict[tuple[object, ...], _Series] = field(default_factory=dict)

    def add(self, ev: Event, shape: bytes | None = None) -> None:
        """Account one event (``shape``: ``shape_memo.line_shape(ev.text)`` when the caller has it)."""
        text = ev.text
        if "\n" in text:
            return
        found = _MEMORY_SPANS(text, shape)
        if found is None:
            return
        (va, vb), (ua, ub), rspan = found
        value = float(text[va:vb]) * _UNIT[text[ua:ub]]
        rw = text[rspan[0] : rspan[1]] if rspan else None
        rank = ev.rank if ev.rank is not None else (int(rw) if rw else None)
        key = (ev.path, ev.rank, ev.pid, rw, ev.template)
        s = self.series.get(key)
        if s is None:
            if len(self.series) >= MAX_SERIES:
                return
            self.series[key] = _Series(value, value, 1, ev, rank)
        elif value > s.last:
            s.last, s.prints, s.event = value, s.prints + 1, ev
        else:  # levelled off or fell: a new run starts here
            self.series[key] = _Series(value, value, 1, ev, rank)

    def growing(self) -> tuple[MemoryGrowth, ...]:
        """The series whose last ``MIN_PRINTS``+ prints each grew, to ``MIN_FACTOR`` times and ``MIN_BYTES``."""
        return tuple(
            MemoryGrowth(s.event, s.first, s.last, s.prints, s.rank)
            for s in self.series.values()
            if s.prints >= MIN_PRINTS and s.last >= MIN_FACTOR * s.first and s.last >= MIN_BYTES
        )


CONFIDENCE = 0.6  # medium: the kill itself is not in the log
RULE_ID = "memory-growth"
_REFS = (
    "https://github.com/torvalds/linux/blob/master/mm/oom_kill.c",
    "https://docs.kernel.org/admin-guide/cgroup-v2.html#memory",
)


def _before(g: MemoryGrowth, first: Event | None) -> bool:
    """The series' last print is not after the first failure the rules saw (same file: by line; else by time)."""
    if first is None:
        return True
    e = g.event
    if e.path == first.path:
        return e.line < first.line
    if e.time is not None and first.time is not None and e.time.tzinfo == first.time.tzinfo:
        return e.time <= first.time
    return True


def peer_lost_while_memory_grew(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` with ``host_oom_killed`` as its root cause when the rules saw only a lost peer (``peer_process_died``:
    the first failure is not in the log) and another process's memory size was still growing at its last print,
    before the loss, with no error of its own; else ``diag`` unchanged. The old answer's lines stay as symptoms."""
    if diag.root_cause != "peer_process_died" or not evidence.memory_growth:
        return diag
    first = diag.first_failure
    cands = [
        g
        for g in evidence.memory_growth
        if _before(g, first)
        and not (first is not None and g.rank is not None and g.rank == first.rank)
        and not (g.rank is not None and g.rank in evidence.ranks and evidence.ranks[g.rank].errors)
    ]
    if not cands:
        return diag
    g = max(cands, key=lambda c: c.last_bytes)
    who = f"rank {g.rank}" if g.rank is not None else "a process"
    message = (
        f"The log's last lines from {who} print a memory size still growing ({g.describe()}) before a peer lost "
        "its connection to it, and it printed no error: the kernel OOM killer (SIGKILL) most likely ended it."
    )
    ev = Match(RULE_ID, "host_oom_killed", "cause", g.event, severity="medium", confidence=CONFIDENCE)
    fix = Fix(
        summary=f"{who[0].upper()}{who[1:]} vanished while its memory kept growing; SIGKILL by the kernel OOM killer "
        "or a cgroup/container memory limit prints nothing from the process itself.",
        steps=(
            "Confirm on the node: `dmesg -T | grep -i -E 'killed process|out of memory'` (a cgroup limit says "
            "`Memory cgroup out of memory`), or the pod's `OOMKilled` status.",
            "Find what grows in that process (the size its lines print): a cache, buffer or list kept across steps, "
            "tensors kept with their graph; bound it or free it.",
            "Or raise the memory limit (`--mem`, the container's memory limit).",
        ),
        references=_REFS,
    )
    title = "A process vanished while its memory kept growing (host memory, OOM killer)"
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)


def _human(n: float) -> str:
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= size:
            return f"{n / size:.1f} {unit}".replace(".0 ", " ")
    return f"{n / 1024:.0f} KiB"
