"""A job that finished training but never exited: ``silent_hang`` at shutdown.

The training loop printed its own "finished" line (``factlayer.kinds.RunFinished``: Megatron's "[after training is
done]", the HF Trainer's "Training completed", Lightning's "`Trainer.fit` stopped: `max_epochs=N` reached"...), and
the job was later ended from outside - a Slurm time limit or cancel, a SIGTERM/SIGHUP from the scheduler, a terminal
or a wrapper. A job that is done only has to tear down (destroy process groups, free CUDA graphs, stop profilers,
join DataLoader workers and callbacks) and exit; one that is still there to be killed minutes later hung in that
teardown, so the kill is a symptom and the time limit was never the problem (NVIDIA-NeMo/Megatron-Bridge#1656 and
#3427: processes idle after "[after training is done]" until Slurm cancels the step at its time limit; the maintainers
traced #3427 to CUDA graphs not released at exit).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import TYPE_CHECKING

from .diagnose import decided_by_fact, healthy_by_fact
from .factlayer.kinds import (
    APP_ENDED_ONLY,
    ExceptionFact,
    ProcessExit,
    RunFinished,
    SchedulerVerdict,
    SignalFact,
    TrainingStarted,
)
from .parse.timestamps import full, one_clock
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "hung-after-finish"
CONFIDENCE = 0.75
# A kill within this many seconds of the finished line may be the scheduler's own timing (the last checkpoint save
# ran into the time limit), not a hang; with both times known, a shorter gap decides nothing.
MIN_GAP_SECONDS = 60.0
# the answers a kill after the finish turns into silent_hang: the kill read as the cause, or nothing/unknown
QUIET = frozenset({"job_preempted", "terminal_hangup", "no_failure", "unknown"})
_OUTSIDE_VERDICTS = frozenset({"time_limit", "cancelled", "preempted"})
_OUTSIDE_SIGNALS = frozenset({"SIGTERM", "SIGHUP", "SIGKILL", "SIGINT"})


Kill = SchedulerVerdict | SignalFact


def _killed_from_outside(f: object) -> Kill | None:
    if isinstance(f, SchedulerVerdict) and f.verdict in _OUTSIDE_VERDICTS:
        return f
    if isinstance(f, SignalFact) and f.sender != "launcher" and f.signal in _OUTSIDE_SIGNALS:
        return f
    return None


# a time the line states inside its text, which wins over the line's clock (slurmstepd prints its own line without a
# timestamp of the job's kind: "... CANCELLED AT 2026-04-20T03:53:02 ..."; Megatron's ``print_datetime``: "[after
# training is done] datetime: 2026-04-20 03:17:08")
_STATED = re.compile(r"(?:CANCELLED AT |\] datetime: )(\d{4}-\d\d-\d\d)[T ](\d\d:\d\d:\d\d)")


def job_end(evidence: JobEvidence) -> datetime | None:
    """When the job ended: its latest timed line, or later the time a scheduler's verdict states inside its text
    (slurmstepd's "*** JOB 3 ON node CANCELLED AT 2026-11-28T13:16:21 ***" carries no clock of the job's kind, so a
    job cancelled after a silent stall would otherwise seem to end with its last output)."""
    end = evidence.end_time
    for f in evidence.facts:
        if isinstance(f, SchedulerVerdict) and (m := _STATED.search(f.event.text)):
            t = full(m[1], m[2])
            if t is not None and (end is None or (t.year == end.year and t > end)):
                end = t
    return end


def _when(evidence: JobEvidence, ev: Event) -> datetime | None:
    m = _STATED.search(ev.text)
    if m:
        return full(m[1], m[2])
    return evidence.time_of(ev) or ev.time


def _gap(evidence: JobEvidence, done: RunFinished, kill: Kill) -> float | None:
    t0 = _when(evidence, done.event)
    t1 = _when(evidence, kill.event)
    if t0 is None or t1 is None or t0.year != t1.year:
        return None
    return (t1 - t0).total_seconds()


def hung_after_finish(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``silent_hang`` when the job's training loop printed that it finished and the job was
    later ended from outside (``_killed_from_outside``) with nothing else explaining the end (``QUIET`` answers);
    else ``diag`` unchanged. The finished line is the evidence; the kill is listed as a symptom."""
    if diag.root_cause not in QUIET:
        return diag
    done: RunFinished | None = None
    kill: Kill | None = None
    for f in evidence.facts:
        # a Dask client's departure leaves the scheduler and workers running as services, stopped whenever their user
        # stops them: a late stop is no hang
        if isinstance(f, RunFinished) and f.by not in APP_ENDED_ONLY:
            done, kill = f, None
        elif isinstance(f, TrainingStarted) and kill is None:
            done = None  # training started again: that finish was one phase's (an experience, a fold), not the job's
        elif done is not None and kill is None:
            kill = _killed_from_outside(f)
    if done is None or kill is None:
        return diag
    gap = _gap(evidence, done, kill)
    if gap is not None and gap < MIN_GAP_SECONDS:
        return diag
    how = (
        f"Slurm ({kill.verdict.replace('_', ' ')})"
        if isinstance(kill, SchedulerVerdict)
        else f"{kill.signal} (sender: {kill.sender})"
    )
    later = f" {gap / 60:.0f} min later" if gap is not None and gap >= 60 else " later"
    message = (
        f'Training finished ({done.by}: "{done.words}", line {done.event.line}) but the job did not exit: it was '
        f"still running when {how} ended it{later}. The processes hung while shutting down."
    )
    ev = Match(RULE_ID, "silent_hang", "cause", done.event, severity="high", confidence=CONFIDENCE)
    fix = Fix(
        summary="The training loop had finished, so the time limit or cancel that ended the job only stopped "
        "processes hung in their shutdown; waiting longer or asking for more time does not help.",
        steps=(
            "Find where they hang: `py-spy dump --pid <pid>` (add `--native` for C++ frames) on a node of a job in this "
            "state, or run with `faulthandler.dump_traceback_later(600)` armed after training.",
            "Tear down explicitly at the end of the script: `torch.distributed.destroy_process_group()` on every "
            "rank, stop profilers (nsys/torch.profiler), join DataLoader workers and background threads, close "
            "loggers/trackers that may wait on the network.",
            "Framework teardown bugs are common here (CUDA graphs, NCCL communicators, async checkpoint writers): "
            "check the framework's issues for a hang at exit on your version, and `os._exit(0)` after the last "
            "checkpoint is safely written as a stop-gap.",
        ),
        references=(
            "https://github.com/NVIDIA-NeMo/Megatron-Bridge/issues/3427",
            "https://docs.pytorch.org/docs/stable/distributed.html#shutdown",
        ),
    )
    return decided_by_fact(diag, ev, title="The job finished training but hung at shutdown", message=message, fix=fix)


