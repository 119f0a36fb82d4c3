"""Facts added in the session of wave N (heldout16, measured blind: 35/43 failures, 1/10 healthy flagged).

After the wave: a failure the ranks restarted from and went past (``recovered.py``), Accelerate's
``DistributedOperationException`` (shape mismatch before a collective), NCCL's "Invalid config ... attribute value"
(a config struct from other NCCL headers), and a CUDA runtime string printed on the line after its check's
announcement (llm.c's ``cudaCheck``). Before the wave, re-reading the rules-only misses of the unsealed corpus: NCCL's return-code trace from a header or a ``.cu``/``.c``/``.cpp`` file was never read (the fact layer's
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


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # rank 1 SIGKILLed at step ~260; torchrun restarted both workers, they resumed at step 200 and reached 400
        ("run-waven-a-torchrun-translate-worker-killed-restart-resume/job.log", "no_failure"),
        # "DistributedOperationException: Cannot apply desired operation due to shape mismatches" (one pasted line)
        ("gh-charent-ChatLM-mini-Chinese-36/train.log", "collective_mismatch"),
        # torch's "Last error:" then "Invalid config blocking attribute value -2147483648" (NCCL 2.14.3)
        ("gh-vllm-project-vllm-1726/llm.log", "library_version_mismatch"),
        # "[CUDA ERROR] at file train_gpt2.cu:341:" then "the provided PTX was compiled with an unsupported toolchain."
        ("gh-karpathy-llm.c-63/train_gpt2cu.log", "library_version_mismatch"),
    ],
)
def test_wave_n_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_a_failure_without_a_restart_is_not_read_as_recovered() -> None:
    # tee ran out of space while the job went on: the steps never went back, so no restart; stays disk_full
    assert analyze([str(CORPUS / "fresh-shell-tee-full/job.log")], model=False).root_cause == "disk_full"


def test_a_restart_that_failed_again_is_not_recovered(tmp_path: Path) -> None:
    # the same real run cut right after the restarted workers' first steps and followed by its own kill report again:
    # a failure after the resumed progress keeps the failure
    src = (CORPUS / "run-waven-a-torchrun-translate-worker-killed-restart-resume/job.log").read_text().splitlines()
    kill = next(line for line in src if "failed (exitcode: -9)" in line)
    past = next(i for i, line in enumerate(src) if "step 400/400" in line)  # past the step 260 reached before the kill
    log = tmp_path / "job.log"
    log.write_text("\n".join(src[: past + 1]) + "\n")
    assert analyze([str(log)], model=False).root_cause == "no_failure"  # so far: recovered
    log.write_text("\n".join([*src[: past + 1], kill]) + "\n")
    assert analyze([str(log)], model=False).root_cause == "host_oom_killed"


def test_a_hard_wrapped_paste_is_joined_again() -> None:
    # syslog's copy of Ray's raylet lines, hard-wrapped at 116 columns as pasted (vllm-project/vllm#1160): the
    # memory monitor's "Workers (tasks / actors) killed due to memory pressure (OOM)" spans two pieces
    assert analyze([str(CORPUS / "gh-vllm-project-vllm-1160/raylet_syslog.log")], model=False).root_cause == (
        "host_oom_killed"
    )
