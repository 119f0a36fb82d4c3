"""Hangs: name the culprit rank, not the waiter (issue 13).

In a hang every healthy rank times out in the collective it waits in, and the rank that caused it may print
nothing. Rules see the waiters' timeouts; this module adds who they waited for, from (best first):

1. Flight Recorder dumps (``flight.analyse``): the rank behind in sequence ids, or the odd rank of a mismatch.
2. Per-rank progress in the logs (``progress.silent_first``): the rank whose last printed step is behind the
   others' (lower confidence: a rank may stall after printing as much as the others).
3. The waiters' own messages (``message_culprit``), when neither of the above names one: a message that names the
   straggler (gloo's monitored barrier "Rank 3 failed to pass monitoredBarrier", NCCL's "check your collective calls
   at and around rank 39": a rule's ``culprit_rank``/``stalled_rank`` group), or, when the log states the world size
   and a majority of ranks reported a timeout themselves (``[Rank 1] Watchdog caught collective operation timeout``),
   the ranks that did not.

It also decides ``silent_hang``: no watchdog or error explains the end of the job, but progress stopped long before
the log ends (``STALL_FACTOR`` typical step times and at least ``STALL_MIN_SECONDS``) and the job was then killed
from outside, or one rank's progress is behind the others' when the log ends without a normal finish.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from .bar_clock import BarMoved
from .diagnose import OUTSIDE_STOPS
from .flight import FlightAnalysis
from .progress import (
    Bracket,
    RankProgress,
    SilentFirst,
    StepClock,
    bracket,
    last_progress_time,
    silent_first,
    step_clock,
    typical_step_seconds,
)
from .taxonomy import title as taxonomy_title
from .types import Diagnosis, Event, Fix, Hypothesis, Match

if TYPE_CHECKING:
    from .factlayer.kinds import Fact

FACT_DECIDED = frozenset({"silent_hang"})  # root causes decided here from facts, with no rule of their own
WAITER_ROOTS = frozenset(
    {"collective_timeout", "collective_mismatch"}
)  # the waiters time out: name who they waited for
# diagnoses a stalled job turns into when nothing else explains it (the SIGTERM/kill came after the stall)
QUIET_ROOTS = frozenset({"job_preempted", "terminal_hangup", "no_failure", "unknown", "silent_hang"})
STALL_FACTOR = 10.0
STALL_MIN_SECONDS = 10.0
BAR_STALL_MIN_SECONDS = 60.0  # a stall read from tqdm bars (``bar_stall``): a save or an evaluation may print no bar
FLIGHT_CONFIDENCE = 0.92
FLIGHT_PARTIAL_CONFIDENCE = 0.85
PROGRESS_CONFIDENCE = 0.6  # the culprit named from progress alone
MESSAGE_CONFIDENCE = 0.85  # the straggler named by a waiter's message (monitored barrier, NCCL "around rank N")
SILENT_RANKS_CONFIDENCE = 0.6  # the ranks that reported no timeout while a majority did
# rule groups that name the straggler (not the waiter printing the line)
CULPRIT_GROUPS = ("culprit_rank", "stalled_rank")
_RANK_IN_TEXT = re.compile(r"\[Rank (\d+)\]")
MIN_MISMATCH_SEQ = 100  # ``op_mismatch``: below this, two process groups' sequence ids may coincide
OP_MISMATCH_ID = "watchdog-op-mismatch"  # the evidence id of ``op_mismatch``'s reading (no rule file: a fact)
STALL_CONFIDENCE = 0.85  # silent_hang when progress stopped long before the job was killed from outside
# silent_hang when a job stopped from outside had a worker that ignored its launcher's SIGTERM for the whole grace
# period (torchrun's "Unable to shutdown process N via 15, forcefully exiting via 9"): a stuck process - SIGSTOPped,
# in uninterruptible sleep, or in native code that never returns to run its handler (pytorch/pytorch#115219: "jobs
# training stuck where one of the trainer goes down while others are stuck in c++ land and hence not handling the
# sigterm"); lower than a measured stall: a SIGTERM handler saving a large checkpoint can outlast the grace period too
UNHEEDED_CONFIDENCE = 0.7
UNHEEDED_ID = "sigterm-unheeded"
FR_DOCS = "https://docs.pytorch.org/tutorials/unstable/flight_recorder_tutorial.html"
NCCL_ENV_DOCS = "https://docs.pytorch.org/docs/stable/torch_nccl_environment_variables.html"


@dataclass(frozen=True)
class Stall:
    """How long the job went without progress before its log ends.

    ``gap_s``: seconds from the last progress line (any rank) to the job's last timed line; ``step_s``: the typical
    step time; ``stalled``: ``gap_s >= max(STALL_FACTOR * step_s, STALL_MIN_SECONDS)``.
    """

    gap_s: float | None
    step_s: float | None
    stalled: bool
    from_durations: bool = False  # the gap was read from the steps' printed durations (``clock_stall``)
    from_cadence: bool = False  # the gap was read from dated lines before the last step and the job's cadence


def stall_facts(progress: dict[int, RankProgress], end: datetime | None) -> Stall:
    """``Stall`` from per-rank progress and the time of the job's last timed line (same year form)."""
    return _stall(last_progress_time(progress), typical_step_seconds(progress), end, STALL_MIN_SECONDS)


