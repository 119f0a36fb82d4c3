"""Batch-scan an archive of job logs into a pandas table: one row per job, its verdict and root cause.

``scan(paths)`` finds log files (``*.log|out|err|txt``, optionally ``.gz``/``.zst``), groups them into jobs,
analyses every job with ``logsleuth.analyze`` (rules loaded once per worker process) in parallel processes or on a
Ray cluster, and returns a ``DataFrame`` with the fixed columns of ``COLUMNS``. A job that cannot be read becomes a
row with ``error`` set; the scan goes on. ``write_table`` writes Parquet/CSV/JSONL atomically; ``summarize`` counts
jobs by root cause. With ``cache=FILE`` finished jobs are appended to a JSONL cache as they complete, so a later
(or killed and restarted) scan skips every job whose files (path, size, mtime) and rules/model are unchanged.

Grouping (``group_by``):

- ``dir`` (default): one directory = one job (the log files directly in it; sub-directories are their own jobs).
- ``file``: one file = one job.

In both modes the multi-file layouts that ``analyze`` understands stay one job, rooted where the layout starts:
a torchrun ``--log-dir`` run (``<run>/attempt_<n>/<local_rank>/{stdout,stderr}.log`` -> ``<run>``, analysed as a
directory so its ``error.json`` files are read) and a Ray session log folder (a directory holding ``raylet.out``
or ``gcs_server.out``, with its sub-folders such as ``events/``).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import re
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import InputError, LogsleuthError
from .read import is_log_name

if TYPE_CHECKING:
    import pandas as pd

    from .rules.engine import RuleSet
    from .types import Diagnosis

#: The table's columns, in order, with their pandas dtypes.
COLUMNS: dict[str, str] = {
    "job": "object",                # job name: the job's directory or file, as found under the scanned path
    "paths": "object",              # list[str]: the files read, in order
    "files": "int64",               # number of files
    "bytes": "int64",               # size of the files on disk (compressed size for .gz/.zst)
    "lines": "Int64",               # lines read (uncompressed); <NA> when the job could not be read
    "verdict": "category",          # failure | no_failure | unknown; <NA> for an unreadable job
    "root_cause": "category",       # taxonomy id (no_failure / unknown for those verdicts); categories: all ids
    "confidence": "float64",        # 0..1
    "method": "category",           # rule | model | rule+model
    "rule_id": "category",          # the winning rule's id
    "first_failure_time": "datetime64[ns]",  # time printed on the first failing line (naive; year 1900 = no year)
    "first_failure_rank": "Int64",
    "first_failure_host": "category",
    "first_failure_path": "object",
    "first_failure_line": "Int64",  # 1-based line number in first_failure_path
    "first_failure_text": "object",  # the line (a traceback: its last MAX_TEXT characters)
    "symptoms": "object",           # list[str]: root-cause ids explained as collateral, first seen first
    "versions": "object",           # "name=version, ..." (nccl, torch, cuda, driver, vllm...) found in the logs, or None
    "error": "object",              # why the job (or some of its files) could not be read; None when all was read
    "seconds": "float64",           # wall time of the job's analysis
}
_CATEGORIES = {"verdict": ["failure", "no_failure", "unknown"], "method": ["rule", "model", "rule+model"]}
MAX_TEXT = 1000
OUTPUT_SUFFIXES = (".parquet", ".csv", ".jsonl")
CACHE_FORMAT = 1
_RAY_MARKERS = ("raylet.out", "gcs_server.out")
_ATTEMPT = re.compile(r"attempt_\d+")

ProgressFn = Callable[["ScanProgress"], None]


@dataclass(frozen=True)
class Job:
    """One job to analyse.

    Attributes:
        name: the job's directory or file path (as found under the scanned path), unique within a scan.
        paths: the files, sorted.
        bytes: their total size on disk.
        fingerprint: sha256 over (path, size, mtime_ns) of every file; changes when a file changes.
        analyze_paths: what ``analyze`` gets (the files, or the layout's root directory for torchrun/Ray layouts).
    """

    name: str
    paths: tuple[str, ...]
    bytes: int
    fingerprint: str
    analyze_paths: tuple[str, ...]


@dataclass(frozen=True)
class ScanProgress:
    """Progress report: sent once before the first job (``job`` None: the totals) and after every finished job.

    Attributes:
        job: the job that finished (None for the first report).
        row: its row.
        cached: True when the row came from the cache.
        done, total: jobs finished / in the scan.
        done_files, total_files: files of the finished jobs / in the scan.
        done_bytes, total_bytes: bytes on disk of the finished jobs / in the scan.
    """

    job: Job | None
    row: dict[str, Any] | None
    cached: bool
    done: int
    total: int
    done_files: int
    total_files: int
    done_bytes: int
    total_bytes: int


@dataclass
class ScanPlan:
    """The jobs a scan will run: ``jobs`` (all), ``todo`` (not in the cache), ``cached_rows`` (by job name) and the
    cache's ``other_entries`` (``(fingerprint, row)`` of jobs outside this scan, kept when the cache is rewritten)."""

    jobs: list[Job]
    todo: list[Job]
    cached_rows: dict[str, dict[str, Any]] = field(default_factory=dict)
    other_entries: list[tuple[str, dict[str, Any]]] = field(default_factory=list)  # cache rows of other jobs

    @property
    def total_bytes(self) -> int:
        return sum(j.bytes for j in self.jobs)


# --------------------------------------------------------------------------------------------- discovery

def _walk(root: str) -> Iterator[str]:
    """Regular files with log names under ``root``, sorted (FIFOs, sockets and devices are never opened)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if is_log_name(name) and os.path.isfile(path):
                yield path


def _is_layout_root(d: str) -> bool:
    """A torchrun ``--log-dir`` run (has ``attempt_<n>/`` sub-directories) or a Ray session log folder."""
    try:
        with os.scandir(d) as it:
            for e in it:
                if e.name in _RAY_MARKERS and e.is_file():
                    return True
                if _ATTEMPT.fullmatch(e.name) and e.is_dir():
                    return True
    except OSError:
        return False
    return False


def _layout_root(path: str, top: str, roots: dict[str, bool]) -> str | None:
    """The nearest directory holding ``path`` (never above ``top``) that is a multi-file layout's root, or None."""
    cur = os.path.dirname(path) or "."
    top = top or "."
    for _ in range(64):
        is_root = roots.get(cur)
        if is_root is None:
            is_root = roots[cur] = _is_layout_root(cur)
        if is_root:
            return cur
        if cur == top:
            break
        parent = os.path.dirname(cur)
        if not parent or parent == cur:
            break
        cur = parent
    return None


def _fingerprint(stats: Iterable[tuple[str, int, int]]) -> str:
    h = hashlib.sha256()
    for path, size, mtime in stats:
        h.update(f"{os.path.abspath(path)}\0{size}\0{mtime}\n".encode())
    return h.hexdigest()


def discover(paths: Sequence[str | os.PathLike[str]], group_by: str = "dir") -> list[Job]:
    """Find the log files under ``paths`` and group them into jobs.

    Args:
        paths: files and directories; directories are walked recursively for log file names. A file named
            explicitly is read whatever its name.
        group_by: ``dir`` (one directory = one job) or ``file`` (one file = one job); see the module docstring.

    Returns:
        Jobs sorted by name.

    Raises:
        InputError: a path does not exist, ``group_by`` is unknown, or no log file was found.
    """
    if group_by not in ("dir", "file"):
        raise InputError(f"unknown --group-by {group_by!r}; choose dir or file")
    groups: dict[str, list[str]] = {}
    layout: set[str] = set()
    ray_dirs: dict[str, bool] = {}
    for p in paths:
        s = os.path.normpath(os.fspath(p))
        if os.path.isdir(s):
            files = list(_walk(s))
            top = s
        elif os.path.exists(s):
            files = [s]
            top = os.path.dirname(s) or "."
        else:
            raise InputError("no such file or directory", s)
        for f in files:
            root = _layout_root(f, top, ray_dirs)
            if root is not None:
                layout.add(root)
                key = root
            else:
                key = (os.path.dirname(f) or ".") if group_by == "dir" else f
            members = groups.setdefault(key, [])
            if f not in members:
                members.append(f)
    if not groups:
        raise InputError("no log files found (*.log, *.out, *.err, *.txt, optionally .gz/.zst)",
                         ", ".join(os.fspath(p) for p in paths))
    jobs: list[Job] = []
    for name, files in sorted(groups.items()):
        files.sort()
        stats = []
        for f in files:
            try:
                st = os.stat(f)
                stats.append((f, st.st_size, st.st_mtime_ns))
            except OSError:
                stats.append((f, 0, 0))  # reported as an error row when analysed
        jobs.append(Job(
            name=name, paths=tuple(files), bytes=sum(s[1] for s in stats), fingerprint=_fingerprint(stats),
            analyze_paths=(name,) if name in layout else tuple(files),
        ))
    return jobs


# --------------------------------------------------------------------------------------------- one job -> row

def _versions_text(versions: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(versions.items()))


def row_from_diagnosis(job: Job, d: Diagnosis) -> dict[str, Any]:
    """One table row (``COLUMNS``) for ``job`` from its diagnosis."""
    ff = d.first_failure
    symptoms: list[str] = []
    for m in d.symptoms:
        if m.root_cause not in symptoms:
            symptoms.append(m.root_cause)
    skipped = d.stats.get("skipped") or []
    error = None
    if skipped:
        error = f"{len(skipped)} of {len(job.paths)} files unreadable; first: {skipped[0]['error']}"
    text = ff.text if ff is not None else None
    if text is not None and len(text) > MAX_TEXT:
        text = "…" + text[-MAX_TEXT:]
    return {
        "job": job.name,
        "paths": list(job.paths),
        "files": len(job.paths),
        "bytes": job.bytes,
        "lines": d.stats.get("lines"),
        "verdict": d.verdict,
        "root_cause": d.root_cause,
        "confidence": float(d.confidence),
        "method": d.method,
        "rule_id": d.rule_id,
        "first_failure_time": ff.time.isoformat() if ff is not None and ff.time is not None else None,
        "first_failure_rank": ff.rank if ff is not None else None,
        "first_failure_host": ff.host if ff is not None else None,
        "first_failure_path": ff.path if ff is not None else None,
        "first_failure_line": ff.line if ff is not None else None,
        "first_failure_text": text,
        "symptoms": symptoms,
        "versions": _versions_text(d.versions) or None,
        "error": error,
        "seconds": float(d.stats.get("seconds", 0.0)),
    }


def error_row(job: Job, message: str, seconds: float = 0.0) -> dict[str, Any]:
    """The row of a job that could not be analysed."""
    row: dict[str, Any] = {c: None for c in COLUMNS}
    row.update({"job": job.name, "paths": list(job.paths), "files": len(job.paths), "bytes": job.bytes,
                "symptoms": [], "error": message, "seconds": float(seconds)})
    return row


def analyze_job(job: Job, rules: RuleSet, *, model: bool = True, max_job_bytes: int | None = None) -> dict[str, Any]:
    """Analyse one job; never raises for a bad input (the row's ``error`` says what went wrong)."""
    from .pipeline import analyze

    t0 = time.perf_counter()
    if max_job_bytes is not None and job.bytes > max_job_bytes:
        return error_row(job, f"job is {job.bytes} bytes, over the limit of {max_job_bytes} bytes; not read")
    try:
        d = analyze(list(job.analyze_paths), rules=rules, model=model)
    except LogsleuthError as exc:
        return error_row(job, str(exc), time.perf_counter() - t0)
    except (MemoryError, RecursionError, OSError, ValueError, UnicodeError) as exc:
        return error_row(job, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - a bug on one input must not stop a scan of thousands
        return error_row(job, f"internal error {type(exc).__name__}: {exc}", time.perf_counter() - t0)
    return row_from_diagnosis(job, d)


# --------------------------------------------------------------------------------------------- worker processes

_WORKER: dict[str, Any] = {}


def _worker_init(rules_blob: bytes, model: bool, max_job_bytes: int | None) -> None:
    import pickle

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle: it stops the pool
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
    if "fork" in methods and threading.active_count() == 1:
        ctx = multiprocessing.get_context("fork")
    elif "forkserver" in methods:
        ctx = multiprocessing.get_context("forkserver")
        ctx.set_forkserver_preload(["logsleuth.scan", "logsleuth.pipeline"])
    else:
        ctx = multiprocessing.get_context("spawn")
    return ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_worker_init,
                               initargs=(rules_blob, model, max_job_bytes))


def _run_local(todo: list[Job], rules: RuleSet, workers: int, model: bool, max_job_bytes: int | None,
               emit: Callable[[Job, dict[str, Any]], None]) -> None:
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


# --------------------------------------------------------------------------------------------- Ray

_RAY_RULES: dict[str, Any] = {}


def _ray_task(jobs: list[Job], rules_ref: list[Any], rules_key: str, model: bool,
              max_job_bytes: int | None) -> list[dict[str, Any]]:
    """Runs on a Ray worker: the rules are fetched once per worker process (cached by fingerprint)."""
    rules = _RAY_RULES.get(rules_key)
    if rules is None:
        import ray

        rules = _RAY_RULES[rules_key] = ray.get(rules_ref[0])
    return [analyze_job(job, rules, model=model, max_job_bytes=max_job_bytes) for job in jobs]


def _batches(jobs: list[Job], max_jobs: int = 16, max_bytes: int = 64 << 20) -> list[list[Job]]:
    out: list[list[Job]] = []
    cur: list[Job] = []
    size = 0
    for job in sorted(jobs, key=lambda j: -j.bytes):
        if cur and (len(cur) >= max_jobs or size + job.bytes > max_bytes):
            out.append(cur)
            cur, size = [], 0
        cur.append(job)
        size += job.bytes
    if cur:
        out.append(cur)
    return out


def _as_given(row: dict[str, Any], job: Job) -> dict[str, Any]:
    """Paths in a row computed from absolute paths (Ray) written as the user gave them, as in local mode."""
    prefixes = sorted(((os.path.abspath(a), a) for a in job.analyze_paths), key=lambda x: -len(x[0]))
    for col in ("first_failure_path", "error"):
        v = row.get(col)
        if not isinstance(v, str):
            continue
        for absolute, given in prefixes:
            if absolute != given and absolute in v:
                v = v.replace(absolute, given)
        row[col] = v
    return row


def _run_ray(todo: list[Job], rules: RuleSet, address: str | None, model: bool, max_job_bytes: int | None,
             emit: Callable[[Job, dict[str, Any]], None]) -> None:
    try:
        import ray
    except ImportError as exc:
        raise LogsleuthError("--engine ray needs Ray: pip install 'logsleuth[ray]'") from exc
    connected_here = not ray.is_initialized()
    if connected_here:
        import logging

        try:
            ray.init(address=address or os.environ.get("RAY_ADDRESS") or "auto", log_to_driver=False,
                     logging_level=logging.WARNING)
        except ConnectionError as exc:
            raise LogsleuthError(f"cannot connect to a Ray cluster at {address or 'auto'} ({exc}); "
                                 "start one with 'ray start --head' or pass --address") from exc
    try:
        _run_ray_tasks(ray, todo, rules, model, max_job_bytes, emit)
    finally:
        if connected_here:
            ray.shutdown()  # disconnects this driver; the cluster keeps running


def _run_ray_tasks(ray: Any, todo: list[Job], rules: RuleSet, model: bool, max_job_bytes: int | None,
                   emit: Callable[[Job, dict[str, Any]], None]) -> None:
    rules_ref = ray.put(rules)
    task = ray.remote(num_cpus=1, max_retries=1)(_ray_task)
    # absolute paths: Ray workers may run in another working directory (the archive must be on a shared filesystem)
    running = {}
    for batch in _batches(todo):
        ajobs = [Job(j.name, j.paths, j.bytes, j.fingerprint, tuple(os.path.abspath(p) for p in j.analyze_paths))
                 for j in batch]
        ref = task.remote(ajobs, [rules_ref], rules.fingerprint(), model, max_job_bytes)
        running[ref] = batch
    try:
        while running:
            ready, _ = ray.wait(list(running), num_returns=1)
            for ref in ready:
                batch = running.pop(ref)
                try:
                    rows = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - a worker crash / task error fails only this batch
                    rows = [error_row(j, f"Ray task failed: {type(exc).__name__}: {str(exc).splitlines()[0]}")
                            for j in batch]
                for job, row in zip(batch, rows):
                    emit(job, _as_given(row, job))
    except BaseException:
        for ref in running:
            ray.cancel(ref, force=True)
        raise


# --------------------------------------------------------------------------------------------- cache

def _model_fingerprint() -> str:
    try:
        from .classify.model import MODEL_DIR, SIDECAR_FILE
    except Exception:  # noqa: BLE001 - no classifier installed
        return "none"
    sidecar = Path(MODEL_DIR) / SIDECAR_FILE
    try:
        return hashlib.sha256(sidecar.read_bytes()).hexdigest()[:16]
    except OSError:
        return "none"


def settings_key(rules: RuleSet, model: bool, max_job_bytes: int | None) -> str:
    """What, besides the files, decides a job's row: logsleuth's version, the rules, the model, the options."""
    from . import __version__

    parts = [f"format={CACHE_FORMAT}", f"logsleuth={__version__}", f"rules={rules.fingerprint()}",
             f"model={_model_fingerprint() if model else 'off'}", f"max_job_bytes={max_job_bytes}"]
    return hashlib.sha256(";".join(parts).encode()).hexdigest()[:24]


def load_cache(path: str | os.PathLike[str], settings: str) -> dict[tuple[str, str], dict[str, Any]]:
    """Rows of a JSONL cache, keyed by (job fingerprint, settings); a torn last line (killed scan) is skipped."""
    out: dict[tuple[str, str], dict[str, Any]] = {}
    try:
        f = open(path, encoding="utf-8")  # noqa: SIM115
    except FileNotFoundError:
        return out
    except OSError as exc:
        raise InputError(f"cannot read the scan cache ({exc.strerror})", os.fspath(path)) from exc
    with f:
        for line in f:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and entry.get("settings") == settings and isinstance(entry.get("row"), dict):
                out[(entry.get("fingerprint", ""), entry["row"].get("job", ""))] = entry["row"]
    return out


class _CacheWriter:
    """Appends one JSON line per finished job and flushes it, so a killed scan keeps what it finished."""

    def __init__(self, path: str | os.PathLike[str], settings: str) -> None:
        self.path = os.fspath(path)
        self.settings = settings
        try:
            self.f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise InputError(f"cannot write the scan cache ({exc.strerror})", self.path) from exc

    def add(self, job: Job, row: dict[str, Any]) -> None:
        self.f.write(json.dumps({"settings": self.settings, "fingerprint": job.fingerprint, "row": row},
                                ensure_ascii=False, default=str) + "\n")
        self.f.flush()

    def close(self) -> None:
        self.f.close()

    def compact(self, rows: Iterable[tuple[str, dict[str, Any]]]) -> None:
        """Rewrite the cache (atomically) with ``(fingerprint, row)`` entries only, dropping stale and torn lines."""
        tmp = f"{self.path}.tmp-{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                for fingerprint, row in rows:
                    f.write(json.dumps({"settings": self.settings, "fingerprint": fingerprint, "row": row},
                                       ensure_ascii=False, default=str) + "\n")
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)


