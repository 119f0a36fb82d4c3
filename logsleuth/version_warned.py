"""A job that failed with no cause in sight after a library said its versions do not fit: ``library_version_mismatch``.

Libraries with compiled parts check, while loading, that they were built for the torch/NumPy beside them, and say so
when they were not (``factlayer.kinds.VersionWarning``: torchao's "Skipping import of cpp extensions due to
incompatible torch version ...", xFormers' "can't load C++/CUDA extensions. xFormers was built for ...", NumPy 2's "A
module that was compiled using NumPy 1.x cannot be run in NumPy 2.x"). Healthy jobs print these too when the skipped
part is not used, so the warning alone decides nothing; but when the job then fails and no rule or model can name
why (``unknown``), the broken install is the one fact on record (areal-project/AReaL#979: SGLang servers that never
came up after torchao's warning, fixed by pinning torchao).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagnose import decided_by_fact
from .factlayer.kinds import VersionWarning
from .types import Diagnosis, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "version-warned-before-failure"
CONFIDENCE = 0.6


def version_warned_before_failure(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``library_version_mismatch`` when it is ``unknown`` (the job failed, nothing named why) and
    a library warned of incompatible versions before the first failure; else ``diag`` unchanged."""
    if diag.root_cause != "unknown" or diag.verdict == "no_failure":
        return diag
    first = diag.first_failure
    warned = [
        f
        for f in evidence.facts
        if isinstance(f, VersionWarning) and (first is None or f.event.path != first.path or f.event.line <= first.line)
    ]
    if not warned:
        return diag
    w = warned[0]
    message = (
        f"{w.library} said at line {w.event.line} that the versions installed beside it do not fit "
        f'("{w.words}"), and the job then failed with no other cause in the log.'
    )
    ev = Match(RULE_ID, "library_version_mismatch", "cause", w.event, severity="medium", confidence=CONFIDENCE)
    fix = Fix(
        summary=f"{w.library} was installed for other versions than the ones it runs with; the failure that followed "
        "is most likely that mismatch (its compiled part skipped or broken).",
        steps=(
            f"Install the {w.library} release built for the installed torch/NumPy (its release notes give the pairs), "
            "or pin the versions the framework's requirements name; `pip check` lists the conflicts pip knows.",
            "Rebuild the environment from the framework's own image or lock file rather than upgrading one package.",
        ),
        references=("https://github.com/pytorch/ao/issues/2919", "https://github.com/areal-project/AReaL/issues/979"),
    )
    title = "A library warned that its installed versions do not fit, then the job failed"
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)