def bar_stall(bars: BarMoved, end: datetime | None) -> Stall:
    """``Stall`` from when the tqdm bars last moved (an upper bound: the gap is at least this long) and the job's end;
    stalled from ``BAR_STALL_MIN_SECONDS``, as the bar's last frame may precede a long checkpoint save or evaluation
    that prints no bar."""
    return _stall(bars.time, bars.step_s, end, BAR_STALL_MIN_SECONDS)


def _stall(last: datetime | None, step: float | None, end: datetime | None, minimum: float) -> Stall:
    """The gap from ``last`` progress to ``end`` (seconds; None unless both are known in the same year form), stalled
    from ``STALL_FACTOR`` steps of ``step`` seconds, and never under ``minimum`` seconds."""
    if last is None or end is None or last.year != end.year:
        return Stall(None, step, False)
    gap = (end - last).total_seconds()
    return Stall(round(gap, 3), step, gap >= max(STALL_FACTOR * (step or 0.0), minimum))


# a stall read from printed step durations (``clock_stall``): the steps' own durations leave out start-up, evaluation and
# checkpoint saves, so the unaccounted time must be three times the timed stall's floor and twice what the steps
# account for
CLOCK_STALL_MIN_SECONDS = 30.0
CLOCK_STALL_RATIO = 2.0


def clock_stall(clock: StepClock | None, end: datetime | None) -> Stall:
    """``Stall`` of untimed progress from its printed step durations (``progress.step_clock``): the gap from where the
    steps' durations bring the clock (``StepClock.reached``) to the job's last timed line (the launcher's "Received 15
    death signal" when a scheduler stopped it). Stalled from ``STALL_FACTOR`` steps, ``CLOCK_STALL_MIN_SECONDS`` (30 s) and
    ``CLOCK_STALL_RATIO`` times the seconds the steps account for: nanoGPT's 100 iterations of ~0.12 s each, then
    torchrun's SIGTERM 101 s after the ranks' process groups formed, is a job that stopped progressing ~90 s before it
    was stopped."""
    if clock is None or end is None:
        return Stall(None, clock.step_s if clock else None, False)
    # the stop's own time may keep a year-less glog header's form: compare them in one year
    gap = (end.replace(year=1900) - clock.reached.replace(year=1900)).total_seconds()
    stalled = gap >= max(STALL_FACTOR * clock.step_s, CLOCK_STALL_MIN_SECONDS, CLOCK_STALL_RATIO * clock.accounted_s)
    return Stall(round(gap, 3), clock.step_s, stalled, from_durations=True)


# a log with no failure in it, whose ranks' lines a launcher relayed to one console (Open MPI's ``--tag-output``
# "[1,3]<stdout>:", horovodrun's "[3]<stdout>:", srun's "3: "), reads as a hang from a rank behind the others only
# where every other rank printed this many progress lines past the rank's last counter: the relay forwards each
# rank's output at its own pace, so one line apart at the end of an excerpt is that pace, not a rank that stopped
# (horovod/horovod#3752's healthy run, cut where two ranks' last line had not yet arrived)
MIN_LEAD_LINES = 2
_RELAY_TAG = re.compile(r"\[\d+(?:,\d+)?\]<std(?:out|err)>:|\s*\d{1,6}: ")


def _paced_by_relay(progress: dict[int, RankProgress], sf: SilentFirst) -> bool:
    """``sf``'s ranks' lines came through a launcher's relay (``_RELAY_TAG``) and the ranks ahead of them printed fewer
    than ``MIN_LEAD_LINES`` progress lines past their last counter."""
    return all(_RELAY_TAG.match(rp.text) for rp in sf.progress) and _lead_lines(progress, sf) < MIN_LEAD_LINES


def _lead_lines(progress: dict[int, RankProgress], sf: SilentFirst) -> int:
    """The fewest progress lines any rank ahead of ``sf``'s ranks printed past their last counter."""
    low = min(rp.counter for rp in sf.progress)
    named = {rp.rank for rp in sf.progress}
    ahead = [rp for rp in progress.values() if rp.lines and rp.rank not in named]
    if not ahead:
        return 0
    return min(sum(1 for _p, _l, _t, c in rp.recent if c > low) for rp in ahead)


