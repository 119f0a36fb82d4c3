"""Grouped cross-validation of rules only, model only and the combination (``logsleuth eval``).

Every corpus log is analysed once by the rules; then, for K grouped folds (``StratifiedGroupKFold``; group = the
directory under ``corpus/logs`` a log sits in, so logs reconstructed from one thread or produced by one generator
never sit on both sides), a model is trained on the other folds' logs only and votes on the held-out fold. The
three systems are scored on the same held-out predictions:

- **rules**: the rules' diagnosis (``unknown`` = abstain);
- **model**: the model's top label when its probability reaches the threshold, else ``unknown`` (abstain);
- **combined**: ``logsleuth.combine.combine`` — exactly what ``analyze`` does with the shipped model.

Each training fold also holds its logs' ablated copies (``ablate.py``), so the fold's model learns from context
as ``train`` does; a held-out log's own ablated copy is never in its fold's training data.

``drop_rule_lines=True`` runs the ablation instead: from every log the rules diagnosed correctly, the lines the
winning rule matched (``RuleSet.matched_lines``: the decisive lines; a traceback keeps its frames) are deleted,
the shortened log is analysed again by the rules, and the same fold models vote on it. A log whose lines were all
decisive becomes empty; it counts as a miss (``unknown``) for all three systems and is reported as ``emptied``.

Every metric is also given per corpus split (``by_split``): ``dev`` logs are those the rules were written from,
``heldout`` logs were collected after the rules were frozen, so there the rules face unseen logs too.

Metrics per system (``metrics``): ``accuracy`` (abstentions count as wrong), ``macro_f1`` over the true labels,
``per_class`` precision/recall/f1/support, ``abstain_rate``, ``n``, ``no_failure_fp_rate`` (share of ``no_failure``
logs reported as anything else) and the ``confusion`` matrix.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..combine import NO_FAILURE_OVERRIDE, combine
from ..errors import InputError, LogsleuthError
from .features import Sample, load_corpus
from .model import DEFAULT_THRESHOLD, Classifier, Vote

SYSTEMS = ("rules", "model", "combined")
SPLIT_KEYS = ("accuracy", "macro_f1", "abstain_rate", "no_failure_fp_rate", "n")
# How much of an ablated log is left, in distinct events (``features.doc_lines``): the ablation's ceiling depends on
# it (a thread excerpt that was little more than its decisive lines keeps nothing to name the cause from).
CONTEXT_BINS = (("empty", 0, 0), ("1-3", 1, 3), ("4+", 4, None))
DEFAULT_FOLDS = 5
GROUP_BY = ("source", "ecosystem")
UNLABELLED = "unlabelled"
# ecosystems with fewer logs than this are left out together as ``OTHER`` (one fold, one row of figures): a
# one-log ecosystem says little alone, and ~100 single-log folds would each retrain the model
MIN_ECOSYSTEM_LOGS = 5
OTHER = "other"


def _same(vote: Vote | None) -> Vote | None:
    """``combine``'s vote getter for a vote already computed (bound with ``functools.partial``)."""
    return vote


def ecosystem_of(sample: Sample) -> str:
    """The manifest ``ecosystem`` of a corpus sample (``unlabelled`` when the row has none)."""
    return sample.row.ecosystem or UNLABELLED


def ecosystem_groups(samples: Sequence[Sample], min_logs: int = MIN_ECOSYSTEM_LOGS) -> list[str]:
    """Each sample's evaluation ecosystem: its own when it has at least ``min_logs`` logs, else ``OTHER``."""
    from collections import Counter

    n = Counter(ecosystem_of(s) for s in samples)
    return [ecosystem_of(s) if n[ecosystem_of(s)] >= min_logs else OTHER for s in samples]


ABSTAIN = "unknown"


@dataclass
class Outcome:
    """One held-out log: its truth and the three systems' answers."""

    file: str
    group: str
    label: str
    rules: str
    model: str
    combined: str
    method: str
    fold: int
    emptied: bool = False
    split: str = "dev"
    events_left: int | None = None
    ecosystem: str = ""  # ablation only: distinct events the model still had (0 when emptied)


