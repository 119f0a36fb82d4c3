"""The trackers' per-shape memo (``shape_memo``) gives what their regexes give line by line: on every line of real
corpus logs, after a line of the same shape with other digits 1-9 warmed the memo."""
from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth import memory_trend, numeric_tail, progress
from logsleuth.shape_memo import ShapeMemo, line_shape

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
# real runs with per-step progress, loss (NaN included) and memory lines, several launchers
NAMES = (
    "fresh-torchrun-nan-unchecked", "fresh-deepspeed-nan", "fresh-accelerate-nan", "fresh-torchrun-inf-batch",
    "run-wavef-lightning-cgroup-oom", "run-waveh-mpirun-feature-cache-cgroup-oom", "run-wavef-raytune-memory-monitor",
)
_ROTATE = str.maketrans("123456789", "234567891")  # another digit 1-9 in every place: the same shape


def _lines() -> list[str]:
    out: list[str] = []
    for name in NAMES:
        for p in sorted((LOGS / name).glob("*.log")):
            out.extend(p.read_text(encoding="utf-8", errors="replace").splitlines())
    return out


@pytest.mark.parametrize(
    "find",
    [progress._counter_spans, numeric_tail._loss_spans, memory_trend._memory_spans],
    ids=["progress", "loss", "memory"],
)
def test_memo_matches_the_regexes_on_real_lines(find) -> None:
    lines = _lines()
    assert len(lines) > 200
    memo = ShapeMemo(find)
    hits = 0
    for text in lines:
        other = text.translate(_ROTATE)
        assert line_shape(other) == line_shape(text)
        memo(other, line_shape(other))  # warms the memo with the other line
        got = memo(text, line_shape(text))
        assert got == find(text), text
        hits += got is not None
    assert hits > 0


def test_progress_counter_reads_each_lines_own_digits() -> None:
    a = "[rank0]: epoch 1 step 12 loss 2.5"
    b = "[rank0]: epoch 3 step 47 loss 9.5"
    assert line_shape(a) == line_shape(b)
    assert progress.progress_counter(a, line_shape(a)) == (1, 12, -1)
    assert progress.progress_counter(b, line_shape(b)) == (3, 47, -1)


def test_non_ascii_and_multiline_lines_are_read_directly() -> None:
    memo = ShapeMemo(lambda t: len(t))
    assert line_shape("a\nb") is None
    s = "ステップ 5 loss 1.0"
    assert memo(s, line_shape(s)) == len(s) and not memo.table
