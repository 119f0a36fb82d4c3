"""Wave AY (``heldout54``: real Kubeflow Pipelines (local runner), Lightning Fabric and Ray Train runs), measured blind
before any change for it: what was changed for its misses. Kubeflow's local runner's "Pipeline '<name>' finished with
status SUCCESS" is the whole run's success; a shell's signal report relayed indented (kfp streams a task's output
four spaces in) is still the shell's; error lines a run trained on past are not a failure when the only rule that
matched was dropped by its own position (``tail_lines``), or when the script said it finished after them; Ray's log
deduplication ("[repeated Nx across cluster]") folds the ranks' progress lines, so their counters cannot say which
rank stopped, and its summaries restate earlier lines, so they are no failure after a retry."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit, RunFinished
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # kfp's local runner failed the train task on a port clash; a second `run_pipeline.py` ran every task and
        # ended "Pipeline 'gearbox-fault-detector' finished with status SUCCESS" (corpus/generators/waveay_a)
        ("run-waveay-a-kfp-gearbox-healthy-port-retry/job.log", "no_failure"),
        ("run-waveay-a-kfp-gearbox-notebook-port/job.log", "port_in_use"),
        # a recursion through lru_cache overflowed the C stack in the clean task: "    Segmentation fault" as relayed
        ("run-waveay-a-kfp-gearbox-string-loop/job.log", "native_crash"),
        # ERROR lines from data cleaning, then three epochs; Lightning's "Initializing distributed: ..." at the top of
        # the log matched a rule that counts only a log's last lines (corpus/generators/waveay_b)
        ("run-waveay-b-fabric-bread-healthy-refunds/job.log", "no_failure"),
        # Ray Train runs with Ray's log deduplication on (its default): rank 0's later progress lines were folded into
        # "[repeated 17x across cluster]" summaries, so it looked stopped at epoch 1 (corpus/generators/waveay_c)
        ("run-waveay-c-ray-parcel-healthy/job.log", "no_failure"),
        ("run-waveay-c-ray-parcel-healthy-resume/job.log", "no_failure"),
        # a worker SIGKILLed once, Ray Train's "[FailurePolicy] RETRY", the restarted group finished; the failed
        # attempt's traceback came again after the restart as deduplication summaries
        ("run-waveay-c-ray-parcel-healthy-worker-retry/job.log", "no_failure"),
        # ERROR lines from the driver's cleaning and Ray's own logged GetTimeoutError, then "training finished"
        ("run-waveay-c-ray-parcel-healthy-garbled-scans/job.log", "no_failure"),
        # ... while a rank SIGSTOPped under a short process-group timeout is still a collective timeout
        ("run-waveay-c-ray-parcel-rank-paused/job.log", "collective_timeout"),
    ],
)
def test_wave_ay_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_kubeflow_local_pipeline_success_is_the_whole_run() -> None:
    ok = "03:18:20.728 - INFO - Pipeline 'gearbox-fault-detector' finished with status SUCCESS"
    assert [f.by for f in _facts(ok) if isinstance(f, RunFinished)] == ["kubeflow"]
    failed = "RuntimeError: Pipeline 'gearbox-fault-detector' finished with status FAILURE. Inner task failed: 'clean'."
    assert not [f for f in _facts(failed) if isinstance(f, RunFinished)]


@pytest.mark.parametrize("line", ["    Segmentation fault", "\tSegmentation fault (core dumped)"])
def test_indented_shell_signal_report(line: str) -> None:
    exits = [f for f in _facts(line) if isinstance(f, ProcessExit)]
    assert [(f.signal, f.reporter) for f in exits] == [("SIGSEGV", "shell")]


def test_indented_word_inside_a_sentence_is_no_signal() -> None:
    assert not [f for f in _facts("    the job was Killed by the user") if isinstance(f, ProcessExit)]


def test_indented_traceback_is_one_exception() -> None:
    """kfp's local runner relays a task's traceback four spaces in: the header, frames and exception line keep that
    indentation, and the exception's line is read once it is taken off."""
    text = (
        "    Traceback (most recent call last):\n"
        '      File "/tmp/job/ephemeral_component.py", line 31, in train\n'
        "        subprocess.run(cmd, check=True, timeout=60)\n"
        '      File "/usr/lib/python3.11/subprocess.py", line 2038, in _wait\n'
        "        raise TimeoutExpired(self.args, timeout)\n"
        "    subprocess.TimeoutExpired: Command '['torchrun']' timed out after 60 seconds\n"
        "    [KFP Executor 2026-12-01 03:35:34,334 INFO]: next record\n"
    )
    events = list(parse_text(text))
    tb = events[0]
    assert (tb.line, tb.end_line, tb.params["exc_type"]) == (1, 6, "subprocess.TimeoutExpired")
    assert [f["func"] for f in tb.params["frames"]] == ["train", "_wait"]
    assert events[1].line == 7


def test_ray_deduplication_hides_which_rank_is_behind() -> None:
    from logsleuth.progress import RankProgress, silent_first

    behind = {0: RankProgress(0, counter=(1, 10, -1), lines=2), 1: RankProgress(1, counter=(3, 30, -1), lines=9)}
    found = silent_first(behind)
    assert found is not None and found.ranks == (0,)
    folded = {r: RankProgress(r, counter=p.counter, lines=p.lines, deduplicated=True) for r, p in behind.items()}
    assert silent_first(folded) is None
