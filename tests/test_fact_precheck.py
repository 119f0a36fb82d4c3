"""``factlayer.extract._may_hold_facts``: the one-scan native check gives the Python word test's answer on every
line and every 5-line chunk of the corpus logs, and on the edge cases of each of its tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import extract
from tests.conftest import CORPUS, manifest_rows

native = pytest.mark.skipif(extract._native_check() is None, reason="needs hyperscan")


@native
@pytest.mark.parametrize(
    "text",
    [
        "a 0x12 @ b",
        "a @ 0x12",
        "a @ 12",
        "0x@",
        "train loss NaN at step 3",
        "loss=inf",
        "INFO step 3",  # "inf" inside a word: no NaN/Inf
        "Infinity",
        "CUDA OOM",
        "SRUN: TERMINATING",  # a capital in a case-insensitive word: never in text.lower()
        "Traceback\n  File x\nRuntimeError: boom",
        "",
    ],
)
def test_native_check_agrees_with_the_word_test(text: str) -> None:
    assert extract._may_hold_facts(text) is extract._may_hold_facts_py(text)


@native
def test_native_check_agrees_on_the_corpus() -> None:
    checked = held = 0
    for row in manifest_rows():
        p = CORPUS / row["file"]
        for f in [p] if p.is_file() else sorted(q for q in p.rglob("*") if q.is_file()):
            lines = Path(f).read_text(encoding="utf-8", errors="replace").splitlines()
            for text in (*lines, *("\n".join(lines[i : i + 5]) for i in range(0, len(lines), 5))):
                want = extract._may_hold_facts_py(text)
                assert extract._may_hold_facts(text) is want, (str(f), text[:300])
                checked += 1
                held += want
    assert checked > 10_000 and 0 < held < checked
