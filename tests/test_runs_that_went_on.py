"""Healthy runs that printed a failure and did their work anyway, read from facts (issue 12's last ``no_failure`` false
positives): a launch that failed for good and a new launch that trained (``relaunched``), a Prefect flow that said it
completed, a Celery task the broker delivered again, one failure reported by three handlers at once, and a shell's
undated report of a job killed after a federated run finished.

The whole logs are real runs of earlier waves (``corpus/manifest.d/wave-a[npt]-*``, ``wave-ax-*``, ``wave-bg-*``); each
is also cut before the part that shows the job went on, where the failure must stand.
"""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer.kinds import RunFinished, WorkRetried
from logsleuth.factlayer.reason import FactStream
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
EXPORT_RETRY = LOGS / "run-wavebg-c-clauses-healthy-export-retry" / "job.log"
FLYTE_RETRY = LOGS / "run-waveax-c-flyte-milk-healthy-port-retry" / "job.log"
SWEEP_SAME_PORT = LOGS / "run-wavex-b-torchrun-ddpm-shapes32-lr-sweep-same-port" / "job.log"
PREFECT_STORE = LOGS / "run-waveat-c-prefect-yield-result-store" / "job.log"
CELERY_REQUEUE = LOGS / "run-waveat-b-quakes-healthy-requeue" / "job.log"
DASK_OLD_WORKER = LOGS / "run-waveap-a-hosts-stockout-team-env"
FLOWER_DROPOUT = LOGS / "run-wavean-c-fed-typing-healthy-fedprox-dropout" / "job.log"


def _cut(src: Path, dst: Path, before: str, nth: int = 1) -> Path:
    """``src`` up to (not including) the ``nth`` line that starts with ``before``."""
    out, seen = [], 0
    for line in src.read_text().splitlines(keepends=True):
        if line.startswith(before):
            seen += 1
            if seen == nth:
                break
        out.append(line)
    assert seen == nth, f"{before!r} not found {nth} time(s) in {src}"
    dst.write_text("".join(out))
    return dst


def _facts(text: str) -> list:
    stream = FactStream()
    return [f for ev in parse_text(text) for f in stream.facts(ev, {})]


def test_a_retry_loop_that_launched_again_after_a_crash_on_the_way_out(tmp_path: Path) -> None:
    """accelerate's agent prints torchrun's failure summary (rank 1 SIGABRT at interpreter exit) only after every
    worker exited; the loop's second launch trains and its loop says it finished: the failure cost a launch."""
    d = analyze([str(EXPORT_RETRY)], model=False)
    assert (d.root_cause, d.rule_id) == ("no_failure", "relaunched-after-failure")
    assert "launched again" in d.message
    first_launch = _cut(EXPORT_RETRY, tmp_path / "job.log", "launch attempt 2")
    assert analyze([str(first_launch)], model=False).root_cause == "native_crash"


def test_a_workflow_rerun_after_its_launcher_failed_on_a_taken_port(tmp_path: Path) -> None:
    """The workflow task saw torchrun exit 1 (``CalledProcessError``), the workflow ran again and both ranks trained
    from epoch 1 to the end."""
    d = analyze([str(FLYTE_RETRY)], model=False)
    assert (d.root_cause, d.rule_id) == ("no_failure", "relaunched-after-failure")
    first_run = _cut(FLYTE_RETRY, tmp_path / "job.log", "Running Execution on local.", nth=2)
    assert analyze([str(first_run)], model=False).root_cause == "port_in_use"


def test_a_launcher_that_died_on_a_taken_port_beside_a_launch_that_trains_is_no_relaunch() -> None:
    """A sweep's two torchruns on one --master-port: the second dies on the port the first holds while the first
    trains. Its dying traceback is no end of a launch seen by what started it, so the progress after it proves
    nothing was launched again."""
    assert analyze([str(SWEEP_SAME_PORT)], model=False).root_cause == "port_in_use"