def _one_writer(rp: RankProgress) -> bool:
    """The stream's progress lines read as one process's: a counter seldom printed twice in a row (several ranks'
    rank-less lines in one stream repeat each step, and the seconds between them measure nothing)."""
    counters = [c for _p, _l, _t, c in rp.recent]
    repeats = sum(1 for a, b in zip(counters, counters[1:]) if a == b)
    return repeats * 4 < max(len(counters) - 1, 1)


def bracket_stall(br: Bracket | None, end: datetime | None) -> Stall:
    """``Stall`` of untimed progress bounded by its files' dated lines (``progress.bracket``): the gap from the first
    dated line after the last progress line (``Bracket.after``, so the true gap is at least this) to the job's last
    timed line. Stalled from ``STALL_FACTOR`` times the job's own progress cadence and ``CLOCK_STALL_MIN_SECONDS``
    (30 s): a checkpoint save or an evaluation after the last step may print nothing for a while. Diffusers' training
    loop printing "Epoch 3 | step 24/48 | loss ..." several times a second between dated logger records, its last
    record at 23:26:20 and torchrun's SIGTERM at 23:27:07, stopped progressing ~47 s before it was stopped; where the
    stop itself is the first dated line after the last step, the gap is 0."""
    if br is None or end is None:
        return Stall(None, br.line_s if br else None, False)
    gap = (end.replace(year=1900) - br.after.replace(year=1900)).total_seconds()
    stalled = gap >= max(STALL_FACTOR * br.line_s, CLOCK_STALL_MIN_SECONDS)
    return Stall(round(gap, 3), br.line_s, stalled)


def cadence_stall(br: Bracket | None, end: datetime | None) -> Stall:
    """``Stall`` of untimed progress dated from the last dated line before its last step (``Bracket.before``) and the
    job's own cadence: the ``Bracket.since`` lines printed after that date account for ``since * line_s`` seconds, and
    the rest of the time to the stop went without a step. Stalled as ``clock_stall`` is (``STALL_FACTOR`` steps,
    ``CLOCK_STALL_MIN_SECONDS``, ``CLOCK_STALL_RATIO`` times what the lines account for). Where the stop is the first
    dated line after the last step, this is the bound ``bracket_stall`` lacks: SpeechBrain's epochs dated by its
    checkpoints' names about 1.5 s apart, two steps printed after the last one, then the scheduler's SIGTERM 56 s
    later."""
    if br is None or end is None or br.before is None or br.line_s <= 0:
        return Stall(None, br.line_s if br else None, False)
    accounted = br.since * br.line_s
    gap = (end.replace(year=1900) - br.before.replace(year=1900)).total_seconds() - accounted
    stalled = gap >= max(STALL_FACTOR * br.line_s, CLOCK_STALL_MIN_SECONDS, CLOCK_STALL_RATIO * accounted)
    return Stall(round(gap, 3), br.line_s, stalled, from_cadence=True)


def _better(stall: Stall, other: Stall) -> Stall:
    """``other`` where it dates a gap that ``stall`` does not, or finds the stall that ``stall`` does not; else
    ``stall``."""
    return other if other.gap_s is not None and (stall.gap_s is None or other.stalled) else stall


def unheeded_sigterm(facts: Sequence[Fact], tail: Sequence[Event] = ()) -> Event | None:
    """The first sign that a worker ignored its launcher's SIGTERM; None when there is none.

    1. A launcher line saying a worker ignored SIGTERM for the whole grace period and was SIGKILLed: torchrun's agent
       and ``torch.multiprocessing.spawn`` (``torch/distributed/elastic/multiprocessing/api.py`` ``_close``,
       ``torch/multiprocessing/spawn.py`` ``ProcessContext.join``: "Unable to shutdown process N via 15, forcefully
       exiting via 9"), read as a launcher ``SignalFact`` SIGKILL.
    2. Else ``stuck_launcher(facts, tail)``: a launcher that forwarded the stop signal and never finished while
       another did.
    """
    from .factlayer.kinds import SignalFact

    return next(
        (
            f.event
            for f in facts
            if isinstance(f, SignalFact)
            and f.signal == "SIGKILL"
            and f.sender == "launcher"
            and "Unable to shutdown process" in f.event.text
        ),
        None,
    ) or stuck_launcher(facts, tail)


# the agent's own exit on the signal (``torch/distributed/elastic/multiprocessing/api.py``
# ``_terminate_process_handler``: "Process 21190 got signal: 15")
_AGENT_EXIT = re.compile(r"Process (\d+) got signal: ")