# --------------------------------------------------------------------------------------------- the scan

def plan(paths: Sequence[str | os.PathLike[str]], *, group_by: str = "dir", rules: RuleSet | None = None,
         cache: str | os.PathLike[str] | None = None, model: bool = True,
         max_job_bytes: int | None = None) -> ScanPlan:
    """Discover the jobs and split them into cached and to-do (see ``scan`` for the arguments)."""
    jobs = discover(paths, group_by)
    if cache is None or rules is None:
        return ScanPlan(jobs, list(jobs))
    cached = load_cache(cache, settings_key(rules, model, max_job_bytes))
    hit: dict[str, dict[str, Any]] = {}
    todo: list[Job] = []
    for j in jobs:
        row = cached.get((j.fingerprint, j.name))
        if row is not None and not row.get("error"):
            hit[j.name] = row
        else:
            todo.append(j)
    names = {j.name for j in jobs}
    latest: dict[str, tuple[str, dict[str, Any]]] = {}
    for (fp, name), row in cached.items():  # file order: the last entry of a job is its newest
        if name not in names:
            latest[name] = (fp, row)
    others = list(latest.values())
    return ScanPlan(jobs, todo, hit, others)


def scan(
    paths: Sequence[str | os.PathLike[str]] | str | os.PathLike[str],
    *,
    jobs: int | None = None,
    group_by: str = "dir",
    rules: RuleSet | None = None,
    rules_dirs: Sequence[str | os.PathLike[str]] = (),
    model: bool = True,
    cache: str | os.PathLike[str] | None = None,
    engine: str = "local",
    address: str | None = None,
    max_job_bytes: int | None = None,
    progress: ProgressFn | None = None,
) -> pd.DataFrame:
    """Diagnose every job under ``paths`` and return one row per job.

    Args:
        paths: directories (walked recursively) and files.
        jobs: worker processes for ``engine="local"`` (default: all CPUs this process may use; 1 = in this process).
        group_by: ``dir`` (one directory = one job, default) or ``file`` (one file = one job); torchrun
            ``--log-dir`` runs and Ray session folders are one job either way (module docstring).
        rules: a loaded rule set; default: built-ins plus ``rules_dirs``. Loaded once here, sent once to each worker.
        rules_dirs: extra rule directories (ignored when ``rules`` is given).
        model: let the shipped classifier vote (as ``analyze``).
        cache: a JSONL file: jobs whose files (path, size, mtime) and rules/model/options are unchanged since a
            previous scan are taken from it; finished jobs are appended as they complete (a killed scan resumes);
            at the end it is rewritten without stale entries (other jobs' entries are kept). Rows with ``error``
            are never cached.
        engine: ``local`` (processes on this machine) or ``ray`` (tasks on a Ray cluster; the files must be
            readable at the same absolute paths on every node).
        address: the Ray cluster's address (default: ``RAY_ADDRESS``, else ``auto``); an already
            initialised Ray session (``ray.init``) is used as is.
        max_job_bytes: jobs larger than this (on disk) are not read; their row says so in ``error``.
        progress: called in this process with a ``ScanProgress`` once before the first job and after every job.

    Returns:
        A ``DataFrame`` with ``COLUMNS`` (names and dtypes fixed), one row per job, sorted by ``job``.

    Raises:
        InputError: a path does not exist, no log file found, unknown ``group_by``/``engine``, unreadable cache.
        RuleError: an invalid rule.
        LogsleuthError: Ray requested but not installed or not reachable.
        KeyboardInterrupt: re-raised after the workers are stopped (the cache keeps the finished jobs).
    """
    from .rules.engine import load_rules

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if engine not in ("local", "ray"):
        raise InputError(f"unknown engine {engine!r}; choose local or ray")
    rules = rules if rules is not None else load_rules(rules_dirs)
    p = plan(paths, group_by=group_by, rules=rules, cache=cache, model=model, max_job_bytes=max_job_bytes)
    workers = jobs if jobs is not None else default_jobs()
    rows: dict[str, dict[str, Any]] = {}
    total, total_bytes, total_files = len(p.jobs), p.total_bytes, sum(len(j.paths) for j in p.jobs)
    counters = {"done": 0, "bytes": 0, "files": 0}
    if progress is not None:
        progress(ScanProgress(None, None, False, 0, total, 0, total_files, 0, total_bytes))

    def report(job: Job, row: dict[str, Any], cached: bool) -> None:
        rows[job.name] = row
        counters["done"] += 1
        counters["bytes"] += job.bytes
        counters["files"] += len(job.paths)
        if progress is not None:
            progress(ScanProgress(job, row, cached, counters["done"], total, counters["files"], total_files,
                                  counters["bytes"], total_bytes))

    by_name = {j.name: j for j in p.jobs}
    for name, row in p.cached_rows.items():
        report(by_name[name], row, True)
    writer = _CacheWriter(cache, settings_key(rules, model, max_job_bytes)) if cache is not None else None

    def emit(job: Job, row: dict[str, Any]) -> None:
        if writer is not None and not row.get("error"):
            writer.add(job, row)
        report(job, row, False)

    try:
        if engine == "ray":
            _run_ray(p.todo, rules, address, model, max_job_bytes, emit)
        else:
            _run_local(p.todo, rules, max(1, workers), model, max_job_bytes, emit)
    finally:
        if writer is not None:
            writer.close()
    if writer is not None:
        mine = [(by_name[n].fingerprint, r) for n, r in sorted(rows.items()) if not r.get("error")]
        writer.compact(mine + p.other_entries)
    return to_frame([rows[j.name] for j in p.jobs])


