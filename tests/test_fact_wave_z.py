"""Wave Z (``heldout29``): facts added before it was measured (from misses of earlier unsealed batches) and after it
was measured blind (34/41 failures, 0/11 healthy flagged; every miss a thread excerpt)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit, SchedulerVerdict
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _diagnose(tmp_path: Path, text: str) -> tuple[str, str | None]:
    log = tmp_path / "job.log"
    log.write_text(text)
    d = analyze([str(log)], model=False)
    return d.root_cause, d.rule_id


def test_a_log_ending_on_a_version_warning_is_the_mismatch() -> None:
    # unslothai/unsloth#8580: the service's journal ends on xFormers' "built for PyTorch 2.10.0 (you have 2.11.0)"
    d = analyze([str(CORPUS / "gh-unslothai-unsloth-8580" / "studio.log")], model=False)
    assert (d.root_cause, d.rule_id) == ("library_version_mismatch", "version-warned-before-failure")
    assert "log ends there" in d.title


def test_a_version_warning_followed_by_training_decides_nothing(tmp_path: Path) -> None:
    # the same journal lines, then a healthy run's first 60 lines (run-waveh-mpirun-healthy-4ranks): no longer the end
    journal = (CORPUS / "gh-unslothai-unsloth-8580" / "studio.log").read_text()
    healthy = "".join((CORPUS / "run-waveh-mpirun-healthy-4ranks" / "job.log").open().readlines()[:42])
    assert _diagnose(tmp_path, journal + healthy)[0] == "no_failure"


def test_a_finished_run_ending_on_a_version_warning_stays_healthy(tmp_path: Path) -> None:
    # a Lightning run that says it finished (``RunFinished``), then the warning lines as the log's last: the loop was
    # done, whatever the library said after it
    finished = "`Trainer.fit` stopped: `max_epochs=2` reached.\n"
    journal = (CORPUS / "gh-unslothai-unsloth-8580" / "studio.log").read_text()
    assert _diagnose(tmp_path, finished + journal)[0] == "no_failure"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # before wave Z: pyg-team/pytorch_geometric#506, dlerror's "undefined symbol: _ZNSt13runtime_errorC2EPKc" alone
        ("gh-pyg-team-pytorch_geometric-506/import.log", "library_version_mismatch"),
        # verl-project/verl#5558: "ray.exceptions.RayTaskError(NotImplementedError)" with the traceback's header cut off
        ("gh-verl-project-verl-5558/validate_reward.log", "worker_exception"),
        # real runs: Ray's placement group table printed by the driver, 'state': 'PENDING', 'scheduling_state':
        # 'INFEASIBLE' (STRICT_SPREAD on one node) and 'NO_RESOURCES'
        ("run-wavef-rayactors-strict-spread-pg/job.log", "ray_scheduling_stall"),
        ("gen-trainer-ray-learner-placement/job.log", "ray_scheduling_stall"),
        # wave Z: JarodMica/StyleTTS-WebUI#18, torch.save's "enforce fail at inline_container.cc_595] . unexpected pos"
        ("gh-JarodMica-StyleTTS-WebUI-18/train_epoch1.log", "disk_full"),
        # NVIDIA/DIGITS#1362: "ERROR: error code -9", the child's return code in CPython's convention (SIGKILL)
        ("gh-NVIDIA-DIGITS-1362/detectnet_train.log", "host_oom_killed"),
        # allenai/open-instruct#1431: the log ends on "Waiting for placement group to be scheduled"
        ("gh-allenai-open-instruct-1431/grpo_fast.log", "ray_scheduling_stall"),
        # bmaltais/kohya_ss#2498: Accelerate's "Tried to launch distributed communication on port `29500`, but another
        # process is utilizing it"
        ("gh-bmaltais-kohya_ss-2498/accelerate_launch.log", "port_in_use"),
        # marin-community/marin#3219: JAX's RegisterTask ending in DEADLINE_EXCEEDED (a slice launched with one task)
        ("gh-marin-community-marin-3219/task.log", "rendezvous_timeout"),
        # marin-community/marin#6432: Iris's "JOB_STATE_KILLED: Preempted by ..."
        ("gh-marin-community-marin-6432/driver.log", "job_preempted"),
        # zylo117/Yet-Another-EfficientDet-Pytorch#147: torch 1.4's "unable to write to file </torch_74396_2983595444>"
        ("gh-zylo117-Yet-Another-EfficientDet-Pytorch-147/train.log", "shm_exhausted"),
    ],
)
def test_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_a_negative_return_code_is_an_exit_by_signal() -> None:
    (e,) = [f for f in _facts("ERROR: error code -9\n") if isinstance(f, ProcessExit)]
    assert (e.code, e.signal, e.reporter) == (-9, "SIGKILL", "runner")


@pytest.mark.parametrize(
    "line",
    [
        # a negative number that is no signal that ends jobs (SIGHUP's -1 is a common "failed" return value)
        "ERROR: error code -1",
        # a version or decimal after the minus sign is not a return code
        "exit code -9.5",
    ],
)
def test_other_negative_codes_are_no_exit_by_signal(line: str) -> None:
    assert not [f for f in _facts(line + "\n") if isinstance(f, ProcessExit)]


@pytest.mark.parametrize(
    ("line", "reporter"),
    [
        # torchelastic's summary and DeepSpeed's launcher (corpus lines) name the exit in their own words: one exit each,
        # by its launcher, not a second one by the generic reading
        ("  exitcode  : -9 (pid: 141)", "torchrun"),
        (
            "[2026-11-25 02:34:49,010] [ERROR] [launch.py:259:sigkill_handler] ['/tmp/corpus-venv/bin/python', '-u', "
            "'train.py', '--local_rank=2'] exits with return code = -9",
            "deepspeed",
        ),
    ],
)
def test_a_launcher_own_report_is_not_read_twice(line: str, reporter: str) -> None:
    exits = [f for f in _facts(line + "\n") if isinstance(f, ProcessExit)]
    assert [(e.reporter, e.signal) for e in exits] == [(reporter, "SIGKILL")]


def test_iris_preemption_is_a_scheduler_verdict() -> None:
    text = "iris.client.client.JobFailedError: Job /u/sweep-1\n  JOB_STATE_KILLED: Preempted by /u2/train-moe/0\n"
    verdicts = [f for f in _facts(text) if isinstance(f, SchedulerVerdict)]
    assert [(v.scheduler, v.verdict) for v in verdicts] == [("iris", "preempted")]
