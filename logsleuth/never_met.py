"""A wait for the job's members that ran out before any of them trained a step: the members never all met.

A process that times out waiting for a *membership* round - torch's rendezvous (``torch/distributed/rendezvous.py``,
``elastic/rendezvous``), torchft's quorum (``torchft/manager.py`` ``Manager.wait_quorum`` -> ``_async_quorum``, which
asks the lighthouse for a quorum of ``min_replica_size`` replica groups: "Quorum status: New quorum not ready, only have
1 participants, need min_replicas 2") - waited for processes that had not joined. Before the job's first training step
that is a start-up failure: a member never started, started late, or could not reach the coordinator
(``rendezvous_timeout``), not a collective of a running job that stalled. Mid-run the same wait is the symptom of a
member that died or stopped, and is left to the rest of the diagnosis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import regex

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact
from .parse.timestamps import one_clock
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "membership-never-formed"
CONFIDENCE = 0.8
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
    first = diag.evidence[0].event
    fact = next(
        (f for f in evidence.facts if isinstance(f, ExceptionFact) and f.event is first and f.family == _TIMEOUT), None
    )
    if fact is None:
        return diag
    waits = [fr for fr in first.params.get("frames") or [] if _MEMBERSHIP_WAIT.search(str(fr.get("func", "")))]
    if not waits or _trained_before(evidence, first):
        return diag
    where = f"{waits[-1].get('file', '')}:{waits[-1].get('line', '')} in {waits[-1].get('func', '')}"
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
