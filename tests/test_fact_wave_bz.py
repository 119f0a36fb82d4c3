"""Wave BZ (real multi-node torchrun/gloo runs of Lightly 1.6.0 and Hugging Face Datasets): an epoch's duration printed
in parentheses after "done" ("epoch 0 done: mean loss 4.7574 (1.0 s), saved ...") runs the step clock
(``progress._EPOCH_TOOK``), so a SIGSTOPped rank that stalls rank 0's untimed progress ~40 s before the scheduler's
SIGTERM reads as a stall, while the same job SIGTERMed mid-epoch stays preempted.
"""

from __future__ import annotations

from pathlib import Path

from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_a_rank_stopped_under_lightlys_gather_is_a_hang_by_its_epoch_clock() -> None:
    d = analyze([str(LOGS / "run-wavebz-y-rank-stopped/job.log")], model=False)
    assert d.root_cause == "silent_hang"
    stall = d.ranks["stall"]
    assert stall["stalled"] and stall["gap_seconds"] > 30
    assert stall["step_seconds"] < 2  # the epochs' printed durations, ~0.9 s


def test_the_same_job_preempted_while_training_stays_preempted() -> None:
    d = analyze([str(LOGS / "run-wavebz-y-preempt/job.log")], model=False)
    assert d.root_cause == "job_preempted"
    assert not d.ranks["stall"]["stalled"]
