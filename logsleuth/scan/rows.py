"""One job -> one table row: ``analyze_job`` runs ``analyze`` and never raises for bad input."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from ..errors import LogsleuthError
from ..parse.timestamps import YEARLESS
from .jobs import Job
from .table import COLUMNS, MAX_TEXT

if TYPE_CHECKING:
    from ..rules.engine import RuleSet
    from ..types import Diagnosis


def _versions_text(versions: dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in sorted(versions.items()))


def culprit_columns(culprit: dict[str, Any]) -> dict[str, Any]:
    """The ``culprit_*`` columns from a diagnosis' ``culprit`` (all None when it names none)."""
    c = culprit or {}
    coll = c.get("collective")
    return {
        "culprit_ranks": ", ".join(map(str, c["ranks"])) if c.get("ranks") else None,
        "culprit_source": c.get("source"),
        "culprit_process_group": c.get("process_group"),
        "culprit_collective": f"{coll['op']} #{coll['seq']} sizes={coll['input_sizes']}" if coll else None,
    }


def exception_column(exc: dict[str, Any]) -> str | None:
    """The ``exception`` column from a diagnosis' ``exception`` (``factlayer.reason.exception_summary``): ``"type:
    message"`` (just the type when the message is empty), cut to ``MAX_TEXT`` characters; None when there is none."""
    if not exc or not exc.get("type"):
        return None
    text = f"{exc['type']}: {exc['message']}" if exc.get("message") else str(exc["type"])
    return text if len(text) <= MAX_TEXT else text[: MAX_TEXT - 1] + "…"


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
        # times carry the job's year (log, else file mtime); a clock with no year at all is no date: null
        "first_failure_time": ff.time.isoformat()
        if ff is not None and ff.time is not None and ff.time.year != YEARLESS
        else None,
        "first_failure_rank": ff.rank if ff is not None else None,
        "first_failure_host": ff.host if ff is not None else None,
        "first_failure_path": ff.path if ff is not None else None,
        "first_failure_line": ff.line if ff is not None else None,
        "first_failure_text": text,
        **culprit_columns(d.culprit),
        "symptoms": symptoms,
        "versions": _versions_text(d.versions) or None,
        "error": error,
        "seconds": float(d.stats.get("seconds", 0.0)),
        "exception": exception_column(d.exception),
    }


# the row's text copied from the logs: redacted (and stripped of control characters) before the table or cache sees it
LOG_TEXT_COLUMNS = ("first_failure_text", "error", "exception")


def redact_row(row: dict[str, Any], secrets: bool = True) -> dict[str, Any]:
    """``row`` as written out: ``LOG_TEXT_COLUMNS`` passed through ``redact.redact`` (secrets only if ``secrets``)."""
    from ..redact import redact

    return {
        k: redact(v, secrets=secrets) if k in LOG_TEXT_COLUMNS and isinstance(v, str) else v for k, v in row.items()
    }


def error_row(job: Job, message: str, seconds: float = 0.0) -> dict[str, Any]:
    """The row of a job that could not be analysed."""
    row: dict[str, Any] = {c: None for c in COLUMNS}
    row.update(
        {
            "job": job.name,
            "paths": list(job.paths),
            "files": len(job.paths),
            "bytes": job.bytes,
            "symptoms": [],
            "error": message,
            "seconds": float(seconds),
        }
    )
    return row


def analyze_job(job: Job, rules: RuleSet, *, model: bool = True, max_job_bytes: int | None = None) -> dict[str, Any]:
    """Analyse one job; never raises for a bad input (the row's ``error`` says what went wrong).

    ``max_job_bytes`` bounds the job twice: its size on disk before reading, and its decompressed bytes while
    reading (a ``.gz`` under the limit on disk can hold far more)."""
    from ..pipeline import analyze

    t0 = time.perf_counter()
    if max_job_bytes is not None and job.bytes > max_job_bytes:
        return error_row(job, f"job is {job.bytes} bytes, over the limit of {max_job_bytes} bytes; not read")
    try:
        d = analyze(list(job.analyze_paths), rules=rules, model=model, max_bytes=max_job_bytes)
    except LogsleuthError as exc:
        return error_row(job, str(exc), time.perf_counter() - t0)
    except (MemoryError, RecursionError, OSError, ValueError, UnicodeError) as exc:
        return error_row(job, f"{type(exc).__name__}: {exc}", time.perf_counter() - t0)
    except Exception as exc:  # noqa: BLE001 - a bug on one input must not stop a scan of thousands
        return error_row(job, f"internal error {type(exc).__name__}: {exc}", time.perf_counter() - t0)
    return row_from_diagnosis(job, d)
