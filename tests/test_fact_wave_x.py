"""Facts added after wave X (heldout27) was measured blind (34/43 failures, 0/10 healthy flagged): apache-tvm-ffi's
SIGSEGV banner and its native backtrace, torch's LR schedulers' removed ``verbose`` keyword, torch.save's stream
failing on a full filesystem, and torch's store client timing out (ETIMEDOUT) on the store's address at the end of the
log."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import checkpoint_write_failed, facts_of
from logsleuth.factlayer.kinds import NativeFrame, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # NVIDIA/TensorRT-LLM#10255: "!!!!!!! Segfault encountered !!!!!!!" then 'File "<unknown>", line 0, in
        # ncclCommWindowRegister' (the reporter bisected it to a TRT-LLM change)
        ("gh-NVIDIA-TensorRT-LLM-10255/tp2_allreduce.log", "native_crash"),
        # a real run: "TypeError: ReduceLROnPlateau.__init__() got an unexpected keyword argument 'verbose'" on torch 2.13
        ("run-wavex-a-deepspeed-forecast-plateau-scheduler-verbose/job.log", "library_version_mismatch"),
        # a real run: torch.save into a full 24M tmpfs, "RuntimeError: basic_ios::clear: iostream error"
        ("run-wavex-b-mpspawn-ddpm-shapes32-keep-all-ckpt-small-volume/job.log", "disk_full"),
    ],
)
def test_wave_x_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_tvm_ffi_banner_is_a_sigsegv_and_its_backtrace_names_nccl() -> None:
    text = (CORPUS / "gh-NVIDIA-TensorRT-LLM-10255/tp2_allreduce.log").read_text()
    facts = [f for ev in parse_text(text) for f in facts_of(ev)]
    exits = [f for f in facts if isinstance(f, ProcessExit)]
    assert [(e.reporter, e.signal) for e in exits] == [("tvm_ffi", "SIGSEGV")]
    frames = [f for f in facts if isinstance(f, NativeFrame)]
    # the handler's own libc frame first, then NCCL's exported API, then the caller's C++ namespace
    assert [(f.library, f.symbol) for f in frames[:2]] == [
        ("libc.so", "0x000073d88a04532f"),
        ("libnccl.so", "ncclCommWindowRegister"),
    ]
    assert frames[2].library == "tensorrt_llm"
    diag = analyze([str(CORPUS / "gh-NVIDIA-TensorRT-LLM-10255/tp2_allreduce.log")], model=False)
    assert "libnccl.so (ncclCommWindowRegister)" in diag.message


def test_python_frames_are_not_native_ones() -> None:
    """A Python traceback's frames (a .py file) are never read as tvm-ffi's native ones."""
    text = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 0, in <module>\n'
        "RuntimeError: boom\n"
    )
    assert not [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, NativeFrame)]


@pytest.mark.parametrize(
    ("innermost", "message", "full"),
    [
        ("/venv/lib/python3.11/site-packages/torch/serialization.py:834 in __exit__", "basic_ios::clear: iostream error", True),
        # the same error reading a file is not a full disk
        ("/venv/lib/python3.11/site-packages/torch/serialization.py:1500 in load", "basic_ios::clear: iostream error", False),
        ("/workspace/train.py:10 in save_checkpoint", "basic_ios::clear: iostream error", False),
        ("/venv/lib/python3.11/site-packages/torch/serialization.py:834 in __exit__", "some other error", False),
    ],
)
def test_checkpoint_write_failed(innermost: str, message: str, full: bool) -> None:
    assert checkpoint_write_failed(innermost, message) is full