def stuck_launcher(facts: Sequence[Fact], tail: Sequence[Event] = ()) -> Event | None:
    """The death-signal line of a torchrun agent that never finished shutting down, or None.

    On a scheduler's SIGTERM each torchrun agent logs "Received 15 death signal, shutting down workers", sends its
    workers "closing signal SIGTERM", waits for them (``_close``, 30 s by default) and raises ``SignalException``
    ("Process <agent pid> got signal: 15"). A worker blocked where the signal cannot end it (SIGSTOPped, in
    uninterruptible sleep) keeps its agent waiting, so when the scheduler's SIGKILL ends the job that agent has printed
    no ``SignalException``. Read only where another agent of the same job, signalled at the same time, did print its
    own: the log holds the shutdown's end, so the missing one is a stuck worker, not a cut log. Agents are told apart by
    the pid of their glog prefix; their exits are read in any traceback block and in the job's last events (``tail``),
    as two agents writing one console interleave their tracebacks line by line.
    """
    from .factlayer.kinds import ExceptionFact, SignalFact

    received: dict[int, Event] = {}  # agent pid -> its "Received N death signal" line
    forwarded: set[int] = set()  # agents that sent their workers a closing signal
    exited: set[int] = set()  # agents that raised SignalException
    for f in facts:
        if isinstance(f, SignalFact):
            pid = f.event.params.get("glog_id")  # the agent's pid in its logger's prefix (``parse.torch``)
            if pid is None:
                continue
            if "death signal" in f.event.text:
                received.setdefault(pid, f.event)
            elif f.sender == "launcher" and f.target is not None:
                forwarded.add(pid)
        elif isinstance(f, ExceptionFact) and f.type.endswith("SignalException"):
            exited.update(int(pid) for pid in _AGENT_EXIT.findall(f.event.text))
    exited.update(int(pid) for ev in tail if "got signal: " in ev.text for pid in _AGENT_EXIT.findall(ev.text))
    if not exited & received.keys():
        return None
    return next((ev for pid, ev in received.items() if pid in forwarded and pid not in exited), None)


def _flight_event(fa: FlightAnalysis) -> Event:
    rank = fa.culprits[0]
    path = next((p for p in fa.paths if p.endswith((str(rank), f"{rank}.json"))), fa.paths[0] if fa.paths else "-")
    return Event(
        line=1,
        end_line=1,
        path=path,
        text=f"Flight Recorder: {fa.detail}",
        source="torch",
        level="error",
        rank=rank,
        params={"flight_recorder": True},
    )


def _progress_event(rp: RankProgress) -> Event:
    return Event(
        line=rp.line,
        end_line=rp.line,
        path=rp.path,
        text=rp.text,
        source="trainer",
        level="info",
        time=rp.time,
        rank=rp.rank,
        params={"last_progress": True},
    )


def _collective(fa: FlightAnalysis) -> dict[str, object] | None:
    c = fa.to_dict()["collective"]
    return c if isinstance(c, dict) else None


def culprit_fields(fa: FlightAnalysis | None, sf: SilentFirst | None) -> dict[str, object]:
    """The report's ``culprit`` object (empty when neither dumps nor progress name one)."""
    if fa is not None and fa.culprits:
        return {
            "ranks": list(fa.culprits),
            "source": "flight_recorder",
            "verdict": fa.verdict,
            "process_group": fa.pg,
            "process_group_desc": fa.pg_desc,
            "collective": _collective(fa),
            "waiters": list(fa.waiters),
            "partial": fa.partial,
            "no_dump": list(fa.no_dump),
            "confidence": FLIGHT_PARTIAL_CONFIDENCE if fa.partial else FLIGHT_CONFIDENCE,
            "detail": fa.detail,
            "last_progress": [],
        }  # one shape whatever the source (the JSON contract)
    if sf is not None:
        return {
            "ranks": list(sf.ranks),
            "source": "progress",
            "verdict": "silent_first",
            "process_group": None,
            "process_group_desc": "",
            "collective": None,
            "waiters": [],
            "partial": True,
            "no_dump": [],
            "confidence": PROGRESS_CONFIDENCE,
            "detail": sf.detail,
            "last_progress": [p.to_dict() for p in sf.progress],
        }
    return {}


def _rank_list(value: object) -> list[int]:
    """Ranks from a rule group's text ("2", "1, 2"); [] when it holds none (or implausible ones)."""
    out: list[int] = []
    for part in re.split(r"[,\s]+", str(value or "").strip()):
        if part.isdigit() and len(part) <= 7:
            out.append(int(part))
    return sorted(set(out))


def _waiter_rank(m: Match) -> int | None:
    """The rank a waiter's timeout line is about: the line's own rank, else its "[Rank N]" tag."""
    if m.event.rank is not None:
        return m.event.rank
    hit = _RANK_IN_TEXT.search(m.event.text[:2000])
    return int(hit.group(1)) if hit and len(hit.group(1)) <= 7 else None