# what the store's clients print when its host exits first at the end of a healthy job: the lost connection and
# torchelastic's failed rendezvous shutdown (``dynamic_rendezvous.py`` "has failed to shutdown the rendezvous ... due to
# an error of type RendezvousConnectionError")
TEARDOWN_ANSWERS = frozenset({"peer_process_died"})
# ... and a connection the other side closed, logged by a framework as it shuts down after the script said training
# was done (dask's ``distributed.batched`` logging a ``CommClosedError`` once the scheduler went away, tornado's
# ``StreamClosedError``, gloo's "Connection closed by peer"), which no rule reads as a cause: the job's answer is then
# ``unknown`` for an error it cannot place, not a failure
_CLOSED_CONNECTION = re.compile(
    r"\b(?:CommClosedError|StreamClosedError)\b|Connection (?:closed|reset) by peer|BrokenPipeError"
)


# torchelastic's agent closing the rendezvous in ``launch_agent``'s ``finally`` (``dynamic_rendezvous.py``
# ``DynamicRendezvousHandler.shutdown``), after its workers' run, whatever its result, and before a failed run's
# ChildFailedError summary is printed
_RDZV_SHUTDOWN_LOST = re.compile(
    r"has failed to shutdown the rendezvous '[^']*' due to an error of type Rendezvous\w*Error"
)


# torchelastic's agent in its exit barrier (``torch/distributed/elastic/agent/server/api.py`` ``_exit_barrier``, called
# by ``_invoke_run`` only once its local worker group SUCCEEDED) losing the store it waits on: "Error waiting on exit
# barrier. Elapsed: 0.0117 seconds", logged with the store's ``DistNetworkError`` traceback
_EXIT_BARRIER_LOST = re.compile(r"Error waiting on exit barrier\b")
_AGENT_TEARDOWN = (_RDZV_SHUTDOWN_LOST, _EXIT_BARRIER_LOST)
AGENT_TEARDOWN_LINES = 40  # from the lost store's warning (and its C++ frames) to the agent's own report of it


def agent_teardown(evidence: JobEvidence, first: Event) -> Event | None:
    """The line, printed in ``first``'s file within ``AGENT_TEARDOWN_LINES`` after it, where torchelastic's agent says
    the store was lost in its teardown (``_AGENT_TEARDOWN``: closing the rendezvous, or its exit barrier after every
    local worker succeeded), or None: then ``first`` (a lost connection to the store) was the agent's teardown, not a
    collective."""
    return next(
        (
            e
            for e in (*evidence.notable, *evidence.tail)
            if e.path == first.path
            and 0 < e.line - first.line <= AGENT_TEARDOWN_LINES
            and any(p.search(e.text) for p in _AGENT_TEARDOWN)
        ),
        None,
    )


