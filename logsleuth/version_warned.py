"""A job that failed with no cause in sight after a library said its versions do not fit: ``library_version_mismatch``.

Libraries with compiled parts check, while loading, that they were built for the torch/NumPy beside them, and say so
when they were not (``factlayer.kinds.VersionWarning``: torchao's "Skipping import of cpp extensions due to
incompatible torch version ...", xFormers' "can't load C++/CUDA extensions. xFormers was built for ...", NumPy 2's "A
module that was compiled using NumPy 1.x cannot be run in NumPy 2.x"). Healthy jobs print these too when the skipped
part is not used, so the warning alone decides nothing; but when the job then fails and no rule or model can name
why (``unknown``), the broken install is the one fact on record (areal-project/AReaL#979: SGLang servers that never
came up after torchao's warning, fixed by pinning torchao).

A job whose log *ends* on such a warning (nothing after it but the warning's own lines, no training loop saying it
finished) is read the same way, even with no failure printed: the job stopped, or was stopped, right where the
library said it cannot load (unslothai/unsloth#8580: a service whose log ends on xFormers' "built for PyTorch 2.10.0
(you have 2.11.0)" block). Except when xFormers' block says the installed torch is the CPU build of the very release
it was built for ("PyTorch 2.1.0+cu121 with CUDA 1201 (you have 2.1.0+cpu)"): then only its CUDA kernels are missing,
which a job on the CPU never calls, and a job that needs the GPU fails later on torch's own "not compiled with CUDA"
check, not at this warning (baichuan-inc/Baichuan2#248: the team answered that the warning has no effect).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .diagnose import decided_by_fact
from .factlayer.kinds import RunFinished, VersionWarning
from .lazy_regex import lazy
from .types import Diagnosis, Event, Fix, Match

if TYPE_CHECKING:
    from .evidence import JobEvidence

RULE_ID = "version-warned-before-failure"
CONFIDENCE = 0.6
# a warning this close to its file's last line ends the log: xFormers' block is its header and 6 more lines
ENDS_WITHIN_LINES = 8
# xFormers' block, the line after its header (``xformers/_cpp_lib.py``): the torch it was built for and the one installed
_XFORMERS_BUILT_FOR = lazy(r"PyTorch (?P<want>\d[\w.]*)\+\w+ with CUDA \d+ \(you have (?P<have>\d[\w.]*)\+cpu\)")


# default readings of a wait that timed out (rule exception-wait-timed-out): the wait's own end says only that the
# other side never answered, so a library's warning that it cannot load explains the job better (AReaL#979: SGLang
# servers that never came up, "TimeoutError: server launch failed", after torchao's warning)
WAIT_DEFAULTS = frozenset({"exception-wait-timed-out"})
# libraries whose version warning is about a pickle written by another release of theirs (``extract._VERSION_WARNING``)
UNPICKLE_WARNERS = frozenset({"sklearn"})
# frames of Python's unpickler and joblib's, and the ``__setstate__`` an object's class runs as it is unpickled
_UNPICKLE_FILES = ("/pickle.py", "/numpy_pickle.py")


def _unpickling(event: Event | None) -> bool:
    """``event`` is an exception raised while an object was being unpickled (a frame of ``pickle``'s or joblib's
    unpickler, or a class's ``__setstate__``)."""
    frames = (event.params.get("frames") or []) if event is not None else []
    return any(f.get("func") == "__setstate__" or f.get("file", "").endswith(_UNPICKLE_FILES) for f in frames)


def _cpu_build_of_same_release(w: VersionWarning, evidence: JobEvidence) -> bool:
    """Whether ``w`` is xFormers saying the installed torch is the CPU build of the release it was built for."""
    if w.library != "xformers":
        return False
    for ev in evidence.tail:
        if ev.path == w.event.path and w.event.line < ev.line <= w.event.line + 2:
            m = _XFORMERS_BUILT_FOR.search(ev.text)
            if m is not None:
                return m["want"] == m["have"]
    return False


def version_warned_before_failure(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """``diag`` turned into ``library_version_mismatch`` when it is ``unknown`` (the job failed, nothing named why) or
    only a wait's default reading (``WAIT_DEFAULTS``) and a library warned of incompatible versions before the first
    failure, or when it is a plain ``no_failure`` (no fact said the run finished, ``RunFinished``) and the log ends on
    such a warning (``ENDS_WITHIN_LINES`` of its file's last line), or when it is ``worker_exception`` raised while
    unpickling a model (``_unpickling``) after the model's library warned in that file that the pickle comes from
    another release of it (``UNPICKLE_WARNERS``: scikit-learn's ``InconsistentVersionWarning``); else ``diag``
    unchanged."""
    if diag.verdict == "no_failure" and diag.rule_id is None:
        # nothing failed and nothing said the run finished: does the log end on the warning?
        if any(isinstance(f, RunFinished) for f in evidence.facts):
            return diag

        def counts(w: VersionWarning) -> bool:
            ends = evidence.last_lines.get(w.event.path, w.event.line) - w.event.line < ENDS_WITHIN_LINES
            return ends and not _cpu_build_of_same_release(w, evidence)

        then = "and the log ends there: nothing ran after it."
        title = "A library warned that its installed versions do not fit, and the log ends there"
    elif diag.root_cause == "worker_exception" and _unpickling(diag.first_failure):
        first = diag.first_failure

        def counts(w: VersionWarning) -> bool:
            same_file = first is not None and w.event.path == first.path and w.event.line <= first.line
            return w.library in UNPICKLE_WARNERS and same_file

        then = "and loading that pickle then failed."
        title = "A model pickled by another library version failed to load"
    elif (diag.root_cause == "unknown" or diag.rule_id in WAIT_DEFAULTS) and diag.verdict != "no_failure":
        first = diag.first_failure

        def counts(w: VersionWarning) -> bool:
            return first is None or w.event.path != first.path or w.event.line <= first.line

        then = "and the job then failed with no other cause in the log."
        title = "A library warned that its installed versions do not fit, then the job failed"
    else:
        return diag
    warned = [f for f in evidence.facts if isinstance(f, VersionWarning) and counts(f)]
    if not warned:
        return diag
    w = warned[0]
    message = (
        f"{w.library} said at line {w.event.line} that the versions installed beside it do not fit "
        f'("{w.words}"), {then}'
    )
    ev = Match(RULE_ID, "library_version_mismatch", "cause", w.event, severity="medium", confidence=CONFIDENCE)
    if w.library in UNPICKLE_WARNERS:
        fix = Fix(
            summary=f"The pickle was written by another {w.library} release than the one loading it, and its internal "
            "layout changed between them.",
            steps=(
                f"Load it with the {w.library} release that wrote it (the warning names it) and pin that release, or "
                "retrain and save the model with the installed one.",
                "Keep models in a format meant to outlive a release (scikit-learn: skops or ONNX) and record the "
                "library versions beside each saved model.",
            ),
            references=("https://scikit-learn.org/stable/model_persistence.html",),
        )
        return decided_by_fact(diag, ev, title=title, message=message, fix=fix)
    fix = Fix(
        summary=f"{w.library} was installed for other versions than the ones it runs with; the job's end right after "
        "it is most likely that mismatch (its compiled part skipped or broken).",
        steps=(
            f"Install the {w.library} release built for the installed torch/NumPy (its release notes give the pairs), "
            "or pin the versions the framework's requirements name; `pip check` lists the conflicts pip knows.",
            "Rebuild the environment from the framework's own image or lock file rather than upgrading one package.",
        ),
        references=("https://github.com/pytorch/ao/issues/2919", "https://github.com/areal-project/AReaL/issues/979"),
    )
    return decided_by_fact(diag, ev, title=title, message=message, fix=fix)
