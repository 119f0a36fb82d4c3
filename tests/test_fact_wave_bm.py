"""Wave BM (``heldout68``), and the misses of earlier waves fixed beside it.

- A wall clock printed without a date (dmlc-core's "[15:22:53] " in front of XGBoost's tracker and evaluation lines,
  python logging's "%H:%M:%S" before a rank tag) is dated from the file's last dated line, so a stall between the
  last round and the job's SIGTERM is measured."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from logsleuth.parse import parse_text
from logsleuth.parse.timestamps import on_day_of
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_a_dateless_clock_takes_the_last_dated_lines_day() -> None:
    # lines from run-wavebl-b-worker-stopped (XGBoost 3.2 on Dask 2026.8)
    text = (
        "2026-12-02 15:22:50,827 - distributed.worker - INFO - Run out-of-band function '_start_tracker'\n"
        "[15:22:53] Task [xgboost.dask-w0]:tcp://127.0.0.1:29870 got rank 0\n"
        "[15:22:55] [100]\ttrain-logloss:0.38773\ttrain-auc:0.89769\tvalid-logloss:0.41076\tvalid-auc:0.88282\n"
    )
    evs = parse_text(text)
    assert [ev.time for ev in evs] == [
        datetime(2026, 12, 2, 15, 22, 50, 827000),
        datetime(2026, 12, 2, 15, 22, 53),
        datetime(2026, 12, 2, 15, 22, 55),
    ]
    assert evs[2].text.startswith("[15:22:55] [100]")  # the line is left as printed


def test_a_dateless_clock_alone_stays_untimed() -> None:
    (ev,) = parse_text("[15:22:53] Task [xgboost.dask-w0]:tcp://127.0.0.1:29870 got rank 0")
    assert ev.time is None


def test_a_dateless_clock_past_midnight_is_the_next_day() -> None:
    assert on_day_of(datetime(2026, 12, 2, 23, 59, 58), "00:00:03") == datetime(2026, 12, 3, 0, 0, 3)
    assert on_day_of(datetime(2026, 12, 2, 15, 0, 5), "14:59:59") == datetime(2026, 12, 2, 14, 59, 59)
    assert on_day_of(datetime(2026, 12, 2, 15, 0, 5), "25:00:00") is None


def test_a_dask_worker_stopped_mid_boosting_is_a_silent_hang() -> None:
    # a Dask worker SIGSTOPped after XGBoost's round 100; the scheduler's SIGTERM 89 s later stopped the job (wavebl_b)
    diag = analyze([str(CORPUS / "run-wavebl-b-worker-stopped/job.log")], model=False)
    assert diag.root_cause == "silent_hang"
    assert diag.ranks["stall"]["stalled"] is True
