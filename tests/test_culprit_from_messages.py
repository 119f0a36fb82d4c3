"""Naming the straggler from the waiters' own messages when no Flight Recorder dump or progress line names it
(``hang.message_culprit``), and the scan row's ``exception`` column (the JSON ``exception`` flattened).

Lines: gloo's monitored barrier as this repo's torchrun/gloo runs print it (rules/torch/gloo-monitored-barrier.yaml),
NCCL's device-side mismatch check (src/init.cc, NVIDIA/nccl as quoted by rules/nccl/nccl-mismatched-collective.yaml),
ProcessGroupNCCL's watchdog timeout (torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp). Logs go to a temporary file.
"""

from __future__ import annotations

from pathlib import Path

from logsleuth.pipeline import analyze
from logsleuth.scan.jobs import Job
from logsleuth.scan.rows import exception_column, row_from_diagnosis

WATCHDOG = (
    "[E1121 10:00:00.123456 {pid} ProcessGroupNCCL.cpp:616] [Rank {rank}] Watchdog caught collective operation "
    "timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600012 "
    "milliseconds before timing out.\n"
)


def _diagnose(tmp_path: Path, text: str):
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False)


def test_monitored_barrier_names_the_rank_that_never_arrived(tmp_path: Path) -> None:
    text = (
        "[rank0]:[E1121 16:04:33.082433853 ProcessGroupGloo.cpp:2901] [Rank 0]: Rank 2 failed to pass "
        "monitoredBarrier in 10000 ms\n"
    )
    d = _diagnose(tmp_path, text)
    assert d.root_cause == "collective_timeout"
    assert d.culprit["ranks"] == [2] and d.culprit["source"] == "message" and d.culprit["verdict"] == "named"
    assert "rank 2" in d.fix.summary.lower()


def test_nccl_mismatch_around_rank_names_that_rank(tmp_path: Path) -> None:
    text = (
        "host1:123:456 [0] init.cc:1247 NCCL WARN Mismatched collective detected, please check your collective calls "
        "at and around rank 39. You can use NCCL_DEBUG=INFO and NCCL_DEBUG_SUBSYS=COLL to see the collective logs\n"
    )
    d = _diagnose(tmp_path, text)
    assert d.root_cause == "collective_mismatch" and d.culprit["ranks"] == [39]


def test_ranks_that_reported_no_timeout_are_named_when_most_did(tmp_path: Path) -> None:
    text = "world_size=4\n" + "".join(WATCHDOG.format(pid=1234 + r, rank=r) for r in (1, 0, 3))
    d = _diagnose(tmp_path, text)
    assert d.root_cause == "collective_timeout"
    assert d.culprit["ranks"] == [2] and d.culprit["waiters"] == [0, 1, 3] and d.culprit["verdict"] == "no_timeout"
    assert d.culprit["confidence"] < 0.7


def test_no_culprit_from_a_minority_of_timeouts_or_without_world_size(tmp_path: Path) -> None:
    one_of_four = "world_size=4\n" + WATCHDOG.format(pid=1234, rank=1)
    assert not _diagnose(tmp_path, one_of_four).culprit
    no_world = "".join(WATCHDOG.format(pid=1234 + r, rank=r) for r in (1, 0, 3))
    assert not _diagnose(tmp_path, no_world).culprit


def test_scan_row_carries_the_exception(tmp_path: Path) -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/home/user/train.py", line 10, in <module>\n'
        "    save(model)\n"
        "OSError: [Errno 28] No space left on device\n"
    )
    log = tmp_path / "job.log"
    log.write_text(text)
    d = analyze([str(log)], model=False)
    job = Job(name="job", paths=(str(log),), bytes=len(text), fingerprint="-", analyze_paths=(str(log),))
    row = row_from_diagnosis(job, d)
    assert row["exception"] == "OSError: [Errno 28] No space left on device"
    assert exception_column({}) is None and exception_column({"type": "MemoryError", "message": ""}) == "MemoryError"
    assert len(exception_column({"type": "ValueError", "message": "x" * 5000}) or "") == 1000
