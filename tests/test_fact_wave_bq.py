"""Wave BQ (``heldout72``: Accelerate's FSDP plugin and the DeepSpeed launcher with the HF Trainer, both multi-node
across network namespaces).

- A wrapper script's own report of the job's status ("job exited with 143", ``echo "... $?"``) is a process exit: a
  shell's 128 + signal, and GNU ``timeout``'s 124 (its time limit, enforced with SIGTERM).
- Accelerate's ``split_batches`` check ("the batch size (30) needs to be a round multiple of the number of processes
  (4)") is a batch-size configuration check.
- A learning rate of 10 or more on the loss lines of a run whose loss never came below 10 is a diverged run, NaN or
  not; the HF Trainer's log dicts tell the learning rate and the loss though they print no step counter.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _exits(text: str) -> list[tuple[int | None, str | None, str]]:
    return [
        (f.code, f.signal, f.reporter) for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ProcessExit)
    ]


@pytest.mark.parametrize(
    ("line", "exits"),
    [
        ("job exited with 143", [(143, "SIGTERM", "shell")]),
        ("job exited with 129", [(129, "SIGHUP", "shell")]),
        ("job exited with 124", [(124, "SIGTERM", "timeout")]),
        ("Exit code: 124", [(124, "SIGTERM", "timeout")]),
        # a plain failure or success is not a signal; a number inside a sentence is not a status
        ("job exited with 1", []),
        ("job exited with 0", []),
        ("the exporter exited with 143 warnings", []),
    ],
)
def test_a_wrappers_bare_status_is_a_process_exit(line: str, exits: list[tuple[int, str, str]]) -> None:
    assert _exits(line) == exits


def _cut(job: str, tmp_path: Path, drop_last: int) -> str:
    lines = (CORPUS / job / "job.log").read_text(encoding="utf-8").splitlines(keepends=True)
    out = tmp_path / "job.log"
    out.write_text("".join(lines[:-drop_last]), encoding="utf-8")
    return str(out)


def test_the_status_is_what_says_the_deepspeed_job_was_signalled(tmp_path: Path) -> None:
    # the DeepSpeed launcher died of the scheduler's SIGTERM without a word; only the job script's status says so
    job = "run-wavebq-e-preempt"
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == "job_preempted"
    assert analyze([_cut(job, tmp_path, 1)], model=False).root_cause == "no_failure"


@pytest.mark.parametrize(
    "job",
    [
        # `timeout 25` around a Keras ReduceLROnPlateau run (wave AZ's Ignite cron budget, wave AY's KFP cron limit)
        "run-waveaz-b-ignite-milk-cron-limit",
        "run-waveay-a-kfp-gearbox-cron-limit",
    ],
)
def test_timeouts_status_is_its_time_limit(job: str) -> None:
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == "job_preempted"


def test_a_timeout_the_workers_went_on_from_is_not_a_failure() -> None:
    # TensorFlow's preemption notifier caught timeout's SIGTERM, both workers trained all 12 epochs and exited 0;
    # only timeout's 124 remains at the end
    assert analyze([str(CORPUS / "run-wavebb-c-tf-footfall-ci-budget" / "job.log")], model=False).root_cause == (
        "no_failure"
    )


def test_accelerates_split_batches_check_is_a_batch_config_check() -> None:
    diag = analyze([str(CORPUS / "run-wavebq-d-global-batch-30" / "job.log")], model=False)
    assert diag.root_cause == "batch_size_mismatch"


@pytest.mark.parametrize(
    "job",
    [
        # the HF Trainer under the DeepSpeed launcher at learning rate 80: the loss from 133 to 1100 and back to 50,
        # accuracy at chance, never NaN, exit 0
        "run-wavebq-e-huge-lr",
        # the HF Trainer under multi-node torchrun at learning rate 50 (wave BO): the first loss already 198,127
        "run-wavebo-e-huge-lr",
        # Accelerate at an unscaled learning rate of 25.6 (wave Y)
        "run-wavey-a-accelerate-action-recipe-lr-unscaled",
    ],
)
def test_an_implausible_learning_rate_with_a_loss_that_never_came_down_diverged(job: str) -> None:
    diag = analyze([str(CORPUS / job / "job.log")], model=False)
    assert diag.root_cause == "training_divergence"
    assert diag.rule_id == "learning-rate-implausible"


def test_the_learning_rate_reading_needs_the_loss_lines(tmp_path: Path) -> None:
    # the same log cut before its first metrics dict (line 465): no learning rate or loss printed, nothing to read
    lines = (CORPUS / "run-wavebq-e-huge-lr" / "job.log").read_text(encoding="utf-8").splitlines(keepends=True)
    out = tmp_path / "job.log"
    out.write_text("".join(lines[:464]), encoding="utf-8")
    assert analyze([str(out)], model=False).root_cause == "no_failure"


@pytest.mark.parametrize(
    "job",
    [
        "run-wavebq-e-healthy-2nodes",
        "run-wavebq-e-healthy-resume",
        "run-wavebq-d-healthy-2nodes",
        "run-wavebq-d-healthy-cli-flags",
    ],
)
def test_healthy_runs_of_the_wave_stay_healthy(job: str) -> None:
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == "no_failure"
