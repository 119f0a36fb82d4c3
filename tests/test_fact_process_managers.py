"""Process managers and task runners that report a process's end in their own words (Celery's pool, Apache
Airflow's task runner, systemd, supervisord, GNU make): each is a process exit with its code or signal, and systemd's
OOM report is a memory kill, so the cause follows from the exit as it does for torchrun's or Slurm's report. Every line
is quoted from the public thread named beside it, or printed by the tool run here (GNU make)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit, SchedulerVerdict
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze


def _exits(text: str) -> list[ProcessExit]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ProcessExit)]


@pytest.mark.parametrize(
    ("line", "reporter", "code", "signal"),
    [
        # https://github.com/celery/celery/issues/3085 (celery 4.0.2)
        (
            "[2017-06-09 08:20:00,941: ERROR/MainProcess] Process 'PoolWorker-3' pid:19 exited with 'signal 9 (SIGKILL)'",
            "celery",
            None,
            "SIGKILL",
        ),
        (
            "[2017-07-06 12:13:37,999: ERROR/MainProcess] Process 'PoolWorker-3' pid:22 exited with 'exitcode 2'",
            "celery",
            2,
            None,
        ),
        (
            "billiard.exceptions.WorkerLostError: Worker exited prematurely: signal 9 (SIGKILL).",
            "celery",
            None,
            "SIGKILL",
        ),
        # https://github.com/apache/airflow/issues/27741
        ("Task exited with return code Negsignal.SIGKILL", "airflow", None, "SIGKILL"),
        # https://github.com/Supervisor/supervisor/issues/1477 (systemd before v240 wrote "main process exited")
        (
            "Dec  7 11:03:40 prod05 systemd: supervisord.service: main process exited, code=exited, status=1/FAILURE",
            "systemd",
            1,
            None,
        ),
        # https://github.com/Supervisor/supervisor/issues/1387
        ("2020-11-09 15:59:20,300 INFO exited: worker_1 (exit status 1; not expected)", "supervisord", 1, None),
    ],
)
def test_process_manager_exit_reports(line: str, reporter: str, code: int | None, signal: str | None) -> None:
    (x,) = _exits(line + "\n")
    assert (x.reporter, x.code, x.signal) == (reporter, code, signal)


@pytest.mark.parametrize(
    "line",
    [
        # a clean end, or one the program's config expects (https://github.com/Supervisor/supervisor/issues/321 logs
        # "stopped: queue (exit status 143)" for its own stop): none is a failed exit
        "[2023-05-08, 19:36:33 UTC] {local_task_job.py:154} INFO - Task exited with return code 0",
        "2013-10-15 15:45:20,810 INFO stopped: queue (exit status 143)",
        # https://github.com/celery/celery/issues/3631: a worker stopped by a warm shutdown after its task finished
        "[2019-01-25 19:43:15,078: ERROR/MainProcess] Task handler raised error: WorkerLostError('Worker exited prematurely: exitcode 0.',)",
    ],
)
def test_clean_or_expected_ends_are_not_failed_exits(line: str) -> None:
    assert not [x for x in _exits(line + "\n") if x.code or x.signal]


def test_systemd_oom_kill_is_a_memory_verdict() -> None:
    # https://github.com/nginx/unit/issues/940
    text = (
        "Sep 04 17:16:41 unit systemd[1]: unit.service: Failed with result 'oom-kill'.\n"
        "Sep 04 17:16:41 unit systemd[1]: unit.service: Consumed 2h 31min 11.213s CPU time.\n"
    )
    verdicts = [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, SchedulerVerdict)]
    assert [(v.scheduler, v.verdict, v.resource) for v in verdicts] == [("systemd", "oom_killed", "memory")]


def test_a_pool_worker_killed_reads_as_the_kill_not_a_worker_exception(tmp_path) -> None:
    # https://github.com/celery/celery/issues/3085: the pool's report, then the error it raised to the task's caller
    log = tmp_path / "worker.log"
    log.write_text(
        "[2017-06-09 08:20:00,941: ERROR/MainProcess] Process 'PoolWorker-3' pid:19 exited with 'signal 9 (SIGKILL)'\n"
        "[2017-06-09 08:20:00,953: ERROR/MainProcess] Task handler raised error: WorkerLostError('Worker exited"
        " prematurely: signal 9 (SIGKILL).',)\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.6/site-packages/billiard/pool.py", line 1224, in mark_as_worker_lost\n'
        "    human_status(exitcode)),\n"
        "billiard.exceptions.WorkerLostError: Worker exited prematurely: signal 9 (SIGKILL).\n"
    )
    d = analyze([str(log)], model=False)
    assert d.root_cause == "host_oom_killed"
    assert d.first_failure is not None and d.first_failure.line == 1


# GNU make's report of a failed recipe (``src/job.c`` ``child_error``), printed by GNU Make 4.3 on this machine: a
# command make ran itself and a signal killed ("Segmentation fault", "Killed", "Aborted (core dumped)"), a command a
# shell ran, which exited 128 + N ("Error 137"), a plain failure and an ignored one ("-" recipe)
@pytest.mark.parametrize(
    ("line", "code", "signal"),
    [
        ("make: *** [Makefile:10: segv2] Segmentation fault", None, "SIGSEGV"),
        ("make: *** [Makefile:12: k92] Killed", None, "SIGKILL"),
        ("make: *** [Makefile:14: ab] Aborted (core dumped)", None, "SIGABRT"),
        ("make: *** [Makefile:4: kill9] Error 137", 137, "SIGKILL"),
        ("make: *** [Makefile:2: segv] Error 139", 139, "SIGSEGV"),
        ("make: *** [Makefile:6: fail] Error 1", None, None),
        ("make: [Makefile:8: ignored] Error 2 (ignored)", None, None),
    ],
)
def test_make_reports_a_recipe_killed_by_a_signal(line: str, code: int | None, signal: str | None) -> None:
    exits = _exits(line + "\n")
    if signal is None:
        assert exits == []  # an exit status says no more than the command's own output; an ignored error is gone past
    else:
        (x,) = exits
        assert (x.reporter, x.code, x.signal, x.detail) == ("make", code, signal, line.split("[")[1].split("]")[0])


def test_a_make_pipeline_whose_step_segfaulted_is_a_native_crash() -> None:
    # wave BA's make pipeline (corpus/generators/waveba_c): the features step's recursion overflowed the C stack; make's
    # report is the only line that names the signal (the rules alone answered `unknown` before make's words were read)
    log = Path(__file__).resolve().parents[1] / "corpus/logs/run-waveba-c-make-cranes-berth-loop/job.log"
    d = analyze([str(log)], model=False)
    assert d.root_cause == "native_crash"
    assert d.first_failure is not None and "Segmentation fault" in d.first_failure.text