def message_culprit(diag: Diagnosis) -> dict[str, object]:
    """The ``culprit`` the waiters' messages name (source ``message``), or {} when they name none.

    First a cause match whose rule names the straggler in a group (``CULPRIT_GROUPS``); else, when the log states the
    world size (``diag.ranks["world_size"]``) and more than half of the ranks printed their own timeout (matches of
    ``WAITER_ROOTS`` rules), the ranks that printed none."""
    matches = [m for m in (*diag.evidence, *diag.symptoms) if m.root_cause in WAITER_ROOTS]
    for m in matches:
        for g in CULPRIT_GROUPS:
            ranks = _rank_list(m.groups.get(g))
            if ranks:
                names = ", ".join(map(str, ranks))
                return _message_culprit_fields(
                    ranks, [], MESSAGE_CONFIDENCE, f"rank {names}, named by {m.rule_id} (line {m.event.line})"
                )
    ws = diag.ranks.get("world_size") if isinstance(diag.ranks, dict) else None
    waiters = {r for r in (_waiter_rank(m) for m in matches) if r is not None}
    if isinstance(ws, int) and 1 < ws <= 4096 and waiters and all(0 <= r < ws for r in waiters):
        silent = [r for r in range(ws) if r not in waiters]
        if silent and len(waiters) > ws / 2:
            names = ", ".join(map(str, silent))
            detail = f"rank {names} reported no timeout while {len(waiters)} of {ws} ranks timed out waiting"
            return _message_culprit_fields(silent, sorted(waiters), SILENT_RANKS_CONFIDENCE, detail)
    return {}


@dataclass(frozen=True)
class OpMismatch:
    """Two waiters' watchdog timeouts at one sequence id naming different collectives (``op_mismatch``)."""

    seq: int
    ops: dict[str, list[int]]  # OpType -> the ranks that timed out in it
    odd: list[int]  # the ranks of the rarer op (the culprit candidates)
    event: Event  # the first timeout of the odd op


def op_mismatch(diag: Diagnosis) -> OpMismatch | None:
    """Ranks that timed out in different collectives at the same sequence id, from the watchdogs' own lines.

    ProcessGroupNCCL's watchdog names the work it timed out on: "Watchdog caught collective operation timeout:
    WorkNCCL(SeqNum=4832284, OpType=ALLREDUCE, ...)" (``ProcessGroupNCCL.cpp`` ``WorkNCCL::checkTimeout``). Every rank
    of a communicator issues its collectives in the same order, so one sequence id with two OpTypes means the ranks
    took different code paths: rank 0 waited in an all-reduce that rank 5 never joined because it was in a broadcast
    (ecmwf/anemoi-core#1064: a stop decision taken on one node only). Only sequence ids of at least
    ``MIN_MISMATCH_SEQ``: small ids of different process groups can coincide. None when no such pair is printed."""
    by_seq: dict[int, dict[str, list[tuple[int | None, Match]]]] = {}
    for m in (*diag.evidence, *diag.symptoms):
        if m.root_cause not in WAITER_ROOTS:
            continue
        seq, op = m.groups.get("seq"), m.groups.get("op")
        if not seq or not op or not str(seq).isdigit() or len(str(seq)) > 12:
            continue
        n = int(seq)
        if n >= MIN_MISMATCH_SEQ:
            by_seq.setdefault(n, {}).setdefault(str(op), []).append((_waiter_rank(m), m))
    for n, ops in sorted(by_seq.items()):
        if len(ops) < 2:
            continue
        rare = min(ops, key=lambda o: (len(ops[o]), -min(mm.event.line for _, mm in ops[o])))
        ranks = {o: sorted({r for r, _ in v if r is not None}) for o, v in ops.items()}
        first = min((mm for _, mm in ops[rare]), key=lambda mm: (mm.event.path, mm.event.line))
        return OpMismatch(seq=n, ops=ranks, odd=ranks[rare], event=first.event)
    return None


def _op_mismatch_diagnosis(diag: Diagnosis, mm: OpMismatch, ranks_info: dict[str, object]) -> Diagnosis:
    parts = [f"rank {', '.join(map(str, r))} in {op}" if r else f"a rank in {op}" for op, r in mm.ops.items()]
    detail = f"at sequence id {mm.seq} the watchdogs timed out in different collectives: " + "; ".join(parts)
    waiters = sorted({r for op_ranks in mm.ops.values() for r in op_ranks} - set(mm.odd))
    culprit = _message_culprit_fields(mm.odd, waiters, MESSAGE_CONFIDENCE, detail)
    title = "Ranks timed out in different collectives at the same sequence id"
    message = detail[0].upper() + detail[1:] + "."
    return _recast(
        diag, "collective_mismatch", mm.event, MESSAGE_CONFIDENCE, OP_MISMATCH_ID, title, message, culprit, ranks_info
    )


