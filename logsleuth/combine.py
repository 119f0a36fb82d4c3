"""How the rules' diagnosis and the model's vote become one answer (the policy is in ``classify/__init__.py``).

Part of the core (``pipeline.decide`` calls it): it needs only a ``Vote`` and the rule set passed in, never the
classifier package, so the core does not import the classifier and the classifier imports the core one way."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .factlayer.tables import is_advisory
from .recovered import CLEAN_RULE_ID
from .taxonomy import ROOT_CAUSES
from .taxonomy import title as taxonomy_title
from .types import LEVEL_RANK, SEVERITY_RANK, Diagnosis, Event, Fix, Hypothesis, Match

if TYPE_CHECKING:  # the model module imports numpy: analyze pays for it only when the model is consulted
    from .classify.model import Vote
    from .rules.engine import RuleSet

RULE_DECIDES_SEVERITY = "high"  # a cause rule at or above this severity ...
RULE_DECIDES_CONFIDENCE = 0.8  # ... and at or above this confidence decides alone
ABSTAIN_BELOW = 0.5  # same bar as diagnose.ABSTAIN_BELOW: below it the verdict is ``unknown``
# Where the rules saw no error at all, the model must be this sure to call the job failed (a clean log is the
# commonest input, and calling it failed the costliest mistake; 0.7 already kept clean logs clean in grouped
# cross-validation, 0.8 leaves a margin).
NO_FAILURE_OVERRIDE = 0.8
# ... and never where the rules' ``no_failure`` is the fact that every process exited 0 (``recovered.CLEAN_RULE_ID``):
# on the 2556 logs of waves up to AQ, five healthy logs end that way and no failed one, and the one such log a fold
# model overruled (Optuna trials that raised ValueError, caught by ``study.optimize(catch=...)``) was healthy.
# A symptom-only answer (by the rules' account the first failure is not in the log) stands like any other rules'
# answer, with the model's cause listed. It used to yield to a sure model: at 0.8 that won logs in cross-validation on
# the first 380 logs; with waves D and E in (477 logs) it won none and lost two, so the bar went to 0.95, then 0.97 on
# the 1599 logs of waves up to AA (0.95 won none and lost NVIDIA/nccl#795). On the 1709 logs of waves up to AC, 0.97
# won none and lost two (vllm-project/vllm#7896's "unhandled cuda error", a fold model's nccl_p2p_failure at >= 0.97;
# vllm-project/vllm#3688, wrong either way), and never overriding scored best on accuracy and macro-F1, so it is gone.
MAX_MODEL_EVIDENCE = 5
SUPPORT_SHARE = 0.1  # a line supports the model's vote when it pushes at least this share of the strongest line
# causes hang.decide reads from facts (no rule of their own may exist): ``fix_for`` falls back to the hang advice
HANG_CAUSES = ("silent_hang", "collective_timeout", "collective_mismatch")
# A model cause that a job-level fact in ``Diagnosis.stats`` rules out: every rank's last printed loss is finite after
# any NaN/Inf (``numeric_tail``), so the run did not diverge whatever its lines look like.
CONTRADICTED_BY = {"training_divergence": "numbers_recovered"}
# causes the model may name only when the log states a fact of their kind: a version pair needs versions printed
# (``facts.find_versions``: banners, ``collect_env``, pip pins, "NCCL version 2.18.5" in torch's NCCL errors) or a
# version requirement ("transformers>=4.45.0,<=4.51.3" in a dependency check) or build ("compiled with NCCL 1.0") on a
# line the model or the rules read.
# On a log with neither, the vote can only echo wording learnt from logs whose pair a thread named (a one-line
# "unhandled cuda error" excerpt read as a version pair); the rules' answer stands and the vote is listed.
NEEDS_VERSIONS = frozenset({"library_version_mismatch"})
_VERSION_SPEC = re.compile(
    r"\b[A-Za-z][\w.-]*\s*(?:>=|<=|==|!=|~=|>|<)\s*v?\d+\.\d+"
    # "# NCCL Tests compiled with NCCL 1.0", "built for PyTorch 2.1", "version 2.18.5"
    r"|(?i:\b(?:version|compiled with|built (?:with|for|against))\s+(?:[A-Za-z][\w.-]*\s+)?v?\d+\.\d+)"
)

# causes that need a GPU in the job: the model may name them only when a line the rules or the model read, or a
# version printed, names one (CUDA, NCCL, a GPU, NVIDIA's tools, ROCm/HIP). A job of CPU processes (gloo) cannot put two
# ranks on one GPU; there, a vote for ``duplicate_gpu`` echoes wording learnt from GPU logs (fold models called four
# logs ``duplicate_gpu`` that the rules had left ``unknown`` on the 3,398 logs of waves up to BC, none of them right).
NEEDS_GPU = frozenset(
    {"duplicate_gpu", "cuda_oom", "nccl_p2p_failure", "nccl_cuda_error", "nccl_cumem_mismatch", "gpu_hardware_fault"}
)
_GPU_WORD = re.compile(
    r"(?i)\b(?:cuda\w*|gpus?|nccl\w*|nvidia\w*|nvml\w*|busid|rocm|hip|xid|cudnn|cublas\w*)\b|cuda:\d"
)

# ... and ``duplicate_gpu`` also needs a line the rules or the model read to state where ranks run: NCCL's own report
# ("Duplicate GPU detected : rank 1 and rank 0 both on CUDA device 1000", ``src/init.cc``), a device or bus id
# ("cudaDev 0", "busId 1b000", "cuda:0"), the device mask or selection (CUDA_VISIBLE_DEVICES, ``set_device``,
# local_rank). The error code NCCL returns for it (``ncclInvalidUsage``, "invalid usage") is returned for every
# misuse of its API, and "unhandled system error" for none of them: on the 4288 logs of waves up to BR, fold models
# named ``duplicate_gpu`` on six logs of other causes from such lines alone and on none that was one.
NEEDS_PLACEMENT = frozenset({"duplicate_gpu"})
_PLACEMENT = re.compile(
    r"(?i)duplicate gpu|both on (?:cuda )?device|same (?:gpu|device|cuda device)|\bcudaDev\b|\bbusId\b|cuda:\d"
    r"|CUDA_VISIBLE_DEVICES|\bdevice[_ ]?ids?\b|set_device|\blocal_rank\b|\bgpu\s*\d|\bdevice\s*\d"
)


# healthy verdicts read from facts that the job succeeded (``shutdown_hang.teardown_after_success``: every worker
# exited 0 by its launcher's report; ``recovered.resumed_after_failure``: every rank went on past the failure;
# ``recovered.retried_after_failure``: Ray retried the failed work and the job went on;
# ``recovered.dataset_finished_after_retry``: Ray retried a task and Ray Data said the dataset's execution finished;
# ``recovered.went_on_after_exception``: the loop caught an exception and every rank went on;
# ``recovered.went_on_after_errors``: error lines no rule explains, and every rank trained on past them;
# ``recovered.finished_after_failure``: the orchestrator reported the whole run succeeded after it;
# ``recovered.went_on_after_signal``: a stop signal was caught, every rank trained on and every process exited 0;
# ``relaunched.relaunched_after_failure``: the launch ended for good and a new launch did the work), which a vote on
# the job's lines does not overrule
SUCCESS_FACTS = frozenset(
    {
        "teardown-after-success",
        "resumed-after-failure",
        "retried-after-failure",
        "dataset-finished-after-retry",
        "went-on-after-exception",
        "went-on-after-errors",
        "run-finished-after-failure",
        "went-on-after-signal",
        "relaunched-after-failure",
    }
)
# failure verdicts read from facts about how the job ended that a vote on its lines does not overrule
# (``interrupted.interrupted_while_waiting``: the user's Ctrl-C with nothing failed before it)
FINAL_FACTS = frozenset({"interrupted-while-waiting"})


def rule_decides(d: Diagnosis) -> bool:
    """True when the rules' answer is final: a cause rule of high+ severity and confidence, a healthy verdict read
    from facts that the job succeeded (``SUCCESS_FACTS``), or a verdict read from how the job ended (``FINAL_FACTS``)."""
    if (d.verdict == "no_failure" and d.rule_id in SUCCESS_FACTS) or d.rule_id in FINAL_FACTS:
        return True
    if d.verdict != "failure" or d.rule_id is None or d.severity is None or not d.evidence:
        return False
    return (
        d.evidence[0].role == "cause"
        and SEVERITY_RANK[d.severity] >= SEVERITY_RANK[RULE_DECIDES_SEVERITY]
        and d.confidence >= RULE_DECIDES_CONFIDENCE
    )


def rule_guess(d: Diagnosis) -> str | None:
    """The root cause the rules point at, even when they abstained (``unknown`` with a best guess)."""
    if d.verdict == "failure":
        return d.root_cause
    if d.hypotheses and d.hypotheses[0].method == "rule":
        return d.hypotheses[0].root_cause
    return None


def noisy_or(a: float, b: float) -> float:
    """Confidence from two independent supports of one cause: ``1 - (1-a)(1-b)``, capped at 0.99."""
    return round(min(0.99, 1.0 - (1.0 - a) * (1.0 - b)), 3)


def fix_for(
    rules: RuleSet, root_cause: str, rule_id: str | None = None, groups: dict[str, Any] | None = None
) -> tuple[Fix, str | None]:
    """A fix for a cause the model named: the named rule's fix rendered with ``groups``; else the generic advice of
    the cause rule in ``rules`` for ``root_cause`` that needs no matched values (highest severity first).

    Returns:
        ``(fix, severity)``; severity is the borrowed rule's, or None when no rule of ``rules`` covers the cause.
    """
    from .rules.render import render_fix

    if rule_id is not None and rule_id in rules.by_id:
        spec = rules.by_id[rule_id].spec
        return render_fix(spec.fix, groups or {}, tuple(spec.references)), spec.severity
    # a cause rule's advice first; a cause only symptom rules name (peer_process_died) borrows theirs
    cands = [r.spec for r in rules.rules if r.spec.root_cause == root_cause and r.spec.fix.strip()]
    cands.sort(
        key=lambda s: (s.role != "cause", "{{" in s.fix or "{%" in s.fix, -SEVERITY_RANK[s.severity], -s.priority, s.id)
    )
    if not cands:
        if root_cause in HANG_CAUSES:  # decided from facts (hang.decide), no rule of its own: the hang advice
            from .hang import generic_fix

            return _model_lead(root_cause, generic_fix(root_cause)), "high"
        return Fix(), None
    spec = cands[0]
    return _model_lead(root_cause, render_fix(spec.fix, {}, tuple(spec.references))), spec.severity


def _model_lead(root_cause: str, generic: Fix) -> Fix:
    """``generic`` advice introduced as what it is: the classifier named the cause, no rule matched its line."""
    lead = (
        f"No rule matched the decisive line; the classifier names {root_cause} "
        f"({taxonomy_title(root_cause)}). Generic advice for this cause: "
    )
    return Fix(lead + generic.summary, generic.steps, generic.references)


def _hyps(first: Hypothesis, rest: tuple[Hypothesis, ...], vote: Vote | None) -> tuple[Hypothesis, ...]:
    out = [first] + [h for h in rest if h.root_cause != first.root_cause]
    if vote is not None and vote.label in ROOT_CAUSES and all(h.root_cause != vote.label for h in out):
        out.append(Hypothesis(vote.label, round(vote.probability, 3), "model"))
    return (out[0], *sorted(out[1:], key=lambda h: -h.confidence))


# Words failure reports carry even at INFO level (Ray's raylet "N Workers ... killed due to memory pressure", its
# "pending and cannot currently be scheduled", c10's "c10::Error" frames, a "Status message: ... failed to start"):
# where the rules saw no error, a line the model leans on must hold one of them (or be a warning/error itself), or
# the model is reading a healthy job's ordinary lines (a progress line, "Connected to Ray cluster").
TROUBLE = re.compile(
    r"(?i:error|fail|exception|killed|\bkill|abort|timeout|timed out|cannot|can't|unable|\bdied\b|\bdead\b"
    r"|traceback|refused|reset by|terminat|out of memory|\boom\b|\bnan\b|\binf\b|signal|infeasible|pending"
    r"|not enough|exceed|mismatch|invalid|illegal|fatal|panic|hang|stuck|no space|insufficient)"
)


def _supported(vote: Vote, clean: bool = False) -> bool:
    """False when every line that pushes the model toward its label is an advisory healthy jobs print too
    (``tables.is_advisory``), or NCCL's own INFO/debug output: a clean log whose only support is such lines stays
    clean. An NCCL_DEBUG=INFO start-up pasted to show a setup reads like the start of a job that then hung on a wrong
    interface (both are init INFO lines and nothing else), and a healthy job must not be flagged from lines every
    job prints."""
    top = max((s for s, _ in vote.lines), default=0.0)
    # lines that carry a share of the vote (a 0.02 push from a version banner beside 1.2 from INFO lines is no support)
    support = [d for s, d in vote.lines if s > 0 and s >= SUPPORT_SHARE * top]
    if not support:
        return True
    real = [d for d in support if not is_advisory(d.event.text) and not _nccl_info(d.event)]
    if not clean:
        return bool(real)
    # ``clean``: the rules saw no error at all, so the support must look like trouble (``TROUBLE``)
    return any(LEVEL_RANK[d.event.level] >= LEVEL_RANK["warning"] or TROUBLE.search(d.event.text) for d in real)


def _listed(d: Diagnosis, stats: dict[str, Any], vote: Vote) -> Diagnosis:
    """The rules' answer ``d`` standing, with the model's vote listed among its hypotheses."""
    hyps = _hyps(d.hypotheses[0], d.hypotheses[1:], vote) if d.hypotheses else d.hypotheses
    return dataclasses.replace(d, stats=stats, hypotheses=hyps)


def _texts_read(d: Diagnosis, vote: Vote) -> list[str]:
    """The lines the rules read (evidence, symptoms, unexplained errors) and the lines the model's vote leaned on."""
    texts = [m.event.text for m in (*d.evidence, *d.symptoms)] + [e.text for e in d.unexplained]
    return texts + [line.event.text for _s, line in vote.lines]