def metrics(y_true: Sequence[str], y_pred: Sequence[str]) -> dict[str, Any]:
    """Scores of one system.

    Args:
        y_true: the manifest labels.
        y_pred: the system's answers (``unknown`` = abstain), same length.

    Returns:
        ``accuracy``, ``macro_f1`` (over the labels in ``y_true``), ``per_class`` ({label: {precision, recall, f1,
        support}} for every true or predicted label except ``unknown``), ``abstain_rate``, ``n``,
        ``no_failure_fp_rate`` (None without ``no_failure`` logs) and ``confusion`` ({labels, matrix}; rows = true,
        columns = predicted).
    """
    from sklearn.metrics import confusion_matrix, f1_score, precision_recall_fscore_support

    n = len(y_true)
    if n == 0:
        return {
            "accuracy": 0.0,
            "macro_f1": 0.0,
            "per_class": {},
            "abstain_rate": 0.0,
            "n": 0,
            "no_failure_fp_rate": None,
            "confusion": {"labels": [], "matrix": []},
        }
    true_labels = sorted(set(y_true))
    listed = sorted((set(y_true) | set(y_pred)) - {ABSTAIN})
    p, r, f, s = precision_recall_fscore_support(y_true, y_pred, labels=listed, zero_division=0)
    per_class = {
        lab: {
            "precision": round(float(p[i]), 4),
            "recall": round(float(r[i]), 4),
            "f1": round(float(f[i]), 4),
            "support": int(s[i]),
        }
        for i, lab in enumerate(listed)
    }
    cm_labels = listed + ([ABSTAIN] if ABSTAIN in set(y_true) | set(y_pred) else [])
    nf = [yp for yt, yp in zip(y_true, y_pred) if yt == "no_failure"]
    return {
        "accuracy": round(sum(a == b for a, b in zip(y_true, y_pred)) / n, 4),
        "macro_f1": round(float(f1_score(y_true, y_pred, labels=true_labels, average="macro", zero_division=0)), 4),
        "per_class": per_class,
        "abstain_rate": round(sum(y == ABSTAIN for y in y_pred) / n, 4),
        "n": n,
        "no_failure_fp_rate": round(sum(y != "no_failure" for y in nf) / len(nf), 4) if nf else None,
        "confusion": {"labels": cm_labels, "matrix": confusion_matrix(y_true, y_pred, labels=cm_labels).tolist()},
    }


def _model_answer(vote: Vote | None) -> str:
    return vote.label if vote is not None and vote.confident else ABSTAIN


@dataclass
class EvalResult:
    """``scores`` ({system: metrics}), the per-log ``outcomes``, and the setup (folds, groups, ablation)."""

    scores: dict[str, dict[str, Any]]
    outcomes: list[Outcome]
    folds: int
    groups: int
    threshold: float
    drop_rule_lines: bool
    group_by: str = "source"
    ablated_of: int = 0
    emptied: int = 0

    @property
    def left_clean(self) -> int:
        """Ablation: logs that kept lines but no error the rules see (their answer became ``no_failure``)."""
        return sum(1 for o in self.outcomes if not o.emptied and o.rules == "no_failure")


def evaluate(
    corpus: str | os.PathLike[str],
    *,
    folds: int = DEFAULT_FOLDS,
    drop_rule_lines: bool = False,
    threshold: float = DEFAULT_THRESHOLD,
    rules: Any = None,
    progress: Callable[[int, int], None] | None = None,
    samples: Sequence[Sample] | None = None,
    group_by: str = "source",
    jobs: int = 1,
) -> EvalResult:
    """Grouped K-fold evaluation of rules only, model only and combined (see the module docstring).

    Args:
        corpus: directory with ``manifest.csv`` and the logs.
        folds: K (at most the number of groups; at least 2).
        drop_rule_lines: run the ablation that deletes the winning cause's evidence lines.
        threshold: the model's decision threshold.
        rules: a loaded ``RuleSet`` (default: built-ins).
        progress: called with ``(fold_done, folds)`` after each fold.
        samples: already analysed corpus samples (skips re-reading ``corpus``).
        group_by: ``source`` (K grouped folds; group = the directory under ``logs/``) or ``ecosystem`` (leave one
            ecosystem out: each ecosystem's logs are scored by a model trained on the other ecosystems only; needs
            the manifest's ``ecosystem`` column, rows without one form the ``unlabelled`` ecosystem; ecosystems
            with fewer than ``MIN_ECOSYSTEM_LOGS`` logs are left out together as ``other``).
        jobs: worker processes that fit fold models at once (1: all in this process). The answers do not depend
            on it.

    Returns:
        An ``EvalResult``.

    Raises:
        InputError: a bad corpus, fewer than two groups, or ``folds`` < 2.
    """
    (res,) = evaluate_settings(
        corpus,
        settings=(drop_rule_lines,),
        folds=folds,
        threshold=threshold,
        rules=rules,
        progress=progress,
        samples=samples,
        group_by=group_by,
        jobs=jobs,
    )
    return res


