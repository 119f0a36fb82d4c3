"""Finding logs: rotated names, compression by magic bytes (not suffix), symlinked folders followed once
(a link back up the tree is no loop), the same file given twice read once."""
from __future__ import annotations

import gzip
import os

import pytest

import logsleuth
from logsleuth.read import expand_paths, is_log_name, iter_lines, walk_logs
from tests.conftest import CORPUS

SRC = CORPUS / "logs/gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log"


@pytest.mark.parametrize("name", ["train.log.1", "stdout.log.2.gz", "rank0.out.3.zst", "job.LOG", "x.err.gz"])
def test_rotated_and_compressed_names_are_logs(name: str) -> None:
    assert is_log_name(name)


@pytest.mark.parametrize("name", ["model.pt", "train.log.bak", "notes.md", "data.1"])
def test_other_names_are_not(name: str) -> None:
    assert not is_log_name(name)


def test_gzip_without_suffix_is_decompressed(tmp_path) -> None:
    p = tmp_path / "train.log"  # gzip data under a plain name (a misnamed rotated log)
    p.write_bytes(gzip.compress(SRC.read_bytes()))
    lines = [t for _, t in iter_lines(str(p))]
    assert lines == SRC.read_text(encoding="utf-8").splitlines()


def test_zstd_without_suffix_is_decompressed(tmp_path) -> None:
    zstandard = pytest.importorskip("zstandard")
    p = tmp_path / "train.log.1"
    p.write_bytes(zstandard.ZstdCompressor().compress(SRC.read_bytes()))
    assert len(list(iter_lines(str(p)))) == len(SRC.read_text(encoding="utf-8").splitlines())


def test_symlinked_folder_is_followed_once_and_loops_end(tmp_path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "train.log.1").write_bytes(SRC.read_bytes())
    top = tmp_path / "top"
    top.mkdir()
    os.symlink(real, top / "linked")
    os.symlink(top, real / "back-up")  # a loop: real/back-up -> top -> linked -> real
    found = list(walk_logs(str(top)))
    assert [os.path.basename(f) for f in found] == ["train.log.1"]


def test_same_file_twice_or_through_a_link_is_read_once(tmp_path) -> None:
    log = tmp_path / "job.log"
    log.write_bytes(SRC.read_bytes())
    os.symlink(log, tmp_path / "alias.log")
    assert expand_paths([str(log), str(tmp_path / "alias.log"), str(log)]) == [str(log)]
    d = logsleuth.analyze([str(log), str(log)], model=False)
    assert d.stats["paths"] == [str(log)]


def test_scan_finds_rotated_logs_in_symlinked_folders(tmp_path) -> None:
    real = tmp_path / "elsewhere" / "job1"
    real.mkdir(parents=True)
    (real / "stdout.log.2.gz").write_bytes(gzip.compress(SRC.read_bytes()))
    archive = tmp_path / "archive"
    archive.mkdir()
    os.symlink(real, archive / "job1")
    df = logsleuth.scan([str(archive)], jobs=1)
    assert len(df) == 1 and df.verdict.iloc[0] == "failure" and df.root_cause.iloc[0] == "worker_exception"


def test_a_folder_of_per_node_logs_is_one_job(tmp_path) -> None:
    """Two ``node<k>.log`` files are one multi-node job's output; a lone ``node0.log`` and other names stay files."""
    from logsleuth.scan.discover import discover

    job = tmp_path / "archive" / "job-17"
    job.mkdir(parents=True)
    for k in (0, 1):
        (job / f"node{k}.log").write_text(f"[node{k}] step 1 loss 2.0\n")
    lone = tmp_path / "archive" / "job-18"
    lone.mkdir()
    (lone / "node0.log").write_text("step 1 loss 2.0\n")
    (lone / "train.log").write_text("step 1 loss 2.0\n")
    jobs = discover([str(tmp_path / "archive")], group_by="file")
    names = sorted(os.path.relpath(j.name, tmp_path) for j in jobs)
    assert names == ["archive/job-17", "archive/job-18/node0.log", "archive/job-18/train.log"], names