def _states_versions(d: Diagnosis, vote: Vote) -> bool:
    """The log names versions (``d.versions``) or a version requirement on a line the rules or the model read."""
    return bool(d.versions) or any(_VERSION_SPEC.search(t) for t in _texts_read(d, vote))


def _names_gpu(d: Diagnosis, vote: Vote) -> bool:
    """A version printed for the GPU stack (``d.versions``: cuda, nccl, driver...) or a line the rules or the model read
    names a GPU (``_GPU_WORD``)."""
    if any(_GPU_WORD.search(name) for name in d.versions):
        return True
    return any(_GPU_WORD.search(t) for t in _texts_read(d, vote))


def _nccl_info(ev: Event) -> bool:
    """NCCL's INFO/debug lines, and the bare "NCCL version 2.10.3+cuda11.3" banner rank 0 prints at init without its
    host:pid prefix (``src/init.cc`` ``showVersion``)."""
    if LEVEL_RANK[ev.level] >= LEVEL_RANK["warning"]:
        return False
    return ev.source == "nccl" or ev.text.lstrip().startswith("NCCL version ")


def _model_evidence(vote: Vote) -> tuple[Match, ...]:
    lines = [d for s, d in vote.lines if s > 0][:MAX_MODEL_EVIDENCE]
    return tuple(
        Match("model", vote.label, "cause", d.event, {}, "medium", 0, round(vote.probability, 3)) for d in lines
    )