def evaluate_settings(
    corpus: str | os.PathLike[str],
    *,
    settings: Sequence[bool] = (False, True),
    folds: int = DEFAULT_FOLDS,
    threshold: float = DEFAULT_THRESHOLD,
    rules: Any = None,
    progress: Callable[[int, int], None] | None = None,
    samples: Sequence[Sample] | None = None,
    group_by: str = "source",
    jobs: int = 1,
) -> list[EvalResult]:
    """One cross-validation scored in several settings: ``False`` the logs as they are, ``True`` the
    drop-rule-lines ablation (arguments as ``evaluate``'s).

    A fold's model does not depend on the setting (it trains on the other folds' logs and their ablated copies in
    both), so each fold is fitted once and votes in every setting: scoring both settings costs one cross-validation,
    not two. Each result equals ``evaluate`` run with that setting alone.

    Returns:
        One ``EvalResult`` per entry of ``settings``, in order.

    Raises:
        InputError: a bad corpus, fewer than two groups, ``folds`` < 2 or ``jobs`` < 1.
    """
    from sklearn.model_selection import StratifiedGroupKFold

    from ..rules import load_rules
    from .ablate import add_ablations
    from .train import trainable, training_rows

    if folds < 2:
        raise InputError(f"--folds must be at least 2 (got {folds})")
    if jobs < 1:
        raise InputError(f"--jobs must be at least 1 (got {jobs})")
    rules = rules if rules is not None else load_rules()
    samples = list(samples) if samples is not None else load_corpus(corpus, rules)
    if any(s.ablated is None for s in samples):
        add_ablations(samples, rules)  # the training folds' augmentation, and the ablation's test logs
    if group_by not in GROUP_BY:
        raise InputError(f"--group-by must be one of {', '.join(GROUP_BY)} (got {group_by!r})")
    by_eco = group_by == "ecosystem"
    groups = ecosystem_groups(samples) if by_eco else [s.row.group for s in samples]
    eco_of = dict(zip((id(s) for s in samples), ecosystem_groups(samples)))
    n_groups = len(set(groups))
    if n_groups < 2:
        raise InputError(f"cross-validation needs logs from at least two {'ecosystems' if by_eco else 'groups'}")
    labels = [s.row.label for s in samples]

    import warnings

    if by_eco:
        from sklearn.model_selection import LeaveOneGroupOut

        splits = list(LeaveOneGroupOut().split(np.zeros(len(samples)), labels, groups))
        k = len(splits)
    else:
        k = min(folds, n_groups)
        splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=0)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
            splits = list(splitter.split(np.zeros(len(samples)), labels, groups))

    rows = [training_rows([s]) for s in samples]  # each log's model rows (and its ablated copy's), built once

    def fold_args(tr: np.ndarray) -> tuple[Any, ...]:
        kept, skipped = trainable([labels[i] for i in tr])
        if len(kept) < 2:
            return None, skipped, threshold  # too few labelled logs in the training folds: the model abstains
        parts = [rows[i] for i in tr if labels[i] in kept]
        return tuple(np.concatenate([part[c] for part in parts]) for c in range(4)), skipped, threshold

    outcomes: list[list[Outcome]] = [[] for _ in settings]
    fitted = _fit_folds((functools.partial(fold_args, tr) for tr, _ in splits), min(jobs, k))
    for fold, ((_, te), clf) in enumerate(zip(splits, fitted)):
        for out, drop in zip(outcomes, settings):
            out.extend(_fold_outcomes([samples[i] for i in te], clf, drop, fold, rules, eco_of))
        if progress is not None:
            progress(fold + 1, k)
    ablated_of = sum(1 for s in samples if s.ablated is not None)
    return [
        _result(out, k, n_groups, threshold, drop, group_by, ablated_of if drop else 0)
        for out, drop in zip(outcomes, settings)
    ]