def _store_lost_at_shutdown(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` (a lost peer, ``TEARDOWN_ANSWERS``) turned into ``no_failure`` when the lost connection is the agent's own
    rendezvous shutdown losing the store (``_RDZV_SHUTDOWN_LOST`` printed after it in the same file) in a job where no
    process exited non-zero or by a signal, no signal reached a launcher and no exception was raised: the agent reached
    its shutdown after its workers' run, and nothing failed in it; the node hosting the store had exited first (a
    multi-node c10d job at its end, logged at torchrun's default WARNING level, where the "Local worker group finished
    (WorkerState.SUCCEEDED)" line that ``teardown_after_success`` reads is not printed). Else ``diag`` unchanged."""
    first = diag.first_failure
    if first is None:
        return diag
    closing = next(
        (
            e
            for e in (*evidence.notable, *evidence.tail)
            if e.path == first.path and e.line > first.line and _RDZV_SHUTDOWN_LOST.search(e.text)
        ),
        None,
    ) or agent_teardown(evidence, first)
    if closing is None:
        return diag
    barrier = bool(_EXIT_BARRIER_LOST.search(closing.text))
    for f in evidence.facts:
        if isinstance(f, ProcessExit) and (f.code not in (None, 0) or f.signal):
            return diag
        if isinstance(f, ExceptionFact) and barrier and _agents_own(f.event, first, closing):
            continue  # the exit barrier's store error, which the agent logs with its traceback
        if isinstance(f, (SignalFact, ExceptionFact, SchedulerVerdict)):
            return diag
    where = "in its exit barrier, after its workers succeeded" if barrier else "while closing the rendezvous"
    message = (
        f"The launcher lost the rendezvous store {where} ({closing.path}:{closing.line}), with "
        "no worker exiting non-zero, no signal and no other exception in the job: the node that hosts the store exited "
        "first at the end of the job, which is shutdown order, not a failure."
    )
    return healthy_by_fact(diag, rule_id="store-lost-at-shutdown", message=message, confidence=0.75)


def _agents_own(e: Event, first: Event, closing: Event) -> bool:
    """``e`` is the agent's logged exception of its lost store: in the lost store's file, from its first line up to
    ``AGENT_TEARDOWN_LINES`` after the agent's report of it."""
    return e.path == first.path and first.line <= e.line <= closing.line + AGENT_TEARDOWN_LINES


def _before(evidence: JobEvidence, e: Event, first: Event, t_first: datetime | None) -> bool:
    """``e`` printed before ``first``: by line in one file, else by time (a year-less clock compared by its date and
    time of day, as ``pipeline._later`` does)."""
    if e.path == first.path:
        return e.line < first.line
    both = one_clock(_when(evidence, e), t_first)
    return both is not None and both[0] <= both[1]


def teardown_after_success(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when no process exited non-zero and either its only reading is a lost peer
    (``TEARDOWN_ANSWERS``) first printed after a launcher reported that every worker succeeded (``RunFinished`` by
    ``torchelastic``: "Local worker group finished (WorkerState.SUCCEEDED)") - in a multi-node c10d rendezvous, the node
    that hosts the store exits as soon as its workers are done, and the other nodes' agents then lose the store while
    they tear down - or it is ``unknown`` for a closed connection (``_CLOSED_CONNECTION``) first printed after the
    training loop or script said it finished (any ``RunFinished``). Else ``diag`` unchanged."""
    if diag.first_failure is None:
        return diag
    if diag.root_cause in TEARDOWN_ANSWERS:
        done = [f for f in evidence.facts if isinstance(f, RunFinished) and f.by == "torchelastic"]
    elif diag.root_cause == "unknown" and _CLOSED_CONNECTION.search(diag.first_failure.text):
        done = [f for f in evidence.facts if isinstance(f, RunFinished)]
    else:
        return diag
    if not done and diag.root_cause in TEARDOWN_ANSWERS:
        return _store_lost_at_shutdown(evidence, diag)
    if not done:
        return diag
    if any(isinstance(f, ProcessExit) and (f.code not in (None, 0) or f.signal) for f in evidence.facts):
        return diag
    first = diag.first_failure
    t_first = _when(evidence, first)
    before = [d for d in done if _before(evidence, d.event, first, t_first)]
    if not before:
        return diag
    done = before
    message = (
        f"Every worker finished (torchelastic: WorkerState.SUCCEEDED, {done[0].event.path}:{done[0].event.line}); "
        "the lost connection after it is the rendezvous store's host exiting first at shutdown, not a failure."
        if done[0].by == "torchelastic"
        else f'Training finished ({done[0].by}: "{done[0].words}", {done[0].event.path}:{done[0].event.line}); the '
        "closed connection logged after it is the job's processes shutting down, not a failure."
    )
    return healthy_by_fact(diag, rule_id="teardown-after-success", message=message, confidence=0.8)
