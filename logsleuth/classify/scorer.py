"""The trained model's arithmetic in plain numpy, so ``analyze`` scores a job without importing scikit-learn.

Why: ``skops.io`` builds its default trusted-type list at import time by importing every scikit-learn estimator
(``sklearn.utils.all_estimators``), which in turn imports torch when it is installed. Measured on this project's
2-core CI machine: ~1.4 s for ``sklearn.base`` and ~2.4 s more for ``skops.io``, against ~0.05 s for this module's
file. The model of record stays ``model.skops`` (what ``train`` fits and ``model.load`` reads with its trusted-type
list); at training time ``export`` copies the numbers the prediction uses into ``model.scorer.npz`` (numpy arrays
only, read with ``allow_pickle=False``; its sha256 is in the sidecar), and ``tests/test_classify.py`` checks that
``Scorer.predict_proba`` equals the pipeline's ``predict_proba`` on every corpus log.

What is reproduced, step for step (scikit-learn 1.8/1.9, ``sklearn/feature_extraction/text.py`` and
``sklearn/calibration.py``):

- per column, a ``TfidfVectorizer``: lowercase (when set); ``word`` analyzer = ``re.findall(token_pattern)`` then
  word n-grams joined by one space (``_VectorizerMixin._word_ngrams``), or ``char_wb`` = whitespace runs folded,
  each word padded by one space, character n-grams inside it (``_char_wb_ngrams``); counts of in-vocabulary terms;
  ``1 + log(tf)`` when ``sublinear_tf``; times ``idf_``; L2-normalised within the column;
- the columns side by side (``ColumnTransformer`` without weights), then the linear decision ``X @ coef_.T +
  intercept_`` of the ``LinearSVC``;
- temperature scaling (``_TemperatureScaling.predict``): ``softmax(beta_ * logits)``.
"""

from __future__ import annotations

import io
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ModelError

_WHITE_SPACES = re.compile(r"\s\s+")  # sklearn's _VectorizerMixin._white_spaces
SEPARATOR = "\n"  # between vocabulary terms in the file (no term can hold a newline: see _check_terms)


@dataclass
class Column:
    """One text column's vectorizer: ``analyzer`` ``word`` or ``char_wb``, ``ngram`` (min, max), ``lowercase``,
    ``token_pattern`` (word only), ``sublinear``, ``names`` (the vocabulary, term i at index i within the column),
    ``idf`` (float64, shape ``(len(names),)``), ``offset`` (the column's first index in the concatenated feature
    space)."""

    analyzer: str
    ngram: tuple[int, int]
    lowercase: bool
    token_pattern: str
    sublinear: bool
    names: list[str]
    idf: np.ndarray
    offset: int

    def __post_init__(self) -> None:
        self.vocab = {t: i for i, t in enumerate(self.names)}
        self._pattern = re.compile(self.token_pattern) if self.analyzer == "word" else None

    def terms(self, doc: str) -> list[str]:
        """The analyzer's terms of ``doc`` (in-vocabulary or not), as scikit-learn produces them."""
        if self.lowercase:
            doc = doc.lower()
        lo, hi = self.ngram
        if self.analyzer == "char_wb":
            out: list[str] = []
            append = out.append
            for w in _WHITE_SPACES.sub(" ", doc).split():
                w = " " + w + " "
                w_len = len(w)
                for n in range(lo, hi + 1):
                    offset = 0
                    append(w[offset : offset + n])
                    while offset + n < w_len:
                        offset += 1
                        append(w[offset : offset + n])
                    if offset == 0:
                        break
            return out
        assert self._pattern is not None
        tokens = self._pattern.findall(doc)
        if hi == 1:
            return tokens
        out = list(tokens) if lo == 1 else []
        for n in range(max(lo, 2), min(hi + 1, len(tokens) + 1)):
            out.extend(" ".join(tokens[i : i + n]) for i in range(len(tokens) - n + 1))
        return out

    def transform(self, doc: str) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, values)`` of ``doc``'s non-zero features, indices in the concatenated space."""
        counts = Counter(map(self.vocab.get, self.terms(doc)))  # counted in C; out-of-vocabulary terms count as None
        counts.pop(None, None)
        if not counts:
            return np.empty(0, np.int64), np.empty(0, np.float64)
        idx = np.fromiter(counts.keys(), np.int64, len(counts))
        tf = np.fromiter(counts.values(), np.float64, len(counts))
        if self.sublinear:
            tf = 1.0 + np.log(tf)
        val = tf * self.idf[idx]
        norm = math.sqrt(float(val @ val))
        if norm > 0:
            val = val / norm
        return idx + self.offset, val