def combine(d: Diagnosis, get_vote: Callable[[], Vote | None], rules: RuleSet, *, explain: bool = False) -> Diagnosis:
    """Apply the policy of ``classify/__init__.py`` to the rules' diagnosis ``d``.

    Args:
        d: the rules-only diagnosis.
        rules: the rule set ``d`` was decided with (titles and fixes of the causes the model names).
        get_vote: returns the model's vote (called only when the model can change the answer, or for ``explain``).
        explain: record the vote, its top lines and features in ``stats["explain"]``.

    Returns:
        The combined ``Diagnosis`` (``method`` ``rule``, ``rule+model`` or ``model``).
    """
    final = rule_decides(d)
    vote = get_vote() if (explain or not final) else None
    stats = dict(d.stats)
    if explain:
        stats["explain"] = dict(
            vote.explain_dict() if vote is not None else {"model_label": None},
            decided_by="rules" if final else "combined",
        )
    if final or vote is None:
        return dataclasses.replace(d, stats=stats) if explain else d
    if vote.label in CONTRADICTED_BY and d.stats.get(CONTRADICTED_BY[vote.label]):
        # the facts rule the model's cause out (``numeric_tail``: the loss ended finite): the rules' answer stands
        return dataclasses.replace(d, stats=stats)
    if vote.label in NEEDS_VERSIONS and not _states_versions(d, vote):
        return _listed(d, stats, vote)
    if vote.label in NEEDS_GPU and not _names_gpu(d, vote):
        return _listed(d, stats, vote)
    if vote.label in NEEDS_PLACEMENT and not any(_PLACEMENT.search(t) for t in _texts_read(d, vote)):
        return _listed(d, stats, vote)

    if d.verdict == "no_failure":
        if d.rule_id == CLEAN_RULE_ID:
            # a fact, not an absence, says the job succeeded: every process the launcher reported exited 0 after the
            # errors it printed (``recovered``); words the model learnt from failed jobs do not outweigh that
            return _listed(d, stats, vote)
        if (
            vote.label in ROOT_CAUSES
            and vote.probability >= max(NO_FAILURE_OVERRIDE, vote.threshold)
            and _supported(vote, clean=True)
        ):
            return _model_decides(d, vote, stats, rules, "The rules found no error line, but")
        return _listed(d, stats, vote)

    guess = rule_guess(d)
    if not vote.confident or vote.label not in ROOT_CAUSES:
        # the model is unsure, or says "no failure" while the rules saw errors: the rules' answer stands
        return _listed(d, stats, vote)

    if vote.label == guess:
        # a weak rule confirmed by the model
        conf = noisy_or(d.confidence, vote.probability)
        top = Hypothesis(guess, conf, "rule+model", d.hypotheses[0].evidence if d.hypotheses else (), d.rule_id)
        changes: dict[str, Any] = dict(
            confidence=conf, method="rule+model", stats=stats, hypotheses=_hyps(top, d.hypotheses[1:], None)
        )
        if d.verdict != "failure" and conf >= ABSTAIN_BELOW:
            fix, _ = fix_for(rules, guess, d.rule_id, d.evidence[0].groups if d.evidence else None)
            rule_title = _rule_title(rules, d.rule_id)
            changes.update(verdict="failure", root_cause=guess, fix=fix, title=rule_title or taxonomy_title(guess))
        return dataclasses.replace(d, **changes)

    if d.verdict == "failure":
        # the rules gave an answer (a weak cause or a symptom): the model corroborates it or is listed, never
        # overrules it (in cross-validation, overruling lost more logs than it won; for a symptom-only answer too,
        # see the note above ``MAX_MODEL_EVIDENCE``)
        return dataclasses.replace(d, stats=stats, hypotheses=_hyps(d.hypotheses[0], d.hypotheses[1:], vote))

    # the rules abstained (no rule fired but errors were seen, or the best rule is below the bar): the model decides
    return _model_decides(d, vote, stats, rules, "No rule is decisive here;")


