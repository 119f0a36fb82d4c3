"""The scan's value types: a ``Job`` to analyse, a ``ScanProgress`` report, the ``ScanPlan`` (jobs, cached rows)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


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


def batches(jobs: list[Job], max_jobs: int = 16, max_bytes: int = 64 << 20) -> list[list[Job]]:
    """``jobs`` largest first, cut into batches of at most ``max_jobs`` jobs and ``max_bytes`` bytes on disk (a job
    larger than that is a batch of its own): one task per batch, so that a scan of thousands of small jobs pays the
    per-task cost (IPC, a future, a wake-up) once per batch, and the long poles start early."""
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


#: Called with each finished job and its row (in the scan's process).
Emit = Callable[[Job, dict[str, Any]], None]
ProgressFn = Callable[[ScanProgress], None]
