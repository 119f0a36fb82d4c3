"""The shipped classifier: a scikit-learn ``Pipeline`` in one ``.skops`` file plus a JSON sidecar, loaded lazily.

Files (inside the package, so the wheel carries them): ``logsleuth/classify/model.skops`` and ``model.json``. The
sidecar records the label set, the decision ``threshold``, the library versions the model was trained with, the
SHA-256 of the training data and of the ``.skops`` file, and how many corpus files it was trained on.

Loading never uses pickle or joblib: ``skops.io.load`` with the explicit ``TRUSTED_TYPES`` list below; a file that
holds any other type than skops' default-trusted ones (numpy, scipy, public scikit-learn estimators) and these
is refused with ``ModelError`` before anything is constructed. The ``.skops`` file's hash must match the sidecar's.
Nothing is read until the first job actually asks the model (``default()``), so ``--no-model`` costs nothing.
"""
from __future__ import annotations

import hashlib
import json
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import ModelError
from ..types import LEVEL_RANK, Event
from .features import DocLine, doc_lines, document

MODEL_DIR = Path(__file__).resolve().parent
MODEL_FILE = "model.skops"
SIDECAR_FILE = "model.json"
FORMAT_VERSION = 1
DEFAULT_THRESHOLD = 0.5  # the model's top probability must reach this to decide (see classify/__init__.py)
TOP_RANKED = 5
TOP_FEATURES = 12
TOP_LINES = 5

# Types the model file may contain beyond skops' default-trusted ones. Exact, fully qualified names; anything else
# in a model file is refused (tests/test_classify.py checks the shipped file against this list).
TRUSTED_TYPES: tuple[str, ...] = (
    "sklearn.calibration._CalibratedClassifier",
    "sklearn.calibration._TemperatureScaling",
)


@dataclass(frozen=True)
class Vote:
    """The model's vote for one job.

    Attributes:
        label: the most probable taxonomy id.
        probability: its probability, 0..1.
        ranked: up to ``TOP_RANKED`` ``(label, probability)`` pairs, most probable first.
        threshold: the probability the model must reach to decide (from the sidecar).
        lines: the job's distinct events ranked by how much each, on its own, pushes toward ``label`` (best first;
            ``(score, DocLine)``, score = the linear model's decision value for ``label`` on that line alone).
        features: with ``explain``, up to ``TOP_FEATURES`` ``(feature, contribution)`` pairs: n-grams whose TF-IDF
            value times the class weight adds most to ``label``'s score (``tpl__`` word n-grams over templates,
            ``txt__`` character n-grams over the text).
    """

    label: str
    probability: float
    ranked: tuple[tuple[str, float], ...]
    threshold: float
    lines: tuple[tuple[float, DocLine], ...] = ()
    features: tuple[tuple[str, float], ...] = ()

    @property
    def confident(self) -> bool:
        return self.probability >= self.threshold

    def top_event(self) -> Event | None:
        """The line that most supports ``label``, preferring warning+ events (the model's first failure)."""
        if not self.lines:
            return None
        strong = [d for s, d in self.lines if s > 0 and LEVEL_RANK[d.event.level] >= LEVEL_RANK["warning"]]
        return (strong or [self.lines[0][1]])[0].event

    def explain_dict(self) -> dict[str, Any]:
        """JSON-able explanation (``stats["explain"]``): the vote, the top lines and the top features."""
        return {
            "model_label": self.label,
            "model_probability": round(self.probability, 4),
            "threshold": self.threshold,
            "ranked": [{"id": k, "probability": round(p, 4)} for k, p in self.ranked],
            "lines": [{"path": d.event.path, "line": d.event.line, "score": round(s, 4),
                       "text": d.text.splitlines()[-1][:300] if d.text else ""}
                      for s, d in self.lines[:TOP_LINES]],
            "features": [{"feature": f, "weight": round(w, 4)} for f, w in self.features],
        }


def _class_weights(clf: Any, label: str) -> np.ndarray | None:
    """The linear weight vector for ``label`` (averaged over a calibrated ensemble); None if not linear."""
    from sklearn.calibration import CalibratedClassifierCV

    calibrated = isinstance(clf, CalibratedClassifierCV)
    ests = [c.estimator for c in clf.calibrated_classifiers_] if calibrated else [clf]
    # CalibratedClassifierCV fits its inner estimator on label-encoded y: its classes_ are positions in clf.classes_
    key: Any = [str(c) for c in clf.classes_].index(label) if calibrated else label
    rows = []
    for est in ests:
        coef = getattr(est, "coef_", None)
        classes = [c.item() if hasattr(c, "item") else c for c in getattr(est, "classes_", [])]
        if coef is None or key not in classes:
            continue
        if coef.shape[0] == 1:  # binary: one row, for classes_[1]
            rows.append(coef[0] if classes.index(key) == 1 else -coef[0])
        else:
            rows.append(coef[classes.index(key)])
    return np.mean(rows, axis=0) if rows else None


