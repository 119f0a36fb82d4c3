"""A job the user interrupted (Ctrl-C) with no failure before it: ``silent_hang``, the processes waiting.

People press Ctrl-C on a distributed job when it stops making progress: a rank blocked on something outside the
collectives (an interactive ``input()`` prompt nobody answers, an HTTP call without a timeout, a lock file, a named
pipe) while the others wait in their next collective for up to the process group's timeout (30 min by default in
``torch.distributed``), so no watchdog has fired yet and nothing is printed. The interrupt's own reports are
``SignalFact`` SIGINT facts: torchrun's agent "Received 2 death signal, shutting down workers"
(``torch/distributed/elastic/agent/server/api.py``), Lightning's "Detected KeyboardInterrupt, attempting graceful
shutdown ..." (``lightning/pytorch/trainer/call.py``), a traceback ending in ``KeyboardInterrupt``. Each process's
``KeyboardInterrupt`` traceback shows where it was blocked, as ``py-spy dump`` would.

Only where nothing else explains the end (``no_failure``/``unknown``): medium-low confidence, raised when the log's
times show the output stalled at least ``MIN_STALL_SECONDS`` before the interrupt.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact, ProcessExit, SchedulerVerdict, SignalFact
from .parse.timestamps import one_clock
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "interrupted-while-waiting"
CONFIDENCE = 0.6
CONFIDENCE_STALLED = 0.75
MIN_STALL_SECONDS = 60.0
QUIET = frozenset({"no_failure", "unknown"})


def _interrupt(evidence: JobEvidence) -> SignalFact | None:
    for f in evidence.facts:
        if isinstance(f, SignalFact) and f.signal == "SIGINT" and f.sender in ("terminal", "unknown"):
            return f
    return None


def _stall(evidence: JobEvidence, at: Event) -> float | None:
    """Seconds between the last timed event printed before ``at`` (same file, earlier line) and ``at``'s time."""
    t1 = evidence.time_of(at) or at.time
    if t1 is None:
        return None
    last: datetime | None = None
    for e in (*evidence.notable, *evidence.tail):
        if e.path == at.path and e.line < at.line:
            t = evidence.time_of(e) or e.time
            if t is not None and (t.tzinfo is None) == (t1.tzinfo is None) and (last is None or t > last):
                last = t
    if last is None:
        return None
    both = one_clock(last, t1)
    return None if both is None else (both[1] - both[0]).total_seconds()


def _killed_after_interrupt(evidence: JobEvidence, diag: Diagnosis, sig: SignalFact) -> bool:
    """The answer is an unexplained SIGKILL (``process-killed-sigkill``, read as the OOM killer's) printed after the
    user's interrupt, with nothing in the job about memory: a process that did not stop on Ctrl-C (a launcher busy in
    its own loop, a rank blocked in native code) and was then killed by the user (``kill -9``), the usual next step."""
    if diag.rule_id != "process-killed-sigkill":
        return False
    t_sig = evidence.time_of(sig.event) or sig.event.time
    for f in evidence.facts:
        if isinstance(f, ProcessExit) and f.signal == "SIGKILL":
            e = f.event
            if e.path == sig.event.path:
                if e.line <= sig.event.end_line:
                    return False
            elif (both := one_clock(evidence.time_of(e) or e.time, t_sig)) is None or both[0] < both[1]:
                return False
        elif isinstance(f, ExceptionFact) and f.family == "host_memory" or isinstance(f, SchedulerVerdict):
            return False
    return True


def interrupted_while_waiting(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``silent_hang`` when the job ended by the user's interrupt and nothing else explains it
    (``QUIET`` answers, or a SIGKILL after the interrupt: ``_killed_after_interrupt``); the message names where each
    process was blocked (its ``KeyboardInterrupt`` traceback's innermost frame). Else ``diag`` unchanged."""
    sig = _interrupt(evidence)
    if sig is None or diag.root_cause not in QUIET and not _killed_after_interrupt(evidence, diag, sig):
        return diag
    stall = _stall(evidence, sig.event)
    where = []
    for f in evidence.facts:
        if isinstance(f, ExceptionFact) and f.type.endswith("KeyboardInterrupt") and f.innermost:
            who = f"rank {f.event.rank}" if f.event.rank is not None else f"line {f.event.line}"
            where.append(f"{who} in {f.innermost}")
    stalled = stall is not None and stall >= MIN_STALL_SECONDS
    message = (
        "The job was interrupted by the user (Ctrl-C / SIGINT) with no error before it"
        + (f", after {stall:.0f} s without output" if stalled else "")
        + ": it had stopped making progress."
        + (f" Where the processes were blocked: {'; '.join(where[:8])}." if where else "")
    )
    ev = Match(
        RULE_ID,
        "silent_hang",
        "cause",
        sig.event,
        severity="medium",
        confidence=CONFIDENCE_STALLED if stalled else CONFIDENCE,
    )
    fix = Fix(
        summary="A process was blocked outside the collectives and the others waited for it; the interrupt only "
        "ended the wait. Find what the blocked process waited on.",
        steps=(
            "Read each process's KeyboardInterrupt traceback: the innermost frame is where it was blocked (an input() "
            "prompt, a network call without a timeout, a lock or pipe, a collective another rank never reached).",
            "Next time, dump the stacks before interrupting: `py-spy dump --pid <pid>` on each rank, or "
            "`faulthandler.dump_traceback_later(600, repeat=True)` in the script.",
            "Never prompt for input in a distributed job (pass a flag instead), and give every network call a "
            "timeout; a shorter process-group timeout (`init_process_group(timeout=...)`) makes the others fail loudly.",
        ),
        references=(
            "https://docs.python.org/3/library/exceptions.html#KeyboardInterrupt",
            "https://github.com/benfred/py-spy",
        ),
    )
    return decided_by_fact(
        diag, ev, title="The user interrupted a job that had stopped making progress", message=message, fix=fix
    )
