"""Untimed progress dated by the job's dated lines before its last step and its own cadence (``hang.cadence_stall``),
and a checkpoint save dating its own line by the time in the checkpoint's name (``parse._saved_at``).

Wave BX's SpeechBrain runs (real, under torchrun over gloo): its progress lines carry no time, its Checkpointer names
each end-of-epoch checkpoint by the save's time, and the scheduler's SIGTERM is the first dated line after the last
step. A rank SIGSTOPped in epoch 4 leaves 56 s without a step before the SIGTERM, where the epochs took ~1.5 s.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from logsleuth.parse import _saved_at
from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
STOPPED = LOGS / "run-wavebx-t-rank-stopped/job.log"
PREEMPTED = LOGS / "run-wavebx-t-preempt/job.log"


def _line(path: Path, needle: str) -> str:
    return next(ln for ln in path.read_text(encoding="utf-8").splitlines() if needle in ln)


def test_a_saved_checkpoints_name_dates_its_line() -> None:
    sb = _line(STOPPED, "Saved an end-of-epoch checkpoint in")
    assert _saved_at(sb) == datetime(2026, 12, 5, 2, 15, 15)
    ray = _line(LOGS / "run-wavebh-d-returns-lr-sweep/job.log", "Checkpoint successfully created at")
    assert _saved_at(ray) == datetime(2026, 12, 2, 6, 27, 45)


def test_a_deleted_or_loaded_checkpoints_name_dates_nothing() -> None:
    deleted = _line(STOPPED, "Deleted checkpoint in")
    assert _saved_at(deleted) is None
    saved = _line(STOPPED, "Saved an end-of-epoch checkpoint in")
    assert _saved_at(saved.replace("Saved an end-of-epoch checkpoint in", "Loading a checkpoint from")) is None


def test_a_rank_stopped_long_before_the_sigterm_is_a_hang_by_the_jobs_cadence() -> None:
    d = analyze([str(STOPPED)], model=False)
    assert d.root_cause == "silent_hang"
    assert "cadence" in d.message
    stall = d.ranks["stall"]
    assert stall["stalled"] and stall["gap_seconds"] > 30


def test_the_same_job_stopped_while_stepping_stays_preempted() -> None:
    d = analyze([str(PREEMPTED)], model=False)
    assert d.root_cause == "job_preempted"


def test_without_the_checkpoints_dates_nothing_dates_the_stall(tmp_path: Path) -> None:
    # the same log with the save lines' stamps masked: no dated line before the last step, no cadence
    text = STOPPED.read_text(encoding="utf-8")
    masked = "\n".join(
        ln.replace("CKPT+2026-12-05+", "CKPT+") if "Saved an end-of-epoch" in ln else ln for ln in text.splitlines()
    )
    out = tmp_path / "job.log"
    out.write_text(masked + "\n", encoding="utf-8")
    d = analyze([str(out)], model=False)
    assert not d.ranks["stall"]["stalled"] and "cadence" not in d.message
    # what still tells the hang: the stopped rank's torchrun agent never finished its shutdown (hang.stuck_launcher)
    assert d.root_cause == "silent_hang" and "never finished shutting down" in d.message