def _message_culprit_fields(ranks: list[int], waiters: list[int], conf: float, detail: str) -> dict[str, object]:
    return {
        "ranks": ranks,
        "source": "message",
        "verdict": "named" if not waiters else "no_timeout",
        "process_group": None,
        "process_group_desc": "",
        "collective": None,
        "waiters": waiters,
        "partial": True,
        "no_dump": [],
        "confidence": conf,
        "detail": detail,
        "last_progress": [],
    }


def _ranks_text(culprit: dict[str, object]) -> str:
    """The culprit's ``ranks`` list as ``"2, 3"`` ("" when it names none)."""
    ranks = culprit.get("ranks")
    return ", ".join(map(str, ranks)) if isinstance(ranks, (list, tuple)) else ""


def _number(value: object) -> float:
    """A culprit's numeric field (``confidence``) as a float; TypeError for anything else."""
    if isinstance(value, (int, float)):
        return float(value)
    raise TypeError(f"expected a number, got {type(value).__name__}")


def culprit_line(culprit: dict[str, object]) -> str:
    """One line for terminals (``verify``): ``rank 2 (flight recorder, 0.92): <detail>``."""
    src = str(culprit.get("source", "")).replace("_", " ")
    conf = _number(culprit.get("confidence") or 0)
    return f"rank {_ranks_text(culprit)} ({src}, {conf:.2f}): {culprit.get('detail', '')}"


def _fix(root: str, culprit: dict[str, object], old: Fix) -> Fix:
    """The fix for a hang/mismatch naming the culprit rank(s); with no culprit (``generic_fix``: the classifier
    named the cause and no dump or progress line names a rank) the same advice about "the rank that stopped"."""
    ranks = _ranks_text(culprit)
    who = f"rank {ranks}" if ranks else "the rank whose output stopped first (compare each rank's last lines)"
    steps = [
        f"Look at {who} first: it is the culprit; the ranks that timed out were waiting for it.",
        f"While it hangs, `py-spy dump --pid <pid of {f'rank {ranks}' if ranks else 'that rank'}>` shows where it "
        "is stuck (data loading, I/O, a host-side sync, a code path only some ranks take).",
    ]
    if root == "collective_mismatch":
        steps = [
            f"Rank {ranks} issued a different collective (op, size or dtype) at the same sequence id: find the "
            "code path that differs on that rank (a condition on rank, uneven data, a skipped layer).",
            "Run once with TORCH_DISTRIBUTED_DEBUG=DETAIL to have torch check every collective's shape.",
        ]
    if culprit.get("source") != "flight_recorder":
        steps.append(
            "Make the job leave Flight Recorder dumps next time (TORCH_FR_BUFFER_SIZE=2000, "
            "TORCH_NCCL_DUMP_ON_TIMEOUT=1, TORCH_FR_DUMP_TEMP_FILE=<dir>/nccl_trace_rank_) and analyse them "
            "with the logs: the culprit then comes from the recorded sequence ids."
        )
    if root == "silent_hang":
        steps.append(
            "Set a process-group timeout (init_process_group(timeout=...)) so the watchdog reports the "
            "stuck collective instead of the job hanging until it is killed."
        )
    who = f"Rank {ranks}" if ranks else "One rank"
    summary = {
        "collective_mismatch": f"{who} issued a different collective than the others.",
        "silent_hang": f"The job stopped making progress; {who[0].lower() + who[1:]} went silent first.",
    }.get(root, f"{who} stopped; the other ranks timed out waiting for it.")
    refs = tuple(dict.fromkeys((*old.references, FR_DOCS, NCCL_ENV_DOCS)))
    return Fix(
        summary=summary + (" " + old.summary if old.summary and root != "silent_hang" else ""),
        steps=tuple(steps) + old.steps,
        references=refs,
    )


def generic_fix(root: str) -> Fix:
    """Advice for ``silent_hang``/``collective_timeout``/``collective_mismatch`` when no culprit rank is known (the
    classifier named the cause; ``combine.fix_for`` uses it when no rule of the cause has a fix to borrow)."""
    return _fix(root, {}, Fix())


