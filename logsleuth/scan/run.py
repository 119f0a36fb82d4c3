"""The scan itself: discover, split off cached jobs, run the rest on an executor, build the table."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .cache import CacheWriter, load_cache, settings_key
from .discover import discover
from .executor import ENGINES, make_executor
from .jobs import Job, ProgressFn, ScanPlan, ScanProgress
from .rows import redact_row
from .table import to_frame

if TYPE_CHECKING:
    import pandas as pd

    from ..rules.engine import RuleSet


def plan(
    paths: Sequence[str | os.PathLike[str]],
    *,
    group_by: str = "dir",
    rules: RuleSet | None = None,
    cache: str | os.PathLike[str] | None = None,
    model: bool = True,
    max_job_bytes: int | None = None,
    redact: bool = True,
) -> ScanPlan:
    """Discover the jobs and split them into cached and to-do (see ``scan`` for the arguments)."""
    jobs = discover(paths, group_by)
    if cache is None or rules is None:
        return ScanPlan(jobs, list(jobs))
    cached = load_cache(cache, settings_key(rules, model, max_job_bytes, redact))
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
    redact: bool = True,
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
        max_job_bytes: jobs larger than this (on disk, or decompressed while reading) are not analysed; their row
            says so in ``error``.
        progress: called in this process with a ``ScanProgress`` once before the first job and after every job.
        redact: redact secrets in the text the rows copy from the logs (``first_failure_text``, ``error``), in the
            table and in the cache (default on; control characters are stripped either way).

    Returns:
        A ``DataFrame`` with ``COLUMNS`` (names and dtypes fixed), one row per job, sorted by ``job``.

    Raises:
        InputError: a path does not exist, no log file found, unknown ``group_by``/``engine``, unreadable cache.
        RuleError: an invalid rule.
        LogsleuthError: Ray requested but not installed or not reachable.
        KeyboardInterrupt: re-raised after the workers are stopped (the cache keeps the finished jobs).
    """
    from ..rules.engine import load_rules

    if isinstance(paths, (str, os.PathLike)):
        paths = [paths]
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; choose {' or '.join(ENGINES)}")
    rules = rules if rules is not None else load_rules(rules_dirs)
    p = plan(
        paths, group_by=group_by, rules=rules, cache=cache, model=model, max_job_bytes=max_job_bytes, redact=redact
    )
    executor = make_executor(
        engine,
        rules,
        workers=jobs if jobs is not None else default_jobs(),
        address=address,
        model=model,
        max_job_bytes=max_job_bytes,
    )
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
            progress(
                ScanProgress(
                    job,
                    row,
                    cached,
                    counters["done"],
                    total,
                    counters["files"],
                    total_files,
                    counters["bytes"],
                    total_bytes,
                )
            )

    by_name = {j.name: j for j in p.jobs}
    for name, row in p.cached_rows.items():
        report(by_name[name], row, True)
    writer = CacheWriter(cache, settings_key(rules, model, max_job_bytes, redact)) if cache is not None else None

    def emit(job: Job, row: dict[str, Any]) -> None:
        row = redact_row(row, secrets=redact)
        if writer is not None and not row.get("error"):
            writer.add(job, row)
        report(job, row, False)

    try:
        executor.run(p.todo, emit)
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
