"""From rule matches (and optionally the classifier's vote) to a ``Diagnosis``: root cause vs symptoms.

Policy (design.md "Diagnosis"):
- On one event, the highest-priority rule explains it (a specific signature beats a generic catch-all).
- A cause outranks a symptom. Among causes the earliest (file order per input; ``order`` decides) wins, unless
  a later cause's rule ``explains`` the earlier root cause and has a higher severity.
- After the winner, matches of collateral root causes (``peer_process_died``, ``collective_timeout``,
  ``job_preempted``) and of generic catch-all rules are symptoms of it, not rival hypotheses.
- A catch-all cause (priority <= ``GENERIC_PRIORITY``) chained to a specific cause printed right after it by the
  same process (``CHAIN_LINES``) yields to that cause.
- A cause rule marked ``fallback`` (a default reading of a fact: an unexplained SIGKILL is host memory, a fatal
  signal a native crash) wins only when no specific cause rule (priority above the catch-alls) matched. Among
  fallbacks, one read from a fact that names the signal (the process's own handler: faulthandler, glog, abseil,
  Open MPI's ``Signal: ... (11)``; a launcher's ``-11``) wins over an exit report that names none (Ray's
  ``SYSTEM_ERROR``: the worker vanished), wherever each is printed: the process's own report is the cause, the
  observer's the symptom (``_signal_known``).
- A catch-all cause on an exception raised from (or while handling) an exception the same process printed right
  before it, whose own matches are all symptoms, is a symptom too (``raised_from``): a trainer's generic
  ``RuntimeError("An error occurred") from`` a gloo "Connection reset by peer" only passes the peer's death on.
- A cause matched on a sibling termination (``siblings``: a worker the launcher itself stopped after the first
  failure, ``factlayer.reason.sibling_terminations``) is a symptom: the first exit in time is the cause.
- With only symptoms, the earliest symptom's root cause is reported at reduced confidence (the first failure
  is not in the log). Below ``ABSTAIN_BELOW`` the verdict is ``unknown``; with no match and no error event
  it is ``no_failure``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .factlayer import facts_of
from .factlayer.kinds import ProcessExit
from .factlayer.reason import CHAIN_GAP_LINES
from .rules.engine import RuleSet
from .rules.render import render_fix, render_message
from .taxonomy import title as taxonomy_title
from .types import SEVERITY_RANK, Diagnosis, Event, Fix, Hypothesis, Match

ABSTAIN_BELOW = 0.5
SYMPTOM_ONLY_FACTOR = 0.7
COLLATERAL = frozenset({"peer_process_died", "collective_timeout", "job_preempted"})
# causes that say the job was stopped from outside (a signal to the launcher), not why a process died
OUTSIDE_STOPS = frozenset({"job_preempted", "terminal_hangup"})
# causes that are the rest of the job waiting for a member, which a process that could not start explains
WAITED_FOR_THE_DEAD = frozenset({"rendezvous_timeout"})
GENERIC_PRIORITY = 20
_WAITERS = frozenset(
    {"collective_timeout", "collective_mismatch", "rendezvous_timeout", "peer_process_died"}
)  # rules at or below this priority are catch-alls
MAX_LISTED = 50

OrderKey = Callable[[Event], Any]


def _default_order(e: Event) -> Any:
    return (e.path, e.line)


def resolve_events(matches: Sequence[Match]) -> list[Match]:
    """Keep, per event, the matches of the highest priority (ties: higher severity); returns them in input order."""
    best: dict[int, list[Match]] = {}
    for m in matches:
        key = id(m.event)
        cur = best.get(key)
        rank = (m.priority, SEVERITY_RANK[m.severity], m.role == "cause")
        if cur is None:
            best[key] = [m]
            continue
        top = cur[0]
        top_rank = (top.priority, SEVERITY_RANK[top.severity], top.role == "cause")
        if rank > top_rank:
            best[key] = [m]
        elif rank == top_rank and m.root_cause != top.root_cause:
            cur.append(m)
    seen: set[int] = set()
    out: list[Match] = []
    for m in matches:
        if id(m.event) in best and m in best[id(m.event)] and id(m) not in seen:
            seen.add(id(m))
            out.append(m)
    return out


CHAIN_LINES = 60  # a chained traceback ("During handling of the above exception...") follows within this many lines
# the traceback chained to the one before it starts within these lines of its end: a blank line, CPython's separator
# ("The above exception was the direct cause..." / "During handling of the above exception..."), a blank line
CHAINED_TRACEBACK_LINES = 2 * CHAIN_GAP_LINES + 2


# Ray re-raises a remote task's or actor method's exception in its caller as ``RayTaskError(<type>)`` naming the
# remote process ("ray::ProxyActor.ready() (pid=29618, ip=..., actor_id=...)", ``ray/exceptions.py``
# ``RayTaskError.__str__``); the remote process's own output ("(ProxyActor pid=29618) OSError: [Errno 98] Address
# already in use") carries the cause, often printed after the caller's report
_RAY_REMOTE_PID = re.compile(r"RayTaskError\([\w.]+\)[^\n]*?\(pid=(\d+)")


# A cause that a later one, chained to it, places more precisely: a full filesystem (ENOSPC quoted by a log record)
# whose traceback, printed right after by the same process, shows the write went to /dev/shm (CPython's ``SemLock``:
# rule ``semaphore-no-space-shm``; pandarallel's staging: ``factlayer.tables.SHM_STAGING_CODE``) is /dev/shm being full.
REFINED_BY: dict[str, frozenset[str]] = {"disk_full": frozenset({"shm_exhausted"})}


def _refined(winner: Match, causes: Sequence[Match]) -> Match:
    """``winner``, or the cause that ``REFINED_BY`` says places it more precisely, when the same process printed that
    one within ``CHAIN_LINES`` after it."""
    ev = winner.event
    limit = _chain_limit(ev)
    finer = REFINED_BY[winner.root_cause]
    for m in causes:
        e = m.event
        if m.root_cause in finer and _same_stream(e, ev) and 0 <= e.line - ev.end_line <= limit:
            return m
    return winner


def _same_stream(e: Event, ev: Event) -> bool:
    """``e`` printed by the process that printed ``ev``. A traceback prints no pid: unknown, not other. ``ev`` without
    a rank and ``e`` with one count as one process: pastes often lose the ``[rankN]:`` tag of an exception's first line
    and keep it on the lines after (hiyouga/LlamaFactory#5252)."""
    if e.path != ev.path or not (e.pid == ev.pid or e.pid is None or ev.pid is None):
        return False
    return e.rank == ev.rank or ev.rank is None and e.rank is not None


def _left_after(m: Match, death: Any, order: OrderKey) -> bool:
    """``m`` is a stop from outside or a wait for a member (``OUTSIDE_STOPS``, ``WAITED_FOR_THE_DEAD``) printed after a
    process's death at ``death`` (an ``order`` key; None: no death known): it hit what was left of the job, so it
    neither explains that death nor set the fallbacks aside."""
    return death is not None and m.root_cause in OUTSIDE_STOPS | WAITED_FOR_THE_DEAD and order(m.event) > death


def _chained_specific(
    winner: Match,
    causes: Sequence[Match],
    rules: RuleSet,
    died_at: Any = None,
    order: OrderKey = _default_order,
) -> Match:
    """A catch-all cause (some exception) followed, in the same process's output and within ``CHAIN_LINES``, by a
    specific cause is that cause: ``basic_ios::clear: iostream error`` raised while torch.save hit a full disk. A
    catch-all on Ray's ``RayTaskError`` yields first to a specific cause in the remote process it names, wherever that
    is printed (``_RAY_REMOTE_PID``). ``died_at``: where (``order``) the launcher first reported a worker's failure, or
    None."""
    ev = winner.event
    limit = _chain_limit(ev)
    remote = _RAY_REMOTE_PID.search(ev.text)
    remote_pid = int(remote[1]) if remote else None
    chained: Match | None = None
    for m in causes:
        e = m.event
        if m is winner or rules.by_id[m.rule_id].spec.fallback:
            continue
        if m.priority <= GENERIC_PRIORITY:
            # another catch-all, but a more telling one, raised while handling a control-flow exception (an environment
            # error after a StopIteration: "During handling of the above exception, another exception occurred") in
            # the traceback chained right after: that last exception ended the process
            # - or after an exception printed bare, with no frames of its own (the first link of a chain whose
            # traceback the process did not print: Dask's nanny printing "ConnectionRefusedError: [Errno 111] Connection
            # refused", then "The above exception was the direct cause of ..." and the tracebacks it led to)
            gap = e.line - ev.end_line
            if (
                chained is None
                and m.priority > winner.priority
                and _same_stream(e, ev)
                and (
                    _control_flow(ev)
                    and 0 < gap <= CHAINED_TRACEBACK_LINES
                    or _bare_exception(ev)
                    and 0 < gap <= CHAIN_LINES
                )
            ):
                chained = m
            continue
        if remote_pid is not None and e.pid == remote_pid:
            return m
        # a process whose environment failed it (an import, a version check) never got to wait at the rendezvous: a
        # rendezvous timeout printed after its traceback is the rest of the job waiting for it; nor was it running
        # when the scheduler stopped the job: a stop printed after its traceback (the other nodes waited for it until
        # the time limit) hit what was left of the job, it did not raise the import error
        if m.root_cause in WAITED_FOR_THE_DEAD | OUTSIDE_STOPS and winner.root_cause == "library_version_mismatch":
            continue
        # nor is a rendezvous or store wait that times out, or a stop from outside, after the launcher reported a
        # worker's failure (torchelastic's "Root Cause (first observed failure)", ``died_at``) the raised exception's
        # own cause: the rest of the job was waiting for the process that raised (RecBole's config raising
        # AttributeError on NumPy 2 before ``init_process_group``, its agent reporting exit code 1, the other node's
        # ranks then timing out on the store; TorchGeo's node whose old kornia raised a TypeError, the other node
        # waiting in DDP's set-up until the scheduler's SIGTERM)
        if _left_after(m, died_at, order):
            continue
        if chained is None and _same_stream(e, ev) and 0 <= e.line - ev.end_line <= limit:
            chained = m
            if remote_pid is None:
                break
    return chained or winner


# exceptions Python code raises to steer, not to fail: the end of an iterator (``StopIteration``, caught by a loop or
# by ``next(it)``'s caller, https://docs.python.org/3/library/exceptions.html#StopIteration, and its async twin). One
# printed with another exception raised while handling it (importlib.metadata's ``next(cls.discover(name))`` finding
# no distribution: StopIteration, then PackageNotFoundError) was handled; the later exception ended the process.
_CONTROL_FLOW = frozenset({"StopIteration", "StopAsyncIteration"})


def _bare_exception(ev: Event) -> bool:
    """``ev`` is an exception line printed without a traceback (parsed as an exception with no frames)."""
    return bool(ev.params.get("exc_short")) and not ev.params.get("frames")


def _control_flow(ev: Event) -> bool:
    return str(ev.params.get("exc_short") or "") in _CONTROL_FLOW


# exceptions whose message carries a tool's whole output after the traceback (torch inductor's ``CppCompileError``:
# "C++ compile error\n\nCommand:\n...\n\nOutput:\n<the compiler's output>", ``torch/_inductor/exc.py``;
# ``subprocess.CalledProcessError`` re-raised with its output; torch ``cpp_extension``'s "Error building extension"):
# the tool's own last words ("ld: final link failed: No space left on device") may be thousands of lines below
_CARRIES_OUTPUT = ("CppCompileError", "CalledProcessError", "BackendCompilerFailed", "Error building extension")
OUTPUT_CHAIN_LINES = 5000


def _chain_limit(ev: Event) -> int:
    head = ev.text.rsplit("\n", 1)[-1]
    return OUTPUT_CHAIN_LINES if any(w in head for w in _CARRIES_OUTPUT) else CHAIN_LINES


def _wrappers_of_symptoms(matches: Sequence[Match], raised_from: Mapping[int, Event]) -> list[Match]:
    """``matches`` with each catch-all cause on a chained exception made a symptom where the exception it was raised
    from is matched, and only as a symptom: a wrapper that re-raises a peer's death or a watchdog timeout under a
    generic message (OLMo-core's ``Trainer.is_canceled``: ``raise RuntimeError("An error occurred") from
    self._error``) adds nothing of its own."""
    on: dict[int, list[Match]] = {}
    for m in matches:
        on.setdefault(id(m.event), []).append(m)
    out: list[Match] = []
    for m in matches:
        cause = raised_from.get(id(m.event))
        if cause is not None and m.role == "cause" and m.priority <= GENERIC_PRIORITY:
            under = resolve_events(on.get(id(cause), []))
            if under and all(u.role == "symptom" for u in under):
                m = dataclasses.replace(m, role="symptom")
        out.append(m)
    return out


def _signal_known(m: Match) -> bool:
    """The match's line states which signal ended a process (a ``process_exit`` fact with a signal)."""
    return any(isinstance(f, ProcessExit) and f.signal for f in facts_of(m.event))


def _enrich_first_failure(event: Event, elastic_root: Event | None) -> Event:
    """Fill rank/host/local_rank the failing line does not print from the elastic summary's root-cause entry."""
    if elastic_root is None or event is elastic_root:
        return event
    if event.rank is not None and event.host is not None:
        return event
    p = elastic_root.params
    if event.pid is not None and p.get("pid") not in (None, event.pid):
        return event  # a different process: the summary is about someone else
    return dataclasses.replace(
        event,
        rank=event.rank if event.rank is not None else elastic_root.rank,
        local_rank=event.local_rank if event.local_rank is not None else elastic_root.local_rank,
        host=event.host or elastic_root.host,
    )


def diagnose(
    matches: Sequence[Match],
    rules: RuleSet,
    unexplained: Sequence[Event] = (),
    *,
    order: OrderKey = _default_order,
    stats: dict[str, Any] | None = None,
    versions: dict[str, str] | None = None,
    elastic_root: Event | None = None,
    siblings: frozenset[int] = frozenset(),
    raised_from: Mapping[int, Event] | None = None,
) -> Diagnosis:
    """Decide the verdict and root cause.

    Args:
        matches: finalized rule matches (context applied), in input order.
        rules: the rule set (for titles, messages, fixes, ``explains``).
        unexplained: error-level events no rule matched, in input order.
        order: sort key giving each event's place in the job's time line.
        stats: counters to attach (``bytes``, ``lines``, ``events``, ``seconds``).
        versions: software versions found in the log.
        elastic_root: the elastic summary's "Root Cause (first observed failure)" entry, if any.
        siblings: ``id()`` of events that report a worker the launcher stopped (their cause matches become symptoms).
        raised_from: ``id()`` of a chained exception's event -> the event of the exception it was raised from
            (``factlayer.reason.raised_from``).

    Returns:
        The ``Diagnosis``; hypotheses are ranked best first.
    """
    stats = dict(stats or {})
    versions = dict(versions or {})
    if siblings:
        matches = [dataclasses.replace(m, role="symptom") if id(m.event) in siblings else m for m in matches]
    if raised_from:
        matches = _wrappers_of_symptoms(matches, raised_from)
    kept = sorted(resolve_events(matches), key=lambda m: order(m.event))
    causes = [m for m in kept if m.role == "cause"]
    # a fallback cause (rule ``fallback: true``: what an unexplained fact usually means) yields to any specific cause
    # in the job, wherever it is: an abort after "CUDA error: illegal memory access" is that CUDA error
    fallbacks = [m for m in causes if rules.by_id[m.rule_id].spec.fallback]
    first_death = min((order(m.event) for m in fallbacks), default=None)

    def _overrides(m: Match) -> bool:
        """A specific cause that sets the fallbacks aside: not one that stopped the job from outside after a process
        had already died (the scheduler or a supervisor ending what was left of the job, as srun does once one task
        is killed), nor a lost rendezvous store after it (OpenCLIP's rank aborted with SIGABRT, its node's agent
        exited with the store it hosted, and the other node's agent then failed to reach it)."""
        if rules.by_id[m.rule_id].spec.fallback or m.priority <= GENERIC_PRIORITY:
            return False
        if first_death is None:
            return True
        # ... nor a store or rendezvous connection lost after it: the store's host (or the member waited for) had died
        return not _left_after(m, first_death, order)

    if first_death is not None:
        # a ``tail_lines`` rule reads "the log stops here, waiting"; a process killed after that line ended it instead
        causes = [m for m in causes if rules.by_id[m.rule_id].spec.tail_lines is None or order(m.event) > first_death]
    if any(_overrides(m) for m in causes):
        causes = [m for m in causes if _overrides(m) or not rules.by_id[m.rule_id].spec.fallback]
    elif any(_signal_known(m) for m in causes if rules.by_id[m.rule_id].spec.fallback):
        causes = [m for m in causes if not rules.by_id[m.rule_id].spec.fallback or _signal_known(m)]
    symptoms_all = [m for m in kept if m.role == "symptom"]

    # where the launcher first reported a worker's failure (torchelastic's "Root Cause (first observed failure)"): a
    # wait or a stop from outside printed after it came after that death and cannot explain it
    died_at = order(elastic_root) if elastic_root is not None else None

    winner: Match | None = None
    if causes:
        winner = causes[0]
        for m in causes[1:]:
            rule = rules.by_id[m.rule_id].spec
            if (
                winner.root_cause in rule.explains
                and SEVERITY_RANK[m.severity] > SEVERITY_RANK[winner.severity]
                and not _left_after(m, died_at, order)
            ):
                winner = m
    if winner is not None and winner.priority <= GENERIC_PRIORITY:
        winner = _chained_specific(winner, causes, rules, died_at, order)
    elif winner is not None and winner.root_cause in REFINED_BY:
        winner = _refined(winner, causes)
    symptom_only = winner is None and bool(symptoms_all)
    if symptom_only:
        winner = symptoms_all[0]
        if id(winner.event) in siblings and winner.event.time is None:
            # a worker the launcher stopped (``siblings``) reports that stop after the launcher announced it: an
            # untimed line in another file only knows the last time its file printed before it, so the launcher's own
            # report, in its file, goes first
            winner = next(
                (m for m in symptoms_all if id(m.event) not in siblings and m.event.path != winner.event.path), winner
            )

    if winner is None:
        verdict = "unknown" if unexplained else "no_failure"
        # unknown: nothing decided (method "none"), but the first error line is still where it first went wrong
        return Diagnosis(
            verdict=verdict,
            root_cause=verdict,
            title=taxonomy_title(verdict),
            confidence=0.0 if unexplained else 0.9,
            method="none" if unexplained else "rule",
            unexplained=tuple(unexplained[:MAX_LISTED]),
            stats=stats,
            versions=versions,
            first_failure=min(unexplained, key=order) if unexplained else None,
        )

    # evidence for the winning cause, collateral symptoms, and rival hypotheses
    evidence = [m for m in kept if m.root_cause == winner.root_cause and m.role == winner.role]
    wkey = order(winner.event)
    symptoms: list[Match] = []
    rivals: dict[str, list[Match]] = {}
    for m in kept:
        if m.root_cause == winner.root_cause and m.role == winner.role:
            continue
        later = order(m.event) >= wkey
        if m.role == "symptom" or (later and (m.root_cause in COLLATERAL or m.priority <= GENERIC_PRIORITY)):
            symptoms.append(m)
        else:
            rivals.setdefault(m.root_cause, []).append(m)

    confidence = min(0.99, winner.confidence + 0.02 * min(3, len({id(m.event) for m in evidence}) - 1))
    if symptom_only:
        confidence *= SYMPTOM_ONLY_FACTOR
    confidence = round(confidence, 3)

    hypotheses = [Hypothesis(winner.root_cause, confidence, "rule", tuple(evidence[:MAX_LISTED]), winner.rule_id)]
    for rc, ms in sorted(rivals.items(), key=lambda kv: -max(m.confidence for m in kv[1])):
        best = max(ms, key=lambda m: m.confidence)
        conf = best.confidence * (SYMPTOM_ONLY_FACTOR if best.role == "symptom" else 0.8)
        hypotheses.append(Hypothesis(rc, round(conf, 3), "rule", tuple(ms[:MAX_LISTED]), best.rule_id))

    # the launcher's own clean-up (SIGTERM to siblings) is a symptom rule naming the winner's cause: it corroborates
    # the winner, so it is listed as evidence, never as a symptom of itself
    evidence += [m for m in symptoms if m.root_cause == winner.root_cause]
    symptoms = [m for m in symptoms if m.root_cause != winner.root_cause]
    # the first failure's rank/host, filled from the elastic summary, is the same line wherever the line is listed
    # (the elastic "Root Cause" names the first process to EXIT: the failing one for a crash, but for a hang or
    # desync it is a rank that timed out waiting, not the culprit, as seen in gloo stalled-rank runs)
    first = _enrich_first_failure(winner.event, None if winner.root_cause in _WAITERS else elastic_root)
    if first is not winner.event:
        evidence = [dataclasses.replace(m, event=first) if m.event is winner.event else m for m in evidence]
        hypotheses[0] = dataclasses.replace(hypotheses[0], evidence=tuple(evidence[:MAX_LISTED]))

    spec = rules.by_id[winner.rule_id].spec
    verdict = "failure" if confidence >= ABSTAIN_BELOW else "unknown"
    fix = render_fix(spec.fix, winner.groups, tuple(spec.references)) if verdict == "failure" else Fix()
    return Diagnosis(
        verdict=verdict,
        root_cause=winner.root_cause if verdict == "failure" else "unknown",
        title=spec.title if verdict == "failure" else taxonomy_title("unknown"),
        message=render_message(spec.message, winner.groups),
        confidence=confidence,
        method="rule",
        rule_id=winner.rule_id,
        severity=spec.severity,
        hypotheses=tuple(hypotheses),
        first_failure=first,
        symptoms=tuple(symptoms[:MAX_LISTED]),
        evidence=tuple(evidence[:MAX_LISTED]),
        unexplained=tuple(unexplained[:MAX_LISTED]),
        fix=fix,
        stats=stats,
        versions=versions,
    )


def decided_by_fact(diag: Diagnosis, match: Match, *, title: str, message: str, fix: Fix) -> Diagnosis:
    """``diag`` answered by ``match``: a cause read from job-level facts by code rather than a rule (``match.rule_id``
    names the reasoning: ``memory-growth``, ``loss-exploded``). Its cause, confidence, severity and line become the
    answer; the old answer's evidence is listed as symptoms (or kept as evidence where it names the same cause: a
    cause is never its own symptom) and its hypotheses follow."""
    old = tuple(dataclasses.replace(m, role="symptom") for m in diag.evidence) + diag.symptoms
    symptoms = tuple(m for m in old if m.root_cause != match.root_cause)
    same = tuple(m for m in diag.evidence if m.root_cause == match.root_cause)
    return dataclasses.replace(
        diag,
        verdict="failure",
        root_cause=match.root_cause,
        title=title,
        message=message,
        confidence=match.confidence,
        method="rule",
        rule_id=match.rule_id,
        severity=match.severity,
        hypotheses=(Hypothesis(match.root_cause, match.confidence, "rule", (match,), match.rule_id), *diag.hypotheses),
        first_failure=match.event,
        evidence=(match, *same),
        symptoms=symptoms[:MAX_LISTED],
        fix=fix,
    )


def healthy_by_fact(
    diag: Diagnosis, *, rule_id: str, message: str, confidence: float, fix: Fix | None = None
) -> Diagnosis:
    """``diag`` turned into ``no_failure``, read from job-level facts by code (``rule_id`` names the reasoning:
    ``teardown-after-success``, ``resumed-after-failure``); the old answer's evidence and symptoms become symptoms."""
    from .taxonomy import title as taxonomy_title

    return dataclasses.replace(
        diag,
        verdict="no_failure",
        root_cause="no_failure",
        title=taxonomy_title("no_failure"),
        message=message,
        confidence=confidence,
        method="rule",
        rule_id=rule_id,
        severity=None,
        first_failure=None,
        symptoms=(tuple(diag.evidence) + tuple(diag.symptoms))[:MAX_LISTED],
        evidence=(),
        fix=fix if fix is not None else Fix(),
    )
