"""Ranks that timed out waiting in *different* data collectives: ``collective_mismatch``, not a slow or dead peer.

When every rank of a job reaches the same collective, a timeout means someone was slow or gone. When the ranks'
own timeout tracebacks end in different collective functions of ``torch/distributed/distributed_c10d.py`` - rank 0
in ``all_reduce``, ranks 1 and 2 in ``all_to_all_single`` - they took different code paths: one rank skipped or added a
collective (a branch on local data, a collective issued only by some ranks in backward), so each waits for a call the
others never make. Flight Recorder dumps show the same from the collectives' sequence numbers (``hang.py``); this reads
it from the tracebacks the timeouts print, which every torch version has.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact
from .types import Diagnosis, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "ranks-in-different-collectives"
CONFIDENCE = 0.8
# the process-group collectives of ``torch/distributed/distributed_c10d.py`` a rank can block in
COLLECTIVES = frozenset(
    {
        "all_reduce", "all_gather", "all_gather_into_tensor", "all_gather_object", "reduce_scatter",
        "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "broadcast", "broadcast_object_list", "barrier",
        "monitored_barrier", "reduce", "gather", "gather_object", "scatter", "scatter_object_list", "send", "recv",
        "batch_isend_irecv",
    }
)  # fmt: skip
_BARRIERS = frozenset({"barrier", "monitored_barrier"})
_C10D_FRAME = re.compile(r"distributed_c10d\.py:\d+ in (?P<fn>\w+)$")


def ranks_in_different_collectives(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` (a ``collective_timeout``) turned into ``collective_mismatch`` when at least two ranks' exceptions have
    their innermost frame in different ``distributed_c10d`` data collectives (barriers left out: a rank waiting there
    got ahead by uneven work); else ``diag`` unchanged."""
    if diag.root_cause != "collective_timeout":
        return diag
    where: dict[int, tuple[str, ExceptionFact]] = {}
    for f in evidence.facts:
        if isinstance(f, ExceptionFact) and f.event.rank is not None and f.innermost:
            m = _C10D_FRAME.search(f.innermost)
            if m and m["fn"] in COLLECTIVES and f.event.rank not in where:
                where[f.event.rank] = (m["fn"], f)
    # a rank waiting in a barrier got ahead of the others (uneven work, a step more or less: ``collective_timeout`` by
    # the taxonomy's own words); two different data collectives are different code paths
    if len(where) < 2 or len({fn for fn, _ in where.values() if fn not in _BARRIERS}) < 2:
        return diag
    groups: dict[str, list[int]] = {}
    for rank, (fn, _) in sorted(where.items()):
        groups.setdefault(fn, []).append(rank)
    said = "; ".join(f"rank{'s' if len(r) > 1 else ''} {', '.join(map(str, r))} in {fn}" for fn, r in groups.items())
    first = min((f for _, f in where.values()), key=lambda f: (f.event.path, f.event.line))
    message = (
        f"The ranks timed out waiting in different collectives ({said}): they took different code paths, so each "
        "waits for a collective the others never call."
    )
    ev = Match(RULE_ID, "collective_mismatch", "cause", first.event, severity="high", confidence=CONFIDENCE)
    fix = Fix(
        summary="Every rank must issue the same collectives in the same order; here they did not.",
        steps=(
            "Find the branch that differs per rank before the first collective named above: a condition on local "
            "data (an empty batch, no tokens routed to a rank's experts, an early exit), a collective inside "
            "`if rank == 0`, or a tensor that takes part in backward on some ranks only.",
            "Make every rank take the collective path (pass empty tensors instead of skipping; compute the condition "
            "with an all_reduce so all ranks agree).",
            "`TORCH_DISTRIBUTED_DEBUG=DETAIL` checks collective fingerprints across ranks and names the mismatch; "
            "Flight Recorder (`TORCH_NCCL_TRACE_BUFFER_SIZE`) dumps each rank's collective sequence.",
        ),
        references=(
            "https://pytorch.org/docs/stable/distributed.html#torch-distributed-debug",
            "https://github.com/pytorch/pytorch/blob/main/torch/distributed/distributed_c10d.py",
        ),
    )
    return decided_by_fact(diag, ev, title="The ranks waited in different collectives", message=message, fix=fix)