def _fit_folds(tasks: Iterator[Callable[[], tuple[Any, ...]]], jobs: int) -> Iterator[Classifier | None]:
    """The fold models, in fold order: ``_fit_fold(*task())`` for each task, ``jobs`` at a time in worker processes.

    A task builds its fold's training rows only when a worker is free, so at most ``jobs`` folds' rows are held at
    once. Workers start by forkserver (spawn where there is none), never by fork: the caller may run threads (the
    CLI's progress display), and a forked worker could inherit a lock one of them held. The pool is shut down before
    the last model is returned: no process or thread outlives the call. A worker also exits as soon as the calling
    process dies (``_exit_with_parent``), so a parent killed by SIGTERM or SIGKILL leaves no fold being fitted.
    """
    if jobs <= 1:
        for task in tasks:
            yield _fit_fold(*task())
        return
    import multiprocessing
    from collections import deque
    from concurrent.futures import Future, ProcessPoolExecutor

    method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
    with ProcessPoolExecutor(
        jobs, mp_context=multiprocessing.get_context(method), initializer=_exit_with_parent
    ) as pool:
        pending: deque[Future[Classifier | None]] = deque()
        for task in tasks:
            pending.append(pool.submit(_fit_fold, *task()))
            if len(pending) == jobs:
                yield pending.popleft().result()  # scored while the workers fit the next folds
        rest = [f.result() for f in pending]
    yield from rest


def _exit_with_parent() -> None:
    """Worker initializer: end this worker when the process that started the pool dies.

    A pool's workers learn of their parent's death only when they next talk to it, after their current fold: a parent
    killed without running its clean-up (a plain SIGTERM, SIGKILL) would leave them fitting for minutes. A daemon
    thread waits on the parent's sentinel (``multiprocessing.parent_process()``, set for spawn and forkserver
    children, Python 3.8+) and exits the worker when it fires.
    """
    import multiprocessing
    import threading

    parent = multiprocessing.parent_process()
    if parent is None:
        return

    def watch() -> None:
        parent.join()
        os._exit(1)

    threading.Thread(target=watch, name="logsleuth-parent-watch", daemon=True).start()


def _fit_fold(data: tuple[np.ndarray, ...] | None, skipped: set[str], threshold: float) -> Classifier | None:
    """One fold's model from its training rows (``train.training_rows``: x, y, groups, weights); None when too few
    labels. Runs in a worker process when ``evaluate`` has ``jobs`` > 1."""
    from .train import classifier_of, fit_rows

    if data is None:
        return None
    try:
        return classifier_of(fit_rows(*data), sorted(skipped), threshold)
    except LogsleuthError:
        return None


def _fold_outcomes(
    test: Sequence[Sample],
    clf: Classifier | None,
    drop_rule_lines: bool,
    fold: int,
    rules: Any,
    eco_of: dict[int, str],
) -> list[Outcome]:
    """The held-out logs' outcomes in one fold, in one setting."""
    out: list[Outcome] = []
    for s in test:
        if drop_rule_lines:
            ab = s.ablated
            if ab is None:
                continue  # the rules did not get it right: there is no decisive line to delete
            if ab.diagnosis is None:  # emptied
                out.append(
                    Outcome(
                        s.row.file,
                        s.row.group,
                        s.row.label,
                        ABSTAIN,
                        ABSTAIN,
                        ABSTAIN,
                        "none",
                        fold,
                        emptied=True,
                        split=s.row.split,
                        events_left=0,
                        ecosystem=eco_of[id(s)],
                    )
                )
                continue
            diag, lines = ab.diagnosis, ab.lines
        else:
            diag, lines = s.diagnosis, s.lines
        vote = clf.vote_lines(lines, diag) if clf is not None and lines else None
        comb = combine(diag, functools.partial(_same, vote), rules)
        out.append(
            Outcome(
                s.row.file,
                s.row.group,
                s.row.label,
                diag.root_cause,
                _model_answer(vote),
                comb.root_cause,
                comb.method,
                fold,
                split=s.row.split,
                events_left=len(lines) if drop_rule_lines else None,
                ecosystem=eco_of[id(s)],
            )
        )
    return out


