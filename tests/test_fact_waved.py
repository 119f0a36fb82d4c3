"""Facts added after wave D (heldout6) was measured blind: each a library's own message, sourced in its table or rule."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import CudaError, ExceptionFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


@pytest.mark.parametrize(
    "line",
    [
        # PyTorch < 2.0 (zai-org/ChatGLM3#382): no strerror text after the allocator's message
        "RuntimeError: [enforce fail at alloc_cpu.cpp:83] err == 0. DefaultCPUAllocator: can't allocate memory",
        # PyTorch >= 2.0 adds the size and errno
        "RuntimeError: [enforce fail at alloc_cpu.cpp:117] data. DefaultCPUAllocator: can't allocate memory: you tried"
        " to allocate 1073741824 bytes. Error code 12 (Cannot allocate memory)",
    ],
)
def test_cpu_allocator_failure_is_host_memory(line: str) -> None:
    (e,) = [f for f in _facts(line) if isinstance(f, ExceptionFact)]
    assert e.family == "host_memory"


def test_no_kernel_image_is_a_cuda_error_fact_and_a_build_mismatch(tmp_path: Path) -> None:
    """QData/C-Tran#30: the build has no kernels for sm_89; the CUDA error is 209, not a GPU fault."""
    line = "RuntimeError: CUDA error: no kernel image is available for execution on the device"
    (c,) = [f for f in _facts(line) if isinstance(f, CudaError)]
    assert (c.name, c.code, c.hardware) == ("cudaErrorNoKernelImageForDevice", 209, False)
    log = tmp_path / "train.log"
    log.write_text(
        "NVIDIA GeForce RTX 4090 with CUDA capability sm_89 is not compatible with the current PyTorch installation.\n"
        "The current PyTorch install supports CUDA capabilities sm_37 sm_50 sm_60 sm_70.\n" + line + "\n"
    )
    d = analyze([str(log)], model=False)
    assert d.root_cause == "library_version_mismatch"
