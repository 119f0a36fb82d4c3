"""Wave BW (``heldout78``): real multi-node runs of MONAI's engines, Diffusers on Accelerate, TorchTNT, OpenCLIP
and PyTorch Forecasting, measured blind before any change for them (docs/history.md, "Fresh batches"). What their misses
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


def test_the_same_run_stopped_two_seconds_after_its_last_record_is_no_stall_by_the_clock(tmp_path: Path) -> None:
    edited = _edited(tmp_path, STOPPED, "W1204 23:27:07", "W1204 23:26:22")
    d = analyze([str(edited)], model=False)
    assert not d.ranks["stall"]["stalled"]
    # the clock sees no stall; the stopped rank's torchrun agent, which the edit left as it was, still never finished
    # its shutdown while the other agent did (``hang.stuck_launcher``)
    assert d.root_cause == "silent_hang" and "never finished shutting down" in d.message


def test_a_launcher_logging_on_after_the_hangup_does_not_lengthen_the_silence() -> None:
    # DLRover's agent retried its reports to the vanished master for 50 s after SIGHUP: the ranks' last step
    # (untimed, bounded by the SIGHUP line itself; "epoch 1 done in 3.4s" after the 10:38:13.50 record) is under a
    # second before the stop, not 50 s before the log's last line
    d = analyze([str(DLROVER_HUP)], model=False)
    assert d.root_cause == "terminal_hangup"
    assert 0 <= d.ranks["stall"]["gap_seconds"] < 1
    assert not d.ranks["stall"]["stalled"]


CLIP = LOGS / "run-wavebw-p-healthy-2nodes/job.log"
CLIP_ABORT = LOGS / "run-wavebw-p-rank-abort/job.log"
CLIP_OLD_WDS = LOGS / "run-wavebw-p-old-webdataset-node-b/job.log"
CLIP_STOPPED = LOGS / "run-wavebw-p-rank-stopped/job.log"
HOROVOD_HEALTHY = LOGS / "gh-horovod-horovod-3752/after_fix.log"


def test_the_store_lost_while_the_launcher_closes_the_rendezvous_of_a_job_that_failed_nowhere_is_shutdown_order() -> (
    None
):
    # OpenCLIP's healthy two-node run: node b's agent, closing the rendezvous after its workers' run, found the store
    # gone (node a had exited) and logged torchelastic's "has failed to shutdown the rendezvous"; nothing exited
    # non-zero, no signal, no exception
    d = analyze([str(CLIP)], model=False)
    assert d.root_cause == "no_failure"


def test_the_same_lost_store_after_a_worker_crashed_is_not_shutdown_order(tmp_path: Path) -> None:
    # the run whose rank aborted (SIGABRT) lost the store the same way; that crash is the answer, not the store
    d = analyze([str(CLIP_ABORT)], model=False)
    assert d.root_cause == "native_crash"
    assert "rendezvous_timeout" not in {h.root_cause for h in d.hypotheses[:1]}


def test_a_package_whose_module_level_code_raises_on_import_is_a_version_mismatch() -> None:
    # webdataset 0.1.103 on one node's path: its iterators.py seeds random.Random with a tuple at import, a TypeError
    # since Python 3.11; the traceback is <module> frames from the script through open_clip_train (installed) down
    d = analyze([str(CLIP_OLD_WDS)], model=False)
    assert d.root_cause == "library_version_mismatch"


def test_the_same_exception_from_the_scripts_own_module_level_code_stays_a_worker_exception(tmp_path: Path) -> None:
    # move the raising module under the script's own directory: an exception in the job's own code at import
    text = CLIP_OLD_WDS.read_text(encoding="utf-8")
    edited = tmp_path / "job.log"
    edited.write_text(text.replace("/tmp/bw-p-wds/", "/tmp/wavebw-p-job/run/"), encoding="utf-8")
    d = analyze([str(edited)], model=False)
    assert d.root_cause != "library_version_mismatch"


def test_pytorch_examples_train_epoch_lines_with_openclips_comma_dated_clock_date_the_stall() -> None:
    # "2026-12-04,23:39:22 | INFO | Train Epoch: 2 [ 96/256 (38%)] ... Loss: 3.4657": OpenCLIP's logger puts a comma
    # between date and time; its last step at 23:39:22, torchrun's SIGTERM at 23:40:22
    d = analyze([str(CLIP_STOPPED)], model=False)
    assert d.root_cause == "silent_hang"
    assert d.ranks["stall"]["stalled"] and d.ranks["stall"]["gap_seconds"] >= 59


def test_a_relayed_rank_one_line_behind_at_the_end_of_a_healthy_excerpt_is_not_a_hang() -> None:
    # horovod/horovod#3752's healthy run as pasted: ranks 2 and 3's last "Train Epoch: 10 [14080/15000 (94%)]" had not
    # reached mpirun's console when the paste was cut, one line behind ranks 0 and 1
    d = analyze([str(HOROVOD_HEALTHY)], model=False)
    assert d.root_cause == "no_failure"


TNT_STOPPED = LOGS / "run-wavebw-n-rank-stopped/job.log"


def test_a_line_the_bar_redrew_over_is_kept_before_the_bars_frame() -> None:
    # TorchTNT's StdoutLogger prints "[Step 10] ..." with no newline; tqdm then redraws from column 0 with "\r"
    from logsleuth.read import clean_line

    raw = TNT_STOPPED.read_bytes().split(b"\n")[43]
    assert b"\rTrain Epoch 0:" in raw
    text = clean_line(raw)
    assert text.startswith("[Step 10] loss=2.2087 lr=0.0500 Train Iteration Time (seconds)=0.0400 Train Epoch 0:")
    assert text.endswith("20/96 [00:00<00:03, 25.31it/s]")


def test_torchtnt_iteration_times_date_the_stopped_step_past_a_bar_redrawn_without_moving() -> None:
    # "[Step 100] ... Train Iteration Time (seconds)=0.0440" lines carry no clock; tqdm's monitor redrew the bar at
    # "10/96 [00:15<...]" without it moving; the scheduler's SIGTERM came 37 s after the steps' durations end
    d = analyze([str(TNT_STOPPED)], model=False)
    assert d.root_cause == "silent_hang"
    assert d.ranks["stall"]["stalled"] and 30 <= d.ranks["stall"]["gap_seconds"] <= 45
