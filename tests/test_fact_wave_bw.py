"""Wave BW (``heldout78``): real multi-node runs of MONAI's engines, Diffusers on Accelerate, TorchTNT, OpenCLIP
and PyTorch Forecasting, measured blind before any change for them (README "Fresh batches"). What their misses
showed that is general, tested on their logs and on edits of them that change only the fact in question."""

from __future__ import annotations

from pathlib import Path

from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
OLD_HUB = LOGS / "run-wavebw-q-old-hub-node1/job.log"
STOPPED = LOGS / "run-wavebw-q-rank-stopped/job.log"
DLROVER_HUP = LOGS / "run-waveas-c-dlrover-cards-ssh-closed/job.log"


def _edited(tmp_path: Path, src: Path, old: str, new: str) -> Path:
    text = src.read_text(encoding="utf-8")
    assert old in text
    out = tmp_path / "job.log"
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


def test_an_import_error_is_not_explained_by_the_time_limit_that_ended_the_waiting_rest_of_the_job() -> None:
    # node b's ranks died importing diffusers (an older huggingface_hub first on their path); node a waited until the
    # scheduler's SIGTERM two minutes later, 40 lines below the tracebacks: that stop hit what was left of the job
    d = analyze([str(OLD_HUB)], model=False)
    assert d.root_cause == "library_version_mismatch"
    assert "resolve_revision" in d.message
    assert "job_preempted" in {m.root_cause for m in d.symptoms} | {h.root_cause for h in d.hypotheses}


def test_untimed_progress_between_dated_records_dates_the_stall_before_the_stop() -> None:
    # "Epoch 3 | step 24/48 | loss ..." lines carry no time, but the script's logger records around them do: the last
    # step was printed before the 23:26:20 record after it, and torchrun's SIGTERM came at 23:27:07
    d = analyze([str(STOPPED)], model=False)
    assert d.root_cause == "silent_hang"
    assert d.ranks["stall"]["stalled"] and 40 <= d.ranks["stall"]["gap_seconds"] <= 50


def test_the_same_run_stopped_two_seconds_after_its_last_record_was_preempted_while_running(tmp_path: Path) -> None:
    edited = _edited(tmp_path, STOPPED, "W1204 23:27:07", "W1204 23:26:22")
    d = analyze([str(edited)], model=False)
    assert d.root_cause == "job_preempted"
    assert not d.ranks["stall"]["stalled"]


def test_a_launcher_logging_on_after_the_hangup_does_not_lengthen_the_silence() -> None:
    # DLRover's agent retried its reports to the vanished master for 50 s after SIGHUP: the ranks' last step
    # (untimed, bounded by the SIGHUP line itself) is 0 s before the stop, not 50 s before the log's last line
    d = analyze([str(DLROVER_HUP)], model=False)
    assert d.root_cause == "terminal_hangup"
    assert d.ranks["stall"]["gap_seconds"] == 0
