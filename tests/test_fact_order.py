"""Facts read from wave B's misses, and how facts are ordered: a process's own signal report is the cause, an
observer's exit report (Ray's SYSTEM_ERROR) the symptom; numpy's short write is a full disk; Open MPI's handler."""
from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

# Lines from a local Ray 2.x run here (corpus/logs/fresh-ray-actor-segv: an actor dereferencing NULL via ctypes)
RAY_ABSL = "\x1b[36m(Learner pid=5067)\x1b[0m *** SIGSEGV received at time=1795565435 on cpu 0 ***\n"
RAY_FAULTHANDLER = "\x1b[36m(Learner pid=5067)\x1b[0m Fatal Python error: Segmentation fault\n"
RAYLET = (
    "\x1b[33m(raylet)\x1b[0m A worker died or was killed while executing a task by an unexpected system error. To "
    "troubleshoot the problem, check the logs for the dead worker. Worker PID: 5067 Worker exit type: SYSTEM_ERROR "
    "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. Some common causes "
    "include: (1) the process was killed by the OOM killer due to high memory usage, (2) ray stop --force was "
    "called, or (3) the worker crashed unexpectedly due to SIGSEGV or another unexpected error.\n"
)


def facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_ray_exit_report_names_no_signal_from_its_boilerplate() -> None:
    """Ray's list of common causes ("killed by the OOM killer ... SIGSEGV") is not a statement about this worker."""
    (e,) = [f for f in facts(RAYLET) if isinstance(f, ProcessExit)]
    assert (e.reporter, e.detail, e.signal, e.proc) == ("ray", "SYSTEM_ERROR", None, 5067)


@pytest.mark.parametrize("line, reporter, signal, pid", [
    (RAY_ABSL, "absl", "SIGSEGV", 5067),
    # horovod/horovod#585 (Open MPI's opal stacktrace handler under mpirun)
    ("[HOST:12252] Signal: Segmentation fault (11)\n", "opal", "SIGSEGV", 12252),
    # open-mpi/ompi users' list reports on macOS print the number twice
    ("[pontus:72547] Signal: Segmentation fault: 11 (11)\n", "opal", "SIGSEGV", 72547),
])
def test_a_process_own_signal_handler_is_a_process_exit(line: str, reporter: str, signal: str, pid: int) -> None:
    (e,) = [f for f in facts(line) if isinstance(f, ProcessExit)]
    assert (e.reporter, e.signal, e.fields()["pid"]) == (reporter, signal, pid)


@pytest.mark.parametrize("order", ["own report first", "Ray's report first"])
def test_own_signal_report_is_the_cause_and_ray_system_error_the_symptom(tmp_path: Path, order: str) -> None:
    """Ray forwards the actor's stderr asynchronously: its exit report may be printed before the actor's own."""
    own = RAY_ABSL + RAY_FAULTHANDLER
    log = tmp_path / "job.log"
    log.write_text(own + RAYLET if order == "own report first" else RAYLET + own)
    d = analyze([str(log)], model=False)
    assert d.root_cause == "native_crash" and "SIGSEGV" in d.message


def test_unexplained_ray_system_error_stays_the_default_reading(tmp_path: Path) -> None:
    """With no signal anywhere, Ray's SYSTEM_ERROR keeps its default reading (the OOM killer, Ray's first cause), at
    low confidence: the raylet only saw the socket close (node_manager.cc HandleClientConnectionError), and its own
    list of possible causes ("killed by the OOM killer") is no memory evidence."""
    log = tmp_path / "job.log"
    log.write_text(RAYLET)
    d = analyze([str(log)], model=False)
    assert (d.verdict, d.root_cause, d.rule_id) == ("failure", "host_oom_killed", "ray-actor-died-system-error")
    assert 0.5 <= d.confidence < 0.7  # below a medium rule's 0.75: Ray cannot tell the OOM killer from a crash


def test_ray_system_error_yields_to_a_specific_cause(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("\x1b[36m(Learner pid=5067)\x1b[0m RuntimeError: CUDA error: an illegal memory access was "
                   "encountered\n" + RAYLET)
    assert analyze([str(log)], model=False).root_cause == "nccl_cuda_error"


@pytest.mark.parametrize("line", [
    "[rank0]: OSError: 200000 requested and 60400 written",  # numpy 2.x, a local torchrun run on a full tmpfs
    "IOError: 1048576 requested and 0 written",  # numpy 1.x raised IOError
    "ValueError: 4096 requested and 512 written",  # older numpy raised ValueError
])
def test_numpy_short_write_is_a_full_disk(line: str) -> None:
    (e,) = [f for f in facts(line) if isinstance(f, ExceptionFact)]
    assert e.family == "disk_full"


def test_openmpi_signal_block_is_a_native_crash_naming_the_library(tmp_path: Path) -> None:
    """horovod/horovod#585: the handler's block, the innermost frame outside libc/libpthread named."""
    log = tmp_path / "train.log"
    log.write_text(
        "[HOST:12252] *** Process received signal ***\n"
        "[HOST:12252] Signal: Segmentation fault (11)\n"
        "[HOST:12252] Signal code: Address not mapped (1)\n"
        "[HOST:12252] Failing at address: (nil)\n"
        "[HOST:12252] [ 0] /lib/x86_64-linux-gnu/libpthread.so.0(+0x11390)[0x7f94ff5b6390]\n"
        "[HOST:12252] [ 1] /venv/lib/python2.7/site-packages/horovod/tensorflow/mpi_lib.so(+0x35b87)[0x7f9447585b87]\n"
        "[HOST:12252] *** End of error message ***\n"
    )
    d = analyze([str(log)], model=False)
    assert d.root_cause == "native_crash" and "mpi_lib.so" in d.message
