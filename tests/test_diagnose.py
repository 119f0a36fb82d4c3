"""Cause vs symptom, earliest cause, symptom-only, no_failure and unknown (real lines from corpus/torch messages)."""
from __future__ import annotations

from logsleuth import analyze

CRASH = [
    '[rank0]: Traceback (most recent call last):',
    '[rank0]:   File "/home/user/train.py", line 40, in <module>',
    '[rank0]:     dist.all_reduce(t)',
    '[rank0]: RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Connection closed by peer [127.0.0.1]:36548',
    '[rank1]: Traceback (most recent call last):',
    '[rank1]:   File "/home/user/train.py", line 42, in <module>',
    '[rank1]:     batch = data[idx]',
    '[rank1]: IndexError: list index out of range',
    'W1121 15:40:01.123000 140 torch/distributed/elastic/multiprocessing/api.py:897] Sending process 141 closing signal SIGTERM',
]


def _run(tmp_path, lines):
    p = tmp_path / "job.log"
    p.write_text("\n".join(lines) + "\n")
    return analyze([str(p)], model=False)


def test_cause_beats_earlier_symptoms(tmp_path) -> None:
    d = _run(tmp_path, CRASH)
    assert d.root_cause == "worker_exception" and d.first_failure.rank == 1 and d.first_failure.line == 5
    ids = {m.rule_id for m in d.symptoms}
    assert "connection-closed-by-peer" in ids
    # the launcher's SIGTERM to siblings names the winner's own cause: it corroborates it (evidence), no symptom
    assert "elastic-sigterm-siblings" not in ids
    assert any(m.rule_id == "elastic-sigterm-siblings" and m.role == "symptom" for m in d.evidence)


def test_earliest_cause_wins_and_later_timeout_is_collateral(tmp_path) -> None:
    lines = CRASH[4:8] + ['[rank0]:[E1121 10:30:00.123456 1234 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught '
                          'collective operation timeout: WorkNCCL(SeqNum=3, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, '
                          'Timeout(ms)=600000) ran for 600012 milliseconds before timing out.']
    d = _run(tmp_path, lines)
    assert d.root_cause == "worker_exception"
    assert any(m.root_cause == "collective_timeout" for m in d.symptoms)


def test_symptom_only_reports_lower_confidence(tmp_path) -> None:
    d = _run(tmp_path, CRASH[:4])
    assert d.root_cause == "peer_process_died" and d.confidence < 0.7


def test_no_failure_and_unknown(tmp_path) -> None:
    d = _run(tmp_path, ["step 1 loss 2.0", "step 2 loss 1.5", "training finished"])
    assert d.verdict == "no_failure" and d.root_cause == "no_failure"
    d = _run(tmp_path, ["step 1 loss 2.0", "ERROR something nobody has a rule for", "FATAL nothing known either"])
    assert d.verdict == "unknown" and len(d.unexplained) == 2
    # a bare fatal signal is no longer unexplained: the fact layer reads it as a native crash (a fallback reading)
    d = _run(tmp_path, ["step 1 loss 2.0", "ERROR something nobody has a rule for", "Segmentation fault (core dumped)"])
    assert d.root_cause == "native_crash" and d.rule_id == "process-crashed-by-signal"
