"""cuMem settings per process as facts (``NcclCuMem``) and their disagreement before an NCCL failure
(``CuMemMismatch``, rule ``nccl-cumem-settings-disagree``). The lines are real, from public threads (hosts rewritten):
vLLM #6732 (NCCL's NCCL_CUMEM_ENABLE print), vLLM #20862 (vLLM's override warning), SGLang #6246 (P2P/CUMEM channel,
p2p.cc failure), vLLM #9046 (P2P/IPC channel), NeMo-RL #722 (pynccl error), vLLM #5477 (Ray-prefixed p2p.cc failure).
Where a test puts lines of different threads into one job, it says so: such a job is a test input, not a corpus log."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import CuMemMismatch, NcclCuMem
from logsleuth.factlayer.reason import FactStream
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

NCCL_ENV_OFF = "gpu-node-1:839:839 [1] NCCL INFO NCCL_CUMEM_ENABLE set by environment to 0."  # vllm#6732
VLLM_OVERRIDE = (  # vllm#20862
    "WARNING 07-12 13:11:56 [env_override.py:17] NCCL_CUMEM_ENABLE is set to 0, skipping override. This may increase"
    " memory overhead with cudagraph+allreduce: https://github.com/NVIDIA/nccl/issues/1234"
)
CHANNEL_CUMEM = "gpu-node-2:4168:5271 [1] NCCL INFO Channel 20/0 : 1[1] -> 0[0] via P2P/CUMEM"  # sglang#6246
CHANNEL_IPC = "gpu-node-3:652775:652775 [2] NCCL INFO Channel 11/0 : 2[2] -> 1[1] via P2P/IPC/read"  # vllm#9046
P2P_FAILURE = "gpu-node-2:4167:5269 [0] transport/p2p.cc:275 NCCL WARN Cuda failure 'invalid argument'"  # sglang#6246
RAY_P2P_FAILURE = (  # vllm#5477
    "(LLMRayActor pid=116812) gpu-node-1:116812:120158 [0] transport/p2p.cc:272 NCCL WARN Cuda failure 'invalid argument'"
)
PYNCCL_ERROR = "RuntimeError: NCCL error: unhandled cuda error (run with NCCL_DEBUG=INFO for details)"  # NeMo-RL#722


def cumem_facts(text: str) -> list[NcclCuMem]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, NcclCuMem)]


def streamed(text: str) -> list:
    stream = FactStream()
    return [f for ev in parse_text(text, path="job.log") for f in stream.facts(ev, {})]


@pytest.mark.parametrize(
    ("line", "enabled", "said_by"),
    [
        (NCCL_ENV_OFF, False, "nccl_env"),
        (VLLM_OVERRIDE, False, "vllm_override"),
        (CHANNEL_CUMEM, True, "p2p_channel"),
        (CHANNEL_IPC, False, "p2p_channel"),
    ],
)
def test_each_source_states_one_process_setting(line: str, enabled: bool, said_by: str) -> None:
    [f] = cumem_facts(line)
    assert (f.enabled, f.said_by) == (enabled, said_by)


def test_auto_detect_and_other_variables_state_nothing() -> None:
    # NCCL's -2 means "auto-detect" (src/misc/param.cc prints whatever the variable holds): no setting stated
    assert cumem_facts("gpu-node-1:839:839 [1] NCCL INFO NCCL_CUMEM_ENABLE set by environment to -2.") == []
    assert cumem_facts("gpu-node-1:839:839 [1] NCCL INFO NCCL_P2P_LEVEL set by environment to NVL") == []


def test_channel_lines_repeat_one_statement_per_process() -> None:
    text = "\n".join([CHANNEL_CUMEM, CHANNEL_CUMEM.replace("Channel 20/0", "Channel 21/0")])
    assert len([f for f in streamed(text) if isinstance(f, NcclCuMem)]) == 1


def test_failure_after_processes_disagree_is_a_mismatch_naming_both_sides() -> None:
    # lines of vllm#6732 and sglang#6246 in one job (a test input)
    [m] = [f for f in streamed("\n".join([NCCL_ENV_OFF, CHANNEL_CUMEM, P2P_FAILURE])) if isinstance(f, CuMemMismatch)]
    assert m.off_by == "nccl_env (gpu-node-1:839)"
    assert m.on_by == "p2p_channel (gpu-node-2:4168)"
    assert m.failure == "nccl_warning" and m.event.pid == 4167


@pytest.mark.parametrize(
    "lines",
    [
        [NCCL_ENV_OFF, CHANNEL_CUMEM],  # both settings, nothing failed (separate communicators may differ)
        [CHANNEL_CUMEM, P2P_FAILURE],  # a failure, every process said the same
        [P2P_FAILURE, NCCL_ENV_OFF, CHANNEL_CUMEM],  # the settings came after the failure: no earlier disagreement
    ],
)
def test_no_mismatch_without_an_earlier_disagreement_and_a_failure(lines: list[str]) -> None:
    assert not [f for f in streamed("\n".join(lines)) if isinstance(f, CuMemMismatch)]


def test_diagnosis_from_facts_with_a_framework_prefix_and_the_pynccl_error(tmp_path: Path) -> None:
    """vLLM's override (vllm#20862), a cuMem channel of the trainer (sglang#6246) and the Ray-prefixed p2p.cc failure
    (vllm#5477) in one job: the fact rule names the cause and both sides."""
    log = tmp_path / "job.log"
    log.write_text("\n".join([VLLM_OVERRIDE, CHANNEL_CUMEM, RAY_P2P_FAILURE, PYNCCL_ERROR]) + "\n")
    d = analyze([str(log)], model=False)
    assert d.root_cause == "nccl_cumem_mismatch"
    assert d.rule_id == "nccl-cumem-settings-disagree"
    assert "vllm_override" in d.message and "p2p_channel" in d.message


def test_generic_pynccl_error_alone_stays_a_cuda_error(tmp_path: Path) -> None:
    """NeMo-RL #722's two lines say nothing about cuMem: without the settings the cause is not read into them."""
    log = tmp_path / "job.log"
    log.write_text('raise RuntimeError(f"NCCL error: {error_str}")\n' + PYNCCL_ERROR + "\n")
    assert analyze([str(log)], model=False).root_cause != "nccl_cumem_mismatch"
