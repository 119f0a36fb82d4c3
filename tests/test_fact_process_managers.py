"""Process managers and task runners that report a process's end in their own words (Celery's pool, Apache
Airflow's task runner, systemd, supervisord): each is a process exit with its code or signal, and systemd's OOM
report is a memory kill, so the cause follows from the exit as it does for torchrun's or Slurm's report. Every line is
quoted from the public thread named beside it."""

from __future__ import annotations

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
