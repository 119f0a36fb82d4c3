"""A launcher's report of a process exit in words no named launcher uses (``extract._GENERIC_EXIT``), and SIGBUS in a
job that memory-maps its data files (rule ``sigbus-with-memory-mapped-file``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _exits(text: str) -> list[ProcessExit]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ProcessExit)]


@pytest.mark.parametrize(
    ("line", "code", "signal", "task", "proc"),
    [
        # dask's nanny (distributed/nanny.py): the number after "Worker process" is a pid
        ("distributed.nanny - WARNING - Worker process 14528 was killed by signal 9", None, "SIGKILL", None, 14528),
        # CPython's convention: a negative code is -signum
        ("ERROR:launcher:Rank 1 crashed with exit code -11.", -11, "SIGSEGV", 1, None),
        # a shell's convention: 128 + signum
        ("[W] worker 3 died with exit code 139", 139, "SIGSEGV", 3, None),
        ("Exit with signal 9", None, "SIGKILL", None, None),
        ("task 2 terminated by signal SIGBUS", None, "SIGBUS", 2, None),
        ("worker 0 exited with code 1", 1, None, 0, None),
    ],
)
def test_a_launchers_exit_report_in_common_words_is_a_process_exit(
    line: str, code: int | None, signal: str | None, task: int | None, proc: int | None
) -> None:
    (fact,) = _exits(line)
    assert (fact.code, fact.signal, fact.task, fact.proc, fact.reporter) == (code, signal, task, proc, "launcher")


@pytest.mark.parametrize(
    "line",
    [
        "the process exited normally",
        "Exit with signal 99",  # no such signal
    ],
)
def test_an_unreadable_exit_states_nothing(line: str) -> None:
    assert _exits(line) == []


def test_a_clean_exit_is_an_exit_with_code_zero_and_no_signal() -> None:
    # a finished process, not a failure: recovered.all_exited_cleanly reads it (tests/test_clean_exits.py)
    (fact,) = _exits("worker 3 exited with code 0")
    assert (fact.code, fact.signal, fact.task) == (0, None, 3)


def test_pytorchs_dataloader_worker_exit_keeps_its_reporter() -> None:
    (fact,) = _exits("RuntimeError: DataLoader worker (pid 7948) exited unexpectedly with exit code 1")
    assert fact.reporter == "dataloader"


@pytest.mark.parametrize(
    "log",
    [
        # the job says it maps its data files ("mapped data/train.f32", "memory-mapped data/corpus.ids", "--mmap"),
        # another process rewrote the file in place, and the ranks died of SIGBUS with no shared memory in sight
        "run-waveh-slurm-sbatch-mmap-shard-rewritten-sigbus/job.log",
        "run-waveu-a-mpirun-w2v-corpus-ids-rewritten-during-training/job.log",
        "run-waveal-c-launch-strokes-mmap-shards",
    ],
)
def test_sigbus_in_a_job_that_maps_its_data_files_is_a_native_crash(log: str) -> None:
    d = analyze([str(CORPUS / log)], model=False)
    assert (d.root_cause, d.rule_id) == ("native_crash", "sigbus-with-memory-mapped-file")


def test_sigbus_with_nothing_said_about_mapping_stays_shared_memory(tmp_path) -> None:
    log = tmp_path / "job.log"
    # the wave U run's last line alone: nothing says the job maps a file
    log.write_text("mpirun noticed that process rank 1 with PID 0 on node vm exited on signal 7 (Bus error).\n")
    assert analyze([str(log)], model=False).root_cause == "shm_exhausted"
