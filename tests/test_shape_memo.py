"""The trackers' per-shape memo (``shape_memo``) gives what their regexes give line by line: on every line of real
corpus logs, after a line of the same shape with other digits (0 included) warmed the memo; and the templates that
``parse.masking.mask`` rebuilds per shape are those of its masks run line by line."""
from __future__ import annotations

from pathlib import Path

import pytest
import regex

from logsleuth import memory_trend, numeric_tail, progress
from logsleuth.parse.masking import _mask, mask
from logsleuth.shape_memo import ShapeMemo, line_shape

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
# real runs with per-step progress, loss (NaN included) and memory lines, several launchers
NAMES = (
    "fresh-torchrun-nan-unchecked", "fresh-deepspeed-nan", "fresh-accelerate-nan", "fresh-torchrun-inf-batch",
    "run-wavef-lightning-cgroup-oom", "run-waveh-mpirun-feature-cache-cgroup-oom", "run-wavef-raytune-memory-monitor",
)
_ROTATE = str.maketrans("0123456789", "1234567890")  # another digit in every place: the same shape


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


@pytest.mark.parametrize(
    "pattern",
    [
        progress._STEP, progress._METRIC, progress._EPOCH, progress._MICRO, memory_trend._WORD, memory_trend._SIZE,
        memory_trend._RANK_WORD, numeric_tail._LOSS,
    ],
)
def test_tracker_regexes_hold_no_literal_digit(pattern) -> None:
    # ``line_shape`` writes every digit as 1: a literal digit in a tracker regex would make the memo wrong
    bare = regex.sub(r"\\.|\{\d+(?:,\d*)?\}", "", pattern.pattern)  # escapes (\d, \.) and {m,n} repeats
    assert not regex.search(r"\d", bare), pattern.pattern


def test_mask_per_shape_equals_masking_each_line() -> None:
    # a 0 falls anywhere in a progress line's floats: those lines share one template slot (no "0x" on them)
    lines = _lines()
    for text in lines:
        other = text.translate(_ROTATE)
        mask(other)  # warms the per-shape table with the other line
        assert mask(text) == _mask(text), text
    hexed = "ptr 0x7f00 step 10 loss 0.5"
    mask(hexed.translate(_ROTATE))
    assert mask(hexed) == _mask(hexed) == "ptr <HEX> step <NUM> loss <NUM>"
