"""Wave AM (``heldout42``: real MosaicML Composer, XGBoost and Horovod runs, and 29 thread excerpts), measured blind
at 36/63 failures with 1/16 healthy logs flagged: the facts and rules added for its misses, each read from what the
library states (its source file, its launcher's tag, its exception) rather than from one run's words."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import (
    ExceptionFact,
    NumericHealth,
    ProcessExit,
    RunFinished,
    SchedulerVerdict,
    SignalFact,
)
from logsleuth.factlayer.reason import sibling_terminations
from logsleuth.parse import parse_text
from logsleuth.parse.prefix import strip
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # MosaicML Composer 0.32 (corpus/generators/waveam_a)
        ("run-waveam-a-composer-tiles-pixel-tokens/job.log", "host_oom_killed"),  # "Global rank 1 ... code -9"
        ("run-waveam-a-composer-tiles-shared-cache/job.log", "shm_exhausted"),  # "leaked shared_memory objects"
        # XGBoost 3.2 collective and xgboost.dask (waveam_b)
        ("run-waveam-b-rabit-rank-month-holdout/job.log", "collective_timeout"),  # allreduce.cc, poll_utils.h
        ("run-waveam-b-mpirun-rank-returning-node/job.log", "rendezvous_timeout"),  # tracker.cc accept timed out
        ("run-waveam-b-rabit-rank-keep-checkpoints/job.log", "disk_full"),  # dmlc "FileStream.Write incomplete"
        ("run-waveam-b-dask-local-rank-feature-crosses/job.log", "host_oom_killed"),  # the nanny's memory budget
        # healthy: dask's CommClosedError logged while the cluster shut down after "training done"
        ("run-waveam-b-dask-shell-rank-team-site/job.log", "no_failure"),
        # dask's "Received signal SIGTERM (15)": mid-training a preemption; after "training done" the teardown
        ("run-waveam-b-dask-shell-rank-node-drain/job.log", "job_preempted"),
        ("run-waveam-b-dask-shell-rank-healthy-early-stop/job.log", "no_failure"),
        # Horovod master with Gloo and MPI controllers (waveam_c)
        ("run-waveam-c-gloo-kws-new-recorder-export/job.log", "worker_exception"),  # "[1]<stderr>:wave.Error: ..."
        ("run-waveam-c-mpirun-kws-new-keyword/job.log", "collective_mismatch"),  # "Mismatched BROADCAST tensor shapes"
        ("run-waveam-c-elastic-kws-second-host/job.log", "rendezvous_timeout"),  # elastic driver's slot wait
        ("run-waveam-c-hmpi-kws-spot-reclaim/job.log", "job_preempted"),  # "caught SIGTERM", then exit 143
        # threads
        ("gh-jax-ml-jax-6517/vit_train_test.log", "library_version_mismatch"),  # cuda_dnn.cc runtime < built
        ("gh-marin-community-levanter-103/gpu_train.log", "library_version_mismatch"),
        ("gh-neuralhydrology-neuralhydrology-8/nh_run_train.log", "training_divergence"),  # "Loss was NaN"
        ("gh-wanggrun-SYSU-30k-6/test_sysu_combine.log", "host_oom_killed"),  # Windows' DefaultCPUAllocator
    ],
)
def test_wave_am_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


@pytest.mark.parametrize(
    ("line", "rank", "body"),
    [
        ("[1]<stderr>:wave.Error: unknown format: 3", 1, "wave.Error: unknown format: 3"),
        ("Sun Nov 29 20:00:29 2026[0]<stdout>:model DSCNN", 0, "model DSCNN"),
        ("[1,0]<stderr>:RuntimeError: x", 0, "RuntimeError: x"),  # Open MPI's tag, as before
        ("[12] foo", None, "[12] foo"),  # no stream: not a tag
    ],
)
def test_horovodruns_gloo_tag_names_the_rank(line: str, rank: int | None, body: str) -> None:
    pre, rest = strip(line)
    assert (pre.rank, rest) == (rank, body)


def test_horovodruns_timestamped_tag_gives_the_line_its_time() -> None:
    pre, _ = strip("Sun Nov 29 20:00:29 2026[0]<stdout>:epoch 1")
    assert pre.time is not None and (pre.time.hour, pre.time.minute, pre.time.day) == (20, 0, 29)


def test_a_modules_class_named_error_is_an_exception() -> None:
    (exc,) = [
        f
        for f in _facts('Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nwave.Error: bad')
        if isinstance(f, ExceptionFact)
    ]
    assert exc.type.endswith("wave.Error")


@pytest.mark.parametrize(
    ("message", "family"),
    [
        ("RuntimeError: Mismatched BROADCAST tensor shapes: One rank sent a tensor of shape [9], but another rank "
         "sent a tensor of shape [8].", "collective_mismatch"),
        ("xgboost.core.XGBoostError: [20:00:00] local_filesys.cc:37: Check failed: std::fwrite(ptr, 1, size, fp_) == "
         "size: FileStream.Write incomplete", "disk_full"),
        ("AssertionError: Torch not compiled with CUDA enabled", "environment"),
        ("RuntimeError: [enforce fail at ..\\c10\\core\\CPUAllocator.cpp:72] data. DefaultCPUAllocator: not enough "
         "memory: you tried to allocate 20756439040 bytes. Buy new RAM!", "host_memory"),
    ],
)  # fmt: skip
def test_library_messages_name_their_family(message: str, family: str) -> None:
    (exc,) = [f for f in _facts(message) if isinstance(f, ExceptionFact)]
    assert exc.family == family


def test_dasks_nanny_restarting_a_worker_over_its_memory_is_a_memory_kill() -> None:
    line = (
        "2026-11-29 19:53:26,532 - distributed.nanny.memory - WARNING - Worker tcp://127.0.0.1:38241 (pid=24820) "
        "exceeded 95% memory budget. Restarting..."
    )
    (verdict,) = [f for f in _facts(line) if isinstance(f, SchedulerVerdict)]
    assert (verdict.scheduler, verdict.verdict, verdict.resource) == ("dask", "oom_killed", "memory")


def test_a_loss_that_was_nan_is_numeric_health() -> None:
    facts = _facts("RuntimeError: Loss was NaN for 1 times in a row. Stopped training.")
    assert any(isinstance(f, NumericHealth) for f in facts)


def test_open_mpis_abort_after_a_sigterm_exit_leaves_the_ranks_sigterm_the_cause() -> None:
    # a scheduler signalled the ranks; their handlers said so, they exited 143, and Open MPI aborted the job after
    # (the lines of run-waveam-c-hmpi-kws-spot-reclaim; then with a shell's "Killed" before them)
    text = (
        "[1,0]<stdout>:[rank 0] caught SIGTERM, will stop after this step\n"
        "a non-zero exit code. Per user-direction, the job has been aborted.\n"
        "  Exit code:    143\n"
    )
    facts = _facts(text)
    got = [f for f in facts if isinstance(f, SignalFact) and f.sender == "unknown"]
    assert got and not sibling_terminations(facts) & {id(f.event) for f in got}
    # a worker that failed by something else first: the ranks' SIGTERM is Open MPI's clean-up of the rest
    failed = _facts("Killed\n" + text)
    assert any(isinstance(f, ProcessExit) and f.signal == "SIGKILL" for f in failed)
    stopped = [f for f in failed if isinstance(f, SignalFact) and f.sender == "unknown"]
    assert {id(f.event) for f in stopped} <= sibling_terminations(failed)


@pytest.mark.parametrize(
    ("line", "finished"),
    [
        ("dask_rank: training done in 10.3 s: 150 rounds, best iteration 149", True),
        ("[rank 0] Training finished.", True),
        ("waiting for training done signal", False),
        ("rank 1: training finished with error", False),
    ],
)
def test_a_scripts_own_training_done_line_is_a_finish(line: str, finished: bool) -> None:
    assert any(isinstance(f, RunFinished) for f in _facts(line)) is finished
