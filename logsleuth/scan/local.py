"""The local executor: jobs analysed in worker processes on this machine (or in this process for one worker)."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING, Any

from .jobs import Emit, Job
from .rows import analyze_job, error_row

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from ..rules.engine import RuleSet

_WORKER: dict[str, Any] = {}


def _worker_init(rules_blob: bytes, model: bool, max_job_bytes: int | None) -> None:
    import pickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker must die on the parent's terminate(), not
    # inherit the CLI's SIGTERM handler (which raises, and the pool would report that as a job's result)
    _WORKER["rules"] = pickle.loads(rules_blob)  # noqa: S301 - our own RuleSet, pickled by the parent
    _WORKER["model"] = model
    _WORKER["max_job_bytes"] = max_job_bytes


def _worker_run(job: Job) -> dict[str, Any]:
    return analyze_job(job, _WORKER["rules"], model=_WORKER["model"], max_job_bytes=_WORKER["max_job_bytes"])


def _pool(workers: int, rules_blob: bytes, model: bool, max_job_bytes: int | None) -> Any:
    import multiprocessing
    import threading
    from concurrent.futures import ProcessPoolExecutor

    # fork when this process runs no other thread (fast; nothing re-imports the caller's __main__); otherwise
    # forkserver, so that no worker is forked from a process whose other threads may hold locks. spawn elsewhere.
    methods = multiprocessing.get_all_start_methods()
    ctx: BaseContext
    if "fork" in methods and threading.active_count() == 1:
        ctx = multiprocessing.get_context("fork")
    elif "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["logsleuth.scan.local", "logsleuth.pipeline"])
    else:
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_worker_init, initargs=(rules_blob, model, max_job_bytes)
    )


def _run_local(
    todo: list[Job], rules: RuleSet, workers: int, model: bool, max_job_bytes: int | None, emit: Emit
) -> None:
    """Analyse ``todo`` in ``workers`` processes, at most ``workers + 1`` jobs in flight.

    A worker that dies (killed by the OS, out of memory, a crash in C code) breaks the pool: the jobs in flight
    are then re-run one at a time in a pool of their own, the one that kills its worker again gets an error row,
    and the rest of the queue goes on in a new pool.
    """
    if workers <= 1 or len(todo) <= 1:
        for job in todo:
            emit(job, analyze_job(job, rules, model=model, max_job_bytes=max_job_bytes))
        return
    import pickle
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    blob = pickle.dumps(rules)
    queue = deque(sorted(todo, key=lambda j: -j.bytes))  # largest first: the long poles start early
    suspects: list[Job] = []
    while queue or suspects:
        if suspects:
            job = suspects.pop()
            solo = _pool(1, blob, model, max_job_bytes)
            try:
                row = solo.submit(_worker_run, job).result()
            except BrokenProcessPool:
                row = error_row(job, "the worker process analysing this job died (killed by the OS, out of memory?)")
            except BaseException:
                _terminate(solo)
                raise
            finally:
                solo.shutdown(wait=True, cancel_futures=True)
            emit(job, row)
            continue
        n = min(workers, len(queue))
        pool = _pool(n, blob, model, max_job_bytes)
        in_flight: dict[Any, Job] = {}
        try:
            while queue or in_flight:
                while queue and len(in_flight) < n + 1:
                    job = queue.popleft()
                    in_flight[pool.submit(_worker_run, job)] = job
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    job = in_flight.pop(fut)
                    try:
                        row = fut.result()
                    except BrokenProcessPool:
                        suspects.append(job)
                        broken = True
                        continue
                    emit(job, row)
                if broken:
                    suspects.extend(in_flight.values())
                    in_flight.clear()
                    break
        except BaseException:
            _terminate(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)


def _terminate(pool: Any) -> None:
    """Stop a process pool now (Ctrl-C): cancel what is queued, kill the workers, and wait (10 s at most) for the
    pool's manager thread to wind down. Without that wait, the exit hook of Python 3.11's
    ``concurrent.futures.process`` (``_python_exit``) can write to the wake-up pipe that thread is closing, and
    print "OSError: [Errno 9] Bad file descriptor" with a traceback after our one-line message (seen once in CI)."""
    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public API to kill the workers
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        try:
            proc.terminate()
        except Exception:  # noqa: BLE001 - already gone
            pass
    if manager is not None:
        manager.join(timeout=10)


class LocalExecutor:
    """Processes on this machine: ``workers`` of them (1 = in this process); rules pickled once per worker."""

    def __init__(self, rules: RuleSet, workers: int, model: bool, max_job_bytes: int | None) -> None:
        self.rules, self.workers, self.model, self.max_job_bytes = rules, max(1, workers), model, max_job_bytes

    def run(self, todo: list[Job], emit: Emit) -> None:
        _run_local(todo, self.rules, self.workers, self.model, self.max_job_bytes, emit)
