"""An exception whose message starts on the line after ``Type:`` (CPython prints ``f"{type}: {str(exc)}"``, so a
message that begins with a newline leaves the colon at the end of the line): its lines are the exception's message,
read by the fact layer like any other. The tracebacks are printed by real ``python`` processes, not typed here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus"


def _crash(tmp_path: Path, code: str) -> str:
    """stdout+stderr of a real Python process running ``code`` (which raises)."""
    script = tmp_path / "job.py"
    script.write_text(code)
    run = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert run.returncode == 1, run.stderr
    return run.stdout + run.stderr


def _exceptions(text: str) -> list[ExceptionFact]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ExceptionFact)]


def test_message_after_the_colon_is_read_until_the_next_log_record(tmp_path: Path) -> None:
    out = _crash(
        tmp_path,
        "import logging\n"
        "logging.basicConfig(format='%(asctime)s %(levelname)s %(message)s')\n"
        "try:\n"
        "    raise ValueError('\\nfirst line of the message\\nsecond line of the message')\n"
        "finally:\n"
        "    logging.error('shutting down')\n",
    )
    exc = _exceptions(out)
    assert [(e.type, e.message) for e in exc] == [
        ("ValueError", "first line of the message second line of the message")
    ]


def test_a_message_on_the_same_line_takes_nothing_after_it(tmp_path: Path) -> None:
    out = _crash(tmp_path, "print('before')\nimport sys\ntry:\n    raise KeyError('x')\nfinally:\n    pass\n")
    out += "a later line of other output\n"
    assert [(e.type, e.message) for e in _exceptions(out)] == [("KeyError", "'x'")]


def test_torch_cuda_version_mismatch_message_is_the_environment(tmp_path: Path) -> None:
    # torch/utils/cpp_extension.py ``_check_cuda_version`` raises RuntimeError(CUDA_MISMATCH_MESSAGE.format(...)) when
    # the nvcc that builds an extension differs from torch's CUDA (DeepSpeed/apex/flash-attn JIT builds). No CUDA here,
    # so the same raise runs with the installed torch's own message template and two versions.
    pytest.importorskip("torch")
    out = _crash(
        tmp_path,
        "from torch.utils import cpp_extension as c\n"
        "msg = c.CUDA_MISMATCH_MESSAGE\n"
        "msg = msg.format('12.1', '11.7') if '{' in msg else msg % ('12.1', '11.7')\n"
        "raise RuntimeError('\\n' + msg)\n",
    )
    (exc,) = _exceptions(out)
    assert exc.family == "environment" and "12.1" in exc.message
    log = tmp_path / "job.log"
    log.write_text(out)
    assert analyze([str(log)], model=False).root_cause == "library_version_mismatch"


def test_deepspeed_op_builder_exceptions_are_the_environment() -> None:
    # deepspeed op_builder/builder.py (0.19.8): ``raise CUDAMismatchException(f">- DeepSpeed Op Builder: Installed CUDA
    # version {sys_cuda_version} does not match the version torch was compiled with {torch.version.cuda}, ...")``
    line = (
        "deepspeed.ops.op_builder.builder.CUDAMismatchException: >- DeepSpeed Op Builder: Installed CUDA version 12.4 "
        "does not match the version torch was compiled with 11.8, unable to compile cuda/cpp extensions without a "
        "matching cuda version.\n"
    )
    assert [e.family for e in _exceptions(line)] == ["environment"]


def test_an_extension_that_fails_to_build_is_the_environment(tmp_path: Path) -> None:
    # torch/utils/cpp_extension.py ``_run_ninja_build``: a real JIT build of a C++ op whose compiler fails (here: a
    # source that does not compile) raises ``RuntimeError: Error building extension '<name>'``
    pytest.importorskip("torch")
    import shutil

    if not (shutil.which("ninja") or _has_ninja()) or not shutil.which("c++"):
        pytest.skip("needs ninja and a C++ compiler")
    src = tmp_path / "op.cpp"
    src.write_text("#include <torch/extension.h>\nint broken( {\n")
    out = _crash(
        tmp_path,
        "from torch.utils.cpp_extension import load\n"
        f"load(name='fused_op', sources=[{str(src)!r}], build_directory={str(tmp_path)!r})\n",
    )
    exc = [e for e in _exceptions(out) if e.type == "RuntimeError"]
    assert exc and exc[-1].family == "environment"


def _has_ninja() -> bool:
    try:
        import ninja  # noqa: F401
    except ImportError:
        return False
    return True


def test_torchelastic_summary_after_an_empty_message_is_still_its_own_block() -> None:
    # ChildFailedError prints ``ChildFailedError: `` and then its ``====`` summary block, which is not the message
    # (a real torchrun run of corpus/generators/torchrun)
    log = CORPUS / "logs/gen-torchrun-mismatched-collectives/ws4_broadcast_vs_allreduce_detail/job.log"
    events = parse_text(log.read_text())
    failed = [e for e in _exceptions(log.read_text()) if e.type.endswith("ChildFailedError")]
    assert failed and all(e.message == "" for e in failed)
    assert sum(e.source == "elastic" and "error_file" in e.text for e in events) == 4  # one entry per rank
