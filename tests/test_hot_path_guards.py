"""Shortcuts in hot paths change no answer: on every line of the corpus logs (and the same line with its digits 1-9
changed, which ``parse.masking.mask`` and ``parse._recognise`` answer from what they found for the first),
``mask``, ``parse.pylog.infer_level`` and the recogniser chain give what the plain code gives."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from logsleuth.parse import _RECOGNISERS, _recognise, masking, prefix, pylog, ray
from logsleuth.parse.traceback import BARE_EXC, BARE_EXC_OPEN
from tests.conftest import CORPUS, manifest_rows


def _plain_mask(text: str) -> str:
    for name, pattern in masking.MASKS:
        text = pattern.sub(name, text)
    return text


def _plain_level(body: str) -> str:
    return "error" if pylog._ERROR.search(body) else "warning" if pylog._WARN.search(body) else "info"


def _plain_recognise(body: str, pre: prefix.Prefix) -> pylog.Recognised:
    for fn in _RECOGNISERS:
        rec = fn(body)
        if rec is not None:
            return rec
    if pre.ray:
        rec = ray.recognise(body, from_ray_prefix=True)
        if rec is not None:
            return rec
        rec = pylog.fallback(body)
        if rec.source == "other" and not (BARE_EXC.match(body) or BARE_EXC_OPEN.match(body)):
            rec.source = "ray"  # an exception line behind a worker's prefix stays one
        return rec
    return pylog.fallback(body)


def _corpus_lines() -> list[str]:
    out: list[str] = []
    for row in manifest_rows():
        p = CORPUS / row["file"]
        for f in [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file()):
            out += Path(f).read_text(encoding="utf-8", errors="replace").splitlines()
    return out


EDGES = [
    "at 10.0.0.1:29500 and [fe80::1]:80",
    "1.2.3 only three numbers",
    "12:00:00 clock, 2024-05-01T10:00:00Z date",
    "/a/b/c path and ./x/y",
    "  RuntimeError: boom",
    "Killed",
    "Aborted (core dumped)",
    "UserWarning: deprecated",
    "WARN x",
    "",
    "rank1 step 12 of 0x1f at 12:01:02 in /a/b1/c: 1.5e-3 fp16",  # digits left unmasked beside masked ones
    "<NUM> 12 <TIME> 3",  # a mask's name in the text itself
]


def test_guarded_mask_and_level_agree_with_the_plain_regexes() -> None:
    lines = _corpus_lines() + EDGES
    assert len(lines) > 10_000
    rotate = str.maketrans("123456789", "234567891")
    for text in lines:
        assert masking.mask(text) == _plain_mask(text), text[:300]
        assert pylog.infer_level(text) == _plain_level(text), text[:300]
        other = text.translate(rotate)  # same shape: answered from the first line's pieces
        assert masking.mask(other) == _plain_mask(other), other[:300]
        for line in (text, other):
            pre, body = prefix.strip(line)
            for p in (pre, dataclasses.replace(pre, ray=not pre.ray)):  # the same shape with and without Ray's prefix
                assert _recognise(body, p) == _plain_recognise(body, p), line[:300]
