"""A job launched again after its launcher failed for good, whose new launch trained to its end: ``no_failure``.

A batch script that wraps its launcher in a retry loop (``for attempt in 1 2 3; do torchrun ... && break; sleep 10;
done``, a workflow task run again) leaves in one log a launch that failed - a port taken at rendezvous, a crash on the
way out - followed by a whole new launch. A launch's end for good is printed once, after every worker it started has
exited: torchrun's failure summary with ``ChildFailedError`` ("Root Cause (first observed failure)",
``torch/distributed/run.py`` ``elastic_launch``; ``accelerate launch`` and ``fabric run`` run that agent in-process),
or the report of the launcher's exit by whatever started it (``_LAUNCH_REPORTERS``). What the job prints after that
comes from processes started later: progress that begins again at or below where it had been and goes forward, or a
training loop saying it finished, with nothing failing after it, is a new launch that did the job's work. The failure
cost a launch, not the job.

An exception the launcher printed as it died (a store port taken at rendezvous, ``static_tcp_rendezvous.py``) is no
such end: a sweep that starts two launches with one ``--master-port`` prints it for the second while the first,
which holds the port, trains on - the progress after it is the other launch's, and that launch never ran again.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING

from .diagnose import healthy_by_fact
from .factlayer.kinds import APP_ENDED_ONLY, ProcessExit, RunFinished
from .progress import _fmt
from .recovered import (
    CONFIDENCE,
    MIN_STEPS_AFTER,
    _after,
    _failed_after,
    _failures,
    _point,
    _restart_at,
    _split,
    _who,
)
from .types import Diagnosis, Event, Fix

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "relaunched-after-failure"
# reports of a launch's end by the process that started it: Python's ``subprocess.run(check=True)`` raising
# ``CalledProcessError`` ("Command '[...]' returned non-zero exit status 1.": a workflow task or ``accelerate launch``
# around its child), DeepSpeed's runner once a rank failed ("exits with return code = 1", after it killed the rest)
_LAUNCH_REPORTERS = frozenset({"subprocess", "deepspeed"})

_FIX = Fix(
    summary="Nothing to fix for the run itself; the failed launch is listed as a symptom. If the retry loop keeps "
    "catching it, it is worth a look: each failed launch repeats its start-up (or its whole training, where it failed "
    "on the way out), and a loop with no attempts left fails the job."
)


def _launch_end(evidence: JobEvidence) -> Event | None:
    """The last event that ended a launch for good (module docstring): torchrun's failure summary
    (``evidence.elastic_root``), or the report of a launcher's non-zero exit by what started it (``ProcessExit``
    reported by ``subprocess``, ``deepspeed``); None when the job holds neither."""
    ends: list[Event] = [evidence.elastic_root] if evidence.elastic_root is not None else []
    ends.extend(
        f.event
        for f in evidence.facts
        if isinstance(f, ProcessExit) and f.reporter in _LAUNCH_REPORTERS and (f.code or f.signal)
    )
    last = None
    for e in ends:
        if last is None or _after(_point(evidence, e), last.path, last.end_line, evidence.time_of(last) or last.time):
            last = e
    return last


def relaunched_after_failure(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when the launch its first failure belongs to ended for good
    (``_launch_end``: the last such end, at or after ``diag.first_failure``) and a new launch then did the job's work,
    with no rule match, unexplained error or failure fact after that new launch began:

    - every stream that prints progress (each rank's, else the rank-less ones) printed at least ``MIN_STEPS_AFTER``
      progress lines after the end, the first at or below the furthest it had printed before (a launch from the start
      or from a checkpoint; a stream with nothing before starts anywhere) and the last above the first; or
    - with no progress lines after the end (HF Trainer's log dicts name no step), a training loop said it finished
      (``RunFinished``) after it, in the same file, on a job of one host: torchrun prints its summary only after every
      local worker exited, so a finish line below it comes from a later process (on several hosts another node's
      workers may still be finishing).

    Else ``diag`` unchanged."""
    first = diag.first_failure
    if diag.verdict != "failure" or first is None:
        return diag
    end = _launch_end(evidence)
    if end is None:
        return diag
    t_end = evidence.time_of(end) or end.time
    t_first = evidence.time_of(first) or first.time
    if _after((first.path, first.line, t_first, (0, 0, 0)), end.path, end.end_line, t_end):
        return diag  # the failure came after the launch ended: the new launch's own
    ranked = [rp for rp in evidence.progress.values() if rp.lines]
    printing = ranked or [rp for rp in evidence.unranked_progress if rp.lines]
    starts = []
    how: list[str] = []
    for rp in printing:
        before, after = _split(rp, end, t_end)
        if not after:
            continue
        if before:
            # the new launch's first line: back at or below the furthest printed before; lines above it that come
            # first are a process still running (a rank-less stream mixes processes: torchft's other replica groups
            # train on while one node's launch is started again). None: the stream only went on, no new launch
            back = _restart_at(after, max(p[3] for p in before))
            if back is None:
                return diag
            after = after[back:]
        if len(after) < MIN_STEPS_AFTER or after[-1][3] <= after[0][3]:
            return diag
        starts.append(after[0])
        how.append(f"{_who(rp)} started at {_fmt(after[0][3])} and reached {_fmt(after[-1][3])}")
    failures = _failures(evidence)
    if starts:
        if len(starts) < len(printing):
            return diag  # a stream that printed before the end and nothing after: its process did not come back
        start = min(starts, key=lambda p: (p[2] or datetime.min, p[1]))
        if any(_failed_after(evidence, e, start) for e in failures):
            return diag
        went = "; ".join(how[:4])
    else:
        if len(evidence.hosts) > 1:
            return diag
        done = [
            f
            for f in evidence.facts
            if isinstance(f, RunFinished)
            and f.by not in APP_ENDED_ONLY
            and f.event.path == end.path
            and f.event.line > end.end_line
        ]
        if not done:
            return diag
        if any(_failed_after(evidence, e, (end.path, end.end_line, t_end, (0, 0, 0))) for e in failures):
            return diag
        went = (
            f'a training loop then said it finished ("{done[-1].words}", {done[-1].event.path}:{done[-1].event.line})'
        )
    message = (
        f"The launch that failed at {first.path}:{first.line} ({diag.title or diag.root_cause}) ended at "
        f"{end.path}:{end.line}, and the job was launched again: {went}, and nothing failed after that. The failure "
        "cost a launch, not the job."
    )
    return healthy_by_fact(diag, rule_id=RULE_ID, message=message, confidence=CONFIDENCE, fix=_FIX)