def default_jobs() -> int:
    """Worker processes by default: the CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - macOS/Windows
        return os.cpu_count() or 1


# --------------------------------------------------------------------------------------------- table I/O

def to_frame(rows: Sequence[dict[str, Any]]) -> pd.DataFrame:
    """Rows (dicts with ``COLUMNS``' keys) -> a ``DataFrame`` with ``COLUMNS``' names, order and dtypes."""
    import pandas as pd

    df = pd.DataFrame(list(rows), columns=list(COLUMNS))
    return _set_dtypes(df)


def _set_dtypes(df: pd.DataFrame) -> pd.DataFrame:
    import pandas as pd

    for col, dtype in COLUMNS.items():
        s = df[col]
        if dtype == "category":
            values = s.astype(object).where(s.notna(), None)
            cats = _CATEGORIES.get(col) or sorted({v for v in values if v is not None})
            if col == "root_cause":  # every taxonomy id, so that tables of different scans share one dtype
                from .taxonomy import ALL_IDS

                cats = sorted(set(ALL_IDS) | set(cats))
            df[col] = pd.Categorical(values, categories=cats)
        elif dtype.startswith("datetime64"):
            df[col] = pd.to_datetime(s, errors="coerce", format="ISO8601").astype(dtype)
        elif dtype == "Int64":
            df[col] = pd.array([None if _missing(v) else int(v) for v in s], dtype="Int64")
        elif dtype in ("int64", "float64"):
            df[col] = s.astype(dtype)
        elif col in ("paths", "symptoms"):
            df[col] = pd.Series([_as_list(v) for v in s], index=df.index, dtype=object)
        else:
            df[col] = pd.Series([None if _missing(v) else str(v) for v in s], index=df.index, dtype=object)
    return df


def _missing(v: Any) -> bool:
    """None, NaN, NaT or pd.NA (a list or array is not missing)."""
    import pandas as pd

    if v is None:
        return True
    r = pd.isna(v)
    return r if isinstance(r, bool) else bool(getattr(r, "ndim", 1) == 0 and r)


def _as_list(v: Any) -> list[str]:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return []
    if isinstance(v, str):
        v = json.loads(v) if v.startswith("[") else [v]
    return [str(x) for x in v]


def write_table(df: pd.DataFrame, output: str | os.PathLike[str]) -> None:
    """Write the table atomically (a temporary file in the same directory, then a rename), by suffix.

    ``.parquet`` (needs pyarrow: ``pip install 'logsleuth[parquet]'``) keeps every dtype; ``.csv`` writes the list
    columns as JSON arrays and times as ISO 8601; ``.jsonl`` writes one JSON object per job.

    Raises:
        LogsleuthError: unknown suffix, pyarrow missing, or the file cannot be written.
    """
    out = os.fspath(output)
    suffix = Path(out).suffix.lower()
    if suffix not in OUTPUT_SUFFIXES:
        raise LogsleuthError(f"unknown output type {suffix or '(none)'}; use {', '.join(OUTPUT_SUFFIXES)}", out)
    if suffix == ".parquet":
        try:
            import pyarrow  # noqa: F401
        except ImportError as exc:
            raise LogsleuthError("writing .parquet needs pyarrow: pip install 'logsleuth[parquet]'", out) from exc
    parent = os.path.dirname(os.path.abspath(out))
    tmp = os.path.join(parent, f".{os.path.basename(out)}.tmp-{os.getpid()}")
    try:
        if suffix == ".parquet":
            df.to_parquet(tmp, engine="pyarrow", index=False)
        elif suffix == ".csv":
            flat = df.copy()
            for col in ("paths", "symptoms"):
                flat[col] = [json.dumps(list(v)) for v in flat[col]]
            flat.to_csv(tmp, index=False, date_format="%Y-%m-%dT%H:%M:%S.%f")
        else:
            df.to_json(tmp, orient="records", lines=True, date_format="iso", date_unit="us", force_ascii=False)
        os.replace(tmp, out)
    except OSError as exc:
        raise LogsleuthError(f"cannot write the table ({exc.strerror or exc})", out) from exc
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def read_table(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a table written by ``write_table`` back with ``COLUMNS``' dtypes (any of the three formats)."""
    import pandas as pd

    p = os.fspath(path)
    suffix = Path(p).suffix.lower()
    try:
        if suffix == ".parquet":
            df = pd.read_parquet(p)
        elif suffix == ".csv":
            df = pd.read_csv(p, dtype=str, keep_default_na=False, na_values=[""])
        elif suffix == ".jsonl":
            df = pd.read_json(p, lines=True, dtype=False)
        else:
            raise LogsleuthError(f"unknown table type {suffix or '(none)'}; use {', '.join(OUTPUT_SUFFIXES)}", p)
    except (OSError, ValueError) as exc:
        raise InputError(f"cannot read the table ({exc})", p) from exc
    for col in COLUMNS:
        if col not in df.columns:
            raise InputError(f"not a logsleuth scan table: column {col!r} missing", p)
    df = df[list(COLUMNS)].copy()
    if suffix == ".parquet":
        for col in ("paths", "symptoms"):
            df[col] = [list(v) if v is not None else [] for v in df[col]]
    for col in ("lines", "first_failure_rank", "first_failure_line"):
        df[col] = [None if _missing(v) else int(float(v)) for v in df[col]]
    return _set_dtypes(df)


# --------------------------------------------------------------------------------------------- summary

def summarize(df: pd.DataFrame) -> pd.DataFrame:
    """Jobs per root cause, most frequent first.

    Returns:
        Columns ``root_cause`` (``error`` for unreadable jobs), ``jobs``, ``share`` (0..1), ``first_seen``,
        ``last_seen`` (range of ``first_failure_time``, year-less times left out; NaT when none), ``example``
        (the first job, by name).
    """
    import pandas as pd

    from .parse.timestamps import YEARLESS

    rc = df["root_cause"].astype(object).where(df["root_cause"].notna(), "error")
    t = df["first_failure_time"]
    g = pd.DataFrame({"root_cause": rc, "job": df["job"], "t": t.where(t.dt.year != YEARLESS)})
    if len(g) == 0:
        return pd.DataFrame(columns=["root_cause", "jobs", "share", "first_seen", "last_seen", "example"])
    out = g.groupby("root_cause", sort=False).agg(
        jobs=("job", "size"), first_seen=("t", "min"), last_seen=("t", "max"), example=("job", "first"))
    out = out.reset_index()
    out["share"] = out["jobs"] / len(df)
    out = out.sort_values(["jobs", "root_cause"], ascending=[False, True], kind="stable").reset_index(drop=True)
    return out[["root_cause", "jobs", "share", "first_seen", "last_seen", "example"]]


def render_summary(summary: pd.DataFrame, fmt: str = "text") -> str:
    """The summary as ``text`` (aligned columns), ``markdown`` (a GitHub table) or ``json`` (a list of objects)."""
    from .taxonomy import title as taxonomy_title

    recs = []
    for r in summary.itertuples(index=False):
        recs.append({
            "root_cause": r.root_cause,
            "title": "could not be read" if r.root_cause == "error" else taxonomy_title(r.root_cause),
            "jobs": int(r.jobs),
            "share": round(float(r.share), 4),
            "first_seen": None if _missing(r.first_seen) else r.first_seen.isoformat(),
            "last_seen": None if _missing(r.last_seen) else r.last_seen.isoformat(),
            "example": r.example,
        })
    if fmt == "json":
        return json.dumps({"total_jobs": sum(x["jobs"] for x in recs), "root_causes": recs}, indent=2,
                          ensure_ascii=False) + "\n"
    header = ["root cause", "jobs", "share", "first seen", "last seen", "example"]
    table = [[x["root_cause"], str(x["jobs"]), f"{100 * x['share']:.1f}%", x["first_seen"] or "-",
              x["last_seen"] or "-", x["example"]] for x in recs]
    total = sum(x["jobs"] for x in recs)
    if fmt == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|" + "|".join(["---", "---:", "---:", "---", "---", "---"]) + "|"]
        lines += ["| " + " | ".join(c.replace("|", "\\|") for c in row) + " |" for row in table]
        return "\n".join(lines) + f"\n\n{total} jobs.\n"
    if fmt != "text":
        raise LogsleuthError(f"unknown summary format {fmt!r}; choose text, markdown or json")
    widths = [max(len(h), *(len(row[i]) for row in table)) if table else len(h) for i, h in enumerate(header)]
    fmt_row = "  ".join("{:<%d}" % w if i not in (1, 2) else "{:>%d}" % w for i, w in enumerate(widths))
    lines = [fmt_row.format(*header)] + [fmt_row.format(*row) for row in table]
    return "\n".join(x.rstrip() for x in lines) + f"\n{total} jobs.\n"