class Scorer:
    """The exported model: ``columns`` (one per input column, in order), ``coef`` (float32 as exported, float64 in
    older files; shape ``(n_classes, n_features)``), ``intercept`` (``(n_classes,)``), ``beta`` (inverse temperature) and ``labels``."""

    def __init__(
        self, columns: list[Column], coef: np.ndarray, intercept: np.ndarray, beta: float, labels: list[str]
    ) -> None:
        self.columns = columns
        self.coef = coef
        self.intercept = intercept
        self.beta = beta
        self.labels = labels

    @property
    def n_features(self) -> int:
        return int(self.coef.shape[1])

    def transform_row(self, row: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """``(indices, values)`` of one ``features.document`` row's features."""
        parts = [c.transform(row[i]) for i, c in enumerate(self.columns)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])

    def decision(self, rows: Sequence[Sequence[str]]) -> np.ndarray:
        """The linear model's decision values, shape ``(len(rows), n_classes)``."""
        out = np.empty((len(rows), len(self.labels)))
        for r, row in enumerate(rows):
            idx, val = self.transform_row(row)
            out[r] = self.coef[:, idx] @ val + self.intercept
        return out

    def predict_proba(self, rows: Sequence[Sequence[str]]) -> np.ndarray:
        """Calibrated class probabilities, shape ``(len(rows), n_classes)``, columns in ``labels`` order."""
        logits = self.decision(rows)
        if logits.shape[1] > 1 and np.all((logits >= 0) & (logits <= 1)) and np.allclose(logits.sum(axis=1), 1.0):
            logits = np.log(logits + 1e-12)  # sklearn's _convert_to_logits treats such rows as probabilities
        z = self.beta * logits
        z -= z.max(axis=1, keepdims=True)
        e = np.exp(z)
        return e / e.sum(axis=1, keepdims=True)

    def feature_name(self, index: int) -> str:
        """``<column>__<term>`` for a feature index (``tpl``, ``txt``, ``rul`` as in the pipeline)."""
        for name, c in zip(COLUMN_NAMES, self.columns):
            if c.offset <= index < c.offset + len(c.names):
                return f"{name}__{c.names[index - c.offset]}"
        raise IndexError(index)


COLUMN_NAMES = ("tpl", "txt", "rul")


def _check_terms(terms: Sequence[str]) -> None:
    if any(SEPARATOR in t for t in terms):
        raise ModelError("a vocabulary term holds a newline; the scorer file cannot store it")