def _result(
    outcomes: list[Outcome],
    k: int,
    n_groups: int,
    threshold: float,
    drop_rule_lines: bool,
    group_by: str,
    ablated_of: int,
) -> EvalResult:
    """Scores of every system, overall, per split and per ecosystem, from the held-out outcomes."""
    y = [o.label for o in outcomes]
    scores = {sys_: metrics(y, [getattr(o, sys_) for o in outcomes]) for sys_ in SYSTEMS}
    for sys_ in SYSTEMS:
        scores[sys_]["by_split"] = {}
        for split in sorted({o.split for o in outcomes}):
            part = [o for o in outcomes if o.split == split]
            m = metrics([o.label for o in part], [getattr(o, sys_) for o in part])
            scores[sys_]["by_split"][split] = {k_: m[k_] for k_ in SPLIT_KEYS}
        if any(o.ecosystem for o in outcomes):
            scores[sys_]["by_ecosystem"] = {}
            for eco in sorted({o.ecosystem or UNLABELLED for o in outcomes}):
                part = [o for o in outcomes if (o.ecosystem or UNLABELLED) == eco]
                m = metrics([o.label for o in part], [getattr(o, sys_) for o in part])
                scores[sys_]["by_ecosystem"][eco] = {k_: m[k_] for k_ in SPLIT_KEYS}
    return EvalResult(
        scores,
        outcomes,
        k,
        n_groups,
        threshold,
        drop_rule_lines,
        group_by,
        ablated_of=ablated_of,
        emptied=sum(o.emptied for o in outcomes),
    )


def by_context(outcomes: Sequence[Outcome], system: str) -> dict[str, dict[str, Any]]:
    """Ablation accuracy of ``system`` per ``CONTEXT_BINS`` bin of events left: ``{bin: {"n", "accuracy"}}``
    (accuracy None for an empty bin)."""
    out = {}
    for name, lo, hi in CONTEXT_BINS:
        part = [
            o
            for o in outcomes
            if o.events_left is not None and o.events_left >= lo and (hi is None or o.events_left <= hi)
        ]
        acc = round(sum(getattr(o, system) == o.label for o in part) / len(part), 4) if part else None
        out[name] = {"n": len(part), "accuracy": acc}
    return out


def to_json(result: EvalResult) -> dict[str, Any]:
    """``{"rules": M, "model": M, "combined": M}``; each M also carries the setup (``folds``, ``groups``,
    ``threshold``, ``setting`` = ``full`` | ``drop_rule_lines``; for the ablation also ``emptied``, ``left_clean`` and
    ``by_context``: accuracy by how many distinct events the ablated log kept, ``by_context(...)``)."""
    out = {}
    for sys_ in SYSTEMS:
        m = dict(result.scores[sys_])
        m.update(
            folds=result.folds,
            groups=result.groups,
            threshold=result.threshold,
            group_by=result.group_by,
            setting="drop_rule_lines" if result.drop_rule_lines else "full",
        )
        if result.drop_rule_lines:
            m["emptied"] = result.emptied
            m["left_clean"] = result.left_clean
            m["by_context"] = by_context(result.outcomes, sys_)
        out[sys_] = m
    return out


