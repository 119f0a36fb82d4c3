"""Cheap guards in front of hot regexes (``parse.masking.mask``, ``parse.pylog.infer_level``) change no answer: on
every line of the corpus logs, the guarded function gives what the plain regexes give."""
from __future__ import annotations

from pathlib import Path

from logsleuth.parse import masking, pylog
from tests.conftest import CORPUS, manifest_rows


def _plain_mask(text: str) -> str:
    for name, pattern in masking.MASKS:
        text = pattern.sub(name, text)
    return text


def _plain_level(body: str) -> str:
    return "error" if pylog._ERROR.search(body) else "warning" if pylog._WARN.search(body) else "info"


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
]


def test_guarded_mask_and_level_agree_with_the_plain_regexes() -> None:
    lines = _corpus_lines() + EDGES
    assert len(lines) > 10_000
    for text in lines:
        assert masking.mask(text) == _plain_mask(text), text[:300]
        assert pylog.infer_level(text) == _plain_level(text), text[:300]