def _model_decides(d: Diagnosis, vote: Vote, stats: dict[str, Any], rules: RuleSet, why: str) -> Diagnosis:
    """The model's cause becomes the answer (``method: model``); the rules' candidates stay as hypotheses."""
    fix, severity = fix_for(rules, vote.label)
    top = Hypothesis(vote.label, round(vote.probability, 3), "model", _model_evidence(vote), None)
    demoted = tuple(
        dataclasses.replace(h, confidence=round(min(h.confidence, vote.probability * 0.99), 3)) for h in d.hypotheses
    )
    first = vote.top_event() or d.first_failure
    evidence = _model_evidence(vote)
    was_symptom = bool(d.evidence) and d.evidence[0].role == "symptom"
    listed = (*d.evidence, *d.symptoms) if was_symptom else d.symptoms
    # symptom rules naming the model's cause (the launcher's SIGTERM to siblings) corroborate it: evidence, not
    # symptoms of itself (the same policy as diagnose)
    symptoms = tuple(m for m in listed if m.root_cause != vote.label)
    evidence = (*evidence, *(m for m in listed if m.root_cause == vote.label))
    return dataclasses.replace(
        d,
        verdict="failure",
        root_cause=vote.label,
        title=taxonomy_title(vote.label),
        message=f"{why} the classifier names {vote.label} with probability "
        f"{vote.probability:.2f} from the log's warning/error and last lines.",
        confidence=round(vote.probability, 3),
        method="model",
        rule_id=None,
        severity=severity,
        hypotheses=_hyps(top, demoted, None),
        first_failure=first,
        evidence=evidence,
        symptoms=symptoms,
        fix=fix,
        stats=stats,
    )


def _rule_title(rules: RuleSet, rule_id: str | None) -> str | None:
    if rule_id is None:
        return None
    r = rules.by_id.get(rule_id)
    return r.spec.title if r is not None else None
