"""Facts added after wave Y (heldout28) was measured blind (29/37 failures, 0/9 healthy flagged): CUDA's
cudaErrorSystemNotReady (802), a library saying it changed a default the code relied on (torch 2.6's ``weights_only``),
and faulthandler's SIGBUS stack read before the count of processes that died of SIGBUS."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import CudaError
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # NVIDIA/nccl-tests#264: "Test CUDA failure common.cu:941 'system not yet initialized'" (Fabric Manager off)
        ("gh-NVIDIA-nccl-tests-264/all_reduce_perf.log", "nccl_cuda_error"),
        # a real run: torch.load without weights_only on torch 2.13, "(1) In PyTorch 2.6, we changed the default value
        # of the `weights_only` argument in `torch.load` from `False` to `True`."
        ("run-wavey-a-torchrun-action-pretrained-init-torch-load/job.log", "library_version_mismatch"),
        # a real run: a memory-mapped clip cache rewritten in place; both ranks die of SIGBUS, faulthandler's stack is
        # in the main process's DataLoader fetch (num_workers=0), nothing names shared memory
        ("run-wavey-a-torchrun-action-clip-cache-reencoded-in-place/job.log", "native_crash"),
        # sgl-project/sglang#28208: faulthandler's "Bus error" beside "[Errno 28] No space left on device": the disk
        ("gh-sgl-project-sglang-28208/base-b-test-1-gpu-large.log", "disk_full"),
        # tloen/alpaca-lora#338: two ranks' SIGBUS in torchrun's summary, no faulthandler stack: /dev/shm
        ("gh-tloen-alpaca-lora-338/torchrun.log", "shm_exhausted"),
    ],
)
def test_wave_y_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_nccl_tests_wrong_results_are_never_a_healthy_run() -> None:
    """NVIDIA/nccl-tests#37: " Out of bounds values : 2 FAILED" (an NCCL bug, settled in the thread) is a failure whose
    cause the log does not say: a low-confidence reading with the node as the best guess, not ``no_failure``."""
    diag = analyze([str(CORPUS / "gh-NVIDIA-nccl-tests-37/all_gather_perf.log")], model=False)
    assert diag.root_cause != "no_failure"
    assert diag.rule_id == "nccl-tests-wrong-results"
    assert diag.confidence < 0.7


def test_system_not_ready_is_a_cuda_error_fact() -> None:
    line = "test: Test CUDA failure common.cu:941 'system not yet initialized'"
    facts = [f for ev in parse_text(line + "\n") for f in facts_of(ev) if isinstance(f, CudaError)]
    assert [(f.name, f.code) for f in facts] == [("cudaErrorSystemNotReady", 802)]
