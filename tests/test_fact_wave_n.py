"""Facts added in the session of wave N (heldout16). Before the wave, re-reading the rules-only misses of the unsealed
corpus: NCCL's return-code trace from a header or a ``.cu``/``.c``/``.cpp`` file was never read (the fact layer's
pre-check knew only ``.cc:``), a system error from NCCL's network transport had no reading, and a native stack
whose innermost torch frame is ``WorkNCCL::checkTimeout`` (the watchdog's timeout throw) said nothing when the
message line was not pasted."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.parse import parse
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("line", "file", "subsystem"),
    [
        # src/include/checks.h NCCLCHECK: INFO "%s:%d -> %d" with __FILE__ of the caller
        ("node-1:1050:1316 [0] NCCL INFO include/net.h:25 -> 2", "include/net.h", "net"),
        ("node-1:1050:1316 [0] NCCL INFO include/shm.h:31 -> 2", "include/shm.h", "shm"),
        ("node-1:1050:1316 [0] NCCL INFO bootstrap.cu:88 -> 2", "bootstrap.cu", "socket"),
        ("node-1:1050:1316 [0] NCCL INFO ib_plugin.c:455 -> 2", "ib_plugin.c", "ib"),
    ],
)
def test_return_code_trace_from_any_source_extension(line: str, file: str, subsystem: str) -> None:
    (ev,) = parse([(1, line)])
    (fact,) = facts_of(ev)
    assert (fact.file, fact.subsystem, fact.result, fact.trace) == (file, subsystem, "ncclSystemError", True)


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # only "include/net.h:25 -> 2" then "transport/net.cc:515 -> 2" after the channel set-up (NVIDIA/nccl#697)
        ("gh-nvidia-nccl-697/two_node_socket_send.log", "nccl_network_config"),
        # only the c10 stack of the watchdog's DistBackendError was pasted (jpata/particleflow#390)
        ("gh-jpata-particleflow-390/mlpf_multi_gpu_epoch_end.log", "collective_timeout"),
    ],
)
def test_pre_wave_n_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause
