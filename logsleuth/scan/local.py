"""The local executor: jobs analysed in worker processes on this machine (or in this process for one worker)."""

from __future__ import annotations

import signal
from typing import TYPE_CHECKING, Any

from .jobs import Emit, Job, batches
from .rows import analyze_job, error_row

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

    from ..rules.engine import RuleSet

_WORKER: dict[str, Any] = {}
_INHERITED: dict[str, Any] = {}  # set just before forking: a forked worker finds the parent's RuleSet here

# a batch (one task) holds at most this many bytes on disk: large jobs go alone, and no worker is left with the
# last long batch while the other idles (~1 s of analysis at a few MB/s)
BATCH_BYTES = 4 << 20
TERMINATE_WAIT_S = 10.0  # how long Ctrl-C waits for the pool to wind down before escalating (``_terminate``)


def _worker_init(rules_blob: bytes | None, model: bool, max_job_bytes: int | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker must die on the parent's terminate(), not
    # inherit the CLI's SIGTERM handler (which raises, and the pool would report that as a job's result)
    if rules_blob is None:  # forked: the parent's rules are already in this process's memory, nothing to decode
        _WORKER["rules"] = _INHERITED["rules"]
    else:
        import pickle

        _WORKER["rules"] = pickle.loads(rules_blob)  # noqa: S301 - our own RuleSet, pickled by the parent
    _WORKER["model"] = model
    _WORKER["max_job_bytes"] = max_job_bytes


def _worker_run(batch: list[Job]) -> list[dict[str, Any]]:
    return [
        analyze_job(job, _WORKER["rules"], model=_WORKER["model"], max_job_bytes=_WORKER["max_job_bytes"])
        for job in batch
    ]


def _forks() -> bool:
    """Whether the pool's workers are forked from this process (they then start with its memory)."""
    import multiprocessing
    import threading

    return "fork" in multiprocessing.get_all_start_methods() and threading.active_count() == 1


def _pool(workers: int, rules: RuleSet, model: bool, max_job_bytes: int | None) -> Any:
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    # fork when this process runs no other thread (fast; nothing re-imports the caller's __main__, and the workers
    # inherit the rules instead of decoding a copy); otherwise forkserver, so that no worker is forked from a
    # process whose other threads may hold locks. spawn elsewhere.
    methods = multiprocessing.get_all_start_methods()
    ctx: BaseContext
    if _forks():
        ctx = multiprocessing.get_context("fork")
        _INHERITED["rules"] = rules
        blob = None
    else:
        import pickle

        if "forkserver" in methods:
            ctx = multiprocessing.get_context("forkserver")
            ctx.set_forkserver_preload(["logsleuth.scan.local", "logsleuth.pipeline"])
        else:
            ctx = multiprocessing.get_context("spawn")
        blob = pickle.dumps(rules)
    return ProcessPoolExecutor(
        max_workers=workers, mp_context=ctx, initializer=_worker_init, initargs=(blob, model, max_job_bytes)
    )


def batch_size(jobs: int, workers: int) -> int:
    """Jobs per task: up to 16, and at least 4 tasks per worker so that the work stays balanced to the end."""
    return max(1, min(16, jobs // (workers * 4)))


def _run_local(
    todo: list[Job], rules: RuleSet, workers: int, model: bool, max_job_bytes: int | None, emit: Emit
) -> None:
    """Analyse ``todo`` in ``workers`` processes: batches of jobs (``jobs.batches``, largest first), at most
    ``workers + 1`` batches in flight.

    A worker that dies (killed by the OS, out of memory, a crash in C code) breaks the pool: the jobs of the
    batches in flight are then re-run one at a time in a pool of their own, the one that kills its worker again
    gets an error row, and the rest of the queue goes on in a new pool.
    """
    if workers <= 1 or len(todo) <= 1:
        for job in todo:
            emit(job, analyze_job(job, rules, model=model, max_job_bytes=max_job_bytes))
        return
    from collections import deque
    from concurrent.futures import FIRST_COMPLETED, wait
    from concurrent.futures.process import BrokenProcessPool

    queue = deque(batches(todo, max_jobs=batch_size(len(todo), workers), max_bytes=BATCH_BYTES))
    if len(queue) >= 4 * workers and _forks():
        # the smallest batch is analysed here first: the imports, compiled regexes and (if one of its jobs needs
        # it) the classifier are then set up once, in this process, and every forked worker starts with them,
        # instead of each worker paying ~0.5 s of CPU for the same start-up
        for job in queue.pop():
            emit(job, analyze_job(job, rules, model=model, max_job_bytes=max_job_bytes))
    suspects: list[Job] = []
    while queue or suspects:
        if suspects:
            job = suspects.pop()
            solo = _pool(1, rules, model, max_job_bytes)
            try:
                row = solo.submit(_worker_run, [job]).result()[0]
            except BrokenProcessPool:
                row = error_row(job, "the worker process analysing this job died (killed by the OS, out of memory?)")
            except BaseException:
                _terminate(solo)
                raise
            finally:
                solo.shutdown(wait=True, cancel_futures=True)
                _INHERITED.clear()
            emit(job, row)
            continue
        n = min(workers, len(queue))
        pool = _pool(n, rules, model, max_job_bytes)
        in_flight: dict[Any, list[Job]] = {}
        try:
            while queue or in_flight:
                while queue and len(in_flight) < n + 1:
                    batch = queue.popleft()
                    in_flight[pool.submit(_worker_run, batch)] = batch
                done, _ = wait(list(in_flight), return_when=FIRST_COMPLETED)
                broken = False
                for fut in done:
                    batch = in_flight.pop(fut)
                    try:
                        rows = fut.result()
                    except BrokenProcessPool:
                        suspects.extend(batch)
                        broken = True
                        continue
                    for job, row in zip(batch, rows):
                        emit(job, row)
                if broken:
                    for batch in in_flight.values():
                        suspects.extend(batch)
                    in_flight.clear()
                    break
        except BaseException:
            _terminate(pool)
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
            _INHERITED.clear()


def _terminate(pool: Any) -> None:
    """Stop a process pool now (Ctrl-C): cancel what is queued, stop the workers, and let the pool's manager thread
    wind down before this process exits.

    Python 3.11's exit hook for ``concurrent.futures.process`` (``_python_exit``) writes to each live manager
    thread's wake-up pipe without the lock that thread takes to close it: if the thread is still closing the pool
    when the interpreter exits, that write prints "OSError: [Errno 9] Bad file descriptor" with a traceback after our
    one-line message (seen in CI; Python 3.12 takes the lock). How long the thread needs depends on the machine's
    load, so no wait is long enough for sure: wait ``TERMINATE_WAIT_S``, SIGKILL the workers still alive and wait
    again, and if the thread is still running then, take its wake-up pipe out of the exit hook's table (the
    interpreter still joins the thread at exit, it only no longer races it)."""
    import concurrent.futures.process as cfp

    procs = list((getattr(pool, "_processes", None) or {}).values())  # no public API to kill the workers
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for proc in procs:
        try:
            proc.terminate()
        except Exception:  # noqa: BLE001 - already gone
            pass
    if manager is None:
        return
    manager.join(timeout=TERMINATE_WAIT_S)
    if manager.is_alive():
        for proc in procs:
            try:
                proc.kill()
            except Exception:  # noqa: BLE001 - already gone
                pass
        manager.join(timeout=TERMINATE_WAIT_S)
    if manager.is_alive():
        wakeups = getattr(cfp, "_threads_wakeups", None)
        if wakeups is not None:
            wakeups.pop(manager, None)


class LocalExecutor:
    """Processes on this machine: ``workers`` of them (1 = in this process), batches of jobs per task; the rules
    reach each worker once (inherited when forked, else pickled)."""

    def __init__(self, rules: RuleSet, workers: int, model: bool, max_job_bytes: int | None) -> None:
        self.rules, self.workers, self.model, self.max_job_bytes = rules, max(1, workers), model, max_job_bytes

    def run(self, todo: list[Job], emit: Emit) -> None:
        _run_local(todo, self.rules, self.workers, self.model, self.max_job_bytes, emit)