def feature_names(features: Any, indices: Sequence[int], row: Sequence[str]) -> dict[int, str]:
    """Readable names for columns of the ``ColumnTransformer`` output: ``<transformer>__<term>``.

    A vocabulary-based vectorizer names its columns; a hashed one (``HashingVectorizer``) has no vocabulary, so a
    bucket is named by the n-grams of ``row`` (this job's document) that hash into it (``a|b`` on a collision).
    """
    from sklearn.utils import murmurhash3_32

    if hasattr(features, "steps"):  # the pipeline's feature part, ending in the ColumnTransformer
        features = features.steps[-1][1]
    out: dict[int, str] = {}
    for name, trans, col in features.transformers_:
        sl = features.output_indices_.get(name)
        wanted = [i for i in indices if sl is not None and sl.start <= i < sl.stop]
        if not wanted:
            continue
        try:
            vocab = trans.get_feature_names_out()
            for i in wanted:
                out[i] = f"{name}__{vocab[i - sl.start]}"
            continue
        except (AttributeError, ValueError, TypeError):
            pass
        hasher = trans.steps[0][1] if hasattr(trans, "steps") else trans
        n = hasher.n_features
        buckets: dict[int, list[str]] = {}
        for gram in sorted(set(hasher.build_analyzer()(row[col]))):
            h = murmurhash3_32(gram, seed=0)  # FeatureHasher's index: |h| mod n (sklearn _hashing_fast.pyx)
            b = (2147483647 - (n - 1)) % n if h == -2147483648 else abs(h) % n
            buckets.setdefault(b, []).append(gram)
        for i in wanted:
            grams = buckets.get(i - sl.start, [])
            out[i] = f"{name}__" + ("|".join(repr(g) for g in grams[:3]) if grams else f"#{i - sl.start}")
    return out


class Classifier:
    """A loaded model: the sklearn ``Pipeline`` and its sidecar ``meta``.

    Args:
        pipeline: fitted ``Pipeline([("features", ColumnTransformer), ("clf", classifier)])`` over ``[templates,
            text]`` rows (``features.document``).
        meta: the sidecar dict (``labels``, ``threshold``, ``versions``...).
    """

    def __init__(self, pipeline: Any, meta: dict[str, Any]) -> None:
        self.pipeline = pipeline
        self.meta = meta
        self.threshold = float(meta.get("threshold", DEFAULT_THRESHOLD))
        self.labels = [str(c) for c in pipeline.classes_]

    def predict_proba(self, rows: Sequence[Sequence[str]]) -> np.ndarray:
        """Class probabilities, shape ``(len(rows), len(self.labels))``."""
        return self.pipeline.predict_proba(np.asarray(rows, dtype=object).reshape(-1, 2))

    def vote_lines(self, lines: Sequence[DocLine], *, explain: bool = False, proba: np.ndarray | None = None) -> Vote:
        """Score one job from its ``doc_lines``.

        Args:
            lines: the job's distinct events (``features.doc_lines``).
            explain: also compute the top n-gram features.
            proba: this job's probabilities when already computed (a row of ``predict_proba``).
        """
        p = self.predict_proba([document(lines)])[0] if proba is None else proba
        order = np.argsort(-p)
        label = self.labels[order[0]]
        ranked = tuple((self.labels[i], float(p[i])) for i in order[:TOP_RANKED])
        scored: tuple[tuple[float, DocLine], ...] = ()
        features: tuple[tuple[str, float], ...] = ()
        w = _class_weights(self.pipeline[-1], label) if lines else None
        if w is not None:
            feats = self.pipeline[:-1]
            xl = feats.transform(np.asarray([[d.template, d.text] for d in lines], dtype=object))
            scores = np.asarray(xl @ w).ravel()
            scored = tuple(sorted(((float(s), d) for s, d in zip(scores, lines)), key=lambda t: -t[0]))
            if explain:
                row = document(lines)
                xd = feats.transform(np.asarray([row], dtype=object))
                contrib = np.asarray(xd.multiply(w).todense()).ravel() if hasattr(xd, "multiply") else xd[0] * w
                top = [int(i) for i in np.argsort(-contrib)[:TOP_FEATURES] if contrib[i] > 0]
                names = feature_names(feats, top, row)
                features = tuple((names[i], float(contrib[i])) for i in top)
        return Vote(label, float(p[order[0]]), ranked, self.threshold, scored, features)

    def vote(self, notable: Sequence[Event], tail: Sequence[Event], *, explain: bool = False) -> Vote | None:
        """The model's vote from the pipeline's ``notable`` and ``tail`` events; None for a job with no text."""
        lines = doc_lines(notable, tail)
        if not lines:
            return None
        return self.vote_lines(lines, explain=explain)


