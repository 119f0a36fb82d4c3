"""Train the classifier from the labelled corpus (``logsleuth train``). Never imported by ``analyze``.

The model is one scikit-learn ``Pipeline`` over ``[templates, text, rules]`` rows (``features.document``)::

    ColumnTransformer(
        tpl: TfidfVectorizer(word 1-2-grams over the masked templates, sublinear tf, min_df=2)
        txt: TfidfVectorizer(char_wb 3-5-grams over the original text, sublinear tf, min_df=2, 30k most frequent)
        rul: TfidfVectorizer(the rules' matches as words: features.rule_tokens)
    ) -> CalibratedClassifierCV(LinearSVC(class_weight="balanced"), method="temperature", ensemble=False)

Every log the rules got right is also trained on as its ablated copy (``ablate.py``: its decisive lines deleted,
re-analysed; sample weight ``ABLATED_WEIGHT``), so the model learns the context of a cause and not only the line
a rule already knows.

``min_df=2`` keeps only n-grams seen in at least two training logs (an n-gram unique to one log cannot generalise
to another). Every column has a vocabulary, so ``scorer.export`` can copy the model into numpy arrays that
``analyze`` scores without scikit-learn, and ``--explain`` names every feature. Temperature scaling (one
parameter for all classes, fitted on out-of-fold scores of grouped, stratified folds; ``calibration_folds``) turns
the SVM's scores into probabilities the abstention threshold is set on; with ~5 logs per label, per-class
(sigmoid) calibration was markedly under-confident in cross-validation. A label with a single training log cannot
be calibrated and is left to the rules (listed in the sidecar's ``labels_skipped``).
"""

from __future__ import annotations

import os
import platform
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import InputError
from .features import N_COLUMNS, Sample, corpus_sha256, document, load_corpus, read_manifest, rule_tokens
from .model import DEFAULT_THRESHOLD, MODEL_DIR, Classifier, save

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

WORD_TOKENS = r"<[A-Za-z]+>|[A-Za-z_][A-Za-z0-9_]*[A-Za-z0-9_]"  # words and the masks (<NUM>, <IP>...), no numbers
MAX_WORD_FEATURES = 20000
MAX_CHAR_FEATURES = 30000  # character n-grams kept (the most frequent seen in two logs or more)
C = 1.0  # inverse L2 strength of the linear SVM
MAX_CALIBRATION_FOLDS = 3
ABLATED_WEIGHT = 0.5  # sample weight of a log's copy without its decisive lines (ablate.py)
RANDOM_STATE = 0


def build_pipeline(calibration_folds: Any) -> Any:
    """The untrained ``Pipeline`` (see the module docstring).

    Args:
        calibration_folds: the calibration's ``cv``: an int k, or a list of ``(train_idx, test_idx)`` pairs.
    """
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.compose import ColumnTransformer
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.pipeline import Pipeline
    from sklearn.svm import LinearSVC

    features = ColumnTransformer(
        [
            (
                "tpl",
                TfidfVectorizer(
                    token_pattern=WORD_TOKENS,
                    ngram_range=(1, 2),
                    sublinear_tf=True,
                    min_df=2,
                    max_features=MAX_WORD_FEATURES,
                    dtype=np.float32,
                ),
                0,
            ),
            (
                "txt",
                TfidfVectorizer(
                    analyzer="char_wb",
                    ngram_range=(3, 5),
                    sublinear_tf=True,
                    min_df=2,
                    max_features=MAX_CHAR_FEATURES,
                    dtype=np.float32,
                ),
                1,
            ),
            ("rul", TfidfVectorizer(token_pattern=r"\S+", lowercase=False, sublinear_tf=True, dtype=np.float32), 2),
        ]
    )
    linear = LinearSVC(C=C, class_weight="balanced", max_iter=20000, random_state=RANDOM_STATE)
    clf = CalibratedClassifierCV(linear, method="temperature", cv=calibration_folds, ensemble=False)
    return Pipeline([("features", features), ("clf", clf)])


def trainable(labels: Sequence[str]) -> tuple[set[str], set[str]]:
    """Split labels into (kept, skipped): a label needs at least two logs to be learned and calibrated."""
    counts = Counter(labels)
    kept = {k for k, n in counts.items() if n >= 2}
    return kept, set(counts) - kept


