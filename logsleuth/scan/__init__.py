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

In both modes the multi-file layouts that ``analyze`` understands stay one job, rooted where the layout starts
(``logsleuth.jobfiles.is_layout_root``): a torchrun ``--log-dir`` run
(``<run>/attempt_<n>/<local_rank>/{stdout,stderr}.log`` -> ``<run>``, analysed as a directory so its ``error.json``
files are read) and a Ray session log folder (a directory holding ``raylet.out`` or ``gcs_server.out``, with its
sub-folders such as ``events/``).

Modules: ``discover`` (files -> jobs), ``table`` (``COLUMNS``, DataFrame, Parquet/CSV/JSONL), ``rows`` (one job ->
one row), ``cache`` (the JSONL cache), ``executor`` (the interface; ``local`` processes, ``on_ray`` tasks),
``run`` (``scan`` itself), ``summary``.

This module is callable: ``logsleuth.scan(paths, ...)`` is ``logsleuth.scan.scan(paths, ...)``, so that
``logsleuth.scan`` is at once the function and the namespace (``logsleuth.scan.COLUMNS``,
``logsleuth.scan.read_table``). It uses the documented module ``__class__`` assignment (Python data model,
"Customizing module attribute access").
"""

from __future__ import annotations

import sys
import types
from typing import Any

from .cache import CACHE_FORMAT, load_cache, settings_key
from .discover import discover
from .executor import ENGINES, Executor, make_executor
from .jobs import Emit, Job, ProgressFn, ScanPlan, ScanProgress
from .rows import analyze_job, error_row, row_from_diagnosis
from .run import default_jobs, plan, scan
from .summary import render_summary, summarize
from .table import COLUMNS, MAX_TEXT, OUTPUT_SUFFIXES, read_table, to_frame, write_table

__all__ = [
    "scan",
    "plan",
    "discover",
    "default_jobs",
    "analyze_job",
    "row_from_diagnosis",
    "error_row",
    "COLUMNS",
    "MAX_TEXT",
    "OUTPUT_SUFFIXES",
    "to_frame",
    "write_table",
    "read_table",
    "summarize",
    "render_summary",
    "Job",
    "ScanPlan",
    "ScanProgress",
    "ProgressFn",
    "Emit",
    "Executor",
    "ENGINES",
    "make_executor",
    "CACHE_FORMAT",
    "load_cache",
    "settings_key",
]


class _CallableModule(types.ModuleType):
    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return scan(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
