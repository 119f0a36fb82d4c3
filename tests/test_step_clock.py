"""Untimed progress that prints its own step durations dates its last step (``progress.step_clock``,
``hang.clock_stall``): nanoGPT prints "iter 100: loss 2.7652, time 122.64ms" with no clock, and torchrun's agents
print "Received 15 death signal" with one. A rank SIGSTOPped at iteration ~100 and the job stopped by a scheduler
~100 s after the process groups formed is a job that stalled, not one that was preempted while training.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from logsleuth.pipeline import analyze
from logsleuth.progress import _STEP_TIME

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _job(name: str) -> Path:
    return CORPUS / name / "job.log"


@pytest.mark.parametrize(
    ("line", "seconds"),
    [
        ("iter 100: loss 2.7652, time 122.64ms, mfu 0.00%", 0.12264),  # karpathy/nanoGPT train.py
        ("Epoch 1 | iter 10 step 1 | loss train: 9.812, val: n/a | iter time: 290.19 ms (step)", 0.29019),  # LitGPT
        ("iteration 20/ 500 | elapsed time per iteration (ms): 1234.5 | lm loss: 7.1E+00", 1.2345),  # Megatron
        ("step 40 loss 1.25 step_time=0.52s", 0.52),
    ],
)
def test_a_progress_line_prints_its_step_duration(line: str, seconds: float) -> None:
    m = _STEP_TIME.search(line)
    assert m is not None
    value = float(m[3]) / 1000 if m[3] else float(m[1]) / (1000 if m[2] == "ms" else 1)
    assert value == pytest.approx(seconds)


@pytest.mark.parametrize(
    "line",
    [
        "epoch 3 step 40 loss 1.25 data time 0.01s",  # the data-loading share of a step
        "Epoch [1][100/625] lr: 1.0e-03, time: 0.512, data_time: 0.01, loss: 1.2",  # mmcv: no unit
        "epoch 2 train_loss 0.41 valid_loss 0.45 time 00:01",  # fastai's epoch clock
    ],
)
def test_no_step_duration_where_the_line_prints_another_time(line: str) -> None:
    assert _STEP_TIME.search(line) is None


def test_a_rank_stopped_long_before_the_scheduler_stopped_the_job_is_a_silent_hang() -> None:
    d = analyze([str(_job("run-wavebu-h-rank-stopped"))], model=False)
    assert d.root_cause == "silent_hang"
    assert "printed durations" in d.message
    gap = d.ranks["stall"]["gap_seconds"]
    assert gap is not None and 60 < gap < 110  # iteration 100 of ~0.13 s each, SIGTERM 101 s after the groups formed


def test_a_job_stopped_while_its_steps_kept_coming_stays_preempted() -> None:
    d = analyze([str(_job("run-wavebu-h-preempt"))], model=False)
    assert d.root_cause == "job_preempted"
    assert d.ranks["stall"]["stalled"] is False


def test_the_same_stop_twenty_seconds_after_the_groups_formed_is_no_stall(tmp_path: Path) -> None:
    """The stopped run's text with the scheduler's SIGTERM dated 20 s after its last timed start-up line: the steps'
    ~13 s leave too little unaccounted time to call it a stall."""
    text = _job("run-wavebu-h-rank-stopped").read_text(encoding="utf-8")
    edited = re.sub(r"W1204 16:58:30\.0", "W1204 16:57:08.5", text)
    assert edited != text
    log = tmp_path / "job.log"
    log.write_text(edited, encoding="utf-8")
    d = analyze([str(log)], model=False)
    assert not d.ranks["stall"]["stalled"]
    # the clock sees no stall; the stopped rank's torchrun agent, which the edit left as it was, still never finished
    # its shutdown while the other agent did (``hang.stuck_launcher``)
    assert d.root_cause == "silent_hang" and "never finished shutting down" in d.message
