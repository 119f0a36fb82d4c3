"""Wave AW (``heldout52``: real Dagster, DVC and Luigi runs, and thread excerpts), measured blind before any change for
it: what was changed for its misses. Each is a fact in a tool's own words: the orchestrator saying the whole run
succeeded (Dagster's RUN_SUCCESS, DVC's "Use `dvc push` ...", Luigi's "This progress looks :)"), Luigi's worker_timeout,
Dagster's executor receiving a termination signal, DVC's stage exit code (negative: the signal), a stack that creates
a POSIX semaphore printed apart from its ENOSPC message (Dagster's "Stack Trace:" block), and two ranks' watchdogs
timing out at one sequence id in different collectives."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit, RunFinished, SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # each orchestrator retried (or the user re-ran) the torchrun step after a port clash, and the run then
        # succeeded in its own words (corpus/generators/waveaw_a, _b, _c)
        ("run-waveaw-a-dagster-rail-healthy-port-retry/job.log", "no_failure"),
        ("run-waveaw-b-dvc-ili-healthy-port-rerun/job.log", "no_failure"),
        ("run-waveaw-c-luigi-hive-healthy-port-retry/job.log", "no_failure"),
        # ... and the same clash with no success after it
        ("run-waveaw-a-dagster-rail-notebook-port/job.log", "port_in_use"),
        ("run-waveaw-b-dvc-ili-notebook-port/job.log", "port_in_use"),
        # Dagster's multiprocess executor could not create its semaphore in a 32 KB /dev/shm; the frames follow the
        # message under "Stack Trace:"
        ("run-waveaw-a-dagster-rail-container-shm/job.log", "shm_exhausted"),
        # Dagster runs stopped from outside (a node drain's SIGTERM to the process group; `timeout 45`)
        ("run-waveaw-a-dagster-rail-node-drain/job.log", "job_preempted"),
        ("run-waveaw-a-dagster-rail-cron-limit/job.log", "job_preempted"),
        # a DVC stage whose command died of SIGSEGV: "exited with -11"
        ("run-waveaw-b-dvc-ili-rerouted-line/job.log", "native_crash"),
        # ecmwf/anemoi-core#1064: rank 0 timed out in an ALLREDUCE, rank 5 in a BROADCAST, both at SeqNum 4832284
        ("gh-ecmwf-anemoi-core-1064/timelimit_multinode_watchdog.log", "collective_mismatch"),
    ],
)
def test_wave_aw_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


@pytest.mark.parametrize(
    ("line", "by"),
    [
        (
            "2026-11-30 20:15:37 +0000 - dagster - DEBUG - rail_delay_training - cb8170c9-2ad5-4e88-80fe-a0f358c940ae"
            ' - 8870 - RUN_SUCCESS - Finished execution of run for "rail_delay_training".',
            "dagster",
        ),
        ("Use `dvc push` to send your updates to remote storage.", "dvc"),
        ("Ran experiment(s): rummy-hose", "dvc"),
        ("This progress looks :) because there were failed tasks but they all succeeded in a retry", "luigi"),
        ("This progress looks :) because there were no failed tasks or missing dependencies", "luigi"),
    ],
)
def test_an_orchestrators_whole_run_success(line: str, by: str) -> None:
    assert [f.by for f in _facts(line) if isinstance(f, RunFinished)] == [by]


@pytest.mark.parametrize(
    "line",
    [
        "This progress looks :( because there were failed tasks",
        '2026-11-30 20:19:14 +0000 - dagster - ERROR - job - 1 - RUN_FAILURE - Execution of run for "job" failed.',
        "ERROR: failed to reproduce 'train': failed to run: torchrun src/train.py, exited with 1",
    ],
)
def test_an_orchestrators_failed_run_is_no_success(line: str) -> None:
    assert not [f for f in _facts(line) if isinstance(f, RunFinished)]


def test_dvc_stage_exit_codes() -> None:
    (segv,) = [
        f
        for f in _facts("ERROR: failed to reproduce 'prepare': failed to run: python src/prepare.py, exited with -11")
        if isinstance(f, ProcessExit)
    ]
    assert (segv.reporter, segv.code, segv.signal) == ("dvc", -11, "SIGSEGV")
    (plain,) = [
        f
        for f in _facts("ERROR: failed to reproduce 'train': failed to run: torchrun src/train.py, exited with 1")
        if isinstance(f, ProcessExit)
    ]
    assert (plain.code, plain.signal) == (1, None)


def test_dagster_executor_termination_signal_is_from_outside() -> None:
    line = (
        "2026-11-30 20:30:15 +0000 - dagster - DEBUG - rail_delay_training - 27357d79 - 18962 - ENGINE_EVENT - "
        "Multiprocess executor: received termination signal - forwarding to active child processes"
    )
    assert [(f.signal, f.sender) for f in _facts(line) if isinstance(f, SignalFact)] == [("SIGTERM", "unknown")]


def test_watchdogs_in_one_collective_are_no_mismatch(tmp_path: Path) -> None:
    # two ranks timing out in the same ALLREDUCE at the same sequence id: a plain collective timeout
    log = tmp_path / "job.log"
    line = (
        "[rank{r}]:[E420 19:44:35.569754537 ProcessGroupNCCL.cpp:632] [Rank {r}] Watchdog caught collective operation "
        "timeout: WorkNCCL(SeqNum=4832284, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=1800000) ran for "
        "1800051 milliseconds before timing out.\n"
    )
    log.write_text(line.format(r=0) + line.format(r=5))
    assert analyze([str(log)], model=False).root_cause == "collective_timeout"
    # different collectives at a small sequence id may be two process groups' numbering: not read as a mismatch
    small = line.replace("4832284", "12")
    log.write_text(small.format(r=0) + small.replace("ALLREDUCE", "BROADCAST").format(r=5))
    assert analyze([str(log)], model=False).root_cause == "collective_timeout"