def decide(
    diag: Diagnosis,
    *,
    flight: FlightAnalysis | None,
    progress: dict[int, RankProgress],
    end: datetime | None,
    unheeded: Event | None = None,
    unranked: Sequence[RankProgress] = (),
    bars: BarMoved | None = None,
) -> Diagnosis:
    """Return ``diag`` with the culprit named (``culprit`` field, ``first_failure``) and ``silent_hang`` decided.

    Args:
        diag: the rules' (and model's) diagnosis.
        flight: the Flight Recorder analysis of the job's dumps, or None without dumps.
        progress: per-rank progress (``progress.ProgressTracker.ranks``), times in the job's year form.
        end: the time of the job's last timed line (same year form).
        unheeded: the launcher's line saying a worker did not exit on SIGTERM within its grace period and was
            SIGKILLed (``unheeded_sigterm``), or None.
        unranked: the progress streams whose lines name no rank (``ProgressTracker.unranked``); when no rank prints
            progress of its own, or no timed one, they measure the stall (a single-process trainer, a driver's loop,
            a logger's timed line beside untimed per-rank prints), if they print enough timed lines for a typical step
            time.
    """
    sf = silent_first(progress)
    stall = stall_facts(progress, end)
    if unranked and (
        not progress
        or (not any(rp.lines for rp in progress.values()) and all(_one_writer(rp) for rp in unranked))
        or (stall.gap_s is None and any(rp.lines for rp in progress.values()))
    ):
        # the rank-less stream stands in where no rank prints progress of its own (ranks known from other lines, as
        # torchrun's "[rankN]:" on their warnings, print none: OpenCLIP logs its "Train Epoch" lines from rank 0
        # without a rank), or where the ranks' own progress lines carry no time ("[rank 0] step 40/840 ..." printed
        # beside a timed logging line of the same step), only with a step time of its own: one progress line and a
        # time limit long after it is a slow iteration as much as a stall (a Megatron iteration may take minutes)
        loose = stall_facts(dict(enumerate(unranked)), end)
        stall = loose if loose.step_s is not None else Stall(loose.gap_s, None, False)
    if stall.gap_s is None and bars is not None:
        stall = bar_stall(bars, end)
    # untimed progress is measured to the stop itself where the answer is one (a launcher that kept logging its
    # retries after the scheduler's signal would otherwise lengthen the silence)
    stopped = diag.first_failure.time if diag.first_failure is not None else None
    if diag.root_cause not in OUTSIDE_STOPS or stopped is None:
        stopped = end
    if not stall.stalled:
        # untimed progress that prints its step durations (kept only where it dates the end): where nothing else dates
        # the last step, or where only a bar's frames do and not past the bar's floor (a bar redrawn by its monitor
        # thread while it did not move dates its last frame, not its last step)
        stall = _better(stall, clock_stall(step_clock([*progress.values(), *unranked]), stopped))
    if not stall.stalled:
        # untimed progress between dated lines, bounded by the first dated line after it: where no clock dates the last
        # step, or where only a progress bar's last frame does (a save or an evaluation after the bar that prints dated
        # lines moves this bound later, past what the bar's 60 s floor allows for)
        br = bracket([*progress.values(), *unranked])
        stall = _better(stall, bracket_stall(br, stopped))
        if not stall.stalled:
            # the same dated lines before the last step, and the job's cadence for the lines printed since
            stall = _better(stall, cadence_stall(br, stopped))
    fa = flight if flight is not None and flight.verdict in ("hang", "mismatch") else None
    culprit = culprit_fields(fa, sf)
    ranks_info = dict(diag.ranks)
    ranks_info["stall"] = {"gap_seconds": stall.gap_s, "step_seconds": stall.step_s, "stalled": stall.stalled}
    if flight is not None:
        ranks_info["flight_recorder"] = flight.to_dict()
    root = diag.root_cause
    if root in WAITER_ROOTS and fa is None and (mm := op_mismatch(diag)) is not None:
        return _op_mismatch_diagnosis(diag, mm, ranks_info)
    if root in WAITER_ROOTS and not culprit and (named := message_culprit(diag)):
        # the waiters' messages name the straggler: keep the rules' answer and evidence, name the rank(s)
        message = f"{diag.message} Culprit: {named['detail']}." if diag.message else str(named["detail"])
        return dataclasses.replace(
            diag, ranks=ranks_info, culprit=named, message=message, fix=_fix(root, named, diag.fix)
        )
    if root in WAITER_ROOTS:
        new_root = (
            "collective_mismatch"
            if (fa and fa.verdict == "mismatch") or root == "collective_mismatch"
            else "collective_timeout"
        )
    elif root in QUIET_ROOTS and (
        (fa is not None)
        or (stall.stalled and root in ("job_preempted", "terminal_hangup", "silent_hang"))
        or (
            sf is not None
            and sf.reason == "behind"
            and (root == "silent_hang" or root == "no_failure" and not _paced_by_relay(progress, sf))
        )
        or (unheeded is not None and root in ("job_preempted", "terminal_hangup"))
    ):
        new_root = "collective_mismatch" if fa and fa.verdict == "mismatch" else "silent_hang"
    else:  # a crash, OOM, config error...: the dumps/progress are consequences; keep the answer, show the facts
        return dataclasses.replace(diag, ranks=ranks_info, culprit=culprit)
    if not culprit and new_root == root:
        return dataclasses.replace(diag, ranks=ranks_info)

    ev: Event | None
    by_unheeded = False  # the answer rests on the worker that ignored SIGTERM (not on a measured stall)
    if fa is not None:
        ev = _flight_event(fa)
        conf = _number(culprit["confidence"])
        rule_id = "flight-recorder"
    elif (
        unheeded is not None and new_root == "silent_hang" and not stall.stalled and not (sf and sf.reason == "behind")
    ):
        # nothing in the progress says which rank stopped: the worker that could not be stopped says it was stuck
        ev = unheeded
        conf = UNHEEDED_CONFIDENCE
        rule_id = UNHEEDED_ID
        by_unheeded = True
    elif sf is not None:
        ev = _progress_event(sf.progress[0])
        conf = (
            (STALL_CONFIDENCE if stall.stalled else PROGRESS_CONFIDENCE)
            if new_root == "silent_hang"
            else diag.confidence
        )
        rule_id = "rank-progress"
    else:  # silent hang with no rank to name: the job's progress as a whole stopped
        ev = diag.first_failure
        conf = STALL_CONFIDENCE
        rule_id = "rank-progress"
    conf = round(float(conf), 3)
    detail = str(culprit.get("detail") or "")
    if new_root == "silent_hang":
        title = taxonomy_title("silent_hang")
        gap = f"no progress for {stall.gap_s:.0f}s before the log ends" if stall.gap_s else "no progress at the end"
        if stall.gap_s and stall.from_durations:
            step = f"~{stall.step_s:.3g}s"
            gap += f" (the progress lines print no clock: their printed durations, {step}, date the last step)"
        elif stall.gap_s and stall.from_cadence:
            step = f"~{stall.step_s:.3g}s"
            gap += (
                " (the progress lines print no clock: the dated line before the last step and the job's cadence, "
                f"{step} a line, date it)"
            )
        if by_unheeded and unheeded is not None and "death signal" in unheeded.text:
            gap = (
                f"a launcher forwarded the stop signal to its workers ({unheeded.path}:{unheeded.line}) and never "
                "finished shutting down, while the job's other launchers did: one of its workers was stuck (stopped, "
                "or blocked where the signal could not end it) when the job was stopped from outside"
            )
        elif by_unheeded and unheeded is not None:
            gap = (
                f"a worker did not exit on SIGTERM within the launcher's grace period and was SIGKILLed "
                f"({unheeded.path}:{unheeded.line}): it was stuck (stopped, or blocked where the signal could not end "
                "it) when the job was stopped from outside"
            )
        message = f"{gap}; {detail}" if detail else gap
    elif new_root == "collective_mismatch" and fa is not None:
        title, message = "Ranks issued different collectives (Flight Recorder)", detail
    else:
        title = diag.title if new_root == root else taxonomy_title(new_root)
        message = f"{diag.message} Culprit: {detail}" if detail and diag.message else (detail or diag.message)
    return _recast(diag, new_root, ev, conf, rule_id, title, message, culprit, ranks_info)


