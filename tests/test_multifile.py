"""Multi-file jobs: ranks from paths, ordering across files by time, a bad file among good ones, missing ranks."""
from __future__ import annotations

import gzip

from logsleuth import analyze

R1_CRASH = [
    "2026-11-21 15:51:26,077 [rank1] INFO train: step 2 loss 8.1598 lr 0.050 elapsed 0.13s",
    "Traceback (most recent call last):",
    '  File "/tmp/job/train.py", line 103, in user_failure',
    "ValueError: Expected a non-empty batch after filtering padded samples, got 0 valid samples at step 3",
]
R0_SYMPTOM = [
    "2026-11-21 15:51:26,077 [rank0] INFO train: step 2 loss 8.1598 lr 0.050 elapsed 0.34s",
    "2026-11-21 15:51:27,500 [rank0] INFO train: waiting in all_reduce",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.11/site-packages/torch/distributed/distributed_c10d.py", line 3252, in all_reduce',
    "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:553] Connection closed by peer [127.0.0.1]:2985.",
]


def _write(path, lines, gz=False):
    path.parent.mkdir(parents=True, exist_ok=True)
    data = ("\n".join(lines) + "\n").encode()
    path.write_bytes(gzip.compress(data) if gz else data)


def test_torchrun_log_dir_names_the_failing_rank(tmp_path) -> None:
    run = tmp_path / "logs" / "none_abc" / "attempt_0"
    _write(run / "0" / "stderr.log", R0_SYMPTOM)
    _write(run / "1" / "stderr.log", R1_CRASH)
    d = analyze([str(tmp_path / "logs")], model=False)
    assert d.root_cause == "worker_exception"
    assert d.first_failure.rank == 1 and d.first_failure.local_rank == 1
    assert any(s.event.rank == 0 and s.root_cause == "peer_process_died" for s in d.symptoms)
    assert d.ranks["seen"] == [0, 1]


def test_bad_file_in_a_job_is_skipped_not_fatal(tmp_path) -> None:
    _write(tmp_path / "rank1.log", R1_CRASH)
    data = gzip.compress(("\n".join(R0_SYMPTOM) + "\n").encode() * 500)
    (tmp_path / "rank0.log.gz").write_bytes(data[: len(data) // 3])
    d = analyze([str(tmp_path)], model=False)
    assert d.root_cause == "worker_exception" and d.first_failure.rank == 1
    assert [s["path"] for s in d.stats["skipped"]] == [str(tmp_path / "rank0.log.gz")]


def test_missing_ranks_are_named(tmp_path) -> None:
    lines = ["[rank0]: torch.distributed.DistStoreError: Timed out after 31 seconds waiting for clients. 2/4 clients joined.",
             "[rank1]: INFO waiting for the store"]
    _write(tmp_path / "job.log", lines)
    d = analyze([str(tmp_path / "job.log")], model=False)
    assert d.root_cause == "rendezvous_timeout"
    assert d.ranks["world_size"] == 4 and d.ranks["missing"] == [2, 3]
