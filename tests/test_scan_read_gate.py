"""``read.LineGate``: reading whole blocks and yielding only the lines a gate keeps, with the same line numbers,
text and counters as the plain reader."""
from __future__ import annotations

import gzip
import random
from pathlib import Path

import pytest

from logsleuth.read import MAX_LINE_BYTES, LineGate, ReadStats, iter_lines

pytest.importorskip("re2")


def _lines(path: Path, gate: LineGate | None = None) -> tuple[list[tuple[int, str]], ReadStats]:
    st = ReadStats()
    return list(iter_lines(str(path), st, gate)), st


def _random_log(rnd: random.Random, n: int) -> bytes:
    words = ["step 12 loss 0.5", "NCCL INFO Channel 00/02", "ERROR boom", "", "   ", "epoch done",
             "Traceback (most recent call last):", '  File "x.py", line 3, in f', "ValueError: bad",
             "\x1b[31mWAR\x1b[0mN colour", "café ünïcode", "progress 10%\r20%\r30%"]
    out = []
    for _ in range(n):
        out.append(rnd.choice(words) + (f" {rnd.randrange(10**6)}" if rnd.random() < 0.5 else ""))
    ending = rnd.choice(["\n", "\r\n"])
    data = ending.join(out).encode()
    return data + (ending.encode() if rnd.random() < 0.5 else b"")  # with or without a final newline


@pytest.mark.parametrize("seed", range(6))
def test_gated_lines_are_a_faithful_subset(tmp_path: Path, seed: int) -> None:
    rnd = random.Random(seed)
    path = tmp_path / ("a.log.gz" if seed % 2 else "a.log")
    data = _random_log(rnd, rnd.choice([3, 200, 30_000]))
    path.write_bytes(gzip.compress(data) if seed % 2 else data)
    gate = LineGate([r"ERROR", r"WARN"], ["Traceback (most recent call last)"], before=1, after=1,
                    block_after=3, tail=5)
    full, st_full = _lines(path)
    kept, st = _lines(path, gate)
    by_no = dict(full)
    assert all(by_no[n] == text for n, text in kept)
    assert [n for n, _ in kept] == sorted({n for n, _ in kept})
    assert (st.lines, st.bytes, st.truncated_lines) == (st_full.lines, st_full.bytes, st_full.truncated_lines)
    assert st.skipped_lines + len(kept) == st.lines
    numbers = {n for n, _ in kept}
    raw = data.split(b"\n")
    for n, text in full:
        if "ERROR" in text or "WARN" in text or b"\x1b" in raw[n - 1]:
            assert {n - 1, n, n + 1} & set(by_no) <= numbers, n  # the line and its context
        if "Traceback" in text:
            assert set(range(n, n + 4)) & set(by_no) <= numbers
    assert set(range(max(1, len(full) - 4), len(full) + 1)) <= numbers  # the file's tail


def test_long_lines_are_cut_as_the_plain_reader_cuts_them(tmp_path: Path) -> None:
    p = tmp_path / "long.log"
    p.write_bytes(b"ERROR " + b"x" * (3 * MAX_LINE_BYTES) + b"\nshort line\n" + b"y" * (MAX_LINE_BYTES + 5))
    full, st_full = _lines(p)
    kept, st = _lines(p, LineGate([r"ERROR"], tail=0))
    assert kept[0] == full[0] and len(kept[0][1]) == MAX_LINE_BYTES
    assert (st.lines, st.bytes, st.truncated_lines) == (st_full.lines, st_full.bytes, st_full.truncated_lines) == (3, p.stat().st_size, 2)


def test_without_re2_every_line_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    p = tmp_path / "a.log"
    p.write_text("a\nERROR b\nc\n")
    monkeypatch.setattr(LineGate, "available", staticmethod(lambda: False))
    kept, st = _lines(p, LineGate([r"ERROR"], tail=0))
    assert [n for n, _ in kept] == [1, 2, 3] and st.skipped_lines == 0


def test_gate_skips_most_of_a_quiet_log(tmp_path: Path) -> None:
    p = tmp_path / "big.log"
    p.write_text("".join(f"step {i} loss 0.1\n" for i in range(50_000)) + "CUDA out of memory\n")
    kept, st = _lines(p, LineGate([r"out of memory"], before=0, after=0, tail=10))
    assert [n for n, _ in kept] == list(range(49_992, 50_002))
    assert st.skipped_lines == 49_991


@pytest.mark.parametrize("body", [
    b"E" * MAX_LINE_BYTES + b"\nok\n",
    b"a\n" + b"E" * (MAX_LINE_BYTES - 1) + b"\nok\n",
    b"a\n" + b"E" * MAX_LINE_BYTES + b"\nok",
    b"E" * (2 * MAX_LINE_BYTES),
    b"E" * (MAX_LINE_BYTES - 3) + b"\n" + b"E" * (3 * MAX_LINE_BYTES) + b"\nE\n",
], ids=["exactly-max", "max-minus-one", "max-no-final-newline", "two-max-no-newline", "three-max-inside"])
def test_lines_at_the_length_limit(tmp_path: Path, body: bytes) -> None:
    p = tmp_path / "edge.log"
    p.write_bytes(body)
    full, st_full = _lines(p)
    kept, st = _lines(p, LineGate([r"E"], before=0, after=0, tail=0))
    assert kept == [x for x in full if "E" in x[1]]
    assert (st.lines, st.bytes, st.truncated_lines) == (st_full.lines, st_full.bytes, st_full.truncated_lines)
