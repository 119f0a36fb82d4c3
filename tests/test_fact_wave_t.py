"""Facts added after wave T (heldout22) was measured blind (28/34 failures, 0/8 healthy flagged) and after the first
real GPU runs (heldout24, one NVIDIA H200, NCCL 2.28.9: 8/9 failures, 0/2 healthy flagged): NCCL's COLL trace read
across processes (``reason.CollTrace``), a launcher stopping its workers with nothing else in the log, and NCCL
2.28's "Failed to initialize any NET plugin".

The COLL trace lines below keep NCCL's printed format (``src/enqueue.cc``; the real H200 trace in
corpus/logs/run-gpu-h200-healthy_coll_trace/job.log and ROCm/rccl#429's excerpt) with values chosen per test: they
exercise which calls count as one communicator's, they are not presented as a captured log."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.kinds import CollTraceMismatch
from logsleuth.factlayer.reason import CollTrace
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _call(host: str, pid: int, dev: int, op: str, oc: str, count: int, comm: str, n: int, dtype: int = 7) -> str:
    return (
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO {op}: opCount {oc} sendbuff 0x7f5dd32b2100 recvbuff 0x7f5dd32b2100 "
        f"count {count} datatype {dtype} op 0 root 0 comm {comm} [nranks={n}] stream 0x55bef0208bd0"
    )


def _init(host: str, pid: int, dev: int, comm: str, rank: int, n: int, comm_id: str) -> str:
    return (
        f"{host}:{pid}:{pid} [{dev}] NCCL INFO ncclCommInitRankConfig comm {comm} rank {rank} nranks {n} "
        f"cudaDev {dev} nvmlDev {dev} busId 1a000 commId {comm_id} - Init COMPLETE"
    )


def _mismatches(lines: list[str]) -> list[CollTraceMismatch]:
    trace = CollTrace()
    out: list[CollTraceMismatch] = []
    for ev in parse_text("\n".join(lines) + "\n", path="job.log"):
        out.extend(f for f in trace.see(ev, ()) if isinstance(f, CollTraceMismatch))
    return out


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # ROCm/rccl#429: rank 2 calls AllGather at opCounts 28c and 28d where rank 0 calls AllReduce; nothing else
        ("gh-ROCm-rccl-429/allreduce_vs_allgather.log", "collective_mismatch"),
        # real H200 runs: NCCL_NET=IB on a host with no IB device ("plugin/net.cc:379 NCCL WARN Failed to initialize
        # any NET plugin"), and a healthy one-rank COLL trace of 250 calls
        ("run-gpu-h200-net_ib_forced/job.log", "nccl_network_config"),
        ("run-gpu-h200-healthy_coll_trace/job.log", "no_failure"),
    ],
)
def test_wave_t_and_gpu_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_one_disagreement_is_enough_when_init_lines_tie_both_comms_to_one_comm_id() -> None:
    lines = [
        _init("node-1", 101, 0, "0x55aa00", 0, 2, "0x9a3c8f1d2e4b5a60"),
        _init("node-1", 102, 1, "0x77bb00", 1, 2, "0x9a3c8f1d2e4b5a60"),
        _call("node-1", 101, 0, "AllReduce", "3", 1024, "0x55aa00", 2),
        _call("node-1", 102, 1, "Broadcast", "3", 1024, "0x77bb00", 2),
    ]
    (m,) = _mismatches(lines)
    assert m.communicator == "commId 0x9a3c8f1d2e4b5a60" and m.op_count == "3"
    assert m.this_call.startswith("Broadcast count 1024") and m.other_call.startswith("AllReduce count 1024")
    assert m.this_process == "node-1:102 [1] rank 1" and m.other_process == "node-1:101 [0]"


def test_a_size_mismatch_under_one_op_is_a_mismatch_too() -> None:
    lines = [
        _init("node-1", 101, 0, "0x55aa00", 0, 2, "0x11"),
        _init("node-1", 102, 1, "0x77bb00", 1, 2, "0x11"),
        _call("node-1", 101, 0, "AllReduce", "a", 4096, "0x55aa00", 2),
        _call("node-1", 102, 1, "AllReduce", "a", 2048, "0x77bb00", 2),
    ]
    (m,) = _mismatches(lines)
    assert "count 2048" in m.this_call and "count 4096" in m.other_call


def test_same_sized_groups_with_different_comm_ids_are_not_compared() -> None:
    # two pipeline stages' tensor-parallel groups of 2: each stage issues its own calls under the same opCounts
    lines = [
        _init("node-1", 101, 0, "0x55aa00", 0, 2, "0x11"),
        _init("node-1", 103, 2, "0x66cc00", 0, 2, "0x22"),
        *(_call("node-1", 101, 0, "AllReduce", oc, 1024, "0x55aa00", 2) for oc in "0123"),
        *(_call("node-1", 103, 2, "AllGather", oc, 512, "0x66cc00", 2, dtype=0) for oc in "0123"),
    ]
    assert _mismatches(lines) == []


def test_without_comm_ids_one_disagreement_or_two_comms_of_one_size_say_nothing() -> None:
    one = [
        _call("node-1", 101, 0, "AllReduce", "28c", 9984512, "0x55aa00", 4),
        _call("node-1", 102, 2, "AllGather", "28c", 59205120, "0x77bb00", 4, dtype=0),
    ]
    assert _mismatches(one) == []
    # process 102 logs two communicators of 4 ranks: which of them is 101's is unknown
    two = [
        _call("node-1", 102, 2, "Broadcast", "0", 16, "0x88dd00", 4),
        *(_call("node-1", 101, 0, "AllReduce", oc, 1024, "0x55aa00", 4) for oc in "01"),
        *(_call("node-1", 102, 2, "AllGather", oc, 512, "0x77bb00", 4, dtype=0) for oc in "01"),
    ]
    assert _mismatches(two) == []


def test_the_mismatch_is_reported_once_per_communicator() -> None:
    lines = [
        *(_call("node-1", 101, 0, "AllReduce", oc, 1024, "0x55aa00", 4) for oc in "0123"),
        *(_call("node-1", 102, 2, "AllGather", oc, 512, "0x77bb00", 4, dtype=0) for oc in "0123"),
    ]
    (m,) = _mismatches(lines)
    assert m.op_count == "1" and m.communicator == "nranks=4"  # the second disagreeing opCount decides


def test_a_launcher_stopping_workers_alone_is_a_failure_not_a_healthy_run() -> None:
    # 01-ai/Yi#152: DeepSpeed's launcher kills its subprocesses and the log holds nothing else (host memory, settled
    # in the thread). Rules alone do not guess (below the abstain threshold) but no longer call the job healthy.
    d = analyze([str(CORPUS / "gh-01-ai-Yi-152/finetune.log")], model=False)
    assert d.verdict == "unknown" and d.hypotheses[0].root_cause == "host_oom_killed"


def test_a_launcher_stop_stays_a_symptom_of_the_workers_exception() -> None:
    # a real DeepSpeed-launcher run (corpus/generators/waveg): a worker's IndexError, then the launcher's
    # "Killing subprocess N" lines (deepspeed/launcher/launch.py sigkill_handler)
    log = CORPUS / "run-waveg-deepspeed-curriculum-stage-indexerror/job.log"
    assert "Killing subprocess" in log.read_text()
    assert analyze([str(log)], model=False).root_cause == "worker_exception"


def test_more_processes_than_the_communicator_holds_say_nothing() -> None:
    # pipeline stages' tensor-parallel groups of 2 without Init lines: 4 processes log comms of 2 ranks
    lines = [
        *(_call("node-1", 101, 0, "AllReduce", oc, 1024, "0x55aa00", 2) for oc in "012"),
        *(_call("node-1", 102, 1, "AllReduce", oc, 1024, "0x77bb00", 2) for oc in "012"),
        *(_call("node-1", 103, 2, "AllGather", oc, 512, "0x66cc00", 2, dtype=0) for oc in "012"),
        *(_call("node-1", 104, 3, "AllGather", oc, 512, "0x99ee00", 2, dtype=0) for oc in "012"),
    ]
    assert _mismatches(lines) == []


def test_a_trace_that_is_not_one_sequence_per_communicator_says_nothing() -> None:
    ids = [_init("node-1", 101, 0, "0x55aa00", 0, 2, "0x11"), _init("node-1", 102, 1, "0x77bb00", 1, 2, "0x11")]
    # the call's [nranks=4] is not the Init line's 2
    assert (
        _mismatches(
            [
                *ids,
                _call("node-1", 101, 0, "AllReduce", "0", 8, "0x55aa00", 4),
                _call("node-1", 102, 1, "Broadcast", "0", 8, "0x77bb00", 4),
            ]
        )
        == []
    )
    # process 101 logs opCount 0 twice with different calls (a comm destroyed and another made at its address)
    assert (
        _mismatches(
            [
                *ids,
                _call("node-1", 101, 0, "AllReduce", "0", 8, "0x55aa00", 2),
                _call("node-1", 101, 0, "Broadcast", "0", 8, "0x55aa00", 2),
                _call("node-1", 102, 1, "Broadcast", "0", 8, "0x77bb00", 2),
            ]
        )
        == []
    )


def test_the_trace_is_read_before_parsing_and_only_the_disagreeing_call_is_parsed(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text((CORPUS / "gh-ROCm-rccl-429/allreduce_vs_allgather.log").read_text())
    d = analyze([str(log)], model=False)
    assert d.root_cause == "collective_mismatch" and d.first_failure is not None and d.first_failure.line == 4
    assert d.stats["events"] == 1  # the three agreeing or undecided calls were read by CollTrace.skim, not parsed
