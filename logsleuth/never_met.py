"""A wait for the job's members that ran out before any of them trained a step: the members never all met.

A process that times out waiting for a *membership* round - torch's rendezvous (``torch/distributed/rendezvous.py``,
``elastic/rendezvous``), torchft's quorum (``torchft/manager.py`` ``Manager.wait_quorum`` -> ``_async_quorum``, which
asks the lighthouse for a quorum of ``min_replica_size`` replica groups: "Quorum status: New quorum not ready, only have
1 participants, need min_replicas 2") - waited for processes that had not joined. Before the job's first training step
that is a start-up failure: a member never started, started late, or could not reach the coordinator
(``rendezvous_timeout``), not a collective of a running job that stalled. Mid-run the same wait is the symptom of a
member that died or stopped: when no process reported an error or an exit by signal and the job was then stopped from
outside (a scheduler's SIGTERM reaching processes still alive), a member stopped answering without a word
(``silent_hang``, ``member_went_silent``: no watchdog names a collective, a quorum is not one); a member's own death,
when the log shows it, is read by the rest of the diagnosis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import regex

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact, ProcessExit, SignalFact
from .parse.timestamps import one_clock
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "membership-never-formed"
CONFIDENCE = 0.8
SILENT_RULE_ID = "member-went-silent"
SILENT_CONFIDENCE = 0.7
# a function that waits for the job's members to meet, on the exception's stack (innermost last)
_MEMBERSHIP_WAIT = regex.compile(r"(?i)quorum|rendezvous|\brdzv")
# the family the fact layer gives a wait that ran out (``tables.TIMEOUT_TYPES``: Python's TimeoutError and kin)
_TIMEOUT = "timeout"


def membership_never_formed(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` answered ``rendezvous_timeout`` when its decisive line is a timeout raised in a membership wait
    (``_MEMBERSHIP_WAIT`` on a frame of the exception's stack) and no rank printed a training step before it; else
    ``diag`` unchanged."""
    if diag.verdict != "failure" or not diag.evidence or diag.root_cause == "rendezvous_timeout":
        return diag
    found = _membership_timeout(evidence, diag)
    if found is None:
        return diag
    first, fact, where = found
    if _trained_before(evidence, first):
        return member_went_silent(evidence, diag, first, fact, where)
    message = (
        f"{fact.type} in a wait for the job's members ({where}) before any rank printed a training step: the job's "
        "processes never all met (a member not started, started late, or unable to reach the coordinator)."
    )
    fix = Fix(
        summary="The job's members never all joined its rendezvous/quorum before the wait ran out.",
        steps=(
            "Check that every node or replica group of the job started (its own log, the scheduler's allocation) and "
            "reached the coordinator at the address it was given (MASTER_ADDR:MASTER_PORT, torchft's "
            "TORCHFT_LIGHTHOUSE): `nc -vz host port` from that node.",
            "Check the membership the coordinator waits for (nnodes, torchft's `min_replica_size`/"
            "`--min_replicas`) against what was launched.",
            "A slow start of one member (image pull, data copy) can miss the deadline: start the members together "
            "or raise the join/quorum timeout.",
        ),
        references=(
            "https://pytorch.org/docs/stable/elastic/rendezvous.html",
            "https://github.com/pytorch/torchft",
        ),
    )
    match = Match(RULE_ID, "rendezvous_timeout", "cause", first, severity="high", confidence=CONFIDENCE)
    title = "The job's members never met: a rendezvous/quorum wait ran out before the first step"
    return decided_by_fact(diag, match, title=title, message=message, fix=fix)


def member_went_silent(
    evidence: JobEvidence, diag: Diagnosis, first: Event, fact: ExceptionFact, where: str
) -> Diagnosis:
    """``diag`` answered ``silent_hang`` when the membership wait at ``first`` ran out mid-run, no process reported an
    exit by signal or an exception other than the waits and the launcher's relay of them (``ChildFailedError``), and
    a scheduler's SIGTERM came after it (processes still alive, stopped from outside); else ``diag`` unchanged."""
    if diag.root_cause != "collective_timeout":
        return diag
    stopped = next(
        (
            f
            for f in evidence.facts
            if isinstance(f, SignalFact)
            and f.signal == "SIGTERM"
            and f.sender == "scheduler"
            and _after(f.event, first)
        ),
        None,
    )
    if stopped is None:
        return diag
    for f in evidence.facts:
        if isinstance(f, ProcessExit) and f.signal and f.event.line < stopped.event.line:
            return diag  # a process died by a signal before the stop: its death, not a silent member
        if isinstance(f, ExceptionFact) and f.family != _TIMEOUT and not f.type.endswith("ChildFailedError"):
            return diag
    message = (
        f"{fact.type} in a wait for the job's members ({where}) after training had begun, no process reported an "
        f"error or a death by signal, and the job was stopped from outside later ({stopped.event.path}:"
        f"{stopped.event.line}): a member stopped answering without a word (SIGSTOP, a deadlock, a stuck device)."
    )
    fix = Fix(
        summary="A member of the job stopped making progress without an error; the others timed out waiting for it.",
        steps=(
            "Find the member whose output stops first (its last step line) and, on a live run, dump its stacks "
            "(`py-spy dump --pid`) to see where it waits.",
            "Check that host for a stopped or throttled process (`ps -o stat` shows T for SIGSTOP, D for "
            "uninterruptible I/O), a hung filesystem or device.",
            "torchft drops a replica group that stops heartbeating only if `min_replica_size` still holds without it: "
            "a lower minimum lets the others go on.",
        ),
        references=("https://github.com/pytorch/torchft",),
    )
    match = Match(SILENT_RULE_ID, "silent_hang", "cause", first, severity="high", confidence=SILENT_CONFIDENCE)
    title = "A member stopped answering mid-run; the others' wait for it ran out"
    return decided_by_fact(diag, match, title=title, message=message, fix=fix)


def _membership_timeout(evidence: JobEvidence, diag: Diagnosis) -> tuple[Event, ExceptionFact, str] | None:
    """The decisive line's timeout in a membership wait: ``(event, fact, "file:line in func")``, or None."""
    first = diag.evidence[0].event
    fact = next(
        (f for f in evidence.facts if isinstance(f, ExceptionFact) and f.event is first and f.family == _TIMEOUT), None
    )
    if fact is None:
        return None
    waits = [fr for fr in first.params.get("frames") or [] if _MEMBERSHIP_WAIT.search(str(fr.get("func", "")))]
    if not waits:
        return None
    return first, fact, f"{waits[-1].get('file', '')}:{waits[-1].get('line', '')} in {waits[-1].get('func', '')}"


def _after(e: Event, first: Event) -> bool:
    """``e`` comes after ``first`` (same file: by line; else by neither's time being known, True)."""
    return e.line > first.line if e.path == first.path else True


def _trained_before(evidence: JobEvidence, first: Event) -> bool:
    """A rank printed a progress line before ``first`` (in its file, or earlier by the clock when files differ). A rank
    with more progress lines than ``RankProgress.recent`` keeps counts as having trained before."""
    t_first = evidence.time_of(first) or first.time
    for rp in (*evidence.progress.values(), *evidence.unranked_progress):
        if rp.lines > len(rp.recent):
            return True
        for path, line, when, _counter in rp.recent:
            if path == first.path:
                if line < first.line:
                    return True
            elif (both := one_clock(when, t_first)) is not None and both[0] < both[1]:
                return True
    return False