def sha256_file(path: str | os.PathLike[str]) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def load(directory: str | os.PathLike[str] = MODEL_DIR) -> Classifier:
    """Load ``model.skops`` + ``model.json`` from ``directory`` with the explicit trusted-types list.

    Raises:
        ModelError: a missing/unreadable file, a hash that does not match the sidecar, a type outside the trusted
            list, or a file this scikit-learn cannot rebuild (retrain with ``logsleuth train``, or use ``--no-model``).
    """
    import skops.io as sio

    directory = Path(directory)
    path, sidecar = directory / MODEL_FILE, directory / SIDECAR_FILE
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read the model sidecar ({exc})", str(sidecar)) from exc
    if meta.get("format") != FORMAT_VERSION:
        raise ModelError(f"model format {meta.get('format')!r} is not {FORMAT_VERSION}; retrain with 'logsleuth train'",
                         str(sidecar))
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise ModelError(f"cannot read the model ({exc.strerror or exc})", str(path)) from exc
    if digest != meta.get("model_sha256"):
        raise ModelError("model file does not match the sha256 in its sidecar (corrupt or replaced); "
                         "retrain with 'logsleuth train' or run with --no-model", str(path))
    try:
        untrusted = sio.get_untrusted_types(file=path)
    except Exception as exc:  # noqa: BLE001 - a damaged zip, a skops format this version cannot read
        raise ModelError(f"cannot read the model ({type(exc).__name__}: {exc})", str(path)) from exc
    extra = sorted(set(untrusted) - set(TRUSTED_TYPES))
    if extra:
        raise ModelError(f"model holds untrusted types {', '.join(extra)}; refusing to load it", str(path))
    try:
        pipeline = sio.load(path, trusted=list(TRUSTED_TYPES))
    except Exception as exc:  # noqa: BLE001 - version skew surfaces as arbitrary errors
        raise ModelError(f"cannot rebuild the model with this scikit-learn ({type(exc).__name__}: {exc}); "
                         "retrain with 'logsleuth train' or run with --no-model", str(path)) from exc
    labels = [str(c) for c in getattr(pipeline, "classes_", [])]
    if labels != list(meta.get("labels", [])):
        raise ModelError("model labels do not match its sidecar", str(path))
    return Classifier(pipeline, meta)


def save(pipeline: Any, meta: dict[str, Any], directory: str | os.PathLike[str]) -> tuple[Path, Path, dict[str, Any]]:
    """Write ``model.skops`` (zip-deflated) and ``model.json`` (with ``model_sha256`` filled in) atomically.

    Returns:
        ``(model_path, sidecar_path, sidecar_dict)``.
    """
    import zipfile

    import skops.io as sio

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path, sidecar = directory / MODEL_FILE, directory / SIDECAR_FILE
    tmp = directory / f".{MODEL_FILE}.tmp"
    sio.dump(pipeline, tmp, compression=zipfile.ZIP_DEFLATED, compresslevel=9)
    meta = dict(meta, format=FORMAT_VERSION, model_sha256=sha256_file(tmp),
                labels=[str(c) for c in pipeline.classes_])
    tmp_meta = directory / f".{SIDECAR_FILE}.tmp"
    tmp_meta.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    os.replace(tmp_meta, sidecar)
    return path, sidecar, meta


_lock = threading.Lock()
_default: dict[str, Classifier | None] = {}


def default() -> Classifier | None:
    """The shipped model, loaded on first use and cached; None when no model file ships (rules only).

    Raises:
        ModelError: the shipped model exists but does not load (see ``load``).
    """
    with _lock:
        if "model" not in _default:
            present = (MODEL_DIR / MODEL_FILE).exists() and (MODEL_DIR / SIDECAR_FILE).exists()
            _default["model"] = load(MODEL_DIR) if present else None
        return _default["model"]


def reset_default() -> None:
    """Forget the cached shipped model (after ``logsleuth train`` rewrote it in this process)."""
    with _lock:
        _default.clear()
