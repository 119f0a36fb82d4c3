"""A rank that lost its peer in a collective while the launcher says no other process failed: ``collective_mismatch``.

``torch.multiprocessing.spawn``'s ``ProcessContext.join`` (``torch/multiprocessing/spawn.py``) waits for its processes
in turn and raises ``ProcessRaisedException`` ("-- Process N terminated with the following error:" and that process's
traceback) for the first one that exits non-zero; a process that ends with exit code 0 raises nothing. So when the one
failure it reports is a process whose collective lost its peer ("Connection closed by peer", "Connection reset by
peer", NCCL's "remote process exited"), the peer had already left *cleanly*: that process ran a collective the others
never issued - work guarded by ``if rank == 0`` that calls a collective (a final ``trainer.evaluate()``, a metric
gather, a barrier), or ranks that ran a different number of steps. Nothing failed first; the ranks disagreed on the
sequence of collectives.

Only when nothing else failed: no process ended by a signal, and every exception of the job is that lost peer or a
launcher's wrapper of it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import regex

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact, ProcessExit, RunFinished, TrainingStarted
from .parse.timestamps import one_clock
from .shutdown_hang import agent_teardown
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "peer-left-cleanly"
CONFIDENCE = 0.7
_SPAWN = regex.compile(r"-- Process (?P<n>\d+) terminated with the following error:")
# a peer that closed its end (it exited); a timeout is left out: a peer still alive but stuck times a collective out
_LOST_PEER = regex.compile(
    r"Connection closed by (?:remote )?peer|Connection reset by peer|Broken pipe|remote process exited"
    r"|(?i:peer.{0,40}(?:closed|disconnected))"
)
_WRAPPERS = ("ProcessRaisedException", "ChildFailedError", "SignalException")
QUIET = frozenset({"worker_exception", "peer_process_died", "unknown"})


def _wrapper(f: ExceptionFact) -> bool:
    return f.type.rsplit(".", 1)[-1] in _WRAPPERS


def peer_left_cleanly(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``collective_mismatch`` when ``mp.spawn``'s only reported failure is a process whose error
    is a lost peer, and nothing else in the job failed (module docstring); else ``diag`` unchanged."""
    if diag.root_cause not in QUIET:
        return diag
    events = (
        *(m.event for m in evidence.matches),
        *(f.event for f in evidence.facts),
        *evidence.unexplained,
        *evidence.notable,
        *evidence.tail,
    )
    found = next(
        ((e, m) for e in events if "terminated with the following error" in e.text and (m := _SPAWN.search(e.text))),
        None,
    )
    if found is None:
        return diag
    spawn, m = found
    # the reported process's own error: the last exception line after the report (in this event or the next ones)
    inner = next(
        (
            f.message
            for f in evidence.facts
            if isinstance(f, ExceptionFact)
            and not _wrapper(f)
            and f.event.path == spawn.path
            and f.event.end_line >= spawn.line
        ),
        "",
    )
    if not _LOST_PEER.search(inner):
        return diag
    for f in evidence.facts:
        if isinstance(f, ProcessExit) and f.signal:
            return diag
        if isinstance(f, ExceptionFact) and not _wrapper(f) and not _LOST_PEER.search(f.message):
            return diag
    who = f"process {m['n']}"
    message = (
        f"mp.spawn reports one failure: {who}, whose collective lost its peer ({inner.strip()[:160]}). mp.spawn "
        "raises for the first process that exits non-zero, so the other processes had exited cleanly: this one ran a "
        "collective they never issued (work under `if rank == 0` that gathers or waits, or a different number of "
        "steps)."
    )
    ev = Match(RULE_ID, "collective_mismatch", "cause", spawn, severity="high", confidence=CONFIDENCE)
    fix = Fix(
        summary="A collective ran on some ranks only: the others had finished and exited, so its peers were gone.",
        steps=(
            f"Find the collective in {who}'s traceback (its innermost torch.distributed call) and the code path that "
            "reaches it on one rank only: evaluation, metric gathering or saving under `if rank == 0`.",
            "Run that step on every rank (Hugging Face `Trainer.evaluate()` and accelerate's `gather_for_metrics` are "
            "collectives), or keep the other ranks in the job (a `barrier()` after it) until it is done.",
            "Check that every rank runs the same number of steps (same data length, `drop_last`).",
        ),
        references=(
            "https://github.com/pytorch/pytorch/blob/main/torch/multiprocessing/spawn.py",
            "https://pytorch.org/docs/stable/distributed.html#collective-functions",
        ),
    )
    title = "A collective ran on some ranks only (the others had exited cleanly)"
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)


