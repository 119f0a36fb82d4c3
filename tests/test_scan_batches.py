"""The local executor's batches: rows identical to per-job ``analyze``, and a worker killed mid-batch loses nothing."""
from __future__ import annotations

import os
import threading
from pathlib import Path

import pandas as pd
import pytest

from logsleuth.pipeline import analyze
from logsleuth.scan import discover, local, scan
from logsleuth.scan.jobs import batches
from logsleuth.scan.rows import redact_row, row_from_diagnosis
from logsleuth.scan.table import to_frame
from tests.conftest import CORPUS, manifest_rows

OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"


def _sample() -> list[str]:
    """Every fifth corpus job (files and multi-file directories), about 70 of them, of every label."""
    rows = [r for r in manifest_rows() if (CORPUS / r["file"]).exists()]
    return [str(CORPUS / r["file"]) for r in rows[::5]]


def test_batched_scan_rows_equal_per_job_analyze_on_corpus_jobs(rules) -> None:
    paths = _sample()
    jobs = discover(paths, "file")
    assert len(jobs) >= 60 and local.batch_size(len(jobs), 2) > 1  # several jobs per task
    table = scan(paths, group_by="file", jobs=2, rules=rules).set_index("job")
    expected = to_frame(
        [redact_row(row_from_diagnosis(j, analyze(list(j.analyze_paths), rules=rules))) for j in jobs]
    ).set_index("job")
    pd.testing.assert_frame_equal(table.drop(columns="seconds"), expected.drop(columns="seconds"))


def test_batches_are_largest_first_and_bounded() -> None:
    from logsleuth.scan.jobs import Job

    jobs = [Job(f"j{i}", (f"j{i}.log",), size, "fp", (f"j{i}.log",)) for i, size in enumerate([5, 900, 1, 40, 7] * 8)]
    out = batches(jobs, max_jobs=3, max_bytes=1000)
    assert sorted(j.name for b in out for j in b) == sorted(j.name for j in jobs)  # each job once
    assert all(len(b) <= 3 and (len(b) == 1 or sum(j.bytes for j in b) <= 1000) for b in out)
    sizes = [j.bytes for b in out for j in b]
    assert sizes == sorted(sizes, reverse=True)


def test_a_worker_killed_mid_batch_loses_no_other_job(tmp_path: Path, rules, monkeypatch: pytest.MonkeyPatch) -> None:
    if threading.active_count() != 1:
        pytest.skip("workers are forked only from a single-threaded process (the patch below reaches them by fork)")
    for i in range(24):
        p = tmp_path / f"job{i:02d}" / "out.log"
        p.parent.mkdir()
        p.write_text(f"[2024-05-01 10:00:00,000] [INFO] step {i} loss 1.23\n" + (OOM if i % 2 else ""))
    real = local.analyze_job
    parent = os.getpid()

    def dies_on_job07(job, *args, **kwargs):  # noqa: ANN001, ANN202 - the executor's own signature
        if job.name.endswith("job07") and os.getpid() != parent:  # (the scan's own process warms up on small jobs)
            os._exit(3)  # what the OOM killer does to a worker: no exception, no result
        return real(job, *args, **kwargs)

    monkeypatch.setattr(local, "analyze_job", dies_on_job07)
    assert local.batch_size(24, 2) > 1
    two = scan([str(tmp_path)], jobs=2, rules=rules).set_index("job")
    monkeypatch.setattr(local, "analyze_job", real)
    one = scan([str(tmp_path)], jobs=1, rules=rules).set_index("job")
    killed = str(tmp_path / "job07")
    assert "worker process analysing this job died" in two.loc[killed, "error"]
    others = [j for j in one.index if j != killed]
    pd.testing.assert_frame_equal(two.loc[others].drop(columns="seconds"), one.loc[others].drop(columns="seconds"))
    assert list(one.loc[others, "root_cause"]).count("cuda_oom") == 11
