"""Wave AR (``heldout47``: real PyTorch Geometric, submitit/Hydra and TorchX runs, and 5 thread excerpts), measured
blind at 36/54 failures with 1/15 healthy logs flagged: what was changed for its misses. Each is a fact in a launcher's
own words (a relay of the job's error, a line tag, a task that left nothing behind, a requeue, a Ctrl-C) or a
consequence the pipeline draws from facts it already had (an error line no rule could place is not a healthy log)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit, RunFinished, SchedulerVerdict, SignalFact, WorkRetried
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # submitit 1.5.4 (corpus/generators/wavear_b): the driver's FailedJobError relays task 0's error; the cause is in
        # the tasks' own logs pasted after it
        ("run-wavear-b-local-kws-loader-workers/job.log", "shm_exhausted"),
        ("run-wavear-b-local-kws-long-recordings/job.log", "native_crash"),
        ("run-wavear-b-local-kws-task-killed/job.log", "peer_process_died"),
        ("run-wavear-b-local-kws-full-val/job.log", "collective_timeout"),
        ("run-wavear-b-local-kws-team-env/job.log", "library_version_mismatch"),
        ("run-wavear-b-local-kws-augment-copies/job.log", "host_oom_killed"),  # no result, no error stream
        ("run-wavear-b-local-kws-healthy-requeue/job.log", "no_failure"),  # requeued, then every task completed
        # TorchX 0.7 (corpus/generators/wavear_c): "<role>/<replica> " then torchrun's "[N]:" with an empty role
        ("run-wavear-c-ddp-solar-site-export/job.log", "worker_exception"),
        ("run-wavear-c-ddp-solar-grad-accum/job.log", "batch_size_mismatch"),
        ("run-wavear-c-ddp-solar-team-libs/job.log", "library_version_mismatch"),
        ("run-wavear-c-custom-solar-export-lock/job.log", "silent_hang"),  # Ctrl-C as TorchX's SignalException
    ],
)
def test_wave_ar_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_torchx_line_tag_is_the_host_and_the_empty_role_tag_a_local_rank() -> None:
    # run-wavear-c-ddp-solar-site-export: TorchX's CLI tag, then torchrun's --tee tag with ``--role ""``
    (ev,) = parse_text(
        "train_solar/0 [1]:[rank1]: ValueError: operands could not be broadcast together with shapes (48,36) (37,) \n"
    )
    assert (ev.host, ev.local_rank, ev.rank, ev.level) == ("train_solar/0", 1, 1, "error")
    assert [f.type for f in facts_of(ev) if isinstance(f, ExceptionFact)] == ["ValueError"]


def test_a_relay_of_the_jobs_error_is_not_a_worker_exception(tmp_path: Path) -> None:
    # the driver's end of run-wavear-b-local-kws-loader-workers, alone: it says a task failed and quotes its
    # traceback, which is a lost peer; the relay itself names no cause
    lines = (CORPUS / "run-wavear-b-local-kws-loader-workers" / "job.log").read_text().splitlines(keepends=True)
    log = tmp_path / "driver.log"
    log.write_text("".join(lines[:43]))
    d = analyze([str(log)], model=False)
    assert d.root_cause == "peer_process_died"
    assert "FailedJobError" not in (d.message or "")


def test_submitit_log_lines_carry_their_time() -> None:
    (ev,) = parse_text("submitit WARNING (2026-11-30 07:20:11,555) - Caught signal SIGUSR2 on vm: this job is timed-out.\n")
    assert ev.time is not None and (ev.time.hour, ev.time.minute, ev.time.second) == (7, 20, 11)
    assert ev.level == "warning"


def test_submitit_completion_requeue_and_silent_end_are_facts() -> None:
    (done,) = _facts("submitit INFO (2026-11-30 07:20:55,224) - Job completed successfully\n")
    assert isinstance(done, RunFinished) and done.by == "submitit"
    (again,) = _facts("submitit INFO (2026-11-30 07:20:11,556) - Requeued job 14018 (2 remaining timeouts)\n")
    assert isinstance(again, WorkRetried) and again.by == "submitit_requeue"
    (silent,) = _facts("No error stream produced. Look at stdout: /tmp/job/run/kws_jobs/26472/26472_0_log.out\n")
    assert isinstance(silent, ProcessExit) and silent.reporter == "submitit" and silent.signal is None


@pytest.mark.parametrize(("state", "verdict"), [("OUT_OF_MEMORY", "oom_killed"), ("TIMEOUT", "time_limit")])
def test_submitit_names_the_slurm_state_of_a_job_that_left_no_result(state: str, verdict: str) -> None:
    # the second line of submitit's UncompletedJobError (``submitit/core/core.py``) with a state Slurm's sacct reports
    (v,) = [f for f in _facts(f"has not produced any output (state: {state})\n") if isinstance(f, SchedulerVerdict)]
    assert (v.scheduler, v.verdict) == ("slurm", verdict)


def test_a_launchers_signal_exception_for_sigint_is_the_users_ctrl_c() -> None:
    # run-wavear-c-custom-solar-export-lock (TorchX's local scheduler; torchelastic's agent raises the same)
    sig = [f for f in _facts("torchx.schedulers.local_scheduler.SignalException: Process 20166 got signal: 2\n")]
    assert [(f.signal, f.sender) for f in sig if isinstance(f, SignalFact)] == [("SIGINT", "terminal")]


def test_an_error_no_rule_can_place_is_not_a_healthy_log(tmp_path: Path) -> None:
    # NVIDIA-NeMo/RL#595: the whole pasted log; rule weight-sync-nccl-error-cumem needs the weight-sync context
    log = CORPUS / "gh-NVIDIA-NeMo-RL-595" / "non_colocated_tp2.log"
    d = analyze([str(log)], model=False)
    assert d.verdict == "unknown" and d.first_failure is not None and d.first_failure.line == 2
