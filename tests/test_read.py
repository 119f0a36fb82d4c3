"""Reader: compression, decoding, ANSI, CRLF, progress bars, long lines, and bad input errors."""
from __future__ import annotations

import gzip

import pytest

from logsleuth.errors import InputError
from logsleuth.read import MAX_LINE_BYTES, ReadStats, clean_line, expand_paths, iter_lines

LINE = b"[rank1]: IndexError: list index out of range\n"


def test_clean_line_strips_ansi_crlf_and_folds_progress_bars() -> None:
    assert clean_line(b"\x1b[31mERROR\x1b[0m boom\r\n") == "ERROR boom"
    assert clean_line(b" 10%|#  | 1/10\r 20%|## | 2/10\r 30%|###| 3/10\n") == " 30%|###| 3/10"
    assert clean_line(b"bad \xff\xfe utf8\n") == "bad \ufffd\ufffd utf8"


def test_gzip_and_plain_give_the_same_lines(tmp_path) -> None:
    plain = tmp_path / "a.log"
    plain.write_bytes(LINE * 3)
    gz = tmp_path / "a.log.gz"
    gz.write_bytes(gzip.compress(LINE * 3))
    assert list(iter_lines(str(plain))) == list(iter_lines(str(gz)))
    assert len(list(iter_lines(str(gz)))) == 3


def test_zstd(tmp_path) -> None:
    zstandard = pytest.importorskip("zstandard")
    p = tmp_path / "a.log.zst"
    p.write_bytes(zstandard.ZstdCompressor().compress(LINE * 2))
    assert [t for _, t in iter_lines(str(p))] == [LINE.decode().strip()] * 2


def test_truncated_gzip_yields_the_lines_before_the_cut_and_names_it(tmp_path) -> None:
    p = tmp_path / "cut.log.gz"
    data = gzip.compress(LINE * 5000)
    p.write_bytes(data[: len(data) // 2])
    stats = ReadStats()
    lines = list(iter_lines(str(p), stats))
    assert 0 < len(lines) < 5000 and all(t == LINE.decode().rstrip("\n") for _, t in lines[:-1])
    (dmg,) = stats.damaged
    assert dmg["path"] == str(p) and dmg["line"] == len(lines) and "truncated" in dmg["error"]


def test_ten_megabyte_line_is_cut_not_kept(tmp_path) -> None:
    p = tmp_path / "long.log"
    p.write_bytes(b"x" * (10 * 1024 * 1024) + b"\n" + LINE)
    stats = ReadStats()
    lines = list(iter_lines(str(p), stats))
    assert len(lines) == 2
    assert len(lines[0][1]) <= MAX_LINE_BYTES
    assert lines[1] == (2, LINE.decode().strip())
    assert stats.truncated_lines == 1


def test_binary_data_is_refused(tmp_path) -> None:
    p = tmp_path / "model.log"
    p.write_bytes(bytes(range(256)) * 64)
    with pytest.raises(InputError, match="binary"):
        list(iter_lines(str(p)))


def test_missing_path_and_empty_directory(tmp_path) -> None:
    with pytest.raises(InputError, match="no such file"):
        expand_paths([str(tmp_path / "nope.log")])
    with pytest.raises(InputError, match="no log files"):
        expand_paths([str(tmp_path)])


def test_directory_walk_picks_log_names_sorted(tmp_path) -> None:
    (tmp_path / "b").mkdir()
    for name in ("b/rank1.log", "rank0.out", "notes.md", "w.err.gz", "b/x.bin"):
        (tmp_path / name).write_bytes(b"")
    got = [p.replace(str(tmp_path) + "/", "") for p in expand_paths([str(tmp_path)])]
    assert got == ["b/rank1.log", "rank0.out", "w.err.gz"]