def test_only_a_top_level_prefect_flow_that_completed_is_the_runs_finish() -> None:
    facts = _facts(
        "14:02:32.437 | INFO    | Flow run 'diamond-dalmatian' - Beginning flow run 'diamond-dalmatian' for flow "
        "'crop-yield-training'\n"
        "14:02:35.884 | INFO    | Flow run 'tricky-tamarin' - Beginning subflow run 'tricky-tamarin' for flow "
        "'parcel-lineage'\n"
        "14:02:38.301 | INFO    | Task run 'parcel_features-b22' - Finished in state Completed()\n"
        "14:02:39.300 | INFO    | Flow run 'tricky-tamarin' - Finished in state Completed()\n"
        "14:02:53.675 | INFO    | Flow run 'diamond-dalmatian' - Finished in state Completed()\n"
    )
    done = [f for f in facts if isinstance(f, RunFinished)]
    assert [(f.by, f.event.line) for f in done] == [("prefect", 5)]


def test_a_prefect_run_that_completed_past_its_result_store_errors(tmp_path: Path) -> None:
    d = analyze([str(PREFECT_STORE)], model=False)
    assert (d.root_cause, d.rule_id) == ("no_failure", "run-finished-after-failure")
    lines = PREFECT_STORE.read_text().splitlines(keepends=True)
    unfinished = tmp_path / "job.log"
    unfinished.write_text("".join(ln for ln in lines if "Flow run 'diamond-dalmatian' - Finished in state" not in ln))
    assert analyze([str(unfinished)], model=False).root_cause == "disk_full"


def test_a_celery_task_received_again_is_work_retried() -> None:
    facts = _facts(
        "[2026-11-30 13:59:55,994: INFO/MainProcess] Task tasks.train_trial[30808e61-0076-46ed-96ad-e2a4e04ed43b] "
        "received\n"
        "[2026-11-30 14:00:04,758: INFO/MainProcess] Task tasks.train_trial[8535f9a8-4f70-49da-bfb0-8e28da038684] "
        "received\n"
        "[2026-11-30 14:00:09,945: INFO/MainProcess] Task tasks.train_trial[30808e61-0076-46ed-96ad-e2a4e04ed43b] "
        "received\n"
    )
    assert [(f.by, f.event.line) for f in facts if isinstance(f, WorkRetried)] == [("celery_task", 3)]


def test_a_pool_process_killed_while_its_task_was_requeued(tmp_path: Path) -> None:
    d = analyze([str(CELERY_REQUEUE)], model=False)
    assert (d.root_cause, d.rule_id) == ("no_failure", "retried-after-failure")
    lines = CELERY_REQUEUE.read_text().splitlines(keepends=True)
    redelivery = next(i for i, ln in enumerate(lines) if "30808e61" in ln and ln.rstrip().endswith("received") and i > 60)
    cut = tmp_path / "job.log"
    cut.write_text("".join(lines[:redelivery]))
    assert analyze([str(cut)], model=False).root_cause == "host_oom_killed"


def test_one_failure_reported_by_three_handlers_at_once_is_one_failure() -> None:
    """An old dask worker cannot unpickle a task: ``protocol.pickle`` logs the ``UnpicklingError``, ``protocol.core``
    logs it again, tornado's loop a third time, within 9 ms; the driver trains all five epochs on its other worker."""
    d = analyze([str(DASK_OLD_WORKER)], model=False)
    assert (d.root_cause, d.rule_id) == ("no_failure", "went-on-after-exception")
    assert "reported 4 more times at once" in d.message


def test_a_shells_undated_kill_report_after_a_federated_run_finished(tmp_path: Path) -> None:
    """bash reports a background client killed mid-run only when it reaps it, after Flower's server said every round
    ran: the run got past losing it. A training loop's own finish line does not excuse such a report."""
    d = analyze([str(FLOWER_DROPOUT)], model=False)
    assert (d.root_cause, d.rule_id) == ("no_failure", "run-finished-after-failure")
    assert "when it reaps the job" in d.message
    log = tmp_path / "job.log"
    log.write_text(
        "epoch 3 step 30/30 loss 0.0591\n"
        "training finished\n"
        "./train.sh: line 9: 21820 Killed                  python train.py --epochs 3\n"
    )
    assert analyze([str(log)], model=False).root_cause == "host_oom_killed"
