"""Reasoning over facts that no single line states: which library a native crash happened in; which exception
a chained traceback's outer exception was raised from; whether versions printed earlier explain an exception; which
process exits are a launcher stopping the siblings of a failed worker.

A crash's stack is printed by whoever caught the signal (glog's failure handler, c10's ``frame #N:`` list, gdb,
glibc ``backtrace_symbols``) right after the crash line, or before a launcher's later report of the death; its
innermost frames are the signal handler and libc, so the first frame in another library is named.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import regex
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

from .. import plausible
from ..lazy_regex import lazy
from ..progress import EPOCH_OF, progress_counter
from ..read import PLAIN_LINE, clean_line, lines_at
from ..types import Event
from . import extract, tables
from .extract import CAUSE_SPLIT, cuda_error, facts_of, nccl_last_error, nccl_result
from .kinds import (
    CollTraceMismatch,
    CuMemMismatch,
    ExceptionFact,
    Fact,
    NativeFrame,
    NcclCuMem,
    NcclWarning,
    NumericHealth,
    P2PSlowerThanCopy,
    ProcessExit,
    RanksOnOneDevice,
    RunFinished,
    SchedulerVerdict,
    SharedGpu,
    SignalFact,
    StallMismatch,
    WorkRetried,
)

# the frames that catch, report or throw rather than crash: libc/libpthread (signal trampolines, abort), the C++
# runtime, the dynamic loader, CPython's own runtime, c10's exception helpers (``c10::Error``, ``torchCheckFail``)
_RUNTIME = lazy(
    r"^(?:libc\.so|libc-|libpthread|libstdc\+\+|libgcc_s|ld-linux|libdl\.|libpython|python3?\b|"
    r"libc10\.so)"
)
WINDOW_LINES = 300  # how far from the crash line its stack may be printed


def crash_library(facts: Sequence[Fact], crash: Event) -> NativeFrame | None:
    """The innermost frame outside the runtime libraries in the stack printed nearest ``crash`` (same file, within
    ``WINDOW_LINES``; a stack printed after the crash line is preferred), or None when no stack was printed."""
    near = [
        f
        for f in facts
        if isinstance(f, NativeFrame) and f.event.path == crash.path and abs(f.line - crash.line) <= WINDOW_LINES
    ]
    if not near:
        return None
    after = [f for f in near if f.line >= crash.line]
    block = after if after else sorted(near, key=lambda f: -f.line)
    block = sorted(block, key=lambda f: (f.line, f.index if f.index is not None else 0))
    if not after:  # the stack before a later report: take its own contiguous block, the one closest to the report
        last = block[-1].line
        block = [f for f in block if last - f.line <= 64]
    return next((f for f in block if f.library and not _RUNTIME.match(f.library)), None)


CHAIN_GAP_LINES = 4  # separator -> next traceback: a blank line and "Traceback (most recent call last):" between


@dataclass
class ExceptionChain:
    """Links chained tracebacks, which the parser gives as separate events: an exception printed right after CPython's
    "The above exception was the direct cause of the following exception:" / "During handling of the above
    exception, another exception occurred:" line, by the same process (path, rank, pid), was raised from the exception
    printed right before it. ``link`` fills its ``caused_by``, and when its own family is generic ("": a wrapper's
    ``RuntimeError("checkpoint failed")``, vLLM's "Engine core initialization failed") it takes the cause's family:
    the innermost cause decides. Streaming state, one per job; feed every event's facts in order.
    """

    last: ExceptionFact | None = None
    separator: Event | None = None

    def link(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts`` of ``ev``, its exception facts linked to the exception they were chained from."""
        if len(ev.text) < 300 and any(sep in ev.text for sep in CAUSE_SPLIT):
            self.separator = ev if self.last is not None and _same_process(self.last.event, ev) else None
            return facts
        if not any(isinstance(f, ExceptionFact) for f in facts):
            return facts
        sep, cause = self.separator, self.last
        chained = (
            sep is not None
            and cause is not None
            and _same_process(sep, ev)
            and 0 < ev.line - sep.end_line <= CHAIN_GAP_LINES
        )
        out: list[Fact] = []
        for f in facts:
            if isinstance(f, ExceptionFact):
                if chained and cause is not None and not f.caused_by:
                    how = "cause" if sep is not None and CAUSE_SPLIT[0] in sep.text else "context"
                    f = dataclasses.replace(f, caused_by=cause.type, chained=how, family=f.family or cause.family)
                self.last = f
            out.append(f)
        self.separator = None
        return out


def _same_process(a: Event, b: Event) -> bool:
    return a.path == b.path and a.rank == b.rank and a.pid == b.pid


# a cause's traceback ends, then a blank line, the separator, a blank line and "Traceback (most recent call last):"
_CHAIN_SPAN = 2 * CHAIN_GAP_LINES + 2


def _linked(cause: ExceptionFact, f: ExceptionFact) -> bool:
    """Whether ``f`` was raised from ``cause`` as ``ExceptionChain.link`` linked them: same process, ``f`` names
    ``cause``'s type as its cause and starts right after it."""
    return (
        f.caused_by == cause.type
        and _same_process(cause.event, f.event)
        and 0 < f.event.line - cause.event.end_line <= _CHAIN_SPAN
    )


def exception_chain(facts: Sequence[Fact], at: Event) -> list[ExceptionFact]:
    """The chained tracebacks ``at`` belongs to, first cause first, last raised last (CPython prints them in that
    order): the exception printed in ``at`` (the first of its exception facts), the exceptions it was raised from and
    those raised while handling it or from it. One item when ``at``'s exception is not chained; empty when ``at``
    holds no exception. A cause printed inside ``at``'s own text (one parsed event) is not a separate fact: it shows
    only as the first item's ``caused_by``."""
    exc = [f for f in facts if isinstance(f, ExceptionFact)]
    end_line = max(at.end_line, at.line)
    i = next((k for k, f in enumerate(exc) if f.event.path == at.path and at.line <= f.event.line <= end_line), None)
    if i is None:
        return []
    start = end = i
    while start > 0 and _linked(exc[start - 1], exc[start]):
        start -= 1
    while end + 1 < len(exc) and _linked(exc[end], exc[end + 1]):
        end += 1
    return exc[start : end + 1]


def exception_summary(facts: Sequence[Fact], at: Event | None) -> dict[str, Any]:
    """The exception at ``at`` (a diagnosis' first failure) for reports (JSON ``exception``): ``type``, ``message``,
    ``innermost`` frame, ``user_code``, ``path``/``line``, ``caused_by`` (the type it was raised from, or None) and
    ``chain`` (``exception_chain`` as ``{type, message, innermost, path, line}``, first cause first); {} when
    ``at`` is None or holds no exception."""
    if at is None:
        return {}
    chain = exception_chain(facts, at)
    if not chain:
        return {}
    end_line = max(at.end_line, at.line)
    f = next(c for c in chain if c.event.path == at.path and at.line <= c.event.line <= end_line)

    def item(c: ExceptionFact) -> dict[str, Any]:
        return {
            "type": c.type,
            "message": c.message,
            "innermost": c.innermost or None,
            "path": c.event.path,
            "line": c.event.line,
        }

    items = [item(c) for c in chain]
    if chain[0].caused_by:  # the cause was printed in the same event: its type is all that is known
        items.insert(0, {"type": chain[0].caused_by, "message": "", "innermost": None, "path": None, "line": None})
    return dict(item(f), user_code=f.user_code, caused_by=f.caused_by or None, chain=items)


def known_bad_pair(message: str, versions: dict[str, str]) -> str:
    """The known-bad version pair (``tables.KNOWN_BAD_VERSIONS``) among ``versions`` (name -> version printed so
    far) whose symptom ``message`` shows, as "deepspeed 0.9.0 + accelerate 0.18.0 (a known-bad combination; fix:
    ...; URL, ...)", or ""."""
    for bad in tables.KNOWN_BAD_VERSIONS:
        if not all(name in versions for name, _ in bad.packages) or not regex.search(bad.symptom, message):
            continue
        try:
            hit = all(Version(versions[name]) in SpecifierSet(spec) for name, spec in bad.packages)
        except (InvalidVersion, InvalidSpecifier):
            continue
        if hit:
            pair = " + ".join(f"{name} {versions[name]}" for name, _ in bad.packages)
            return f"{pair} (a known-bad combination; fix: {bad.advice}; {', '.join(bad.refs)})"
    return ""


# A dynamic loss scaler halves its scale on every overflow and skips the step; a run of consecutive overflows that
# drives the scale down to within four halvings of DeepSpeed's default ``min_loss_scale`` (1,
# https://www.deepspeed.ai/docs/config-json/#fp16-training-options) is "repeated overflow skips" (taxonomy
# ``training_divergence``): the gradients overflow whatever the scale, and the run is heading for "Current loss scale
# already at minimum". Start-up calibration from 2**16..2**32 also skips several steps in a row but stops far above.
OVERFLOW_RUN = 4
OVERFLOW_RUN_SCALE = 16.0


@dataclass
class OverflowRun:
    """Consecutive overflow skips per file: each one's new scale below the previous one's (a scale raised between
    two overflows, after clean steps, starts a new run)."""

    last: dict[str, tuple[float, int]] = field(default_factory=dict)  # path -> (last scale, run length)

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, plus a ``NumericHealth(what="overflow_run")`` when ``ev``'s overflow extends a long run."""
        out = list(facts)
        for f in facts:
            if not isinstance(f, NumericHealth) or f.what != "overflow_skip" or f.scale is None:
                continue
            prev = self.last.get(ev.path)
            n = prev[1] + 1 if prev is not None and f.scale < prev[0] else 1
            self.last[ev.path] = (f.scale, n)
            if n >= OVERFLOW_RUN and f.scale <= OVERFLOW_RUN_SCALE:
                out.append(NumericHealth(event=ev, what="overflow_run", scale=f.scale))
        return out


# An NCCL failure that a cuMem disagreement explains: the P2P import of a peer's buffer fails inside CUDA ("Cuda
# failure 1 'invalid argument'" from src/transport/p2p.cc, proxy.cc or include/alloc.h; "failed to open CUDA IPC
# handle" on the legacy path), which NCCL returns as ncclUnhandledCudaError / ncclSystemError and torch or vLLM's
# pynccl wrapper raise as "NCCL error: unhandled cuda error" / "unhandled system error"
# (https://github.com/NVIDIA-NeMo/RL/issues/564, https://github.com/vllm-project/vllm/issues/5477).
_CUMEM_FAILURE_WORDS = ("Cuda failure", "failed to open CUDA IPC handle")
_CUMEM_FAILURE_MESSAGE = lazy(r"unhandled (?:cuda|system) error|ncclUnhandledCudaError|ncclSystemError")


def _process(ev: Event) -> str:
    """Where a line places its process, for naming the two sides: ``host:pid``, else the file and rank."""
    if ev.pid is not None:
        return f"{ev.host or ev.path}:{ev.pid}"
    return f"{ev.path} rank {ev.rank}" if ev.rank is not None else ev.path


@dataclass
class CuMemSides:
    """What the job's processes said about cuMem so far (``NcclCuMem``), and the ``CuMemMismatch`` of an NCCL failure
    once both settings were stated by different processes. Each process's first statement of each setting is kept
    (a job prints one channel line per channel and peer: the rest repeat it)."""

    seen: dict[tuple[str, bool], NcclCuMem] = field(default_factory=dict)  # (process, enabled) -> first statement

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts`` without repeated ``NcclCuMem`` statements, plus a ``CuMemMismatch`` when ``ev`` is an NCCL
        failure and processes disagreed before it."""
        out: list[Fact] = []
        failure = ""
        for f in facts:
            if isinstance(f, NcclCuMem):
                key = (_process(f.event), f.enabled)
                if key in self.seen:
                    continue
                self.seen[key] = f
            elif not failure:
                failure = _cumem_failure(f)
            out.append(f)
        if failure:
            sides = self.disagreement()
            if sides is not None:
                off, on = sides
                out.append(
                    CuMemMismatch(
                        event=ev,
                        off_by=f"{off.said_by} ({_process(off.event)})",
                        on_by=f"{on.said_by} ({_process(on.event)})",
                        failure=failure,
                    )
                )
        return out

    def disagreement(self) -> tuple[NcclCuMem, NcclCuMem] | None:
        """The first cuMem-off and cuMem-on statements by two different processes, or None."""
        offs = [f for (_, on), f in self.seen.items() if not on]
        ons = [f for (_, on), f in self.seen.items() if on]
        for off in offs:
            for on in ons:
                if _process(off.event) != _process(on.event):
                    return off, on
        return None


def _cumem_failure(f: Fact) -> str:
    """The kind of ``f`` when it is an NCCL failure a cuMem disagreement can explain (``_CUMEM_FAILURE_*``), else ""."""
    text = f.event.text
    if isinstance(f, NcclWarning) and any(w in text for w in _CUMEM_FAILURE_WORDS):
        return "nccl_warning"
    if isinstance(f, ExceptionFact) and _CUMEM_FAILURE_MESSAGE.search(f.message or text):
        return "exception"
    return ""


# CUDA's p2pBandwidthLatencyTest sample (NVIDIA/cuda-samples, ``p2pBandwidthLatencyTest.cu``) prints one matrix per
# measurement: a title ("Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)", "Unidirectional P2P=Enabled Bandwidth
# (P2P Writes) Matrix (GB/s)" or, before CUDA 11, "... P2P=Enabled Bandwidth Matrix (GB/s)", "Bidirectional ..."), a
# ``D\D 0 1 ...`` header, then one row per GPU. With P2P disabled (or for a pair that cannot access its peer) the
# sample copies through host memory, so working P2P is never much slower than that: a pair below half its P2P-disabled
# bandwidth has P2P traffic redirected through the root complex (PCIe ACS, IOMMU/VT-d), the NCCL maintainers' reading
# of such output in https://github.com/NVIDIA/nccl/issues/199 (NCCL tests "hang", i.e. crawl; disabling ACS fixed it).
_P2P_TITLE = lazy(r"(?P<dir>Unidirectional|Bidirectional) P2P=(?P<p2p>Enabled|Disabled) Bandwidth\b")
_P2P_ROW = lazy(r"^\s*(?P<src>\d{1,3})(?P<vals>(?:[ \t]+\d+(?:\.\d+)?)+)\s*$")
P2P_SLOW_RATIO = 0.5  # enabled below this fraction of disabled: P2P is broken, not merely unavailable


@dataclass
class P2PBandwidth:
    """The p2pBandwidthLatencyTest matrices read so far, per file; a ``P2PSlowerThanCopy`` at the first P2P-enabled
    row whose pair measured below ``P2P_SLOW_RATIO`` of its P2P-disabled bandwidth (once per file and matrix)."""

    current: dict[str, tuple[str, bool]] = field(default_factory=dict)  # path -> (direction, p2p enabled)
    disabled: dict[tuple[str, str], dict[tuple[int, int], float]] = field(default_factory=dict)
    reported: set[tuple[str, str]] = field(default_factory=set)

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, plus a ``P2PSlowerThanCopy`` when ``ev`` is such a row."""
        text = ev.text
        if "P2P=" in text:
            m = _P2P_TITLE.search(text)
            if m is None:
                self.current.pop(ev.path, None)  # a latency matrix or another table: rows are not bandwidths
            else:
                self.current[ev.path] = (m["dir"].lower(), m["p2p"] == "Enabled")
            return facts
        cur = self.current.get(ev.path)
        if cur is None or "D\\D" in text:
            return facts
        m = _P2P_ROW.match(text)
        if m is None:
            if text.strip():
                self.current.pop(ev.path, None)
            return facts
        src = int(m["src"])
        vals = [float(v) for v in m["vals"].split()]
        key = (ev.path, cur[0])
        if not cur[1]:
            self.disabled.setdefault(key, {}).update({(src, dst): v for dst, v in enumerate(vals)})
            return facts
        base = self.disabled.get(key, {})
        if key in self.reported:
            return facts
        for dst, v in enumerate(vals):
            off = base.get((src, dst))
            if dst != src and off and v < P2P_SLOW_RATIO * off:
                self.reported.add(key)
                slow = P2PSlowerThanCopy(event=ev, matrix=cur[0], src=src, dst=dst, enabled_gbps=v, disabled_gbps=off)
                return [*facts, slow]
        return facts


# NCCL's COLL trace (``src/enqueue.cc``, INFO with NCCL_DEBUG_SUBSYS including COLL): one line per collective call,
# "<Op>: opCount <hex> sendbuff <p> recvbuff <p> count <n> datatype <d> op <o> root <r> comm <ptr> [nranks=<n>] stream
# <p>" (the same fields since NCCL 2.4; RCCL prints them too). Point-to-point calls (Send/Recv) are left out: their
# opCount is shared with the group they are batched in. And the communicator's Init line, which ties the process-local
# ``comm`` pointer to the ``commId`` every member shares (NCCL >= 2.18: "ncclCommInitRank comm 0x... rank 0 nranks 4
# cudaDev 0 nvmlDev 0 busId 1a000 commId 0x... - Init START|COMPLETE").
_COLL_CALL = lazy(
    r"\b(?P<op>AllReduce|AllGather|ReduceScatter|Broadcast|Reduce): opCount (?P<oc>[0-9a-f]+) sendbuff \S+ recvbuff "
    r"\S+ count (?P<count>\d+) datatype (?P<dt>\d+) op \d+ root (?P<root>\d+) comm (?P<comm>0x[0-9a-f]+)"
    r"(?: \[nranks=(?P<n>\d+)\])?"
)
_COMM_INIT = lazy(
    r"\bcomm (?P<comm>0x[0-9a-f]+) rank (?P<rank>\d+) nranks (?P<n>\d+) (?:.*?busId (?P<bus>[0-9a-fA-F]+) )?.*?"
    r"commId (?P<id>0x[0-9a-f]+)"
)
_NCCL_DEV = lazy(r"\[(\d+)\] NCCL INFO")
COLL_TRACE_WINDOW = 4096  # opCounts kept per communicator: a desync shows within a few calls, traces run to millions
COLL_MISMATCHES_WITHOUT_ID = 2  # opCounts that must disagree when only nranks says two comms are one


# The same call with NCCL's own line prefix ("host:pid:tid [cudaDev] NCCL INFO"), read from the raw line (``skim``)
_COLL_LINE_PATTERN = r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[(?P<dev>\d+)\] NCCL INFO " + _COLL_CALL.pattern[2:]


@functools.cache
def _coll_line() -> re.Pattern[str]:
    """The call with NCCL's prefix, compiled once by the standard library's engine: read on every call of a trace,
    where it runs about twice as fast as ``regex`` (the pattern uses nothing ``re`` lacks)."""
    return re.compile(_COLL_LINE_PATTERN)


# what marks a COLL trace call on a raw line; the reader's gate kept every line holding it before ``tap`` read them: a
# call ``_coll_line`` does not take is kept still, for ``see``
COLL_CALL_WORDS = re.compile(rb": opCount [0-9a-f]+ sendbuff")


def _finds(block: bytes, word: bytes) -> list[int]:
    """Offsets just past the first byte of every ``word`` in ``block`` (``bytes.find``: several times faster over a
    1 MiB block than a regex alternation), as ``read.lines_at`` takes them."""
    out: list[int] = []
    pos = block.find(word)
    while pos >= 0:
        out.append(pos + 1)
        pos = block.find(word, pos + len(word))
    return out


_INIT_LINE = lazy(r"(?P<host>[^\s:\[\]]+):(?P<pid>\d+):\d+ \[(?P<dev>\d+)\] NCCL INFO .*?" + _COMM_INIT.pattern[2:])


@dataclass
class CollTrace:
    """NCCL COLL trace calls per communicator, and a ``CollTraceMismatch`` when two processes' calls under one
    ``opCount`` differ (once per communicator).

    A communicator is known by the ``commId`` of its members' Init lines. Without them (a trace pasted alone, or
    NCCL < 2.18) two processes' comms are taken as one only when each process logged one communicator of that
    ``nranks``, no more than ``nranks`` processes logged one of that size, and ``COLL_MISMATCHES_WITHOUT_ID`` opCounts
    disagree: two same-sized groups (the tensor-parallel groups of two pipeline stages) legitimately issue different
    calls, and more members than one communicator holds means there are several. A trace that is not one sequence per communicator - a
    process logging one opCount of one comm twice with different calls, or one comm pointer with two sizes (a comm
    destroyed and another created at its address) - says nothing for that group from then on.

    A COLL trace can be most of a log (a line per call per rank), so those lines are read before they are parsed and
    only the one that disagrees is passed on (``see`` then states the fact on its event): by ``tap`` on the reader's
    raw blocks when the reader's gate runs (``read.iter_lines`` with ``GateView.colls`` set), else by ``skim``."""

    ids: dict[tuple[str, str], tuple[str, str, str]] = field(default_factory=dict)  # (process, comm) -> id, rank, n
    sizes: dict[tuple[str, str], set[str]] = field(default_factory=dict)  # (process, nranks) -> comm pointers
    comm_size: dict[tuple[str, str], str] = field(default_factory=dict)  # (process, comm) -> nranks
    calls: dict[str, dict[tuple[str, str], str]] = field(default_factory=dict)  # group -> (process, opCount) -> call
    first: dict[str, dict[str, tuple[str, str]]] = field(default_factory=dict)  # group -> opCount -> (process, call)
    disagree: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)  # (group, p, q) -> opCounts
    members: dict[str, set[str]] = field(default_factory=dict)  # group -> processes seen in it
    unusable: set[str] = field(default_factory=set)  # groups reported, or whose trace is not one sequence
    pending: dict[int, tuple[str, str, str, str, str, str]] = field(default_factory=dict)  # line -> mismatch fields
    tapped: dict[str, tuple[str, str, str, str, str, str]] = field(default_factory=dict)  # line text -> the same

    def skim(self, lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        """``lines`` (``(line_number, text)``, one file's) without the COLL trace calls that carry NCCL's prefix, which
        are read here; a call that disagrees is passed on, to be parsed and stated by ``see``. Init lines are read and
        passed."""
        self.pending.clear()  # keyed by line number: one file's at a time
        for n, text in lines:
            passed, found = self._read(text)
            if found is not None:
                self.pending[n] = found
            if passed:
                yield n, text

    def tapped_only(self, lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
        """``lines`` as the reader's gate kept them after ``tap`` read every line: without the COLL trace calls with
        NCCL's prefix that it kept for other reasons (a file's always-parsed last lines), which ``tap`` has read, but
        with the ones that disagree."""
        for n, text in lines:
            if ": opCount " not in text or text in self.tapped or _coll_line().search(text) is None:
                yield n, text

    def tap(self, block: bytes) -> list[int]:
        """Read the COLL trace calls and Init lines of ``block`` (raw lines joined by ``\n``, in file order) as
        ``skim`` reads them; the offsets (one inside each line) of the lines still to parse: a call that disagrees
        (its fields kept for ``see`` under the line's text) and a call without NCCL's prefix (``see`` reads it). The
        reader's gate keeps the Init lines by their own words."""
        calls = _finds(block, b": opCount ")
        if not calls:
            return []
        ends = calls + _finds(block, b"commId 0x")  # the lines holding a call or an Init line (``lines_at`` sorts)
        keep: list[int] = []
        plain = PLAIN_LINE.match(block) is not None  # every line as ``read.clean_line`` would leave it
        for _i, line_start, line_end in lines_at(block, ends, 0):
            line = block[line_start:line_end]
            text = line.decode("ascii") if plain or PLAIN_LINE.match(line) else clean_line(line)
            passed, found = self._read(text)
            if found is not None:
                self.tapped[text] = found
            if passed and (found is not None or COLL_CALL_WORDS.search(line)):
                keep.append(line_start + 1)
        return keep

    def _read(self, text: str) -> tuple[bool, tuple[str, str, str, str, str, str] | None]:
        """Read one line: ``(pass it on to be parsed, the mismatch's fields when it is a call that disagrees)``."""
        if ": opCount " in text:
            m = _coll_line().search(text)
            if m is not None:
                found = self._call(f"{m['host']}:{m['pid']} [{m['dev']}]", m)
                return found is not None, found
        elif "commId 0x" in text:
            i = _INIT_LINE.search(text)
            if i is not None:
                self.ids[(f"{i['host']}:{i['pid']} [{i['dev']}]", i["comm"])] = (i["id"], i["rank"], i["n"])
        return True, None

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, plus a ``CollTraceMismatch`` when ``ev`` is a COLL trace call that disagrees with another
        process's call on the same communicator and opCount (read here, or by ``skim`` before it was parsed)."""
        text = ev.text
        if "opCount " not in text:
            if "commId 0x" in text:
                m = _COMM_INIT.search(text)
                if m is not None:
                    self.ids[(self._who(ev), m["comm"])] = (m["id"], m["rank"], m["n"])
            return facts
        found = self.pending.pop(ev.line, None)
        if found is None and self.tapped:
            found = self.tapped.pop(text, None)
        if found is None:
            m = _COLL_CALL.search(text)
            found = None if m is None else self._call(self._who(ev), m)
        if found is None:
            return facts
        oc, this_call, other_call, this_process, other_process, group = found
        mismatch = CollTraceMismatch(
            event=ev,
            op_count=oc,
            this_call=this_call,
            other_call=other_call,
            this_process=this_process,
            other_process=other_process,
            communicator=group,
        )
        return [*facts, mismatch]

    def _call(self, who: str, m: Any) -> tuple[str, str, str, str, str, str] | None:
        """Record one COLL call by process ``who`` (``m``: a ``_COLL_CALL`` match); the mismatch's fields when it
        disagrees with another process's call under the same opCount of the same communicator, else None."""
        comm, n = m["comm"], m["n"] or ""
        if self.comm_size.setdefault((who, comm), n) != n:
            self.unusable.add(f"nranks={n}")
            return None
        known = self.ids.get((who, comm))
        if known is not None:
            group = f"commId {known[0]}"
            size = known[2]
            if n and n != size:
                self.unusable.add(group)  # the call's nranks is not its communicator's: not this comm's trace
        elif n:
            ptrs = self.sizes.setdefault((who, n), set())
            ptrs.add(comm)
            if len(ptrs) > 1:
                return None  # two comms of one size in this process: which peer comm is which is unknown
            group, size = f"nranks={n}", n
        else:
            return None
        if group in self.unusable:
            return None
        members = self.members.setdefault(group, set())
        members.add(who)
        if len(members) > int(size):
            self.unusable.add(group)  # more processes than the communicator holds: not one communicator
            return None
        call = f"{m['op']} count {m['count']} datatype {m['dt']} root {m['root']}"
        mine = self.calls.setdefault(group, {})
        before = mine.get((who, m["oc"]))
        if before is not None:
            if before != call:
                self.unusable.add(group)  # this process logged this opCount twice: not one sequence per comm
            return None
        mine[(who, m["oc"])] = call
        seen = self.first.setdefault(group, {})
        first = seen.get(m["oc"])
        if first is None:
            seen[m["oc"]] = (who, call)
            if len(seen) > COLL_TRACE_WINDOW:
                for k in list(seen)[: COLL_TRACE_WINDOW // 2]:
                    del seen[k]
                for key in [key for key in mine if key[1] not in seen]:
                    del mine[key]
            return None
        other, other_call = first
        if other == who or other_call == call:
            return None
        if known is None:
            if len(self.sizes.get((other, n), ())) > 1:
                return None
            lo, hi = sorted((who, other))
            pair = self.disagree.setdefault((group, lo, hi), set())
            pair.add(m["oc"])
            if len(pair) < COLL_MISMATCHES_WITHOUT_ID:
                return None
        self.unusable.add(group)  # reported once
        return m["oc"], call, other_call, self._named(who, comm), other, group

    @staticmethod
    def _who(ev: Event) -> str:
        """The process (``_process``) and its CUDA device as NCCL's prefix prints it (``[2]``)."""
        dev = _NCCL_DEV.search(ev.text)
        return f"{_process(ev)} [{dev[1]}]" if dev else _process(ev)

    def _named(self, who: str, comm: str) -> str:
        known = self.ids.get((who, comm))
        return f"{who} rank {known[1]}" if known else who


@dataclass
class CommDevices:
    """The GPU each rank of each communicator was set up on (NCCL's Init lines), per host; a ``SharedGpu`` the first
    time two ranks of one communicator (``commId``) name one bus id on one host. Every member of a communicator prints
    the same ``nranks`` and a rank below it (``init.cc``: ``comm->rank``, ``comm->nRanks``); a commId whose Init lines
    disagree on that is not one communicator's account (lines joined from several jobs, or made up), and says nothing."""

    seen: dict[tuple[str, str, str], str] = field(default_factory=dict)  # (commId, host, busId) -> first rank
    nranks: dict[str, str] = field(default_factory=dict)  # commId -> the nranks its first Init line gave
    reported: set[str] = field(default_factory=set)  # commIds reported, or found incoherent

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, plus a ``SharedGpu`` when ``ev`` is an Init line whose GPU another rank of its communicator took."""
        if "busId" not in ev.text or "Init " not in ev.text or ev.host is None:
            return facts
        m = _COMM_INIT.search(ev.text)  # the Init line's commId, rank, nranks and busId (``CollTrace``'s regex)
        if m is None or not m["bus"] or m["id"] in self.reported:
            return facts
        rank, n = plausible.rank(m["rank"]), plausible.world_size(m["n"])  # None for absurd numbers: never raises
        if self.nranks.setdefault(m["id"], m["n"]) != m["n"] or rank is None or n is None or rank >= n:
            self.reported.add(m["id"])
            return facts
        first = self.seen.setdefault((m["id"], ev.host, m["bus"]), m["rank"])
        if first == m["rank"]:
            return facts
        self.reported.add(m["id"])
        return [*facts, SharedGpu(event=ev, comm_id=m["id"], bus_id=m["bus"], ranks=f"{first}, {m['rank']}")]


# PyTorch's device check: "found at least two devices, cuda:0 and cuda:1!" (also "cuda:1 and cpu!")
_TWO_DEVICES = lazy(r"found at least two devices, (?P<a>[a-z]+(?::\d+)?) and (?P<b>[a-z]+(?::\d+)?)!")
ONE_DEVICE_MIN_LINES = 2  # lines, each pairing the common device with another one


@dataclass
class OneDeviceForAll:
    """PyTorch's "found at least two devices, A and B!" lines of one job (``RanksOnOneDevice``): a fact the first time
    ``ONE_DEVICE_MIN_LINES`` of them share one device and pair it with different second devices. Only CUDA devices
    with an index count (a CPU tensor beside a GPU one is a single process's own mix-up)."""

    pairs: list[tuple[str, str]] = field(default_factory=list)
    reported: bool = False

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, plus a ``RanksOnOneDevice`` when ``ev``'s device pair completes the picture."""
        if self.reported or "found at least two devices" not in ev.text:
            return facts
        for m in _TWO_DEVICES.finditer(ev.text):
            pair = (m["a"], m["b"])
            if all(d.startswith("cuda:") for d in pair) and pair not in self.pairs:
                self.pairs.append(pair)
        for common in sorted({d for p in self.pairs for d in p}):
            others = [p[1] if p[0] == common else p[0] for p in self.pairs if common in p]
            if len(others) >= ONE_DEVICE_MIN_LINES and len(set(others)) == len(others):
                self.reported = True
                return [*facts, RanksOnOneDevice(event=ev, device=common, others=", ".join(others))]
        return facts


@dataclass
class SameSignalExits:
    """The pids the job has seen end by each signal, to count on each ``ProcessExit`` how many distinct processes
    ended by its signal so far (``ProcessExit.same_signal``). Keyed by the reported pid (torchrun's summary and its
    "failed (exitcode: -7) local_rank: 0 (pid: N)" name the same pid, one with a host and one without, so the host is
    not part of the key; a report without a pid is not counted)."""

    pids: dict[str, set[int]] = field(default_factory=dict)  # signal -> {pid}

    def see(self, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts`` with each signalled ``ProcessExit`` that names a pid carrying its ``same_signal`` count."""
        if not any(isinstance(f, ProcessExit) and f.signal for f in facts):
            return facts
        out: list[Fact] = []
        for f in facts:
            if isinstance(f, ProcessExit) and f.signal:
                pid = f.fields()["pid"]
                if pid is not None:
                    seen = self.pids.setdefault(f.signal, set())
                    seen.add(pid)
                    f = dataclasses.replace(f, same_signal=len(seen))
            out.append(f)
        return out


@dataclass
class EpochsSeen:
    """The epochs the job's progress lines have counted so far, to put on each signalled ``ProcessExit`` how many
    distinct ones came before it (``ProcessExit.epochs_before``). An epoch counts when a line states it with its total
    ("Epoch 2/8", ``progress.EPOCH_OF``) or inside a progress line with a step counter and a metric
    (``progress.progress_counter``: a training loop's "epoch 2 step 20/61 loss=...", Lightning's ``ModelCheckpoint``
    "Epoch 1, global step 122: 'val_loss' reached ...", mmengine's "Epoch(train) [2][10/30] lr: ... loss: ..."), so a
    config's "epochs: 8" or "max_epochs=4" is not one. Any rank's line counts: ranks share the data and the host."""

    seen: set[int] = field(default_factory=set)

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, each signalled ``ProcessExit`` among them carrying ``epochs_before``; notes ``ev``'s epoch."""
        if ("poch" in ev.text or "POCH" in ev.text) and len(self.seen) < EPOCHS_KEPT:
            if m := EPOCH_OF.search(ev.text):
                self.seen.add(int(m[1]))
            elif (c := progress_counter(ev.text)) is not None and c[0] >= 0:
                self.seen.add(c[0])
        if not self.seen or not any(isinstance(f, ProcessExit) and f.signal for f in facts):
            return facts
        n = len(self.seen)
        return [
            dataclasses.replace(f, epochs_before=n) if isinstance(f, ProcessExit) and f.signal else f for f in facts
        ]


EPOCHS_KEPT = 8  # distinct epochs counted at most: rules ask "two or more", not how many


# DeepSpeed's static loss scaler (``deepspeed/runtime/fp16/loss_scaler.py``, ``LossScalerBase.update_scale``: bf16/fp32
# training, or fp16 with a fixed ``loss_scale``) skips every step whose gradients hold NaN/Inf and says so on rank 0:
# "[deepspeed] OVERFLOW! Skipping step. Gradients are non-finite, weights were not updated." The dynamic scaler's
# line names the scale it tried ("Attempted loss scale: ..., reducing to ..."), and skips steps while it calibrates;
# a static scaler has no scale to calibrate, so each such skip is a step whose gradients really were non-finite.
_STATIC_SKIP = "Gradients are non-finite, weights were not updated"
STATIC_SKIP_MIN_STEPS = 20  # a step counter at least this high before the share of skipped steps counts


@dataclass
class StaticScalerSkips:
    """Most of a file's training steps so far skipped by a static loss scaler (``_STATIC_SKIP``): a
    ``NumericHealth(what="skipped_majority")``, once per file, when the count of skips reaches
    ``extract.SKIPPED_MAJORITY`` of the step counter its progress lines reached (``progress.progress_counter``, read
    only in files that printed such a skip). The loss such a run prints stays finite - the weights moved only on the
    steps whose gradients were finite - so no NaN shows it (wave BK's DeepSpeed run at lr 30: 75 of 80 steps skipped,
    the loss from 6.4 to 1.3e4, exit 0). Streaming state, one per job."""

    skips: dict[str, int] = field(default_factory=dict)  # path -> static skips so far
    said: set[str] = field(default_factory=set)  # paths already reported

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        path = ev.path
        if _STATIC_SKIP in ev.text:
            self.skips[path] = self.skips.get(path, 0) + ev.text.count(_STATIC_SKIP)
            return facts
        n = self.skips.get(path)
        if not n or path in self.said:
            return facts
        c = progress_counter(ev.text)
        if c is None or c[1] < STATIC_SKIP_MIN_STEPS or n < extract.SKIPPED_MAJORITY * c[1]:
            return facts
        self.said.add(path)
        return [*facts, NumericHealth(event=ev, what="skipped_majority")]


LAST_ERROR_GAP_LINES = 2  # "Last error:" -> the message: the next line (a rank prefix may sit between)


@dataclass
class NcclLastError:
    """torch's NCCL errors end with NCCL's last WARN message on the line after "Last error:" (``NCCLUtils.cpp``
    ``getNcclErrorDetailStr``), which the parser gives as separate events: the message then states an ``NcclWarning``
    (``extract.nccl_last_error``) with the ``ncclResult_t`` named just before. Streaming state, one per job."""

    result: dict[str, str] = field(default_factory=dict)  # path -> the last ncclResult_t name seen
    pending: Event | None = None  # the "Last error:" line waiting for its message

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        """``facts``, plus the ``NcclWarning`` that ``ev`` states when it is the message after "Last error:"."""
        text = ev.text
        if "nccl" in text and (r := nccl_result(text)):
            self.result[ev.path] = r
        if text.rstrip().endswith("Last error:"):
            self.pending = ev
            return facts
        last, self.pending = self.pending, None
        if last is None or any(isinstance(f, NcclWarning) for f in facts):
            return facts
        if last.path != ev.path or not 0 < ev.line - last.end_line <= LAST_ERROR_GAP_LINES:
            return facts
        w = nccl_last_error(ev, text.strip().split("\n", 1)[0], self.result.get(ev.path, ""))
        return facts if w is None else [*facts, w]


# A CUDA check that prints where it failed on one line and the runtime's string on the next: llm.c's ``cudaCheck``
# (``llmc/cuda_common.h``: printf("[CUDA ERROR] at file %s:%d:\n%s\n", file, line, cudaGetErrorString(error)),
# karpathy/llm.c#63) and the like. The announcing line ends in ":" after "CUDA error"/"CUDA ERROR".
_CUDA_ANNOUNCE = lazy(r"(?i)\bcuda[ _]error\b.*:\s*$")
_CUDA_BY_MESSAGE = {e.message.lower(): e for e in tables.CUDA_ERRORS}


@dataclass
class CudaNextLine:
    """``CudaError`` from the runtime's error string printed alone on the line after a CUDA check's announcement
    (``_CUDA_ANNOUNCE``). Streaming state, one per job."""

    pending: Event | None = None

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        text = ev.text
        last, self.pending = self.pending, None
        if "\n" not in text and ("CUDA" in text or "cuda" in text) and _CUDA_ANNOUNCE.search(text):
            self.pending = ev
            return facts
        if last is None or last.path != ev.path or ev.line != last.end_line + 1 or facts:
            return facts
        found = _CUDA_BY_MESSAGE.get(text.strip().rstrip(".").lower())
        if found is None:
            return facts
        return [*facts, cuda_error(ev, found)]


# Prefect's engine once a flow run reached its final state (``prefect/flow_engine.py``; ``prefect/engine.py`` in
# Prefect 2): "Finished in state Completed()" at INFO, "Finished in state Failed('Flow run encountered an exception.
# ...')" at ERROR otherwise, behind the run's "Flow run '<name>' - " prefix. A flow started from the command line begins
# with "Beginning flow run '<name>' for flow '<flow>'"; one called from inside another with "Beginning subflow run
# '<name>' ...", and its completion is a step of the outer run, which may still fail after it.
_PREFECT_BEGIN = lazy(r"\bBeginning flow run '(?P<name>[^']+)' for flow '")
_PREFECT_DONE = lazy(r"\bFlow run '(?P<name>[^']+)' - Finished in state Completed\(\)")


@dataclass
class PrefectFlows:
    """``RunFinished(by="prefect")`` when a top-level Prefect flow run (not a subflow) finished in state Completed:
    the orchestrator's word that the whole run succeeded (``recovered.WHOLE_RUN_FINISH``). Streaming state, one per
    job: the names of the flow runs begun at top level."""

    top: set[str] = field(default_factory=set)

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        text = ev.text
        if (
            extract.PREFECT_WORDS[0] in text
            and len(self.top) < PREFECT_FLOWS_KEPT
            and (m := _PREFECT_BEGIN.search(text))
        ):
            self.top.add(m["name"])
        elif (
            self.top
            and extract.PREFECT_WORDS[1] in text
            and (m := _PREFECT_DONE.search(text))
            and m["name"] in self.top
        ):
            return [*facts, RunFinished(event=ev, by="prefect", words=m[0])]
        return facts


PREFECT_FLOWS_KEPT = 64  # top-level flow runs remembered per job


# Celery's worker once a task message reaches it (``celery/worker/strategy.py`` ``default``: "Task
# <name>[<task id>] received", INFO). The broker delivers a message again when the worker did not acknowledge it: a
# task with ``acks_late`` whose pool process died (``reject_on_worker_lost``: ``celery/worker/request.py``
# ``Request.on_failure`` rejects the message with ``requeue=True`` after "Task handler raised error: WorkerLostError
# ..."), or one not acknowledged within the broker's visibility timeout. The same task id received twice is that work
# run again.
_CELERY_RECEIVED = lazy(
    r"\bTask [\w.:-]+\[(?P<id>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\] received$"
)


@dataclass
class CeleryRedelivered:
    """``WorkRetried(by="celery_task")`` when a Celery worker receives a task id it received before (the broker
    redelivered the message: ``_CELERY_RECEIVED``). Streaming state, one per job: the task ids received so far."""

    seen: set[str] = field(default_factory=set)

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        text = ev.text
        if not text.endswith(extract.CELERY_RECEIVED_WORD) or not (m := _CELERY_RECEIVED.search(text)):
            return facts
        if m["id"] in self.seen:
            return [*facts, WorkRetried(event=ev, by="celery_task", words=m[0])]
        if len(self.seen) < CELERY_TASKS_KEPT:
            self.seen.add(m["id"])
        return facts


CELERY_TASKS_KEPT = 100_000  # task ids remembered per job (36 bytes each)


@dataclass
class MpiWrappedExit:
    """Open MPI's "process rank N ... exited on signal S (Word)." wrapped over two lines (PRRTE's ``prterun`` wraps its
    help text, ``help-prterun.txt`` "proc-aborted-signal"): the ``ProcessExit`` of the two joined, as the one-line
    form gives (``extract.mpi_exit``). Streaming state, one per job."""

    pending: Event | None = None

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        last, self.pending = self.pending, None
        text = ev.text
        if "exited on" in text and "\n" not in text and extract.MPI_WRAPPED_HEAD.search(text):
            self.pending = ev
            return facts
        if last is None or last.path != ev.path or ev.line != last.end_line + 1 or facts:
            return facts
        if not extract.MPI_WRAPPED_TAIL.match(text):
            return facts
        return [*facts, *extract.mpi_exit(last, last.text.rstrip() + " " + text.strip())]


# A step that got no data: its loss is the mean over nothing, NaN, whatever the model's numbers are. RLlib says so
# before the iteration's results when no env runner returned samples ("No samples returned from remote workers.",
# ``rllib/execution/rollout_ops.py`` ``synchronous_parallel_sample``: its runners died or timed out), and a loop's own
# record may show it beside the NaN ("env_steps=0 ... loss=nan"). Such a NaN is a symptom of the missing data, not a
# diverged run.
_NO_SAMPLES = "No samples returned from remote workers"
_ZERO_SAMPLES = lazy(
    r"(?i)\b(?:num_)?(?:env_steps|agent_steps|samples|timesteps|episodes)(?:_\w+)?[\"']?\s*[=:]\s*0(?:\.0+)?(?![\d.])"
)
EMPTY_STEP_GAP_LINES = 3  # the statement -> the step's record: the next line or two
_EMPTY_NAN = frozenset({"nan_loss", "inf_loss", "nan_grad", "nan_output"})


@dataclass
class EmptySteps:
    """NaN/Inf on a step that got no data is not divergence (``_NO_SAMPLES``, ``_ZERO_SAMPLES``): those
    ``NumericHealth`` facts are dropped. Streaming state, one per job."""

    said: dict[str, int] = field(default_factory=dict)  # path -> line of the last "no samples" statement

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        text = ev.text
        if _NO_SAMPLES in text:
            self.said[ev.path] = ev.end_line
            return facts
        if not any(isinstance(f, NumericHealth) and f.what in _EMPTY_NAN for f in facts):
            return facts
        last = self.said.get(ev.path)
        if (last is None or not 0 < ev.line - last <= EMPTY_STEP_GAP_LINES) and not _ZERO_SAMPLES.search(text):
            return facts
        return [f for f in facts if not (isinstance(f, NumericHealth) and f.what in _EMPTY_NAN)]


# one rank's line of Horovod's "Missing ranks:" list, behind a launcher's tag ("[1,0]<stderr>:0: [a, b]")
_STALL_RANK = lazy(r"(?:^|[>\]:]\s*)(?P<rank>\d{1,7}): \[(?P<names>[^\]\n]*)\]\s*$")


@dataclass
class StallReport:
    """Horovod's stall inspector's "Missing ranks:" list, one "<rank>: [<tensor>, ...]" line per rank that has not
    submitted those tensors (``horovod/common/stall_inspector.cc``), read line by line: a ``StallMismatch`` once two
    listed ranks each lack a tensor the other submitted (once per job). A rank the list leaves out submitted every
    pending tensor."""

    missing: dict[int, frozenset[str]] | None = None  # the open list's ranks, None outside one
    path: str | None = None
    reported: bool = False

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        text = ev.text
        if self.missing is None and "Missing ranks:" not in text or self.reported:
            return facts
        found: StallMismatch | None = None
        for ln in text.split("\n") if "\n" in text else (text,):
            if "Missing ranks:" in ln:
                self.missing, self.path = {}, ev.path
                continue
            if self.missing is None:
                continue
            m = _STALL_RANK.search(ln) if ev.path == self.path else None
            if m is None:
                self.missing = None  # the list ended
                continue
            names = frozenset(n.strip() for n in m["names"].split(",") if n.strip())
            rank = plausible.number(m["rank"])
            if rank is None or not names:
                continue
            self.missing[rank] = names
            found = found or self._crossing(ev, rank)
        if found is None:
            return facts
        self.reported = True
        return [*facts, found]

    def _crossing(self, ev: Event, rank: int) -> StallMismatch | None:
        assert self.missing is not None
        mine = self.missing[rank]
        pending = frozenset().union(*self.missing.values())
        for other, theirs in self.missing.items():
            # ``rank`` submitted something ``other`` lacks, and ``other`` submitted something ``rank`` lacks
            they_lack = sorted(theirs & (pending - mine))
            i_lack = sorted(mine & (pending - theirs))
            if other != rank and they_lack and i_lack:
                return StallMismatch(
                    event=ev, listed_rank=rank, lacks=i_lack[0], other_rank=other, other_lacks=they_lack[0]
                )
        return None


@dataclass
class NcclTraces:
    """NCCL's return-code trace as a fact only where it is the job's sole account of a NCCL failure: dropped once any
    NCCL WARN was printed (the WARN, printed first, names the failure), and only the first (innermost) line of each
    process's chain is kept (the outer files - bootstrap.cc, init.cc, group.cc - only pass the result up)."""

    warned: bool = False
    traced: set[tuple[str | None, int | None]] = field(default_factory=set)

    def see(self, ev: Event, facts: Sequence[Fact]) -> Sequence[Fact]:
        if not any(isinstance(f, NcclWarning) for f in facts):
            return facts
        out: list[Fact] = []
        for f in facts:
            if isinstance(f, NcclWarning):
                if not f.trace:
                    self.warned = True
                else:
                    who = (ev.host, ev.pid)
                    if self.warned or who in self.traced:
                        continue
                    self.traced.add(who)
            out.append(f)
        return out


@dataclass
class FactStream:
    """The facts of one job's events, fed in order: ``facts_of`` plus what takes earlier events to know (chained
    exceptions, ``ExceptionChain``; a known-bad version pair printed earlier, ``known_bad_pair``; a run of
    consecutive overflow skips, ``OverflowRun``; an NCCL failure after processes disagreed on cuMem, ``CuMemSides``;
    how many processes ended by the same signal, ``SameSignalExits``; a GPU pair slower with P2P than without in
    CUDA's bandwidth test, ``P2PBandwidth``; two processes' different calls under one opCount of NCCL's COLL trace,
    ``CollTrace``; NCCL's last WARN message after torch's "Last error:", ``NcclLastError``;
    the CUDA runtime's string on the line after a check's announcement, ``CudaNextLine``; Horovod's stall inspector
    listing ranks that submitted different collectives, ``StallReport``; ranks' tensors all found on one device,
    ``OneDeviceForAll``; a NaN on a step that got no data, dropped, ``EmptySteps``; how many epochs ran before a
    process ended by a signal, ``EpochsSeen``; a top-level Prefect flow run that completed, ``PrefectFlows``; a Celery task delivered again,
    ``CeleryRedelivered``)."""

    chain: ExceptionChain = field(default_factory=ExceptionChain)
    overflows: OverflowRun = field(default_factory=OverflowRun)
    cumem: CuMemSides = field(default_factory=CuMemSides)
    signals: SameSignalExits = field(default_factory=SameSignalExits)
    p2p: P2PBandwidth = field(default_factory=P2PBandwidth)
    colls: CollTrace = field(default_factory=CollTrace)
    devices: CommDevices = field(default_factory=CommDevices)
    one_device: OneDeviceForAll = field(default_factory=OneDeviceForAll)
    last_error: NcclLastError = field(default_factory=NcclLastError)
    traces: NcclTraces = field(default_factory=NcclTraces)
    cuda_next: CudaNextLine = field(default_factory=CudaNextLine)
    mpi_wrapped: MpiWrappedExit = field(default_factory=MpiWrappedExit)
    static_skips: StaticScalerSkips = field(default_factory=StaticScalerSkips)
    stalls: StallReport = field(default_factory=StallReport)
    empty_steps: EmptySteps = field(default_factory=EmptySteps)
    epochs: EpochsSeen = field(default_factory=EpochsSeen)
    prefect: PrefectFlows = field(default_factory=PrefectFlows)
    celery: CeleryRedelivered = field(default_factory=CeleryRedelivered)

    def facts(self, ev: Event, versions: dict[str, str]) -> Sequence[Fact]:
        """``ev``'s facts; ``versions``: the versions the job printed up to and including ``ev``."""
        facts = self.cuda_next.see(ev, self.last_error.see(ev, self.p2p.see(ev, self.chain.link(ev, facts_of(ev)))))
        facts = self.stalls.see(ev, self.devices.see(ev, self.colls.see(ev, self.mpi_wrapped.see(ev, facts))))
        facts = self.epochs.see(ev, self.empty_steps.see(ev, self.one_device.see(ev, facts)))
        facts = self.celery.see(ev, self.prefect.see(ev, facts))
        if self.static_skips.skips or _STATIC_SKIP in ev.text:
            facts = self.static_skips.see(ev, facts)
        if facts:
            facts = self.traces.see(ev, facts)
            facts = self.overflows.see(ev, facts)
            facts = self.cumem.see(ev, facts)
            facts = self.signals.see(facts)
        if not versions or not facts:
            return facts
        out: list[Fact] = []
        for f in facts:
            if isinstance(f, ExceptionFact) and not f.known_bad:
                bad = known_bad_pair(f.message, versions)
                if bad:
                    f = dataclasses.replace(f, known_bad=bad)
            out.append(f)
        return out


# Launchers stop the remaining workers once one fails, and say which pid they signal: torchrun's agent
# (``torch/distributed/elastic/multiprocessing/api.py`` ``_close``: "Sending process N closing signal SIGTERM", then
# "Unable to shutdown process N via 15, forcefully exiting via 9"), DeepSpeed's launcher (``deepspeed/launcher/
# launch.py`` ``sigkill_handler``: "Killing subprocess N"), srun ("Terminating job step N.0" after a task failed).
# Those pids then exit by the signal they were sent (torchrun's failure summary lists them with exitcode -15/-9 beside
# the root cause), and slurmstepd reports that step "CANCELLED" with no reason: symptoms of the first failure.
_STOP_SIGNALS = frozenset({"SIGTERM", "SIGKILL", "SIGINT"})


_INTERRUPTS = ("KeyboardInterrupt",)
_FRAME = lazy(r"^(?P<file>.*?):\d+ in (?P<func>\S+)$")


def _frame_function(innermost: str) -> tuple[str, str] | None:
    """``(file, function)`` of an ``ExceptionFact.innermost`` frame ("path/w2v.py:117 in acquire"), None if unreadable."""
    m = _FRAME.match(innermost)
    return (m["file"], m["func"]) if m else None


def interrupted_from(facts: Sequence[Fact]) -> dict[str, int]:
    """Per file, the line where it reported the user's interrupt (a ``SignalFact`` SIGINT from the terminal: Ctrl-C)
    when nothing in it failed before: the exceptions of the interrupt's own unwinding it prints from there on
    (``tables.INTERRUPT_UNWINDING``: asyncio tasks cancelled under it, Dask's ``AllExit`` "Task exception was never
    retrieved") are not a cause (``unwinding``). What the job was waiting on when the user gave up is read by
    ``interrupted.interrupted_while_waiting``. ``facts`` in job order."""
    out: dict[str, int] = {}
    failed: set[str] = set()
    for f in facts:
        path = f.event.path
        if path in out or path in failed:
            continue
        if isinstance(f, SignalFact) and f.signal == "SIGINT" and f.sender == "terminal":
            out[path] = f.event.line
        elif _failed_exit(f) or isinstance(f, ExceptionFact) and not f.type.endswith("KeyboardInterrupt"):
            failed.add(path)
    return out


def unwinding(ev: Event) -> bool:
    """``ev`` is a Python exception of the kind a process raises while it unwinds after an interrupt
    (``tables.INTERRUPT_UNWINDING``)."""
    short = ev.params.get("exc_short") or str(ev.params.get("exc_type") or "").rpartition(".")[2]
    return short in tables.INTERRUPT_UNWINDING


def handled_when_interrupted(facts: Sequence[Fact]) -> frozenset[int]:
    """``id()`` of the events of exceptions that were being handled when the user's interrupt came: a
    ``KeyboardInterrupt`` at the end of a chain of exceptions of one process linked as context ("During handling of
    the above exception, another exception occurred", ``ExceptionFact.chained == "context"``), and an earlier link of
    that chain raised in a function that is still on the interrupt's own stack. That exception was caught there - a
    retry or polling loop's ``except`` that waits and tries again (``os.open(lock, O_CREAT | O_EXCL)`` ->
    ``FileExistsError`` -> ``time.sleep``; Optuna's journal lock, ``optuna/storages/journal/_file.py`` ``acquire``) -
    so it did not end the process; the interrupt did. A real error that a handler was cleaning up after when the user
    gave up was raised in a frame that has unwound (a library call deeper than the handler), so it stays the failure.
    ``facts`` in job order."""
    out: set[int] = set()
    chains: dict[tuple[str, int | None, int | None], list[ExceptionFact]] = {}
    for f in facts:
        if not isinstance(f, ExceptionFact):
            continue
        key = (f.event.path, f.event.rank, f.event.pid)
        chain = chains.get(key)
        if chain and f.chained == "context" and f.caused_by == chain[-1].type:
            chain.append(f)
        else:
            chains[key] = chain = [f]
        if len(chain) > 1 and f.type.endswith(_INTERRUPTS):
            on_stack = {(fr.get("file"), fr.get("func")) for fr in f.event.params.get("frames") or []}
            out.update(id(g.event) for g in chain[:-1] if _frame_function(g.innermost) in on_stack)
    return frozenset(out)


def _failed_exit(f: Fact) -> bool:
    """``f`` is a process's failed end by itself: a non-zero exit or a signal, not one that only asks it to stop."""
    return (
        isinstance(f, ProcessExit)
        and bool(f.signal or (f.code or 0) != 0)
        and f.signal not in ("SIGTERM", "SIGINT", "SIGHUP")
    )


def raised_from(facts: Sequence[Fact]) -> dict[int, Event]:
    """``id()`` of each exception's event that was raised from, or while handling, the exception the same process
    printed right before it (``ExceptionChain.link``: CPython's "The above exception was the direct cause of the
    following exception:" / "During handling of the above exception, another exception occurred:") -> that earlier
    exception's event. ``facts`` in job order, as ``ExceptionChain`` linked them."""
    out: dict[int, Event] = {}
    last: dict[tuple[str, int | None, int | None], ExceptionFact] = {}
    for f in facts:
        if not isinstance(f, ExceptionFact):
            continue
        key = (f.event.path, f.event.rank, f.event.pid)
        cause = last.get(key)
        if cause is not None and f.chained and _linked(cause, f):
            out[id(f.event)] = cause.event
        last[key] = f
    return out


def sibling_terminations(facts: Sequence[Fact]) -> frozenset[int]:
    """``id()`` of the events that report a launcher stopping a sibling: an exit by SIGTERM/SIGKILL/SIGINT of a pid the
    launcher named as one it signals, a reason-less Slurm cancel of a step srun said it was terminating, or a rank's
    own "received SIGTERM" (sender unknown) printed after a launcher announced it was stopping its workers (torch's
    ``mp.spawn`` "Terminating process N via signal SIGTERM", then Lightning's "[rank: 0] Received SIGTERM: 15" in that
    worker) - or after a launcher named another signal when the job also reports a worker's failed exit: DeepSpeed's
    "Killing subprocess N" (``deepspeed/launcher/launch.py`` ``sigkill_handler`` -> ``terminate_process_tree``: psutil
    ``terminate()``, i.e. SIGTERM, then ``kill()`` for those still alive after 30 s) reaches a rank first as SIGTERM,
    and the same handler runs when the launcher itself is sent SIGTERM (a spot reclaim signalling the whole process
    group), where no worker failed and the ranks' SIGTERM is the cause. An exit that names no pid (DeepSpeed's "exits
    with return code", about the failed worker) is never one. ``facts`` in job order."""
    stops = [f for f in facts if isinstance(f, SignalFact) and f.sender == "launcher"]
    spawn_failed = any(
        isinstance(f, ProcessExit) and f.reporter == "multiprocessing" and _failed_exit(f) for f in facts
    )
    # a launcher that stops every worker, naming no pid: PaddlePaddle's launcher on a signal it got (the same line
    # states that signal), or Open MPI aborting the job after a worker failed ("Per user-direction"). The workers' own
    # SIGTERM handlers print theirs in their own files, whose order against the launcher's line is not known. Open MPI
    # aborts after any failed exit, also one by the SIGTERM itself (exit 143 when a scheduler signalled the ranks): only
    # a worker that failed by something else makes the others' SIGTERM its clean-up.
    received = {id(f.event) for f in facts if isinstance(f, SignalFact) and f.sender != "launcher"}
    worker_failed = any(_failed_exit(f) for f in facts)
    stopped_all = any(
        f.target is None and f.signal == "SIGTERM" and (id(f.event) in received or worker_failed) for f in stops
    )
    if spawn_failed or stopped_all:
        # torch's and Paddle's spawn report a process that failed only once they have stopped the others
        # (``ProcessContext.join``: ``process.terminate()``, i.e. SIGTERM, for each one still alive), so the others'
        # own handlers print their SIGTERM before that report: wherever they are in the job, they are its clean-up
        return frozenset(
            id(f.event)
            for f in facts
            if isinstance(f, SignalFact)
            and f.sender == "unknown"
            and f.signal == "SIGTERM"
            or isinstance(f, ProcessExit)
            and f.signal == "SIGTERM"
            and f.reporter in _OWN_HANDLERS
        ) | _launcher_stops(facts, stops)
    return _launcher_stops(facts, stops)


def stopped_after_failure(facts: Sequence[Fact]) -> frozenset[int]:
    """``id()`` of the events of SIGTERM reports (a process saying it received SIGTERM, sender unknown, or an exit by
    SIGTERM that someone reported: "exited with status 143") printed in a file after that file reported a
    process's own failed end: an uncaught exception (its traceback starts at a script's ``<module>`` frame, the
    interpreter's report as ``sys.excepthook`` prints it, after which the process exits 1) or an exit by a non-zero
    code or a signal other than a stop signal (``_failed_exit``). A launch script, a service manager or a launcher then
    stops what is left (Dask's ``dask scheduler``/``dask worker`` after the client failed, a wrapper's ``kill`` of
    the job's process group): the signal is that clean-up, not a preemption, even where no launcher announced it as
    torchrun does (``sibling_terminations``). ``facts`` in job order."""
    failed: set[str] = set()  # files that reported a failed end so far
    out: set[int] = set()
    for f in facts:
        path = f.event.path
        if _failed_exit(f) or isinstance(f, ExceptionFact) and uncaught(f):
            failed.add(path)
        elif path in failed and _stop_report(f):
            out.add(id(f.event))
    return frozenset(out)


# gloo's own exceptions (``gloo/common/error.h``): ``gloo::IoException`` (a socket read or write to a peer failed: the
# peer closed or reset the connection) and ``gloo::TimeoutException`` (a pair waited for its peer past the context's
# timeout, ``gloo/transport/tcp/pair.cc``). Both say the *peer* went away or stopped answering. A framework that calls
# gloo from C++ without turning them into a Python error (PaddlePaddle's CPU all_reduce in the backward pass, Horovod's
# gloo controller thread) lets one escape: libstdc++ prints "terminate called after throwing an instance of
# 'gloo::TimeoutException'" and the process aborts, and its own signal handler reports the SIGABRT.
GLOO_PEER_EXCEPTIONS = frozenset({"gloo::IoException", "gloo::TimeoutException"})
# how far below the "terminate called" line the aborting process's own handler reports the SIGABRT: Paddle's handler
# prints its C++ traceback (a few frames) and the error summary box first (12-14 lines in the runs of wave BL)
ABORT_REPORT_LINES = 40


def peer_loss_aborts(facts: Sequence[Fact]) -> frozenset[int]:
    """``id()`` of the events of an uncaught gloo peer exception (``GLOO_PEER_EXCEPTIONS``, printed by libstdc++'s
    terminate handler) and of the SIGABRT that the same process's own handler (glog, Paddle, faulthandler, abseil)
    reports within ``ABORT_REPORT_LINES`` lines below it in the same file: that abort is the collateral of a peer's
    death or stall, a symptom like a "Connection reset by peer" traceback, not a native crash of its own. The peer's
    own end (a SIGKILL a launcher reported, its exception) is then the cause. ``facts`` in job order."""
    out: set[int] = set()
    thrown: dict[str, int] = {}  # path -> line of its last uncaught gloo peer exception
    for f in facts:
        e = f.event
        if isinstance(f, ExceptionFact) and f.type in GLOO_PEER_EXCEPTIONS and e.text.startswith("terminate called"):
            thrown[e.path] = e.line
            out.add(id(e))
        elif (
            isinstance(f, ProcessExit)
            and f.signal == "SIGABRT"
            and f.reporter in _OWN_HANDLERS
            and 0 < e.line - thrown.get(e.path, -ABORT_REPORT_LINES - 1) <= ABORT_REPORT_LINES
        ):
            out.add(id(e))
    return frozenset(out)


def coordination_aborts(facts: Sequence[Fact]) -> frozenset[int]:
    """``id()`` of the reports of a SIGABRT that JAX's distributed client sent its own process (a ``SignalFact`` by
    ``coordination_service``: "Terminating process because the JAX distributed service detected fatal errors. This
    most likely indicates that another task died", ``xla/pjrt/distributed/client.h``): the process was ended because
    another task failed, a symptom like a lost peer. Each such line explains one SIGABRT report by each observer (the
    process's own handler, the shell that started it; in job order, since the reports rarely say which process was
    which), and a wrapper's bare status for the job (``echo $?``: "exited with 134") when every observer's SIGABRT
    reports are explained. A SIGABRT beyond them, or any other signal (the SIGSEGV of the task that died), stays a
    cause. ``facts`` in job order."""
    told = sum(1 for f in facts if isinstance(f, SignalFact) and f.sender == "coordination_service")
    if not told:
        return frozenset()
    aborts = [f for f in facts if isinstance(f, ProcessExit) and f.signal == "SIGABRT"]
    # one process's abort is reported by each of its observers (its own faulthandler, the shell that started it, a
    # script echoing its status): each observer's reports are counted against the client's lines on their own
    by: dict[str, list[ProcessExit]] = {}
    for f in aborts:
        if not _bare_status(f):
            by.setdefault(f.reporter, []).append(f)
    out = {id(f.event) for reports in by.values() for f in reports[:told]}
    if all(len(reports) <= told for reports in by.values()):
        out |= {id(f.event) for f in aborts if _bare_status(f)}
    return frozenset(out)


def _bare_status(f: ProcessExit) -> bool:
    """``f`` is a wrapper's report of the job's status alone ("job exited with 134"; no words of its own, no process)."""
    return f.reporter in ("shell", "timeout") and f.code is not None and not f.detail


# retry reports whose own log record carries the error they retried on its next lines (``WorkRetried.by``), and how
# many lines such a record takes: XGBoost's tracker fallback warning prints the bind error's text and libxgboost's
# stack (about a dozen lines) under it
FALLBACK_RECORDS = frozenset({"xgboost_tracker"})
FALLBACK_RECORD_LINES = 16


def fallback_records(facts: Sequence[Fact]) -> dict[str, list[tuple[int, int]]]:
    """Per file, the line ranges of log records that report a failure already handled by falling back (XGBoost's tracker
    binding the next address after "Address already in use"): the error text inside such a record is the handled
    attempt, not a failure of the job. ``facts`` in job order."""
    out: dict[str, list[tuple[int, int]]] = {}
    for f in facts:
        if isinstance(f, WorkRetried) and f.by in FALLBACK_RECORDS:
            e = f.event
            out.setdefault(e.path, []).append((e.line, e.end_line + FALLBACK_RECORD_LINES))
    return out


def in_records(ev: Event, records: dict[str, list[tuple[int, int]]]) -> bool:
    """``ev`` lies inside one of ``records`` (``fallback_records``)."""
    return any(lo <= ev.line <= hi for lo, hi in records.get(ev.path, ()))


def _stop_report(f: Fact) -> bool:
    """``f`` reports a SIGTERM: a process saying it received one (sender unknown), or its exit by SIGTERM as an observer
    reports it - not Ray's "Worker exit type" in a death report, which is the dead actor's own end."""
    if isinstance(f, SignalFact):
        return f.sender == "unknown" and f.signal == "SIGTERM"
    return isinstance(f, ProcessExit) and f.signal == "SIGTERM" and f.reporter != "ray"


def uncaught(f: ExceptionFact) -> bool:
    """``f``'s traceback starts at a script's top frame (``<module>``): the interpreter's report of an uncaught
    exception (``sys.excepthook``), after which the process exits 1."""
    frames = f.event.params.get("frames") or []
    return bool(frames) and frames[0].get("func") == "<module>"


def teardown_signals(facts: Sequence[Fact]) -> frozenset[int]:
    """``id()`` of the events of SIGTERM reports (sender unknown; a vLLM worker's exit by SIGTERM) printed after the
    training loop or script said it finished (the first ``RunFinished``): the job's own teardown - a script or service
    manager stopping what it started, as dask's scheduler and workers are stopped once the client is done - not a
    preemption. A kill that came long after the finish is read by ``shutdown_hang.hung_after_finish`` from the facts
    themselves. ``facts`` in job order."""
    finished = next((i for i, f in enumerate(facts) if isinstance(f, RunFinished)), None)
    if finished is None:
        return frozenset()
    return frozenset(
        id(f.event)
        for f in facts[finished:]
        if (isinstance(f, SignalFact) and f.sender == "unknown" and f.signal == "SIGTERM")
        # a worker process the job's own shutdown terminated (vLLM's executor: "Worker VllmWorkerProcess pid N died,
        # exit code: -15", then "Killing local vLLM worker processes", vllm-project/vllm#6234)
        or (isinstance(f, ProcessExit) and f.signal == "SIGTERM" and f.reporter == "vllm")
    )


def teardown_from(facts: Sequence[Fact]) -> dict[str, int]:
    """Per file, the line of its first teardown signal (``teardown_signals``): what the file prints from there on is
    the job's processes being stopped once its work was done - a worker's closed connection to the scheduler it was
    told to leave, a nanny or launcher killing a child that did not exit in time - not a failure of the job. A hang in
    that teardown is read from the facts themselves (``shutdown_hang.hung_after_finish``). ``facts`` in job order."""
    torn = teardown_signals(facts)
    points = spark_stops(facts)
    out: dict[str, int] = {}
    for f in facts:
        if id(f.event) in torn and (f.event.path, f.event.line) not in points:
            e = f.event
            out[e.path] = min(out.get(e.path, e.line), e.line)
    return out


SPARK_STOP_LINES = 3  # lines from Spark's executor's "Driver commanded a shutdown" to its worker's SIGTERM


def spark_stops(facts: Sequence[Fact]) -> frozenset[tuple[str, int]]:
    """``(path, line)`` of the SIGTERM reports of Spark executors stopped as the driver commanded (``RunFinished`` by
    ``spark_executor`` on one of the ``SPARK_STOP_LINES`` lines before, same file): each executor's own teardown, and
    only that line - one console holds every executor's output one after another, so what follows is another
    executor's, not this one's teardown. ``facts`` in job order."""
    out: set[tuple[str, int]] = set()
    last: dict[str, int] = {}
    for f in facts:
        e = f.event
        if isinstance(f, RunFinished) and f.by == "spark_executor":
            last[e.path] = e.end_line
        elif isinstance(f, SignalFact) and f.signal == "SIGTERM" and e.path in last:
            if 0 < e.line - last[e.path] <= SPARK_STOP_LINES:
                out.add((e.path, e.line))
    return frozenset(out)


# a process's own failure-signal handler reporting the signal it got (``extract``: abseil, glog, faulthandler, Paddle)
_OWN_HANDLERS = frozenset({"absl", "glog", "faulthandler", "paddle"})


def _launcher_stops(facts: Sequence[Fact], stops: Sequence[SignalFact]) -> frozenset[int]:
    """``sibling_terminations`` read from a launcher's announced signals ``stops``."""
    if not stops:
        return frozenset()
    targets = {f.target for f in stops if f.target is not None}
    steps = {f.step for f in stops if f.step}
    # a worker's own failed end, reported anywhere in the job: not a pid the launcher signalled, not by a signal that
    # only asks a process to stop (a SIGKILL of another pid is the OOM killer's as often as a launcher's)
    failed = any(_failed_exit(f) and f.fields()["pid"] not in targets for f in facts)
    out: set[int] = set()
    sent: set[str] = set()  # signals a launcher announced so far
    for f in facts:
        if isinstance(f, SignalFact):
            if f.sender == "launcher":
                sent.add(f.signal)
            elif f.sender == "unknown" and (f.signal in sent or sent and failed):
                out.add(id(f.event))
        elif (
            isinstance(f, ProcessExit)
            and f.signal in _STOP_SIGNALS
            and f.fields()["pid"] in targets
            or isinstance(f, SchedulerVerdict)
            and f.verdict == "cancelled"
            and f.step in steps
            # srun's "task N: Terminated" after srun said it was terminating the step (its own SIGTERM to the tasks)
            or isinstance(f, ProcessExit)
            and f.reporter == "slurm"
            and f.signal in ("SIGTERM", "SIGKILL")
            and bool(steps)
            and "SIGKILL" in sent
        ):
            out.add(id(f.event))
    return frozenset(out)
