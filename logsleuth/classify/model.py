"""The shipped classifier: a scikit-learn ``Pipeline`` in one ``.skops`` file plus a JSON sidecar, loaded lazily.

Files (inside the package, so the wheel carries them): ``logsleuth/classify/model.skops`` (the model of record),
``model.json`` (the sidecar) and ``model.scorer.npz`` (the same model's numbers for numpy-only prediction,
``scorer.py``). The sidecar records the label set, the decision ``threshold``, the library versions the model was
trained with, the SHA-256 of the training data and of both model files, and how many corpus files it was trained on.

Loading never uses pickle or joblib. ``load`` reads the ``.skops`` file with ``skops.io.load`` and the explicit
``TRUSTED_TYPES`` list below; a file that holds any other type than skops' default-trusted ones (numpy, scipy,
public scikit-learn estimators) and these is refused with ``ModelError`` before anything is constructed.
``analyze`` uses ``load_fast`` (``numpy.load(allow_pickle=False)`` of the export; ~0.1 s instead of the ~4 s that
importing scikit-learn and skops costs). Either file's hash must match the sidecar's. Nothing is read until the
first job actually asks the model (``default()``), so ``--no-model`` costs nothing.
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
from ..types import LEVEL_RANK, Diagnosis, Event
from .features import DocLine, doc_lines, document, rule_tokens
from .scorer import Scorer

MODEL_DIR = Path(__file__).resolve().parent
MODEL_FILE = "model.skops"
SIDECAR_FILE = "model.json"
SCORER_FILE = "model.scorer.npz"
FORMAT_VERSION = 2  # 2: three input columns (templates, text, rules)
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
            "lines": [
                {
                    "path": d.event.path,
                    "line": d.event.line,
                    "score": round(s, 4),
                    "text": d.text.splitlines()[-1][:300] if d.text else "",
                }
                for s, d in self.lines[:TOP_LINES]
            ],
            "features": [{"feature": f, "weight": round(w, 4)} for f, w in self.features],
        }


class Classifier:
    """A loaded model: its numpy ``Scorer`` (``scorer.py``), the sidecar ``meta`` and, when it was loaded from
    ``model.skops`` or fitted in this process, the scikit-learn ``pipeline`` it was exported from.

    Args:
        scorer: the exported model (predictions, per-line scores and feature names all come from it).
        meta: the sidecar dict (``labels``, ``threshold``, ``versions``...).
        pipeline: the fitted ``Pipeline`` (None on the fast path ``load_fast``).
    """

    def __init__(self, scorer: Scorer, meta: dict[str, Any], pipeline: Any = None) -> None:
        self.scorer = scorer
        self.pipeline = pipeline
        self.meta = meta
        self.threshold = float(meta.get("threshold", DEFAULT_THRESHOLD))
        self.labels = list(scorer.labels)

    @classmethod
    def from_pipeline(cls, pipeline: Any, meta: dict[str, Any]) -> Classifier:
        """Wrap a fitted pipeline (exported to a ``Scorer`` in memory)."""
        from .scorer import export, from_arrays

        return cls(from_arrays(export(pipeline)), meta, pipeline)

    def predict_proba(self, rows: Sequence[Sequence[str]]) -> np.ndarray:
        """Class probabilities, shape ``(len(rows), len(self.labels))``, for ``features.document`` rows."""
        return self.scorer.predict_proba(rows)

    def vote_lines(
        self, lines: Sequence[DocLine], diagnosis: Diagnosis | None = None, *, explain: bool = False
    ) -> Vote:
        """Score one job from its ``doc_lines`` and the rules' diagnosis of it.

        Args:
            lines: the job's distinct events (``features.doc_lines``).
            diagnosis: the rules-only diagnosis (its matches become the ``rules`` column; None: empty column).
            explain: also compute the top n-gram features.
        """
        sc = self.scorer
        row = document(lines, rule_tokens(diagnosis))
        p = self.predict_proba([row])[0]
        order = np.argsort(-p)
        label = self.labels[order[0]]
        ranked = tuple((self.labels[i], float(p[i])) for i in order[:TOP_RANKED])
        w = sc.coef[order[0]]
        scored = []
        for d in lines:
            idx, val = sc.transform_row([d.template, d.text, ""])
            scored.append((float(w[idx] @ val), d))
        scored.sort(key=lambda t: -t[0])
        features: tuple[tuple[str, float], ...] = ()
        if explain:
            idx, val = sc.transform_row(row)
            contrib = w[idx] * val
            top = [int(k) for k in np.argsort(-contrib)[:TOP_FEATURES] if contrib[k] > 0]
            features = tuple((sc.feature_name(int(idx[k])), float(contrib[k])) for k in top)
        return Vote(label, float(p[order[0]]), ranked, self.threshold, tuple(scored), features)

    def vote(
        self,
        notable: Sequence[Event],
        tail: Sequence[Event],
        diagnosis: Diagnosis | None = None,
        *,
        explain: bool = False,
    ) -> Vote | None:
        """The model's vote from the pipeline's ``notable`` and ``tail`` events and the rules' ``diagnosis``; None
        for a job with no text."""
        lines = doc_lines(notable, tail)
        if not lines:
            return None
        return self.vote_lines(lines, diagnosis, explain=explain)


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
    path = directory / MODEL_FILE
    meta = _read_sidecar(directory)
    try:
        digest = sha256_file(path)
    except OSError as exc:
        raise ModelError(f"cannot read the model ({exc.strerror or exc})", str(path)) from exc
    if digest != meta.get("model_sha256"):
        raise ModelError(
            "model file does not match the sha256 in its sidecar (corrupt or replaced); "
            "retrain with 'logsleuth train' or run with --no-model",
            str(path),
        )
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
        raise ModelError(
            f"cannot rebuild the model with this scikit-learn ({type(exc).__name__}: {exc}); "
            "retrain with 'logsleuth train' or run with --no-model",
            str(path),
        ) from exc
    labels = [str(c) for c in getattr(pipeline, "classes_", [])]
    if labels != list(meta.get("labels", [])):
        raise ModelError("model labels do not match its sidecar", str(path))
    return Classifier.from_pipeline(pipeline, meta)


def _read_sidecar(directory: Path) -> dict[str, Any]:
    sidecar = directory / SIDECAR_FILE
    try:
        meta = json.loads(sidecar.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"cannot read the model sidecar ({exc})", str(sidecar)) from exc
    if not isinstance(meta, dict) or meta.get("format") != FORMAT_VERSION:
        got = meta.get("format") if isinstance(meta, dict) else None
        raise ModelError(f"model format {got!r} is not {FORMAT_VERSION}; retrain with 'logsleuth train'", str(sidecar))
    return meta


def load_fast(directory: str | os.PathLike[str] = MODEL_DIR) -> Classifier:
    """Load the model's numpy export ``model.scorer.npz`` + ``model.json`` (what ``analyze`` uses: no scikit-learn
    or skops import; see ``scorer.py``). The file must match the sidecar's ``scorer_sha256``, written by ``save``
    from the very pipeline in ``model.skops``.

    Raises:
        ModelError: a missing/unreadable file, a hash that does not match the sidecar, or a malformed export.
    """
    from . import scorer as scorer_mod

    directory = Path(directory)
    meta = _read_sidecar(directory)
    path = directory / SCORER_FILE
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"cannot read the model ({exc.strerror or exc})", str(path)) from exc
    if hashlib.sha256(data).hexdigest() != meta.get("scorer_sha256"):
        raise ModelError(
            "model file does not match the sha256 in its sidecar (corrupt or replaced); "
            "retrain with 'logsleuth train' or run with --no-model",
            str(path),
        )
    try:
        sc = scorer_mod.load(data)
    except ModelError as exc:
        raise ModelError(exc.message, str(path)) from exc
    if sc.labels != list(meta.get("labels", [])):
        raise ModelError("model labels do not match its sidecar", str(path))
    return Classifier(sc, meta)


def save(pipeline: Any, meta: dict[str, Any], directory: str | os.PathLike[str]) -> tuple[Path, Path, dict[str, Any]]:
    """Write ``model.skops`` (zip-deflated), its numpy export ``model.scorer.npz`` and ``model.json`` (with
    ``model_sha256`` and ``scorer_sha256`` filled in), each atomically.

    Returns:
        ``(model_path, sidecar_path, sidecar_dict)``.

    Raises:
        ModelError: the pipeline cannot be exported (``scorer.export``).
    """
    import zipfile

    import skops.io as sio

    from . import scorer as scorer_mod

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path, sidecar, fast = directory / MODEL_FILE, directory / SIDECAR_FILE, directory / SCORER_FILE
    data = scorer_mod.dumps(scorer_mod.export(pipeline))
    tmp = directory / f".{MODEL_FILE}.tmp"
    sio.dump(pipeline, tmp, compression=zipfile.ZIP_DEFLATED, compresslevel=9)
    tmp_fast = directory / f".{SCORER_FILE}.tmp"
    tmp_fast.write_bytes(data)
    meta = dict(
        meta,
        format=FORMAT_VERSION,
        model_sha256=sha256_file(tmp),
        scorer_sha256=hashlib.sha256(data).hexdigest(),
        labels=[str(c) for c in pipeline.classes_],
    )
    tmp_meta = directory / f".{SIDECAR_FILE}.tmp"
    tmp_meta.write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    os.replace(tmp, path)
    os.replace(tmp_fast, fast)
    os.replace(tmp_meta, sidecar)
    return path, sidecar, meta


_lock = threading.Lock()
_default: dict[str, Classifier | None] = {}


def default() -> Classifier | None:
    """The shipped model, loaded on first use and cached; None when no model file ships (rules only).

    Raises:
        ModelError: the shipped model exists but does not load (see ``load_fast``).
    """
    with _lock:
        if "model" not in _default:
            present = (MODEL_DIR / SCORER_FILE).exists() and (MODEL_DIR / SIDECAR_FILE).exists()
            _default["model"] = load_fast(MODEL_DIR) if present else None
        return _default["model"]


def reset_default() -> None:
    """Forget the cached shipped model (after ``logsleuth train`` rewrote it in this process)."""
    with _lock:
        _default.clear()
