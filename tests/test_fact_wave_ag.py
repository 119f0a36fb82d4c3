"""Wave AG (``heldout36``), measured blind (38/44 failures, 0/9 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _exceptions(text: str) -> list[ExceptionFact]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ExceptionFact)]


@pytest.mark.parametrize(
    ("line", "errno", "family"),
    [
        # pip quotes the OSError; strerror(3) is translated, the errno is not (AUTOMATIC1111/stable-diffusion-webui#13392)
        ("ERROR: Could not install packages due to an OSError: [Errno 28] Auf dem Gerät ist kein Speicherplatz mehr "
         "verfügbar", 28, "disk_full"),
        ("ERROR: Could not install packages due to an OSError: [Errno 122] Disk quota exceeded", 122, "disk_full"),
    ],
)
def test_an_oserror_quoted_inside_another_message_is_read_by_its_errno(line: str, errno: int, family: str) -> None:
    (exc,) = _exceptions(line)
    assert (exc.type, exc.errno, exc.family) == ("OSError", errno, family)


def test_a_quoted_oserror_whose_errno_names_no_family_states_nothing() -> None:
    # pip's message for a permission problem, or a retried network error quoted in a warning: no cause family
    assert _exceptions("ERROR: Could not install packages due to an OSError: [Errno 13] Permission denied: '/usr/lib'") == []


# torch.utils.cpp_extension's CUDA_MISMATCH_MESSAGE starts with a newline, so CPython prints "RuntimeError:" alone and
# the message on the lines after it (rusty1s/pytorch_sparse#189, without its traceback)
_MESSAGE_BELOW = (
    "RuntimeError:\n"
    "    The detected CUDA version (11.2) mismatches the version that was used to compile\n"
    "    PyTorch (10.2). Please make sure to use the same CUDA versions.\n"
)


def test_an_exception_line_alone_takes_its_message_from_the_lines_below() -> None:
    (exc,) = _exceptions(_MESSAGE_BELOW)
    assert exc.type == "RuntimeError"
    assert exc.message.startswith("The detected CUDA version (11.2) mismatches") and exc.family == "environment"


def test_the_line_gate_keeps_the_message_below_an_exception_line(tmp_path: Path) -> None:
    # a healthy run's lines after it, more than the gate's tail: the gate must keep the message lines after
    # "RuntimeError:" (``parse.gate.BLOCK_ENDINGS``), as the ungated analysis reads them
    healthy = (CORPUS / "run-waveaf-a-mpirun-molprop-healthy-3-ranks" / "job.log").read_text()
    log = tmp_path / "job.log"
    log.write_text(_MESSAGE_BELOW + healthy * 12)
    gated, ungated = (analyze([str(log)], model=False, gate=g) for g in (True, False))
    assert gated.root_cause == ungated.root_cause == "library_version_mismatch"


_GAI = (
    "[W socket.cpp:558] [c10d] The IPv6 network addresses of (pytorch-workers-0-0.pytorch-workers, 3389) cannot be "
    "retrieved (gai error: -2 - Name or service not known).\n"
)


def test_a_store_host_name_that_does_not_resolve_ends_the_log(tmp_path: Path) -> None:
    log = tmp_path / "worker.log"
    log.write_text(_GAI)
    assert analyze([str(log)], model=False).root_cause == "rendezvous_timeout"


def test_a_store_host_name_that_resolves_later_is_not_a_failure(tmp_path: Path) -> None:
    # the same warning, then a healthy run (a Kubernetes DNS record created late: c10d retries and connects)
    healthy = (CORPUS / "run-waveaf-a-deepspeed-molprop-healthy" / "job.log").read_text()
    log = tmp_path / "worker.log"
    log.write_text(_GAI + healthy)
    assert analyze([str(log)], model=False).root_cause == "no_failure"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("gh-AUTOMATIC1111-stable-diffusion-webui-13392/webui_install.log", "disk_full"),
        ("gh-google-deepmind-jax_privacy-10/train.log", "cuda_oom"),
        ("gh-rusty1s-pytorch_sparse-189/pip_install.log", "library_version_mismatch"),
        ("gh-kubernetes-sigs-jobset-603/resnet_worker.log", "rendezvous_timeout"),
        # wave AE's two, relabelled: the rendezvous store's host name, not an NCCL connection
        ("gh-nyu-systems-Grendel-GS-9/torchrun.log", "rendezvous_timeout"),
        ("gh-pytorch-elastic-31/rendezvous.log", "rendezvous_timeout"),
    ],
)
def test_wave_ag_logs_whose_fact_is_now_read(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause
