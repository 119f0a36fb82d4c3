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


#: Called with each finished job and its row (in the scan's process).
Emit = Callable[[Job, dict[str, Any]], None]
ProgressFn = Callable[[ScanProgress], None]
