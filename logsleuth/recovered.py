"""A failure the job recovered from: ``no_failure`` when every rank that prints progress restarted after the first
failure (its steps went back) and then got past where it was, and nothing failed after that; or when a framework
retried the failed work (Ray, Ray Train, c10d's store client) and the job's progress went on with nothing failing after
(``retried_after_failure``).

Launchers restart failed workers (torchrun ``--max-restarts``, Ray Train's ``FailureConfig(max_failures)``, Lightning
fault-tolerant or a SLURM requeue into the same log) and training loops resume from their last checkpoint: the log
then holds a real failure (a worker killed by SIGKILL, an exception, the peers' lost connections) followed by the same
ranks printing steps again, past the step they had reached. The failure cost time, not the job. The facts are the
per-rank progress points (``progress.RankProgress.recent``) around the first failure's line; a rank that never printed
progress decides nothing (it may be the one that was killed).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING

import regex

from .diagnose import healthy_by_fact
from .factlayer.kinds import (
    APP_ENDED_ONLY,
    ExceptionFact,
    Fact,
    ProcessExit,
    RunFinished,
    SchedulerVerdict,
    SignalFact,
    WorkRetried,
)
from .factlayer.reason import exception_chain, teardown_from, uncaught
from .parse.prefix import ray_forwarded
from .parse.timestamps import one_clock
from .progress import UNRANKED, RankProgress, _fmt, progress_counter
from .types import LEVEL_RANK, Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "resumed-after-failure"
CONFIDENCE = 0.75
# completion reports printed once per task of a job (submitit's "Job completed successfully" in each task's log)
PER_TASK_FINISH = frozenset({"submitit"})
MIN_STEPS_AFTER = 3  # progress lines a rank must print after the failure (one or two can precede a blocked collective)
_FAILED = (ExceptionFact, ProcessExit, SchedulerVerdict, SignalFact)

Point = tuple[str, int, datetime | None, tuple[int, int, int]]


def resumed_after_failure(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when the job recovered from its first failure (module docstring): every rank
    with progress lines printed at least ``MIN_STEPS_AFTER`` of them after ``diag.first_failure``, the first of them
    back at or below a counter it printed before (a restart) and the furthest above all of those - or, for a rank that
    printed no progress before the failure, torchrun restarted the workers (``_elastic_restarted``) or a launcher
    stopped the job and it was launched again (``_relaunched``), and the rank's counter went forward after - and no
    rule match,
    unexplained error or failure fact (exception, process exit, signal, scheduler verdict) comes after any rank's first
    resumed line. Else ``diag`` unchanged. The failure's evidence is kept as symptoms."""
    first = diag.first_failure
    if diag.verdict != "failure" or first is None:
        return diag
    printing = [rp for rp in evidence.progress.values() if rp.lines]
    if not printing:
        # a loop that prints its steps without a rank (rank 0 only, most often): each process's stream
        printing = [rp for rp in evidence.unranked_progress if rp.lines]
    if not printing:
        return diag
    t_first = evidence.time_of(first) or first.time
    resumed: list[tuple[RankProgress, Point, tuple[int, int, int] | None, tuple[int, int, int]]] = []
    restarted = _elastic_restarted(evidence)
    for rp in printing:
        before, after = _split(rp, first, t_first)
        if rp.rank == UNRANKED:
            # a rank-less stream mixes the ranks' lines: the other ranks' copies of the step the failure was printed at
            # come right after it, within the same second - a counter that repeats, not a restart (a restart takes a
            # new process: seconds; an untimed repeat stays a possible restart)
            while after and before and after[0][3] == before[-1][3] and _same_moment(after[0][2], before[-1][2]):
                after = after[1:]
        if len(after) < MIN_STEPS_AFTER:
            return diag
        top_before = max((p[3] for p in before), default=None)
        if top_before is None:
            # failed before any progress: a restart shows only in the launcher's own record (``_elastic_restarted``),
            # or in a launcher stopping the whole job before the rank's progress began (``_relaunched``)
            top_after = max(p[3] for p in after)
            if not (restarted or _relaunched(evidence, first, after[0])) or top_after <= after[0][3]:
                return diag
            resumed.append((rp, after[0], None, top_after))
            continue
        # restarted: a step after the failure is back at or below one already printed (a resume from the last
        # checkpoint, or from the start); from there it went past the furthest. The restart need not be the first
        # line after the failure: a rank prints a step or two before its launcher stops it for the restart, and a
        # rank-less stream mixes processes (torchft's surviving replica group going on while the failed one is
        # started again). A loop that only went on (a failed side tool, a skipped batch) shows no restart and decides
        # nothing here.
        back = _restart_at(after, top_before)
        if back is None or len(after) - back < MIN_STEPS_AFTER:
            return diag
        top_after = max(p[3] for p in after[back:])
        if top_after <= top_before or back and _launch_ended_between(evidence, first, after[back]):
            return diag
        resumed.append((rp, after[back], top_before, top_after))
    failures = _failures(evidence)
    if any(_failed_after(evidence, e, point) for _rp, point, _b, _a in resumed for e in failures):
        return diag
    went = "; ".join(
        f"{_who(rp)} had reached {_fmt(b)}, resumed at {_fmt(p[3])} and reached {_fmt(a)}"
        if b is not None
        else f"{_who(rp)} started at {_fmt(p[3])} after the workers were started again and reached {_fmt(a)}"
        for rp, p, b, a in sorted(resumed, key=lambda r: r[0].rank)[:4]
    )
    message = (
        f"The job went on after the failure at {first.path}:{first.line} ({diag.title or diag.root_cause}): {went}, "
        "and nothing failed after that (a restarted or retried worker resumed). The failure cost time, not the job."
    )
    fix = Fix(
        summary="Nothing to fix for the run itself; the failure it recovered from is listed as a symptom. If it "
        "repeats, it is worth a look: each restart repeats the steps since the last checkpoint."
    )
    return healthy_by_fact(diag, rule_id=RULE_ID, message=message, confidence=CONFIDENCE, fix=fix)


ECHO_SECONDS = 1.0  # the ranks' lines for one step, printed by processes in lockstep


def _same_moment(a: datetime | None, b: datetime | None) -> bool:
    if a is None or b is None:
        return False
    try:
        return abs((a - b).total_seconds()) <= ECHO_SECONDS
    except TypeError:  # one clock with a zone, one without: not comparable
        return False


def _who(rp: RankProgress) -> str:
    return "the job's progress lines (they name no rank)" if rp.rank == UNRANKED else f"rank {rp.rank}"


WENT_ON_RULE_ID = "went-on-after-exception"
# progress lines every printing rank must print after a caught exception, going forward: more than the one or two a
# rank can print before its next collective blocks on a peer that died
MIN_STEPS_WENT_ON = 5