def _recast(
    diag: Diagnosis,
    new_root: str,
    ev: Event | None,
    conf: float,
    rule_id: str,
    title: str,
    message: str,
    culprit: dict[str, object],
    ranks_info: dict[str, object],
) -> Diagnosis:
    """``diag`` as a failure of ``new_root``, the reading at ``ev`` (``rule_id``, confidence ``conf``) its first
    evidence. When the root cause changes, the rules' evidence becomes symptoms and the fix is the hang's own; when it
    stays, their evidence and fix are kept after it."""
    same = new_root == diag.root_cause
    symptoms = tuple(dataclasses.replace(m, role="symptom") for m in diag.evidence if m.event is not ev) + diag.symptoms
    evidence: tuple[Match, ...] = ()
    if ev is not None:
        evidence = (Match(rule_id, new_root, "cause", ev, severity="high", confidence=conf),)
    if same:
        evidence += diag.evidence
        symptoms = diag.symptoms
    hyps = (Hypothesis(new_root, conf, diag.method if same else "rule", evidence[:1], rule_id),) + tuple(
        h for h in diag.hypotheses if h.root_cause != new_root
    )
    return dataclasses.replace(
        diag,
        verdict="failure",
        root_cause=new_root,
        title=title,
        message=message,
        confidence=conf,
        rule_id=diag.rule_id if same else rule_id,
        severity="high",
        hypotheses=hyps,
        first_failure=ev if ev is not None else diag.first_failure,
        evidence=evidence,
        symptoms=symptoms[:50],
        fix=_fix(new_root, culprit, diag.fix if same else Fix()),
        ranks=ranks_info,
        culprit=culprit,
    )
