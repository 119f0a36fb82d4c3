"""Wave BE (``heldout60``: real runs under Open MPI's ``mpirun``, a single-node Slurm cluster, and Ray Tune), measured
blind before any change for it: what was changed for its misses.

mpirun's own ``--timeout`` ("The user-provided time limit for job execution has been reached") is a time limit; a
batch check saying "global batch 64 is not batch_per_rank 16 x world size 2" is a batch configuration check; a
regression's loss printed as ``mse``/``rmse``/``mae`` makes a progress line; a rank that logged an error and printed
no progress went on when the script said training finished after it; and a job whose launcher stopped it after a
failure, then trained again to the script's "training complete", was relaunched (a retry loop around mpirun)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import SchedulerVerdict
from logsleuth.parse import parse
from logsleuth.pipeline import analyze
from logsleuth.progress import progress_counter

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # mpirun --timeout 20 ended the job mid-epoch (wavebe_a)
        ("run-wavebe-a-precip-mpirun-time-limit/job.log", "job_preempted"),
        # the script's own global-batch check (wavebe_a)
        ("run-wavebe-a-precip-batch-4-ranks/job.log", "batch_size_mismatch"),
        # both ranks logged a missing stats file at ERROR; rank 0 then trained 3 epochs and said "training complete"
        ("run-wavebe-a-precip-healthy-no-norm-stats/job.log", "no_failure"),
        # the batch script's retry loop: attempt 1 failed on missing data and mpirun aborted it; attempt 2 trained
        ("run-wavebe-a-precip-healthy-staging-retry/job.log", "no_failure"),
    ],
)
def test_wave_be_logs_by_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_mpiruns_own_timeout_is_a_time_limit() -> None:
    lines = (CORPUS / "run-wavebe-a-precip-mpirun-time-limit/job.log").read_text().splitlines()
    verdicts = [
        f for ev in parse(enumerate(lines, 1), "job.log") for f in facts_of(ev) if isinstance(f, SchedulerVerdict)
    ]
    assert [(v.scheduler, v.verdict) for v in verdicts] == [("mpirun", "time_limit")]


@pytest.mark.parametrize(
    ("text", "counter"),
    [
        ("[2026-12-01 20:18:19] [INFO] [rank 0] epoch 1/3 step 4/24 mse 1.58251", (1, 4, -1)),
        ("epoch 3 step 120 rmse 0.67", (3, 120, -1)),
        # a step word without any metric is no progress line
        ("[2026-12-01 20:18:19] [INFO] [rank 0] epoch 1/3 step 4/24 starting", None),
    ],
)
def test_a_regression_loss_makes_a_progress_line(text: str, counter: tuple[int, int, int] | None) -> None:
    assert progress_counter(text) == counter


def test_a_failure_without_relaunch_stays_a_failure(tmp_path: Path) -> None:
    # the same first attempt, cut before the second launch: mpirun aborted the job and nothing trained after it
    lines = (CORPUS / "run-wavebe-a-precip-healthy-staging-retry/job.log").read_text().splitlines(keepends=True)
    cut = tmp_path / "job.log"
    cut.write_text("".join(lines[: lines.index("launch attempt 2\n")]))
    assert analyze([str(cut)], model=False).root_cause == "worker_exception"