def export(pipeline: Any) -> dict[str, np.ndarray]:
    """The arrays of ``model.scorer.npz`` from a fitted pipeline (``train.build_pipeline``'s shape).

    Raises:
        ModelError: the pipeline is not TF-IDF columns + calibrated linear SVM with temperature scaling.
    """
    feats, clf = pipeline.named_steps["features"], pipeline.named_steps["clf"]
    arrays: dict[str, np.ndarray] = {}
    for k, (name, vec, col) in enumerate(feats.transformers_):
        if name != COLUMN_NAMES[k] or col != k or not hasattr(vec, "vocabulary_") or vec.norm != "l2":
            raise ModelError(f"cannot export column {name!r}: not a TfidfVectorizer over column {k}")
        if (
            vec.analyzer not in ("word", "char_wb")
            or vec.preprocessor
            or vec.tokenizer
            or vec.stop_words
            or vec.strip_accents
            or not vec.use_idf
        ):
            raise ModelError(f"cannot export column {name!r}: unsupported vectorizer options")
        terms = [t for t, _ in sorted(vec.vocabulary_.items(), key=lambda kv: kv[1])]
        _check_terms(terms)
        arrays[f"{name}_vocab"] = np.frombuffer(SEPARATOR.join(terms).encode("utf-8"), dtype=np.uint8)
        arrays[f"{name}_idf"] = np.asarray(vec.idf_, dtype=np.float64)
        arrays[f"{name}_spec"] = np.asarray(
            [
                vec.ngram_range[0],
                vec.ngram_range[1],
                int(vec.lowercase),
                int(vec.sublinear_tf),
                int(vec.analyzer == "char_wb"),
            ],
            dtype=np.int64,
        )
        arrays[f"{name}_pattern"] = np.frombuffer(vec.token_pattern.encode("utf-8"), dtype=np.uint8)
    if len(clf.calibrated_classifiers_) != 1 or clf.method != "temperature":
        raise ModelError("cannot export the classifier: expected one temperature-scaled calibrated estimator")
    cal = clf.calibrated_classifiers_[0]
    est = cal.estimator
    # float32: the file is read at every ``analyze`` that consults the model; half the bytes, stored uncompressed
    # (``dumps``), it loads without inflating ~10 MB. Probabilities move by under 1e-6 (``tests/test_classify.py``).
    coef = np.asarray(est.coef_, dtype=np.float32)
    if coef.shape[0] != len(clf.classes_):
        raise ModelError("cannot export a binary classifier (one weight row); train on three labels or more")
    arrays["coef"] = coef
    arrays["intercept"] = np.asarray(est.intercept_, dtype=np.float64)
    arrays["beta"] = np.asarray([float(cal.calibrators[0].beta_)])
    arrays["labels"] = np.frombuffer(SEPARATOR.join(str(c) for c in clf.classes_).encode("utf-8"), dtype=np.uint8)
    return arrays


def dumps(arrays: dict[str, np.ndarray]) -> bytes:
    """The ``.npz`` bytes of ``export``'s arrays, uncompressed: ~5.7 MB with float32 weights, smaller than the
    compressed float64 file was (6.8 MB), and read with no zlib pass (~50 ms of a small log's start-up)."""
    buf = io.BytesIO()
    # numpy's stub types **kwds as if a key could be its allow_pickle flag; these keys are array names
    np.savez(buf, **arrays)  # type: ignore[arg-type]
    return buf.getvalue()


def _text(a: np.ndarray) -> str:
    return a.tobytes().decode("utf-8")


def load(data: bytes) -> Scorer:
    """A ``Scorer`` from ``.npz`` bytes (numpy arrays only: ``allow_pickle=False``).

    Raises:
        ModelError: not a scorer file, or inconsistent shapes.
    """
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (OSError, ValueError, EOFError) as exc:
        raise ModelError(f"cannot read the scorer file ({exc})") from exc
    return from_arrays(arrays)


def from_arrays(arrays: dict[str, np.ndarray]) -> Scorer:
    """A ``Scorer`` from ``export``'s arrays.

    Raises:
        ModelError: a missing array or inconsistent shapes.
    """
    try:
        columns, offset = [], 0
        for name in COLUMN_NAMES:
            lo, hi, lower, sub, charwb = (int(v) for v in arrays[f"{name}_spec"])
            text = _text(arrays[f"{name}_vocab"])
            terms = text.split(SEPARATOR) if text else []
            idf = arrays[f"{name}_idf"]
            if len(idf) != len(terms):
                raise ModelError(f"scorer column {name}: {len(terms)} terms but {len(idf)} idf values")
            columns.append(
                Column(
                    "char_wb" if charwb else "word",
                    (lo, hi),
                    bool(lower),
                    _text(arrays[f"{name}_pattern"]),
                    bool(sub),
                    terms,
                    idf,
                    offset,
                )
            )
            offset += len(terms)
        coef, intercept = arrays["coef"], arrays["intercept"]
        labels = _text(arrays["labels"]).split(SEPARATOR)
    except KeyError as exc:
        raise ModelError(f"scorer file lacks {exc}") from exc
    if coef.shape != (len(labels), offset) or intercept.shape != (len(labels),):
        raise ModelError(f"scorer shapes disagree: coef {coef.shape}, {len(labels)} labels, {offset} features")
    return Scorer(columns, coef, intercept, float(arrays["beta"][0]), labels)
