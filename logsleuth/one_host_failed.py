"""Every rank of one host failed at start-up in library code the other hosts ran too: ``library_version_mismatch``.

A multi-node job runs one script on every host. When all the ranks of one host stop at the same statement of that
script with the same ``TypeError``/``AttributeError`` raised inside a module imported from outside the script's own
directory, and no rank of another host fails there, the code is the same and only the host differs: that host imports
another release of the library (an older copy on its ``PYTHONPATH``, a second venv, an image built on another day).
``TypeError``/``AttributeError`` are how Python reports a call or attribute the loaded code does not have (Python's
"Built-in Exceptions"). Wave BX's
run (ruamel.yaml 0.19 on one node: ``'Loader' object has no attribute 'max_depth'`` inside hyperpyyaml) and wave BY's
(an old Lhotse on one node's ``PYTHONPATH``: ``object.__init__() takes exactly one argument``) are this shape.

Guards against a rank-dependent bug: at least two ranks on the failing host, every one of them failing identically
(code run by ``rank == 0`` alone, or by one rank's data, is not a whole host), a rank known elsewhere that did not fail
so, and no progress line printed by anyone (start-up, where every rank runs the same statements).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact, ProcessExit
from .types import Diagnosis, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "one-host-failed-in-library"
CONFIDENCE = 0.75
# answers a host's other release explains: its ranks' own error, or the other hosts losing them
_ANSWERS = frozenset({"worker_exception", "peer_process_died", "collective_timeout", "unknown"})
_API_ERRORS = frozenset({"TypeError", "AttributeError"})
# the interpreter's own modules (``random.py`` seeding with a tuple raises for the caller that passed it)
_STDLIB = re.compile(r"^<frozen |/lib/python3\.\d+/(?!(?:site|dist)-packages/)")


def _frames(f: ExceptionFact) -> list[tuple[str, int]]:
    out = []
    for fr in f.event.params.get("frames") or ():
        path, line = fr.get("file"), fr.get("line")
        if isinstance(path, str) and isinstance(line, int):
            out.append((path.replace("\\", "/"), line))
    return out


def _host_of(evidence: JobEvidence, rank: int | None) -> str | None:
    act = evidence.ranks.get(rank) if rank is not None else None
    return next(iter(act.hosts)) if act is not None and len(act.hosts) == 1 else None


def one_host_failed(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` answered ``library_version_mismatch`` when every rank of one host (two or more) raised the same
    ``TypeError``/``AttributeError`` inside an imported module at one statement of the entry script, before any
    progress, and another host's rank did not (module docstring); else ``diag`` unchanged."""
    if diag.root_cause not in _ANSWERS or diag.verdict not in ("failure", "unknown"):
        return diag
    if any(p.lines for p in evidence.progress.values()) or any(p.lines for p in evidence.unranked_progress):
        return diag
    first: ExceptionFact | None = None
    entry: tuple[str, int] = ("", 0)
    module_path = ""
    same: list[ExceptionFact] = []
    for f in evidence.facts:
        # a None where an object was expected is the host's data or configuration (a file missing there), not code
        if not isinstance(f, ExceptionFact) or f.module or f.type not in _API_ERRORS or "NoneType" in f.message:
            continue
        frames = _frames(f)
        if len(frames) < 2:
            continue
        # raised below the entry script, in a module it imported from outside the script's own directory (the job's
        # own package is the same code on every host: its error is the user's bug)
        script_dir = frames[0][0].rpartition("/")[0] + "/"
        raiser = next((p for p, _ in reversed(frames) if not _STDLIB.search(p)), frames[0][0])
        if raiser.startswith(script_dir):
            continue
        if first is None:
            first, entry, module_path = f, frames[0], raiser
        if (f.type, f.message, f.innermost, frames[0]) == (first.type, first.message, first.innermost, entry):
            same.append(f)
    if first is None or len(same) < 2:
        return diag
    hosts = {_host_of(evidence, f.event.rank) for f in same if f.event.rank is not None}
    if not hosts:  # unranked tracebacks: the launcher's own failure reports say where
        hosts = {
            _host_of(evidence, f.event.rank) or f.event.host
            for f in evidence.facts
            if isinstance(f, ProcessExit) and f.signal is None and f.code and f.code > 0 and f.event.rank is not None
        }
    if len(hosts) != 1 or None in hosts:
        return diag
    host = next(iter(hosts))
    on_host = {r for r, act in evidence.ranks.items() if act.hosts == frozenset({host})}
    ranked = {f.event.rank for f in same if f.event.rank is not None}
    if len(on_host) < 2 or len(same) < len(on_host) or (ranked and ranked != on_host):
        return diag
    # a rank elsewhere: rank 0 always exists, else one the log names or the world size implies
    world = max(evidence.world_size or 0, max(evidence.ranks, default=-1) + 1)
    if 0 in on_host and world <= len(on_host) and not set(evidence.ranks) - on_host:
        return diag
    script, line = entry
    ranks = ", ".join(map(str, sorted(on_host)))
    message = (
        f"Every rank on {host} (ranks {ranks}) failed at start-up with the same {first.type} raised inside "
        f"{module_path}, called from {script} line {line}; no rank on another host failed there. The same script "
        "failed on one host only, so that host loads different code: another release of the library."
    )
    fix = Fix(
        summary=f"Make {host} run the same library release as the other hosts.",
        steps=(
            f"On {host} and on a host that works, compare where the module comes from and its version: "
            f"`python -c 'import <package>; print(<package>.__version__, <package>.__file__)'` for the package of "
            f"{module_path}, in the job's own environment (PYTHONPATH, venv, container image).",
            "Remove the stray copy (an older wheel on PYTHONPATH, a second venv) or rebuild that host's image from the "
            "same pinned requirements, then relaunch every node.",
        ),
    )
    match = Match(RULE_ID, "library_version_mismatch", "cause", first.event, severity="high", confidence=CONFIDENCE)
    title = f"Only {host} failed, in library code every host runs: a different library release there"
    return decided_by_fact(diag, match, title=title, message=message, fix=fix)