def training_rows(samples: Sequence[Sample]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Model rows for ``samples``, each followed by its ablated copy when it has a non-empty one.

    Returns:
        ``(x, y, groups, weights)``: ``x`` shape ``(n, 3)`` object array of ``[templates, text, rules]``, ``y``
        labels, ``groups`` the corpus group of each row (an ablated copy shares its log's group, so calibration
        folds keep them together), ``weights`` 1 for a log and ``ABLATED_WEIGHT`` for an ablated copy.
    """
    rows, y, groups, weights = [], [], [], []
    for s in samples:
        rows.append(document(s.lines, rule_tokens(s.diagnosis)))
        y.append(s.row.label)
        groups.append(s.row.group)
        weights.append(1.0)
        ab = s.ablated
        if ab is not None and not ab.emptied and ab.lines:
            rows.append(document(ab.lines, rule_tokens(ab.diagnosis)))
            y.append(s.row.label)
            groups.append(s.row.group)
            weights.append(ABLATED_WEIGHT)
    x = np.asarray(rows, dtype=object).reshape(-1, N_COLUMNS)
    return x, np.asarray(y), np.asarray(groups), np.asarray(weights, dtype=np.float64)


def calibration_folds(y: np.ndarray, groups: np.ndarray) -> list[tuple[np.ndarray, np.ndarray]]:
    """Stratified folds for the calibration, grouped by corpus group so the temperature is fitted on scores of
    logs from sources the fold's model never saw (near-copies from one thread or generator stay together).

    k = min(3, fewest groups of any label); when some label comes from a single group, logs are grouped one by one
    instead (else a fold's model would miss that label).
    """
    from sklearn.model_selection import StratifiedGroupKFold

    per_label = Counter(lab for lab, _ in set(zip(y.tolist(), groups.tolist())))
    if min(per_label.values()) < 2:
        groups = np.arange(len(y))
        per_label = Counter(y.tolist())
    k = max(2, min(MAX_CALIBRATION_FOLDS, min(per_label.values())))
    splitter = StratifiedGroupKFold(n_splits=k, shuffle=True, random_state=RANDOM_STATE)
    return [(tr, te) for tr, te in splitter.split(np.zeros(len(y)), y, groups)]


def fit(samples: Sequence[Sample]) -> tuple[Any, list[str]]:
    """Fit the pipeline on ``samples`` (their ``row.label``).

    Returns:
        ``(pipeline, skipped_labels)``.

    Raises:
        InputError: fewer than two labels with at least two logs each.
    """
    kept, skipped = trainable([s.row.label for s in samples])
    if len(kept) < 2:
        raise InputError("need at least two labels with two or more logs each to train a classifier")
    return fit_rows(*training_rows([s for s in samples if s.row.label in kept])), sorted(skipped)


def fit_rows(x: np.ndarray, y: np.ndarray, groups: np.ndarray, weights: np.ndarray) -> Any:
    """Fit the pipeline on ``training_rows`` output (every label in ``y`` trainable) and return it.

    Cross-validation fits its folds through this in worker processes: the rows are plain strings and numbers, so a
    fold ships them and not the analysed corpus.
    """
    import warnings

    pipe = build_pipeline(calibration_folds(y, groups))
    with warnings.catch_warnings():
        # tiny classes: sklearn warns that y "could represent a regression problem"; it does not
        warnings.filterwarnings("ignore", message="The number of unique classes", category=UserWarning)
        warnings.filterwarnings("ignore", message="The least populated class", category=UserWarning)
        pipe.fit(x, y, clf__sample_weight=weights)
    for _, vec, _ in pipe.named_steps["features"].transformers_:
        if hasattr(vec, "vocabulary_"):  # numpy ints would become one file each in the .skops zip
            vec.vocabulary_ = {term: int(i) for term, i in vec.vocabulary_.items()}
    return pipe


@dataclass(frozen=True)
class TrainResult:
    """What ``train`` wrote: the two files, the sidecar dict and the wall time of analysing + fitting (s)."""

    model_path: Path
    sidecar_path: Path
    meta: dict[str, Any]
    seconds: float


def versions() -> dict[str, str]:
    """Versions of the libraries the model depends on (recorded in the sidecar)."""
    import scipy
    import sklearn
    import skops

    from .. import __version__

    return {
        "logsleuth": __version__,
        "scikit-learn": sklearn.__version__,
        "skops": skops.__version__,
        "numpy": np.__version__,
        "scipy": scipy.__version__,
        "python": platform.python_version(),
    }


def train(
    corpus: str | os.PathLike[str],
    output: str | os.PathLike[str] = MODEL_DIR,
    *,
    threshold: float = DEFAULT_THRESHOLD,
    rules: RuleSet | None = None,
) -> TrainResult:
    """Analyse every corpus log, fit the model on all of them and write ``model.skops`` + ``model.json``.

    Args:
        corpus: directory with ``manifest.csv`` (``file,label,source,notes``) and the logs.
        output: directory for the two files (default: inside the installed package, where ``analyze`` looks).
        threshold: the probability the model's top label needs to decide (stored in the sidecar).
        rules: a loaded ``RuleSet`` used to analyse the logs (default: built-ins).

    Returns:
        A ``TrainResult``.

    Raises:
        InputError: a bad manifest or unreadable log; too few labelled logs.
    """
    t0 = time.perf_counter()
    corpus = Path(corpus)
    from ..rules import load_rules
    from .ablate import add_ablations

    rows = read_manifest(corpus)
    rules = rules if rules is not None else load_rules()
    samples = load_corpus(corpus, rules)
    n_ablated = add_ablations(samples, rules)
    pipe, skipped = fit(samples)
    feats = pipe.named_steps["features"]
    meta: dict[str, Any] = {
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "versions": versions(),
        "threshold": threshold,
        "training_data": {
            "manifest": "manifest.csv",
            "sha256": corpus_sha256(corpus, rows),
            "files": len(rows),
            "groups": len({r.group for r in rows}),
            "label_counts": dict(sorted(Counter(r.label for r in rows).items())),
            "split_counts": dict(sorted(Counter(r.split for r in rows).items())),
            "ablated_copies": n_ablated,
            "ablated_weight": ABLATED_WEIGHT,
        },
        "labels_skipped": skipped,
        "features": {name: len(t.vocabulary_) for name, t, _ in feats.transformers_ if hasattr(t, "vocabulary_")},
    }
    meta["seconds"] = round(time.perf_counter() - t0, 3)
    model_path, sidecar_path, meta = save(pipe, meta, output)
    from . import model as model_mod

    if Path(output).resolve() == MODEL_DIR:
        model_mod.reset_default()
    return TrainResult(model_path, sidecar_path, meta, meta["seconds"])


def classifier_of(pipe: Any, skipped: Sequence[str], threshold: float = DEFAULT_THRESHOLD) -> Classifier:
    """An in-memory ``Classifier`` around a fitted pipeline (``labels_skipped``: labels left out as too rare; for
    cross-validation's fold models, nothing is written)."""
    return Classifier.from_pipeline(
        pipe, {"threshold": threshold, "labels": [str(c) for c in pipe.classes_], "labels_skipped": list(skipped)}
    )