def _all_went_on(
    evidence: JobEvidence,
    printing: Sequence[RankProgress],
    first: Event,
    failures: Sequence[Event],
) -> str | None:
    """How every process in ``printing`` went on after ``first`` ("rank 0 went on to epoch 3 step 40; ..."), or None
    when one of them did not go ``MIN_STEPS_WENT_ON`` progress lines forward (too few, or back: a restart, read by
    ``resumed_after_failure``) or one of ``failures`` comes after the first line it went on with."""
    t_first = evidence.time_of(first) or first.time
    went: list[tuple[RankProgress, Point, tuple[int, int, int]]] = []
    for rp in printing:
        after = _went_forward(rp, first, t_first)
        if after is None:
            return None
        went.append((rp, after[0], after[-1][3]))
    if any(_failed_after(evidence, e, point) for _rp, point, _top in went for e in failures):
        return None
    return "; ".join(f"{_who(rp)} went on to {_fmt(top)}" for rp, _p, top in sorted(went, key=lambda w: w[0].rank)[:4])


def went_on_after_exception(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when its first failure is a Python exception the job went on from without
    a restart: the training loop caught it (an optional plotting import, a side upload), printed the traceback
    (``traceback.print_exc``, ``logger.exception``) and carried on. Such a traceback starts at the frame that caught
    it; one that starts at the script's ``<module>`` frame is the interpreter's report of an uncaught exception, which
    ended its process (``sys.excepthook``), whatever another process printed after it (a sweep's second job failing
    on the first one's port while the first trains on): no such traceback may be in the job. Every rank that prints
    progress printed at least ``MIN_STEPS_WENT_ON`` progress lines after it, each at a counter above everything it
    printed before (no restart: that is ``resumed_after_failure``), the rank that raised among them where ranks print
    their own progress (an exception naming no rank only where no progress line names one; where none does, the
    rank-less stream stands for every rank), and no rule match, unexplained error or failure fact comes after the first
    of them - the same exception caught again (``_caught_again``) excepted, after whose last print the job must still go
    on at least a step. In a data-parallel job a rank whose exception ended it stops every peer at the next
    collective, so the others cannot print that many steps. Else ``diag`` unchanged."""
    first = diag.first_failure
    if diag.verdict != "failure" or first is None or first.source != "python":
        return diag
    if not any(isinstance(f, ExceptionFact) and f.event is first for f in evidence.facts):
        return diag
    frames = first.params.get("frames") or []
    if not frames or any(isinstance(f, ExceptionFact) and uncaught(f) for f in evidence.facts):
        # a traceback from a script's top frame is the interpreter's report of an uncaught exception: some process
        # ended (mp.spawn's parent re-raising its child's error is one), whichever exception came first
        return diag
    ranked = [rp for rp in evidence.progress.values() if rp.lines]
    rank = first.rank if first.rank is not None else _logged_by(evidence, first)
    if rank is not None and ranked:
        if not any(rp.rank == rank for rp in ranked):
            return diag  # the rank that raised printed no progress: nothing shows that it went on
    elif len(ranked) > 1 or ranked and not _loop_finished_after(evidence, first):
        # ranks print their progress, the exception names none: whose process went on is unknown. Where a single
        # rank's progress is all the log holds (a launcher that streams only local rank 0, as PaddlePaddle's does, the
        # others' output going to files), that rank's stream stands for the job as a rank-less one does - once a
        # training loop said it finished after the exception: a log that just stops a few steps after it (a
        # DataLoader worker's failed shared-memory feed, the job then stuck) went on only for a while
        return diag
    printing = ranked or [rp for rp in evidence.unranked_progress if rp.lines]
    if not printing:
        return diag
    # the same exception caught again later (a loader skipping each unreadable sample it meets, epoch after epoch) is
    # no new failure: the job must go on after the last of them as after the first
    again = _caught_again(evidence, first)
    repeated = {(e.path, e.line) for e in again}
    failures = [e for e in _failures(evidence) if (e.path, e.line) not in repeated]
    how = _all_went_on(evidence, printing, first, failures)
    if how is None:
        return diag
    t_first = evidence.time_of(first) or first.time
    if again and not all(_same_moment(evidence.time_of(e) or e.time, t_first) for e in again):
        # caught again later (not the same failure's reports by several handlers at once, ``ECHO_SECONDS``)
        last = max(again, key=lambda e: (evidence.time_of(e) or e.time or datetime.min, e.line))
        # ... at least one step past where it was (the last skip may come in the run's last steps)
        t_last = evidence.time_of(last) or last.time
        for rp in printing:
            before, after = _split(rp, last, t_last)
            if not after or before and max(p[3] for p in after) <= max(p[3] for p in before):
                return diag
        how += f" (the same exception was caught {len(again)} more time{'s' if len(again) > 1 else ''})"
    elif again:
        how += f" (the same failure reported {len(again)} more time{'s' if len(again) > 1 else ''} at once)"
    message = (
        f"The job went on after the exception at {first.path}:{first.line} ({diag.title or diag.root_cause}): {how}, "
        "with no restart and nothing failing after it: the exception was caught and reported, not fatal."
    )
    fix = Fix(
        summary="Nothing to fix for the run itself; the caught exception is listed as a symptom (a feature it "
        "served, such as a plot or an upload, did not run)."
    )
    return healthy_by_fact(diag, rule_id=WENT_ON_RULE_ID, message=message, confidence=CONFIDENCE, fix=fix)


def _loop_finished_after(evidence: JobEvidence, first: Event) -> bool:
    """A training loop said it finished (``RunFinished``) after ``first``."""
    t_first = evidence.time_of(first) or first.time
    return any(
        isinstance(f, RunFinished) and _after(_point(evidence, f.event), first.path, first.end_line, t_first)
        for f in evidence.facts
    )


def _caught_again(evidence: JobEvidence, first: Event) -> list[Event]:
    """The exception ``first`` printed again: every other traceback with the same exception type raised through the
    same frames (file and function, innermost last), none of them an uncaught one (the caller has checked that no
    traceback in the job starts at a script's top frame); with the exceptions chained to each report (``first``'s
    own included) and the warning-or-worse log record printed right above each traceback."""
    own = next((f for f in evidence.facts if isinstance(f, ExceptionFact) and f.event is first), None)
    if own is None:
        return []

    def path_of(e: Event) -> tuple[tuple[object, object], ...]:
        return tuple((fr.get("file"), fr.get("func")) for fr in e.params.get("frames") or ())

    where = path_of(first)
    repeats = [
        f.event
        for f in evidence.facts
        if isinstance(f, ExceptionFact)
        and f.event is not first
        and f.type == own.type
        and _reported_again(own, f, where, path_of(f.event))
    ]
    # each report with the exceptions chained to it ("During handling of the above exception, another exception
    # occurred:"): a caught ``URLError`` raised while handling a ``ConnectionRefusedError`` is one report of one failure
    out: dict[int, Event] = {}
    for e in (first, *repeats):
        for c in exception_chain(evidence.facts, e):
            out.setdefault(id(c.event), c.event)
        out.setdefault(id(e), e)
    # ... and the log record each report belongs to (``logger.exception``'s message line right above its traceback)
    starts = {(e.path, e.line) for e in out.values()}
    for e in (*evidence.notable, *evidence.unexplained):
        if (e.path, e.end_line + 1) in starts and LEVEL_RANK[e.level] >= LEVEL_RANK["warning"]:
            out.setdefault(id(e), e)
    out.pop(id(first), None)
    return list(out.values())


def _reported_again(
    own: ExceptionFact,
    other: ExceptionFact,
    where: tuple[tuple[object, object], ...],
    there: tuple[tuple[object, object], ...],
) -> bool:
    """``other`` (raised through frames ``there``) is ``own`` (through ``where``) again: through the same frames, or
    reported again by an outer handler - the same message, raised at the same innermost frame, through a longer or
    shorter stack (dask's ``protocol.pickle.loads`` logs the ``UnpicklingError`` it re-raises, ``protocol.core`` logs
    it again at CRITICAL, tornado's loop a third time: one failure, three tracebacks)."""
    if there == where:
        return True
    return bool(where) and bool(there) and where[-1] == there[-1] and own.message == other.message


def _logged_by(evidence: JobEvidence, tb: Event) -> int | None:
    """The rank of the log record a traceback ``tb`` belongs to: ``logging``'s ``logger.exception``/``exc_info=True``
    prints the record's message line (with the format's rank, "[rank0] ERROR ...") and then the traceback, whose own
    lines name no rank (``logging.Formatter.format`` appends ``formatException`` after the message). The warning-or-
    worse event on the line just above ``tb`` in its file, when it names a rank; else None."""
    for e in evidence.notable:
        if (
            e.path == tb.path
            and e.end_line == tb.line - 1
            and e.rank is not None
            and LEVEL_RANK[e.level] >= LEVEL_RANK["warning"]
        ):
            return e.rank
    return None


RETRY_RULE_ID = "retried-after-failure"
# who retried, by ``WorkRetried.by``
_RETRIED_BY = {
    "ray_task": "Ray retried the failed task",
    "ray_train": "Ray Train restarted its worker group",
    "c10d_store": "the c10d store client connected again after its timed-out attempt",
    "spark_task": "Spark's scheduler ran the failed task again",
    "dask_worker": "Dask's nanny restarted the worker process",
    "dask_task": "Dask's scheduler recomputed the dead worker's results elsewhere",
    "submitit_requeue": "submitit requeued the job, which resumed from its checkpoint",
    "rllib_actor": "RLlib put the restarted actor back into service",
    "metaflow_retry": "Metaflow ran the failed task again (@retry)",
    "ray_tune_restore": "Ray Tune restored the failed trial from its checkpoint",
    "celery_task": "the broker delivered the lost task to a Celery worker again",
}
# progress lines enough after the retry when the job's own completion report (``RunFinished``) follows them: a retry
# late in the run leaves only its last steps, and the job saying it finished stands for the rest
MIN_STEPS_BEFORE_FINISH = 2


def _ray_worker_replaced(evidence: JobEvidence, first: Event) -> dict[tuple[str, int], Fact]:
    """The raylet's report of a dead worker (a ``ProcessExit`` reported by ``ray``) that is ``first``, keyed by its
    line; else empty. Ray restarts an actor created with ``max_restarts`` and reruns a task with retries left without a
    line to the driver (``python/ray/actor.py``, ``python/ray/remote_function.py``): the death report is the last word
    on it, and a driver whose ``ray.get`` got the death raises (``ActorDiedError``) instead of going on to finish, so
    the caller asks for the job's own finish line after its progress."""
    return {
        (f.event.path, f.event.line): f
        for f in evidence.facts
        if isinstance(f, ProcessExit)
        and f.reporter == "ray"
        and (f.event.path, f.event.line) == (first.path, first.line)
    }


def retried_after_failure(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when the failed work was retried and the job went on: the retry report (a
    ``WorkRetried`` fact: Ray's task retry, Ray Train's worker-group restart, c10d's store client retry) at or after
    ``diag.first_failure``, then at least ``MIN_STEPS_AFTER`` progress lines (any process's, the driver's included)
    whose counter went forward (or, where the job prints no progress line after it, the training loop's own word
    that it finished, a ``RunFinished``), and no rule match, unexplained error or failure fact after the last retry
    report (after that finish line, where it stands for the progress). A
    worker that died and whose task ran again elsewhere cost time, not the job (a retried task that fails for good, or
    runs out of retries, fails again after the report). With no retry report, the raylet's report of a dead worker
    stands for one when the job's own word that it finished follows the progress (``_ray_worker_replaced``). Else
    ``diag`` unchanged."""
    first = diag.first_failure
    if diag.verdict != "failure" or first is None:
        return diag
    retries: dict[tuple[str, int], Fact] = {
        (f.event.path, f.event.line): f for f in evidence.facts if isinstance(f, WorkRetried)
    }
    silent = not retries
    if silent:
        retries = _ray_worker_replaced(evidence, first)
        if not retries:
            return diag
    last_fact = max(
        retries.values(), key=lambda f: (evidence.time_of(f.event) or f.event.time or datetime.min, f.event.line)
    )
    last = last_fact.event
    who = (
        _RETRIED_BY.get(last_fact.by, "the framework retried the failed work")
        if isinstance(last_fact, WorkRetried)
        else "Ray replaced the dead worker (an actor's max_restarts, a task's retries) without a report"
    )
    t_last = evidence.time_of(last) or last.time
    t_first = evidence.time_of(first) or first.time
    if _after((first.path, first.line, t_first, (0, 0, 0)), last.path, last.line, t_last):
        return diag  # the failure came after the retry: not the one it retried
    # progress lines after the retry: the tail's (any process, the driver's included) and each rank's, once per line
    points: dict[tuple[str, int], Point] = {}
    for e in evidence.tail:
        t = evidence.time_of(e) or e.time
        if _after((e.path, e.line, t, (0, 0, 0)), last.path, last.line, t_last):
            c = progress_counter(e.text)
            if c is not None:
                points[(e.path, e.line)] = (e.path, e.line, t, c)
    for rp in (*evidence.progress.values(), *evidence.unranked_progress):  # a driver's progress names no rank
        points.update(((p[0], p[1]), p) for p in rp.recent if _after(p, last.path, last.line, t_last))
    after = sorted(points.values(), key=lambda p: (p[2] or datetime.min, p[1]))
    steps = [p[3] for p in after]
    # the job's own word that it finished, after its furthest progress line (a Ray actor's lines reach the driver's
    # console late, after the driver's own finish line: the last point by time need not be the furthest)
    top = max(after, key=lambda p: p[3]) if after else None
    finished = top is not None and any(
        isinstance(f, RunFinished) and _after(_point(evidence, f.event), *top[:3]) for f in evidence.facts
    )
    # with a retry report and no progress line the job's lines count (a Trainer's log dicts, a Ray worker's own
    # lines): its own word that training finished after the last retry stands for the steps
    done_after = [
        _point(evidence, f.event)
        for f in evidence.facts
        if isinstance(f, RunFinished)
        and f.by not in APP_ENDED_ONLY  # the client closes its connection whether its work failed or not
        and _after(_point(evidence, f.event), last.path, last.line, t_last)
    ]
    if not steps and not silent and done_after:
        start = min(done_after, key=lambda p: (p[2] or datetime.min, p[1]))
        failures = [e for e in _failures(evidence) if (e.path, e.line) not in retries]
        if any(_failed_after(evidence, e, start) for e in failures):
            return diag
        message = (
            f"The job went on after the failure at {first.path}:{first.line} ({diag.title or diag.root_cause}): {who} "
            f"({last.path}:{last.line}), then its training loop said it finished ({start[0]}:{start[1]}), and nothing "
            "failed after that. The failure cost time, not the job."
        )
        return healthy_by_fact(diag, rule_id=RETRY_RULE_ID, message=message, confidence=CONFIDENCE, fix=_RETRY_FIX)
    needed = MIN_STEPS_BEFORE_FINISH if finished and len(steps) >= MIN_STEPS_BEFORE_FINISH else MIN_STEPS_AFTER
    if len(steps) < needed or max(steps) <= steps[0]:
        return diag
    if silent and not finished:
        return diag  # no retry report: only the job's own word that it finished says the worker was replaced
    # the retry report goes on with the error it retried (Ray Train prints the failed ranks' tracebacks after its
    # decision): only a failure after the job resumed counts against it - or, when every task reported its own
    # completion after the retry, only one after the first of those reports (logs of several tasks pasted one after
    # the other, where a later task's stop at the retry is printed below the first task's resumed steps)
    failures = [e for e in _failures(evidence) if (e.path, e.line) not in retries]
    done = _finished_after(evidence, last, t_last)
    if done is not None:
        if any(_failed_after(evidence, e, done) for e in failures):
            return diag
    elif any(_failed_after(evidence, e, after[0]) for e in failures):
        return diag
    message = (
        f"The job went on after the failure at {first.path}:{first.line} ({diag.title or diag.root_cause}): {who} "
        f"({last.path}:{last.line}), {len(steps)} progress lines followed, up to {_fmt(max(steps))}, "
        "and nothing failed after that. The failure cost time, not the job."
    )
    return healthy_by_fact(diag, rule_id=RETRY_RULE_ID, message=message, confidence=CONFIDENCE, fix=_RETRY_FIX)


_RETRY_FIX = Fix(
    summary="Nothing to fix for the run itself; the failure that was retried is listed as a symptom. If it "
    "repeats, it is worth a look: each retry repeats lost work (a task, an actor, a worker group) or waits out a "
    "store connection timeout."
)


DATASET_RULE_ID = "dataset-finished-after-retry"
# Ray Data's streaming executor once a dataset's execution ended without an exception
# (``ray/data/_internal/execution/streaming_executor.py`` ``StreamingExecutor.shutdown``: "✔️  Dataset <id> execution
# finished in 13.22 seconds"; one a task failed for good ends "⚠️ Dataset <id> execution failed" and raises in the
# driver). One dataset's end, not the job's: read only here, where a task retry precedes it, never as ``RunFinished``
# (whose readers take everything after it as the job's teardown).
_DATASET_FINISHED = regex.compile(r"\bDataset \S+ execution finished in [\d.]+ seconds")


def dataset_finished_after_retry(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when its first failure (or first unexplained error) is a Ray task's that
    Ray retried (``WorkRetried`` by ``ray_task``: "Task _map_task failed. There are 10 retries remaining, so the task
    will be retried. Error: ..." with the task's traceback after it), and after the last retry report Ray Data said a
    dataset's execution finished (``_DATASET_FINISHED``, among the job's last lines), and no rule match, unexplained
    error or failure fact comes after that line (the retry reports and the errors they carry come before it). A Ray Data job
    prints no training steps, so ``retried_after_failure``'s progress lines are not there to show that it went on;
    the executor's own word that the execution succeeded is. Else ``diag`` unchanged."""
    first = diag.first_failure
    if diag.verdict not in ("failure", "unknown") or first is None:
        return diag
    retries = [f.event for f in evidence.facts if isinstance(f, WorkRetried) and f.by == "ray_task"]
    if not retries:
        return diag
    last = max(retries, key=lambda e: (evidence.time_of(e) or e.time or datetime.min, e.line))
    t_last = evidence.time_of(last) or last.time
    found = next(
        (
            (e, m[0])
            for e in evidence.tail
            if (m := _DATASET_FINISHED.search(e.text)) and _after(_point(evidence, e), last.path, last.line, t_last)
        ),
        None,
    )
    if found is None:
        return diag
    done, words = found
    finish = _point(evidence, done)
    if _after(_point(evidence, first), *finish[:3]):
        return diag  # the failure came after the dataset finished: not the one Ray retried
    if any(_failed_after(evidence, e, finish) for e in _failures(evidence)):
        return diag
    message = (
        f"The job went on after the failure at {first.path}:{first.line} ({diag.title or diag.root_cause}): Ray "
        f"retried the failed task ({last.path}:{last.line}, {len(retries)} retry report{'s' if len(retries) > 1 else ''}) "
        f'and Ray Data reported the dataset\'s execution finished ("{words}", '
        f"{done.path}:{done.line}), and nothing failed after that. The failure cost time, not the job."
    )
    fix = Fix(
        summary="Nothing to fix for the run itself; the task failures Ray retried are listed as symptoms. If they "
        "repeat, each retry repeats the task's work: make the task wait for what it reads (a file written late, a "
        "service starting) instead of failing, or raise its retries only for the errors that are transient."
    )
    return healthy_by_fact(diag, rule_id=DATASET_RULE_ID, message=message, confidence=CONFIDENCE, fix=fix)


FINISHED_RULE_ID = "run-finished-after-failure"
# completion reports an orchestrator prints once, for the whole run, only when every step of it succeeded (a step that
# failed for good ends the run with the orchestrator's own failure report instead): Metaflow's runtime "Done!"
# (``metaflow/runtime.py``; "Workflow failed." otherwise) and Kedro's runner "Pipeline execution completed
# successfully" (``kedro/runner/runner.py``; "Pipeline execution failed" otherwise), Apache Airflow's "Marking run
# <DagRun ...> successful" (``airflow/models/dagrun.py``; "... failed" otherwise) and Luigi's "This progress looks :)"
# (``luigi/execution_summary.py``; ":(" otherwise) and Dagster's RUN_SUCCESS event (``dagster/_core/events``; RUN_FAILURE
# otherwise) and DVC's "Use `dvc push` to send your updates to remote storage." / "Ran experiment(s): ..."
# (``dvc/commands/repro.py``, ``experiments/run.py``; "ERROR: failed to reproduce ..." otherwise) and Snakemake's
# "N of N steps (100%) done" (``snakemake/logging.py``; "Exiting because a job execution failed" otherwise) and
# ZenML's "Pipeline run has finished in `...`." (``zenml/orchestrators/local/local_orchestrator.py``; a failed step
# raises before it) and Kubeflow Pipelines' local runner "Pipeline '<name>' finished with status SUCCESS"
# (``kfp/local/pipeline_orchestrator.py``; "... finished with status FAILURE. Inner task failed: ..." otherwise) and
# Ray Tune's "Trial status: N TERMINATED" (``ray/tune/experimental/output.py``; "| 1 ERROR" when a trial failed for
# good after its ``FailureConfig(max_failures)`` retries) and Prefect's top-level "Flow run '<name>' - Finished in
# state Completed()" (``prefect/flow_engine.py``; "... Failed(...)" otherwise; ``reason.PrefectFlows``)
WHOLE_RUN_FINISH = frozenset(
    {"metaflow", "kedro", "airflow", "luigi", "dagster", "dvc", "snakemake", "zenml", "kubeflow", "ray_tune", "prefect"}
)
# a federated server's loop that ran every round (Flower): the run's end as much as an orchestrator's, but a loss that
# went NaN does not stop it (the strategy aggregates what it is sent), so it tells a failure the run got past only
# where that failure would have ended it - not a ``training_divergence``
ROUNDS_FINISH = frozenset({"flower"})


def finished_after_failure(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when, after its first failure (or first unexplained error), the job's
    orchestrator reported that the whole run succeeded (``RunFinished`` by one of ``WHOLE_RUN_FINISH``), or the
    training loop of the rank that failed said it finished (a ``RunFinished`` of the failure's rank), or a training loop
    said it finished and the job then exited with status 0 (``_exited_zero_after``), and nothing failed after that
    report: the failure was caught, retried or survived by the run (a node that retried its launch after a port clash,
    a task's error logged and handled, a checkpoint save retried after freeing space). A rank whose error was fatal
    prints nothing more of its own, least of all its training loop's last words. The last two do not hold for
    ``training_divergence``: a loop whose loss went NaN runs on to its end. A shell's report of a job ended by a signal
    does not date that end (``_undated_end_reports``): a whole-run report before it counts too. Else ``diag`` unchanged."""
    first = diag.first_failure
    if diag.verdict not in ("failure", "unknown") or first is None:
        return diag
    t_first = evidence.time_of(first) or first.time
    # a diverged run's loop runs to its end and exits 0: its numbers failed, not its processes
    ended_it = diag.root_cause not in ("training_divergence", "no_failure")
    rank = first.rank if first.rank is not None else _logged_by(evidence, first)
    # a launch that failed before any worker existed, then training: a new launch (``_trained_only_after``)
    fresh = diag.root_cause in _LAUNCH_CAUSES and _trained_only_after(evidence, first, t_first)
    reports = [
        (_point(evidence, f.event), f)
        for f in evidence.facts
        if isinstance(f, RunFinished)
        and (
            f.by in WHOLE_RUN_FINISH
            or ended_it
            and (
                f.by in ROUNDS_FINISH
                or rank is not None
                and f.event.rank == rank
                and f.by not in APP_ENDED_ONLY
                or _exited_zero_after(evidence, f)
                or _ray_driver_finished(first, f)
                or fresh
            )
        )
    ]
    # a shell's or timeout's report of the job's end does not date it (``_undated_end_reports``): a run's own word
    # that it succeeded counts before it too
    undated = _undated_end_reports(evidence)
    done = [
        (p, f)
        for p, f in reports
        if _after(p, first.path, first.end_line, t_first)
        or (first.path, first.line) in undated
        and f.by in WHOLE_RUN_FINISH | ROUNDS_FINISH
    ]
    if not done:
        return diag
    last, by = max(done, key=lambda d: (d[0][2] or datetime.min, d[0][1]))
    if any(_failed_after(evidence, e, last) for e in _failures(evidence) if (e.path, e.line) not in undated):
        return diag
    message = (
        f"The run went on after the failure at {first.path}:{first.line} ({diag.title or diag.root_cause}): "
        + (
            f'{by.by.capitalize()} reported the whole run succeeded ("{by.words}", {last[0]}:{last[1]})'
            if by.by in WHOLE_RUN_FINISH
            else f'the training loop said it finished ("{by.words}", {last[0]}:{last[1]})'
            + (f" on rank {by.event.rank}, the rank that failed," if by.event.rank == rank is not None else "")
        )
        + " and nothing failed after that. The failure was handled or retried; it cost time, not the run."
    )
    if not _after(last, first.path, first.end_line, t_first):
        message = (
            f'The run reported it succeeded ({by.by.capitalize()}: "{by.words}", {last[0]}:{last[1]}), and nothing '
            f"failed after that but the shell's report at {first.path}:{first.line} ({diag.title or diag.root_cause}), "
            "which a shell prints when it reaps the job, not when the job ended: a process the run got past losing "
            "(a federated client dropped), or one stopped after the run's end."
        )
    fix = Fix(
        summary="Nothing to fix for the run itself; the failure the run got past is listed as a symptom. If it "
        "repeats, it is worth a look: a retried step repeats its work."
    )
    return healthy_by_fact(diag, rule_id=FINISHED_RULE_ID, message=message, confidence=CONFIDENCE, fix=fix)


# causes that fail a launch before any worker runs (the store cannot bind its port, the rendezvous never completes):
# training printed after one is a later launch's, where a worker's error before the first step says nothing of that
_LAUNCH_CAUSES = frozenset({"port_in_use", "rendezvous_timeout"})


def _trained_only_after(evidence: JobEvidence, first: Event, t_first: datetime | None) -> bool:
    """Every progress line the job printed comes after its failure ``first`` (printed at ``t_first``), and there are
    some: the failure came before any process trained, and the training that followed was a new launch (a shell loop
    retrying the launcher after a port clash, a job resubmitted into the same log). A second job failing on the port
    of one already running finds that one's progress before its own failure: the holder started first."""
    printing = _printing(evidence)
    if not printing:
        return False
    for rp in printing:
        before, after = _split(rp, first, t_first)
        # ``recent`` keeps the last lines only: all of them after the failure must be all the rank printed
        if before or len(after) != rp.lines:
            return False
    return True


def _printing(evidence: JobEvidence) -> list[RankProgress]:
    """The ranks that printed progress, or, where no line names a rank, the job's unranked progress (every process's
    lines in one stream: a counter each process prints repeats)."""
    return [rp for rp in evidence.progress.values() if rp.lines] or [
        rp for rp in evidence.unranked_progress if rp.lines
    ]


def _undated_end_reports(evidence: JobEvidence) -> set[tuple[str, int]]:
    """Lines of a script's shell reporting a job it started ended by a signal ("./run.sh: line 15: 21820 Killed
    <command>"; ``ProcessExit`` by ``shell``). bash prints a background job's status when it reaps the job (at
    ``wait``, or before the next command it runs; ``jobs.c`` ``notify_of_job_status``), not when the job ended, so the
    report does not date the end. After an orchestrator's or a federated server's own word that the whole run
    succeeded (``WHOLE_RUN_FINISH``, ``ROUNDS_FINISH``), the process was one the run got past losing (a federated
    client dropped under ``accept_failures``) or one stopped after the run's end.
    Also GNU ``timeout``'s status 124 in a wrapper's report (``ProcessExit`` by ``timeout``): printed when the job
    ended, it stands for the SIGTERM ``timeout`` sent at its limit, any time before; a job that caught that signal and
    finished (TensorFlow's preemption notifier, a trainer's SIGTERM handler) still ends with status 124."""
    return {
        (f.event.path, f.event.line)
        for f in evidence.facts
        if isinstance(f, ProcessExit)
        and (f.reporter == "shell" and f.signal and " line " in f.event.text or f.reporter == "timeout")
    }


def _ray_driver_finished(first: Event, done: RunFinished) -> bool:
    """The failure is an exception a Ray worker printed (its traceback carries Ray's forwarding prefix,
    ``"(<Actor> pid=N, ip=...)"``, ``python/ray/_private/ray_logging.py``) and ``done`` is the driver's own finish line
    (no prefix). A Ray job's driver runs the training loop and waits on its actors' results (``ray.get``): an actor's
    exception that reached it raises there, so a driver that prints its loop's finish line after the actor's traceback
    got past that error (the actor caught and logged it: a reward function's failure on one sample, dropped), as much
    as a rank printing its own finish line after its error (wave BK's GRPO run on Ray)."""
    if done.by in APP_ENDED_ONLY or ray_forwarded(done.event.text) or not first.params.get("exc_type"):
        return False  # a worker's death (Ray's own report of it) is nothing a worker caught
    return ray_forwarded(first.text)


def _exited_zero_after(evidence: JobEvidence, done: RunFinished) -> bool:
    """The job exited with status 0 after the training loop's own finish line ``done``: a ``ProcessExit`` with code 0
    and no signal printed after it (a launcher's or a shell's report of the job's status), and no process of the job
    ended by a signal or a non-zero code. A launcher exits non-zero when any worker did (torchrun's
    ``ChildFailedError``, mpirun's "exited on signal"), so a status of 0 after the finish line says no worker's failure
    ended the job; a finish line alone does not (a script may print it on its way out of a failed run)."""
    at = _point(evidence, done.event)
    clean = False
    for f in evidence.facts:
        if not isinstance(f, ProcessExit):
            continue
        if f.code or f.signal:
            return False
        clean = clean or f.code == 0 and _failed_after(evidence, f.event, at)
    return clean


def _finished_after(evidence: JobEvidence, last: Event, t_last: datetime | None) -> Point | None:
    """The first of the job's per-task completion reports (``RunFinished`` by ``PER_TASK_FINISH``) after the retry
    report ``last`` (printed at ``t_last``), when there are at least as many as the job has tasks (its world size, else
    one) and each has a time; else None. As a point: ``(path, line, time, (0, 0, 0))``."""
    done = [
        f.event
        for f in evidence.facts
        if isinstance(f, RunFinished)
        and f.by in PER_TASK_FINISH
        and _after(_point(evidence, f.event), last.path, last.line, t_last)
    ]
    if not done or len(done) < (evidence.world_size or 1):
        return None
    points = [_point(evidence, e) for e in done]
    if any(p[2] is None for p in points):
        return None
    return min(points, key=lambda p: p[2] or datetime.min)


def _point(evidence: JobEvidence, e: Event) -> Point:
    """Event ``e`` as a point in the job's order: its path, line and time (no progress counter)."""
    return (e.path, e.line, evidence.time_of(e) or e.time, (0, 0, 0))


def _restart_at(after: Sequence[Point], top: tuple[int, int, int]) -> int | None:
    """Index of the first of the progress points ``after`` a failure whose counter is back at or below ``top`` (the
    furthest printed before it): where a restart or a new launch begins. None when every point is above ``top``."""
    return next((i for i, p in enumerate(after) if p[3] <= top), None)


def _launch_ended_between(evidence: JobEvidence, first: Event, start: Point) -> bool:
    """torchrun printed its failure summary ("Root Cause (first observed failure)", ``evidence.elastic_root``) after
    ``first`` and before the progress point ``start``: that launch ended for good, so the progress from ``start`` on
    comes from a new launch (``relaunched.relaunched_after_failure``), not from a restart by the launcher."""
    root = evidence.elastic_root
    if root is None or root is first:
        return False
    t_first = evidence.time_of(first) or first.time
    return _after(_point(evidence, root), first.path, first.end_line, t_first) and _after(
        start, root.path, root.end_line, evidence.time_of(root) or root.time
    )


def _split(rp: RankProgress, first: Event, t_first: datetime | None) -> tuple[list[Point], list[Point]]:
    """``rp``'s recent progress points ``(before, after)`` the failure event ``first`` (printed at ``t_first``)."""
    before: list[Point] = []
    after: list[Point] = []
    for p in rp.recent:
        (after if _after(p, first.path, first.end_line, t_first) else before).append(p)
    return before, after


def _went_forward(rp: RankProgress, e: Event, t: datetime | None) -> list[Point] | None:
    """``rp``'s progress points after event ``e`` (printed at ``t``) when the rank went on from it without a restart:
    at least ``MIN_STEPS_WENT_ON`` distinct counters, none below the one before, the first above everything printed
    before ``e``. Else None."""
    before, after = _split(rp, e, t)
    steps = [p[3] for p in after]
    # a counter printed twice in a row is no restart: an evaluation line naming the step just trained ("eval step 20 |
    # val_loss ..." after "step 20/60 | loss ..."), or, in a stream that names no rank, each process printing step 10
    if len(set(steps)) < MIN_STEPS_WENT_ON or any(b > a for b, a in zip(steps, steps[1:])):
        return None
    if before and steps[0] <= max(p[3] for p in before):
        return None
    return after


def _relaunched(evidence: JobEvidence, first: Event, start: Point) -> bool:
    """The job was launched again between its failure ``first`` and the progress line ``start``: a launcher stopped
    the job's remaining processes in between (a ``SignalFact`` sent by the launcher: Open MPI's mpirun after a process
    exited non-zero, "Per user-direction, the job has been aborted", then SIGTERM to the rest), so progress after it
    comes from a new launch (a retry loop around the launcher), and the script said its training finished after
    ``start`` (``RunFinished``)."""
    t_first = evidence.time_of(first) or first.time
    stopped = any(
        isinstance(f, SignalFact)
        and f.sender == "launcher"
        and _after(_point(evidence, f.event), first.path, first.line, t_first)
        and _after(start, f.event.path, f.event.line, evidence.time_of(f.event) or f.event.time)
        for f in evidence.facts
    )
    return stopped and any(
        isinstance(f, RunFinished) and _failed_after(evidence, f.event, start) for f in evidence.facts
    )


def _elastic_restarted(evidence: JobEvidence) -> bool:
    """torchrun restarted its workers: it reported a worker's failure ("failed (exitcode: 1) local_rank: 0 (pid: N)")
    and printed no failure summary ("Root Cause (first observed failure)"). Its agent prints that summary and raises
    ``ChildFailedError`` as soon as a failure is final (``torch/distributed/run.py`` ``elastic_launch``); with
    ``--max-restarts`` left it restarts the whole worker group instead, which it logs at INFO only
    (``torch/distributed/elastic/agent/server/api.py`` ``_invoke_run``: "... attempts left; will restart worker group")."""
    if evidence.elastic_root is not None:
        return False
    return any(isinstance(f, ProcessExit) and f.reporter == "torchrun" and f.code for f in evidence.facts)


def _failures(evidence: JobEvidence) -> list[Event]:
    """Events that say something failed: rule matches, unexplained errors, failure facts; not what a file printed from
    its teardown signal on (``reason.teardown_from``: the job's processes being stopped after its work was done), nor
    Ray's deduplication summaries ("... [repeated 3x across cluster]", ``ray/_private/ray_logging``
    ``LogDeduplicator``): such a line restates lines printed before it, within the deduplicator's window (5 s by
    default, ``RAY_DEDUP_LOGS_AGG_WINDOW_S``), and is flushed when the window ends, after whatever came meanwhile (a
    retried worker group's start), so its place in the log is not its time."""
    out = [m.event for m in evidence.matches]
    out.extend(evidence.unexplained)
    out.extend(
        f.event
        for f in evidence.facts
        if isinstance(f, _FAILED) and not (isinstance(f, ProcessExit) and f.code == 0 and not f.signal)
    )
    out = [e for e in out if not e.params.get("repeated")]
    stop = teardown_from(evidence.facts)
    return [e for e in out if e.line < stop.get(e.path, e.line + 1)] if stop else out


def _failed_after(evidence: JobEvidence, e: Event, point: Point) -> bool:
    """``e`` printed after the resumed progress line ``point``."""
    return _after(_point(evidence, e), point[0], point[1], point[2])


def _after(p: Point, path: str, line: int, t: datetime | None) -> bool:
    """Progress point (or event) ``p`` printed after ``path:line`` (time ``t``): by line in one file, else by time (a
    year-less clock compared by date and time of day)."""
    if p[0] == path:
        return p[1] > line
    both = one_clock(p[2], t)
    return both is not None and both[0] > both[1]


ERRORS_RULE_ID = "went-on-after-errors"


def went_on_after_errors(evidence: JobEvidence, diag: Diagnosis, matches: Sequence[Match] | None = None) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when it abstained only because of error lines no rule explains, and the job
    went on after all of them: no rule matched (``matches``: those left after the rules' context and ``tail_lines``
    position, ``RuleSet.finalize``; a line a rule dropped there, such as Lightning's "Initializing distributed" at the
    top of a log rather than at its end, is no match; default ``evidence.matches``, every raw match); the job holds no
    failure fact (an uncaught exception, a failed or signalled process exit, a signal, a scheduler verdict) - a caught
    exception a library logged with its traceback (``uncaught`` is False) is one more error to go past; and every
    stream that prints progress printed at least ``MIN_STEPS_WENT_ON`` distinct progress counters after each error,
    never going back and above everything it printed before the error (no restart), the rank an error names among
    them unless the script said its training finished (``RunFinished``) after every error - or, instead of those
    counts, that word of the script alone (also where nothing prints progress lines, as HF Trainer's log dicts are
    not, when no error names a rank).
    A library's error-level line at start-up that its process survives (TensorFlow's "failed call to cuInit" on a host
    without a GPU, an absl/glog ``E`` line about an optional plugin) then reads as what it was: the job trained on.
    Else ``diag`` unchanged (a process that stopped after its error leaves its peers blocked at the next collective:
    they cannot print that many steps)."""
    if matches is None:
        matches = evidence.matches
    if diag.verdict != "unknown" or diag.method != "none" or not evidence.unexplained or matches:
        return diag
    errors = list(evidence.unexplained)
    for f in evidence.facts:
        if isinstance(f, ExceptionFact) and not uncaught(f):
            errors.append(f.event)  # caught and reported (a library's logged traceback): the job must go on past it
        elif isinstance(f, _FAILED) and not (isinstance(f, ProcessExit) and f.code == 0 and not f.signal):
            return diag
    ranked = [rp for rp in evidence.progress.values() if rp.lines]
    printing = ranked or [rp for rp in evidence.unranked_progress if rp.lines]
    named = {e.rank for e in errors if e.rank is not None}
    # the script's own word that training finished, after every error (``RunFinished``): the job went on to its end,
    # however few progress lines are left to show it (Ray's log deduplication folds most of them)
    points = [_point(evidence, e) for e in errors]
    finished = next(
        (
            f
            for f in evidence.facts
            if isinstance(f, RunFinished) and all(_after(_point(evidence, f.event), *p[:3]) for p in points)
        ),
        None,
    )
    if ranked and not named <= {rp.rank for rp in ranked} and finished is None:
        # a rank that printed an error printed no progress: nothing shows that it went on (with the script's word that
        # training finished after it, the ranks that print progress stand for it: each step of a data-parallel job
        # waits for every rank's gradients)
        return diag
    if not printing and (finished is None or named):
        # no progress lines (HF Trainer's log dicts name no step): the script's own word that it finished after every
        # error stands for them, where no error names a rank that could have stopped alone
        return diag
    went: list[tuple[RankProgress, tuple[int, int, int]]] = []
    for rp in printing:
        # unranked lines interleave the processes' own (each prints step 10): a counter may repeat, not go back
        if finished is None and any(_went_forward(rp, e, evidence.time_of(e) or e.time) is None for e in errors):
            return diag
        went.append((rp, max(p[3] for p in rp.recent)))
    how = "; ".join(f"{_who(rp)} went on to {_fmt(top)}" for rp, top in sorted(went, key=lambda w: w[0].rank)[:4])
    if finished is not None:
        said = f'the run said it finished ("{finished.words}", {finished.event.path}:{finished.event.line})'
        how = f"{how}, and {said}" if how else said
    n = len(evidence.unexplained)
    message = (
        f"{n} error line{'s' if n > 1 else ''} no rule explains (first at {evidence.unexplained[0].path}:"
        f"{evidence.unexplained[0].line}), and the job went on after them: {how}, with no failure anywhere in the job."
    )
    fix = Fix(
        summary="Nothing to fix for the run itself; the error lines are listed as symptoms (a feature they name, such "
        "as a GPU or a plugin, was not used)."
    )
    healthy = healthy_by_fact(diag, rule_id=ERRORS_RULE_ID, message=message, confidence=CONFIDENCE, fix=fix)
    return dataclasses.replace(healthy, unexplained=())


CLEAN_RULE_ID = "all-exited-cleanly"
MIN_CLEAN_EXITS = 2  # a launcher's reports of processes that exited with status 0
# answers that every process exiting 0 contradicts: a printed exception (``worker_exception``, or ``unknown`` from
# error lines), and a peer lost or waited for (``peer_process_died``, ``collective_timeout``) - a process whose peer
# really died or never answered fails its collective and exits non-zero; one that logged the loss and exited 0 saw a
# peer that had finished first (TensorFlow's coordination service reporting a worker that exited before the chief as
# "stopped sending heartbeats", wave BB's real run)
_CLEAN_EXIT_CONTRADICTS = frozenset({"worker_exception", "unknown", "peer_process_died", "collective_timeout"})


def all_exited_cleanly(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when it rests on a printed exception (``worker_exception``, or ``unknown``
    from error lines) or on a lost or awaited peer (``peer_process_died``, ``collective_timeout``) while the job's
    launcher reports every process it started exiting with status 0
    (``ProcessExit`` code 0, at least ``MIN_CLEAN_EXITS``, after the last exception), and nothing in the job ended by a
    signal or non-zero code, was stopped by a signal, or was cancelled by a scheduler.

    An uncaught exception in a Python process's main thread ends it with status 1 (``Py_RunMain`` -> ``Py_Exit(1)``,
    https://docs.python.org/3/library/sys.html#sys.exit); a process that exits 0 caught its exception or raised it in
    another thread (a library's background process or thread at shutdown: Hivemind's DHT process reporting its closed
    pipe, a multiprocessing manager's connection after the main process finished). The job's own status says it did
    its work. Else ``diag`` unchanged."""
    if diag.root_cause not in _CLEAN_EXIT_CONTRADICTS:
        return diag
    clean = [f for f in evidence.facts if isinstance(f, ProcessExit) and f.code == 0 and not f.signal]
    if len(clean) < MIN_CLEAN_EXITS:
        return diag
    last_clean = max(clean, key=lambda f: (f.event.path, f.event.line))

    def teardown(f: Fact) -> bool:
        # a stop signal printed after every process had exited: the script stopping a service it started (a
        # bootstrap peer, a scheduler) once its workers were done
        return (
            (isinstance(f, SignalFact) or isinstance(f, ProcessExit) and f.signal in ("SIGTERM", "SIGINT", "SIGHUP"))
            and f.event.path == last_clean.event.path
            and f.event.line > last_clean.event.line
        )

    if any(
        (isinstance(f, (SchedulerVerdict, SignalFact)) or isinstance(f, ProcessExit) and (f.signal or f.code))
        and not teardown(f)
        for f in evidence.facts
    ):
        return diag
    first_clean = min(clean, key=lambda f: (f.event.path, f.event.line))
    exceptions = [f for f in evidence.facts if isinstance(f, ExceptionFact)]
    if any(f.event.path == first_clean.event.path and f.event.line > first_clean.event.line for f in exceptions):
        return diag  # an exception printed after a process had already ended: the others' end is not in sight
    n = len(clean)
    why = (
        "the peer reported lost had finished and exited first"
        if diag.root_cause in ("peer_process_died", "collective_timeout")
        else f"the exception{'s' if len(exceptions) != 1 else ''} printed before were caught, or raised outside a "
        "main thread (a library's background process at shutdown)"
    )
    message = (
        f"Every process the launcher reported exited with status 0 ({n} reports, first at {first_clean.event.path}:"
        f"{first_clean.event.line}), and nothing ended by a signal or a non-zero code: {why}. The job did its work."
    )
    fix = Fix(
        summary="Nothing to fix for the run itself; the exceptions are listed as symptoms. A background process's "
        "traceback at shutdown is worth reporting to that library if it repeats."
    )
    healthy = healthy_by_fact(diag, rule_id=CLEAN_RULE_ID, message=message, confidence=0.7, fix=fix)
    return dataclasses.replace(healthy, unexplained=())


SIGNAL_WENT_ON_RULE_ID = "went-on-after-signal"
# answers read from a stop signal a process received (not from a process it ended)
_SIGNAL_ANSWERS = frozenset({"job_preempted", "terminal_hangup"})


def went_on_after_signal(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``no_failure`` when it rests on a stop signal the job's processes received
    (``job_preempted``/``terminal_hangup``: "SIGTERM caught", "Received 15 death signal") that ended nothing: every
    rank that prints progress printed at least ``MIN_STEPS_WENT_ON`` progress lines after it, going forward with no
    restart, every process the launcher reported exited with status 0 (``ProcessExit`` code 0, at least
    ``MIN_CLEAN_EXITS``; none by a signal or a non-zero code), no scheduler verdict was printed, and nothing failed
    after the ranks went on.

    A handler that caught the signal and let training go on (TensorFlow's preemption notifier,
    ``tsl/platform/preemption_notifier.cc``, logs "SIGTERM caught" and only a ``PreemptionCheckpointHandler`` acts on
    it; wave BB's run under ``timeout 30`` trained all 12 epochs and both workers exited 0) did not preempt the run;
    a graceful preemption saves within a step or two and exits, so its ranks cannot print that many more steps. The
    wrapper that sent the signal may still report a failure (``timeout``'s 124), which the fix says. Else ``diag``
    unchanged."""
    first = diag.first_failure
    if diag.root_cause not in _SIGNAL_ANSWERS or first is None:
        return diag
    # ``timeout``'s own status (124) stands for the very signal the ranks went on from, sent at its limit
    waited = {id(f.event) for f in evidence.facts if isinstance(f, ProcessExit) and f.reporter == "timeout"}
    exits = [f for f in evidence.facts if isinstance(f, ProcessExit) and id(f.event) not in waited]
    if len(exits) < MIN_CLEAN_EXITS or any(f.code or f.signal for f in exits):
        return diag
    if any(isinstance(f, SchedulerVerdict) for f in evidence.facts):
        return diag
    printing = _printing(evidence)
    if not printing:
        return diag
    # the signal's own lines and timeout's status are the stop the ranks went on from, not failures after it
    passed = waited | {id(f.event) for f in evidence.facts if isinstance(f, SignalFact)}
    failures = [e for e in _failures(evidence) if id(e) not in passed and e is not first]
    how = _all_went_on(evidence, printing, first, failures)
    if how is None:
        return diag
    message = (
        f"The processes received the signal at {first.path}:{first.line} ({diag.title or diag.root_cause}) and went "
        f"on: {how}, and every process the launcher reported exited with status 0 ({len(exits)} reports). The signal "
        "was caught and ended nothing."
    )
    fix = Fix(
        summary="Nothing to fix for the run itself. Whatever sent the signal (a time limit such as `timeout`, a "
        "scheduler's warning) may still count the job as failed (`timeout` exits 124); if the signal was meant to stop "
        "the run, the framework's handler only logged it (TensorFlow acts on it only under a "
        "`PreemptionCheckpointHandler`)."
    )
    return healthy_by_fact(diag, rule_id=SIGNAL_WENT_ON_RULE_ID, message=message, confidence=CONFIDENCE, fix=fix)
