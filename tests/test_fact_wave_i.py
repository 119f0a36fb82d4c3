"""Facts added after wave I (heldout11) was measured blind: each reads how a library, launcher or scheduler prints a
fact in general, never a fixture's path. Lines are copied from the public threads named beside them and from the
corpus's real runs (corpus/generators/wavei/generate.py); the corpus keeps those logs whole."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit, VersionWarning
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _diagnose(tmp_path: Path, text: str, model: bool = False) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=model).root_cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


# --- process exits ----------------------------------------------------------------------------------------------------
def test_torchelastic_process_failure_repr_is_an_exit_by_signal() -> None:
    # intelligent-machine-learning/dlrover#1046 (torchelastic's ProcessFailure dataclass, printed by DLRover's agent)
    line = (
        "The worker fails with {0: ProcessFailure(local_rank=0, pid=54, exitcode=-7, error_file='<N/A>', "
        "error_file_data={'message': '<NONE>'}, message='Signal 7 (SIGBUS) received by PID 54', timestamp=1711419181)}\n"
    )
    (exit_,) = [f for f in _facts(line) if isinstance(f, ProcessExit)]
    assert (exit_.code, exit_.signal, exit_.proc) == (-7, "SIGBUS", 54)


def test_mpirun_report_without_a_node_name_is_still_read(tmp_path: Path) -> None:
    # horovod/horovod#926 (the node name empty as pasted): a binary built with AVX on a CPU without it
    line = "mpirun noticed that process rank 0 with PID 0 on node exited on signal 4 (Illegal instruction).\n"
    assert [f.signal for f in _facts(line) if isinstance(f, ProcessExit)] == ["SIGILL"]
    assert _diagnose(tmp_path, line) == "native_crash"


@pytest.mark.parametrize(
    "text",
    [
        # FlagOpen/FlagEmbedding#635 (fixed by --shm-size 6G)
        "Bus error: nonexistent physical address\n"
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 (pid: 53138) of "
        "binary: /usr/bin/python\n",
        # intelligent-machine-learning/dlrover#1046 (fixed by a memory-backed /dev/shm)
        "The worker fails with {0: ProcessFailure(local_rank=0, pid=54, exitcode=-7, error_file='<N/A>', "
        "error_file_data={'message': '<NONE>'}, message='Signal 7 (SIGBUS) received by PID 54', timestamp=1711419181)}\n",
    ],
)
def test_a_lone_sigbus_is_read_as_shared_memory_by_default(tmp_path: Path, text: str) -> None:
    assert _diagnose(tmp_path, text) == "shm_exhausted"


def test_a_lone_sigsegv_stays_a_native_crash(tmp_path: Path) -> None:
    line = (
        "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -11) local_rank: 0 (pid: 53138) of "
        "binary: /usr/bin/python\n"
    )
    assert _diagnose(tmp_path, line) == "native_crash"


# --- versions ---------------------------------------------------------------------------------------------------------
def test_an_extension_op_missing_from_this_torch_is_the_environment(tmp_path: Path) -> None:
    # run-wavei-torchrun-torchvision-operator-mismatch: torchvision 0.20.1 (for torch 2.5) beside torch 2.13
    log = CORPUS / "run-wavei-torchrun-torchvision-operator-mismatch" / "job.log"
    lines = log.read_text().splitlines(keepends=True)
    text = "".join(lines[:32])  # up to rank 2's exception line
    assert [f.family for f in _facts(text) if isinstance(f, ExceptionFact)] == ["environment"]
    assert _diagnose(tmp_path, text) == "library_version_mismatch"


TORCHAO_WARNING = (
    "Skipping import of cpp extensions due to incompatible torch version 2.9.1+cu129 for torchao version 0.16.0"
    "             Please see https://github.com/pytorch/ao/issues/2919 for more info\n"
)


def test_a_library_version_warning_is_a_fact() -> None:
    (w,) = [f for f in _facts(TORCHAO_WARNING) if isinstance(f, VersionWarning)]
    assert w.library == "torchao"


def test_an_unexplained_failure_after_a_version_warning_is_the_mismatch(tmp_path: Path) -> None:
    # areal-project/AReaL#979: SGLang rollout servers never came up after torchao's warning (fixed by pinning torchao)
    failed = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/AReal/areal/infra/remote_inf_engine.py", line 365, in _wait_for_server\n'
        '    raise TimeoutError("server launch failed")\n'
        "TimeoutError: server launch failed\n"
    )
    # alone, Python's TimeoutError is a wait on another process that ran out (rule exception-wait-timed-out, a default)
    assert _diagnose(tmp_path, failed) == "collective_timeout"
    assert _diagnose(tmp_path, TORCHAO_WARNING + failed) == "library_version_mismatch"


def test_a_version_warning_in_a_healthy_job_decides_nothing(tmp_path: Path) -> None:
    # the warning, then lines of the healthy run run-waveh-mpirun-healthy-4ranks, up to a step every rank printed (cut
    # between the ranks' lines of one step, the excerpt would end with a rank one step behind: read as a hang, 0.6)
    healthy = TORCHAO_WARNING + "".join(
        (CORPUS / "run-waveh-mpirun-healthy-4ranks" / "job.log").open().readlines()[:42]
    )
    assert _diagnose(tmp_path, healthy) == "no_failure"


def test_a_known_cause_wins_over_a_version_warning(tmp_path: Path) -> None:
    # a line of the corpus's CUDA OOM logs
    oom = (
        "[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.96 GiB. GPU 1 has a total capacity "
        "of 23.43 GiB of which 210.06 MiB is free.\n"
    )
    assert _diagnose(tmp_path, TORCHAO_WARNING + oom) == "cuda_oom"


# --- the model may not flag a clean job from ordinary lines ------------------------------------------------------------
def test_healthy_progress_and_ray_lines_stay_healthy_with_the_model() -> None:
    # facebookresearch/detectron2#195 (a throughput thread: d2 events lines) and a healthy Ray job of wave I
    for name in ("gh-facebookresearch-detectron2-195/train.log", "run-wavei-rayjob-embed-spill-healthy/job.log"):
        assert analyze([str(CORPUS / name)]).root_cause == "no_failure", name


def test_the_model_still_names_a_memory_kill_from_rays_own_report_lines() -> None:
    # the corpus's Ray OOM summary with its headline pasted (vllm-project/vllm#1160): no rule line, trouble words
    assert analyze([str(CORPUS / "gh-vllm-project-vllm-1160/raylet_syslog.log")]).root_cause == "host_oom_killed"
