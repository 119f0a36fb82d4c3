"""Damaged compressed input (issue 16, item 3): the lines before the fault are used, the fault is named (file and
line), a damaged job is never ``no_failure``, and decompressed bytes are bounded.

The job is the real torchrun --log-dir run in corpus/logs/gen-torchrun-logdir-rank-raises (rank 1 raised
IndexError), its per-rank files gzipped here; rank 1's file loses its gzip trailer as a copy cut short would.
"""
from __future__ import annotations

import gzip
import json
import shutil
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.pipeline import analyze
from logsleuth.read import Decompressed, ReadStats, SizeLimitError, iter_lines

ROOT = Path(__file__).resolve().parent.parent
RUN = ROOT / "corpus" / "logs" / "gen-torchrun-logdir-rank-raises" / "run1"
HEALTHY = ROOT / "corpus" / "logs" / "gen-torchrun-healthy"
runner = CliRunner()


def _gzipped_job(tmp_path: Path, cut: int) -> Path:
    """The run's per-rank stdout/stderr, each gzipped (no error.json, no console log: only the ranks' own output);
    rank 1's stderr loses its last ``cut`` bytes."""
    job = tmp_path / "job"
    for src in sorted(RUN.glob("attempt_0/*/std*.log")):
        dst = job / src.relative_to(RUN)
        dst.parent.mkdir(parents=True, exist_ok=True)
        Path(str(dst) + ".gz").write_bytes(gzip.compress(src.read_bytes()))
    cut_file = job / "attempt_0" / "1" / "stderr.log.gz"
    cut_file.write_bytes(cut_file.read_bytes()[:-cut])
    return job


def test_gz_missing_its_trailer_is_diagnosed_from_its_lines(tmp_path) -> None:
    job = _gzipped_job(tmp_path, cut=10)
    cut_file = str(job / "attempt_0" / "1" / "stderr.log.gz")
    d = analyze([job], model=False)
    assert d.verdict == "failure" and d.root_cause == "worker_exception"
    assert d.first_failure.path == cut_file and "IndexError" in d.first_failure.text
    (skip,) = d.stats["skipped"]
    assert skip["path"] == cut_file and skip["line"] > 0 and "truncated" in skip["error"]
    res = runner.invoke(app, ["analyze", str(job), "--fail-on", "low", "--no-model"])
    assert res.exit_code == 1
    for fmt in ("text", "markdown", "html", "json"):
        out = runner.invoke(app, ["analyze", str(job), "-f", fmt, "--no-model"]).stdout
        assert f"{cut_file}: the compressed stream ends before its end marker" in out.replace("&lt;", "<"), fmt
        assert f"after line {skip['line']}" in out, fmt


def test_damaged_job_is_never_no_failure(tmp_path) -> None:
    src = next(p for p in sorted(HEALTHY.rglob("*.log")))
    data = gzip.compress(src.read_bytes())
    healthy = tmp_path / "healthy.log.gz"
    healthy.write_bytes(data)
    assert analyze([healthy], model=False).verdict == "no_failure"
    cut = tmp_path / "cut.log.gz"
    cut.write_bytes(data[: len(data) * 2 // 3])
    d = analyze([cut])
    assert d.verdict == "unknown" and "not read to the end" in d.message and d.stats["lines"] > 0
    res = runner.invoke(app, ["analyze", str(cut), "-f", "json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["verdict"] == "unknown"


def test_corrupt_gzip_keeps_the_lines_before_the_fault(tmp_path) -> None:
    lines = [f"[rank0]: step {i} loss 0.{i % 97:02d}\n".encode() for i in range(20000)]
    data = bytearray(gzip.compress(b"".join(lines)))
    data[len(data) // 2: len(data) // 2 + 64] = bytes(64)
    p = tmp_path / "bad.log.gz"
    p.write_bytes(bytes(data))
    stats = ReadStats()
    got = list(iter_lines(str(p), stats))
    assert 1000 < len(got) < 20000
    # the lines before the damaged spot are the real ones (deflate may emit some garbage before it notices)
    assert all(t == lines[n - 1].decode().rstrip("\n") for n, t in got[:1000])
    (dmg,) = stats.damaged
    assert "corrupt" in dmg["error"] and dmg["line"] == got[-1][0]


def test_zstd_truncated_and_corrupt(tmp_path) -> None:
    zstandard = pytest.importorskip("zstandard")
    payload = b"".join(f"[rank0]: step {i} loss 0.5\n".encode() for i in range(50000))
    data = zstandard.ZstdCompressor(write_checksum=True).compress(payload)
    p = tmp_path / "cut.log.zst"
    p.write_bytes(data[: len(data) // 2])
    stats = ReadStats()
    n = len(list(iter_lines(str(p), stats)))
    assert 0 < n < 50000 and "truncated" in stats.damaged[0]["error"]
    bad = bytearray(data)
    bad[len(bad) // 2: len(bad) // 2 + 50] = bytes(50)
    p.write_bytes(bytes(bad))
    stats = ReadStats()
    n = len(list(iter_lines(str(p), stats)))
    assert 0 < n < 50000 and "corrupt" in stats.damaged[0]["error"]


def test_concatenated_gzip_members_are_all_read(tmp_path) -> None:
    p = tmp_path / "rotated.log.gz"
    p.write_bytes(gzip.compress(b"first member\n") + gzip.compress(b"second member\n") + bytes(8))
    stats = ReadStats()
    assert [t for _, t in iter_lines(str(p), stats)] == ["first member", "second member"]
    assert stats.damaged == []


def test_gzip_bomb_is_bounded(tmp_path) -> None:
    member = gzip.compress(b" " * (1 << 20))  # ~1 KB that inflates to 1 MiB; 1000 of them: a ~1 GB bomb
    p = tmp_path / "bomb.log.gz"
    p.write_bytes(gzip.compress(b"[rank0]: starting\n") + member * 1000)
    assert p.stat().st_size < 2_000_000
    stats = ReadStats()
    t0 = time.perf_counter()
    got = list(iter_lines(str(p), stats))
    assert time.perf_counter() - t0 < 10
    assert got[0] == (1, "[rank0]: starting")
    assert "compression bomb" in stats.damaged[0]["error"] and stats.bytes < 200 << 20


def test_decompressed_bytes_count_against_the_size_limit(tmp_path) -> None:
    p = tmp_path / "packed.log.gz"
    p.write_bytes(gzip.compress(b"[rank0]: step 1 loss 0.5\n" * 40000))  # ~1 MB of text, a few KB on disk
    with pytest.raises(SizeLimitError) as exc:
        analyze([p], model=False, max_bytes=100_000)
    assert str(p) in str(exc.value) and "decompressed" in str(exc.value)


def test_decompressed_stream_needs_no_fault_for_a_good_file(tmp_path) -> None:
    p = tmp_path / "ok.gz"
    p.write_bytes(gzip.compress(b"x\n" * 10))
    with Decompressed(open(p, "rb"), "gz") as dec:  # noqa: SIM115
        assert dec.read() == b"x\n" * 10 and dec.fault is None
    shutil.rmtree(tmp_path, ignore_errors=True)
