"""Facts added after wave L (heldout14) was measured blind (27/33, 0/11 healthy flagged): CUDA's device errors that
say a process asked for a GPU its node does not give it, NCCL's INFO return-code trace when no WARN was printed, DDP's
parameter check across ranks, a RayTaskError yielding to the remote process's own cause, and the user's Ctrl-C on a
job that had stopped making progress. Logs: public threads in corpus/manifest.d/wave-l-threads-t.csv and real runs of
corpus/generators/wavel_a/ and wavel_b/."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.kinds import NcclWarning, SignalFact
from logsleuth.factlayer.reason import FactStream
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("gh-KellerJordan-modded-nanogpt-61", "duplicate_gpu"),  # invalid device ordinal at set_device(local_rank)
        ("gh-NVIDIA-nccl-1000", "nccl_network_config"),  # "misc/socket.cc:567 -> 2" with no WARN in the paste
        ("run-wavel-a-torchrun-2node-ctr-tables-sized-per-rank", "collective_mismatch"),  # DDP's shape check
        ("run-wavel-b-rayserve-ranker-http-port-held", "port_in_use"),  # the ProxyActor's own EADDRINUSE
        ("run-wavel-a-torchrun-ctr-overwrite-prompt-ctrl-c", "silent_hang"),  # Ctrl-C on a rank blocked in input()
        ("run-wavel-b-lightning-ncf-metrics-push-no-reply", "silent_hang"),  # Ctrl-C on a push with no reply
    ],
)
def test_wave_l_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _stream(text: str) -> list:
    stream = FactStream()
    return [f for ev in parse_text(text) for f in stream.facts(ev, {})]


def test_nccl_trace_counts_only_without_a_warn_and_only_its_innermost_line() -> None:
    alone = _stream(
        "node-1:2330:2658 [2] NCCL INFO misc/socket.cc:567 -> 2\n"
        "node-1:2330:2658 [2] NCCL INFO bootstrap.cc:270 -> 2\n"
    )
    traces = [f for f in alone if isinstance(f, NcclWarning)]
    assert [(f.file, f.subsystem, f.trace) for f in traces] == [("misc/socket.cc", "socket", True)]
    # NVIDIA/nccl#795: the WARN names the failure (a peer's broken pipe); the trace after it adds nothing
    after_warn = _stream(
        "gpu-node-22:183006:183220 [1] misc/socket.cc:518 NCCL WARN Net : Call to recv from 10.0.84.247<58355> "
        "failed : Broken pipe\n"
        "gpu-node-22:183006:183220 [1] NCCL INFO misc/socket.cc:535 -> 2\n"
    )
    assert [f.trace for f in after_warn if isinstance(f, NcclWarning)] == [False]


@pytest.mark.parametrize(
    "text",
    [
        "Detected KeyboardInterrupt, attempting graceful shutdown ...\n",
        "[rank0]: Traceback (most recent call last):\n[rank0]:   File \"train.py\", line 182, in main\n"
        "[rank0]:     ans = input('overwrite? [y/N] ')\n[rank0]: KeyboardInterrupt\n",
    ],
)
def test_ctrl_c_is_a_sigint_from_the_terminal(text: str) -> None:
    sigs = [f for f in _stream(text) if isinstance(f, SignalFact)]
    assert [(f.signal, f.sender) for f in sigs] == [("SIGINT", "terminal")]
