"""One package, two installs: the job's processes ran different versions of a library (``library_version_mismatch``).

A multi-node job whose hosts do not share one environment (a node with an older wheel on its ``PYTHONPATH``, a second
venv, an image built on another day) runs each rank's copy of a library from wherever that host installed it. When
two processes' tracebacks show the same module file of one package (the path below ``site-packages``/
``dist-packages``, found again at the end of the other path) under two different install roots, and the same function
of that file at different line numbers, the two copies are different code: two releases of the library. Their ranks
then disagree in ways each release alone never does (fairscale 0.3 and 0.4 bucket ShardedDDP's gradients differently,
so gloo refuses a message of the wrong size: wave BU's run), and what the log shows loudest - a collective mismatch, a
lost peer, a timeout - is the symptom.

Only where the answer is such a symptom (``_SYMPTOMS``); an exception the skew does not explain keeps its answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from .diagnose import decided_by_fact
from .factlayer.kinds import ExceptionFact
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "package-installed-twice"
CONFIDENCE = 0.8
# answers a version skew between ranks explains: the ranks disagreeing on what to exchange, or waiting on each other
_SYMPTOMS = frozenset({"collective_mismatch", "peer_process_died", "collective_timeout", "unknown"})
_MARKERS = ("site-packages/", "dist-packages/")

Frame = tuple[str, str, int, Event]  # (install root, function, line, the traceback's event)


def _frames(evidence: JobEvidence) -> Iterator[tuple[str, str, int, Event]]:
    """Every traceback frame of the job as ``(path, function, line, event)``, ``\\`` read as ``/``."""
    for f in evidence.facts:
        if isinstance(f, ExceptionFact):
            for fr in f.event.params.get("frames") or ():
                path, func, line = fr.get("file"), fr.get("func"), fr.get("line")
                if isinstance(path, str) and isinstance(func, str) and isinstance(line, int):
                    yield path.replace("\\", "/"), func, line, f.event


def skew(evidence: JobEvidence) -> tuple[str, Frame, Frame] | None:
    """``(module path within its package, frame A, frame B)`` for one function of an installed package's module seen
    under two install roots at two different line numbers (module docstring), or None. The module path is the part
    below ``site-packages/``/``dist-packages/`` ("fairscale/nn/data_parallel/sharded_ddp.py"), at least a package
    directory and a file; the other copy's path ends with it."""
    frames = list(_frames(evidence))
    installed: set[str] = set()  # module paths within their package, seen below site-packages/dist-packages
    for path, _func, _line, _ev in frames:
        for marker in _MARKERS:
            _root, sep, rel = path.rpartition(marker)
            if sep and "/" in rel:
                installed.add(rel)
    if not installed:
        return None
    seen: dict[tuple[str, str], dict[str, tuple[int, Event]]] = {}
    for path, func, line, ev in frames:
        for rel in installed:
            if path.endswith("/" + rel) or path == rel:
                seen.setdefault((rel, func), {}).setdefault(path[: len(path) - len(rel)], (line, ev))
                break
    for (rel, func), roots in seen.items():
        if len(roots) < 2:
            continue
        (root_a, (line_a, ev_a)), *others = roots.items()
        for root_b, (line_b, ev_b) in others:
            if line_b != line_a and root_b and root_a:
                return rel, (root_a, func, line_a, ev_a), (root_b, func, line_b, ev_b)
    return None


def package_installed_twice(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` answered ``library_version_mismatch`` when it is one of ``_SYMPTOMS`` and ``skew`` finds one package's
    module run from two installs as different code; else ``diag`` unchanged."""
    if diag.verdict not in ("failure", "unknown") or diag.root_cause not in _SYMPTOMS:
        return diag
    found = skew(evidence)
    if found is None:
        return diag
    rel, (root_a, func, line_a, ev_a), (root_b, _f, line_b, ev_b) = found
    package = rel.split("/", 1)[0]
    message = (
        f"The job's processes ran two copies of {package}: {root_a}{rel} ({func} at line {line_a}, "
        f"{ev_a.path}:{ev_a.line}) and {root_b}{rel} ({func} at line {line_b}, {ev_b.path}:{ev_b.line}). The same "
        f"function at different lines is different code: two releases of {package}, whose ranks then disagreed "
        f"({diag.title or diag.root_cause})."
    )
    fix = Fix(
        summary=f"Install one release of {package} everywhere the job runs.",
        steps=(
            f"Compare `python -c 'import {package}; print({package}.__version__, {package}.__file__)'` on every node, "
            "with the job's own environment (PYTHONPATH, venv, container image).",
            "Remove the stray copy (an older wheel on PYTHONPATH, a second venv) or pin the version in the image, and "
            "relaunch every node from the same environment.",
        ),
    )
    first = ev_b if (ev_b.path, ev_b.line) < (ev_a.path, ev_a.line) else ev_a
    match = Match(RULE_ID, "library_version_mismatch", "cause", first, severity="high", confidence=CONFIDENCE)
    title = f"Two releases of {package} in one job: its processes ran different code"
    return decided_by_fact(diag, match, title=title, message=message, fix=fix)