def format_text(result: EvalResult) -> str:
    """A plain-text report: the summary rows, per-class precision/recall, confusion matrices, misses."""
    sc = result.scores
    lines = []
    what = (
        "ablation: the lines the winning rule matched deleted from each log the rules got right"
        if result.drop_rule_lines
        else "all logs"
    )
    if result.group_by == "ecosystem":
        lines.append(
            f"Leave-one-ecosystem-out cross-validation over {result.groups} ecosystems ({what}); "
            f"model threshold {result.threshold}"
        )
    else:
        lines.append(
            f"Grouped {result.folds}-fold cross-validation over {result.groups} groups ({what}); "
            f"model threshold {result.threshold}"
        )
    if result.drop_rule_lines:
        lines.append(
            f"{result.ablated_of} logs ablated; {result.emptied} became empty (every line was a decisive "
            f"line) and count as misses; {result.ablated_of - result.emptied} still had lines, of which "
            f"{result.left_clean} show no error any more (rules: no_failure; the model may overrule that only at "
            f"probability >= {NO_FAILURE_OVERRIDE})."
        )
    lines.append("")
    lines.append(f"{'system':10} {'n':>4} {'accuracy':>9} {'macro-F1':>9} {'abstain':>8} {'no_failure FP':>14}")
    for s in SYSTEMS:
        m = sc[s]
        fp = "-" if m["no_failure_fp_rate"] is None else f"{m['no_failure_fp_rate']:.3f}"
        lines.append(
            f"{s:10} {m['n']:>4} {m['accuracy']:>9.3f} {m['macro_f1']:>9.3f} {m['abstain_rate']:>8.3f} {fp:>14}"
        )
    splits = sorted(sc[SYSTEMS[0]].get("by_split", {}))
    if len(splits) > 1:
        lines.append(
            "by corpus split (dev: the rules were written from these logs; heldout: collected after the "
            "rules were frozen):"
        )
        for split in splits:
            lines.append(
                f"  {split:8} "
                + ", ".join(
                    f"{s} {sc[s]['by_split'][split]['accuracy']:.3f}/{sc[s]['by_split'][split]['macro_f1']:.3f}"
                    for s in SYSTEMS
                )
                + f"  (accuracy/macro-F1, n={sc[SYSTEMS[0]]['by_split'][split]['n']})"
            )
    ecos = sc[SYSTEMS[0]].get("by_ecosystem", {})
    if ecos:
        lines.append("by ecosystem (accuracy; no_failure FP rate where it has healthy logs):")
        lines.append(f"  {'ecosystem':18} {'n':>4} " + " ".join(f"{s:>9}" for s in SYSTEMS))
        for eco in ecos:
            row = [sc[s]["by_ecosystem"][eco] for s in SYSTEMS]
            fp = row[2]["no_failure_fp_rate"]
            lines.append(
                f"  {eco:18} {row[0]['n']:>4} "
                + " ".join(f"{r['accuracy']:>9.3f}" for r in row)
                + ("" if fp is None else f"  (combined no_failure FP {fp:.3f})")
            )
    if result.drop_rule_lines and result.ablated_of > result.emptied:
        kept = [o for o in result.outcomes if not o.emptied]
        lines.append(
            "on the ablated logs that still had lines: "
            + ", ".join(f"{s} {sum(getattr(o, s) == o.label for o in kept) / len(kept):.3f}" for s in SYSTEMS)
            + f" accuracy (n={len(kept)})"
        )
        ctx = {s: by_context(result.outcomes, s) for s in SYSTEMS}
        lines.append(
            "by distinct events left after the deletion (accuracy): "
            + "; ".join(
                f"{name} n={ctx['rules'][name]['n']}: "
                + ", ".join(f"{s} {ctx[s][name]['accuracy']:.3f}" for s in SYSTEMS)
                for name, _, _ in CONTEXT_BINS
                if ctx["rules"][name]["n"]
            )
        )
    lines.append("")
    labels = sorted({lab for s in SYSTEMS for lab in sc[s]["per_class"]})
    lines.append("Per class: precision / recall (support)")
    lines.append(f"{'label':26} " + " ".join(f"{s:>15}" for s in SYSTEMS) + f" {'support':>8}")
    for lab in labels:
        cells = []
        support = 0
        for s in SYSTEMS:
            pc = sc[s]["per_class"].get(lab)
            if pc is None:
                cells.append(f"{'-':>15}")
            else:
                support = max(support, pc["support"])
                cells.append(f"{pc['precision']:>7.2f}/{pc['recall']:<7.2f}")
        lines.append(f"{lab:26} " + " ".join(cells) + f" {support:>8}")
    for s in SYSTEMS:
        cm = sc[s]["confusion"]
        labs = cm["labels"]
        lines.append("")
        lines.append(f"Confusion matrix, {s} (rows = true, columns = predicted, numbered as the rows):")
        lines.append(f"{'':30}" + "".join(f"{j:>3}" for j in range(len(labs))))
        for i, lab in enumerate(labs):
            lines.append(f"{i:>2} {lab:27}" + "".join(f"{v:>3}" if v else "  ." for v in cm["matrix"][i]))
    misses = [o for o in result.outcomes if o.combined != o.label]
    if misses:
        lines.append("")
        lines.append(f"Combined misses ({len(misses)}):")
        for o in misses:
            lines.append(f"  {o.file}: {o.label} -> {o.combined} ({o.method}; rules {o.rules}, model {o.model})")
    return "\n".join(lines) + "\n"