def _precedes(evidence: JobEvidence, a: Event, b: Event) -> bool:
    """``a`` was printed before ``b``: in file order within one file, by the clock across files."""
    if a.path == b.path:
        return a.end_line < b.line
    both = one_clock(evidence.time_of(a) or a.time, evidence.time_of(b) or b.time)
    return both is not None and both[0] < both[1]


AFTER_FINISH_RULE_ID = "collective-after-finish"
AFTER_FINISH_CONFIDENCE = 0.6
# answers that say a collective failed for want of a peer: a timeout waiting for it, or its connection gone
WAITING = frozenset({"collective_timeout", "peer_process_died"})


def collective_after_finish(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``collective_mismatch`` when a collective timed out or lost its peer after a training loop
    said it had finished (``RunFinished``), and nothing failed before that line.

    A loop that finished left the collectives of training behind; a collective that still waits afterwards was issued
    by some ranks only - a final evaluation, metric gather, save or barrier under ``if rank == 0``, or the other
    ranks still training because their loop runs longer (early stopping decided on each rank's own validation data,
    uneven shards without ``drop_last``: PyTorch's ``Join`` context manager exists for this,
    https://pytorch.org/tutorials/advanced/generic_join.html). The ranks that finished exit or wait at teardown; the
    one left in the collective times out (NCCL's watchdog, gloo's timeout) or sees its peer's connection close. A
    launcher's own "every worker succeeded" (torchelastic's ``WorkerState.SUCCEEDED``) is not a loop's finish: what
    comes after it is the job's teardown (``shutdown_hang``). Else ``diag`` unchanged."""
    first = diag.first_failure
    if diag.root_cause not in WAITING or first is None:
        return diag
    if agent_teardown(evidence, first) is not None:
        return diag  # the agent's own store wait at teardown, not a collective (``shutdown_hang``)

    def before(e: Event) -> bool:
        return _precedes(evidence, e, first)

    done: RunFinished | None = None
    for f in evidence.facts:
        if isinstance(f, RunFinished) and f.by != "torchelastic" and before(f.event):
            done = done or f
        elif (
            isinstance(f, TrainingStarted)
            and done is not None
            and before(f.event)
            and _precedes(evidence, done.event, f.event)
        ):
            # training started again after the finish and before the failure: the finish was one phase's (an
            # experience of a continual-learning loop, a cross-validation fold), and the failure is in training
            done = None
    if done is None:
        return diag
    for f in evidence.facts:
        failed = isinstance(f, ExceptionFact) or (isinstance(f, ProcessExit) and (f.signal or f.code))
        if failed and before(f.event) and (f.event.path, f.event.line) < (done.event.path, done.event.line):
            return diag  # something failed before the loop's finish: that failure is the story
    who = f"rank {done.rank}" if done.rank is not None else "the training loop"
    message = (
        f'{who} said it finished ({done.event.path}:{done.event.line}: "{done.words}") before the collective at '
        f"{first.path}:{first.line} {'timed out' if diag.root_cause == 'collective_timeout' else 'lost its peer'}, "
        "with nothing failed before: after the loop, some ranks issued a collective the others never did (work under "
        "`if rank == 0` that gathers, saves or waits in a barrier), or the ranks ran different numbers of steps."
    )
    ev = Match(
        AFTER_FINISH_RULE_ID, "collective_mismatch", "cause", first, severity="high", confidence=AFTER_FINISH_CONFIDENCE
    )
    fix = Fix(
        summary="A collective ran on some ranks only, after the training loop had finished on others.",
        steps=(
            "Find what runs after the loop on some ranks only: evaluation, metric gathering, checkpoint saving or a "
            "barrier under `if rank == 0` (or `is_main_process`); run its collectives on every rank, or none.",
            "Make every rank run the same number of steps: early stopping decided on one rank must be broadcast to "
            "all; equal shards (`DistributedSampler(drop_last=True)`), or PyTorch's `Join` context manager for uneven "
            "inputs.",
        ),
        references=("https://pytorch.org/tutorials/advanced/generic_join.html",),
    )
    title = "A collective ran on some ranks only (after the training loop finished)"
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)
