"""The scan table: its fixed columns and dtypes (``COLUMNS``), rows -> DataFrame, and Parquet/CSV/JSONL I/O."""

from __future__ import annotations

import json
import math
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError, LogsleuthError

if TYPE_CHECKING:
    import pandas as pd

#: The table's columns, in order, with their pandas dtypes.
COLUMNS: dict[str, str] = {
    "job": "object",  # job name: the job's directory or file, as found under the scanned path
    "paths": "object",  # list[str]: the files read, in order
    "files": "int64",  # number of files
    "bytes": "int64",  # size of the files on disk (compressed size for .gz/.zst)
    "lines": "Int64",  # lines read (uncompressed); <NA> when the job could not be read
    "verdict": "category",  # failure | no_failure | unknown; <NA> for an unreadable job
    "root_cause": "category",  # taxonomy id (no_failure / unknown for those verdicts); categories: all ids
    "confidence": "float64",  # 0..1
    "method": "category",  # rule | model | rule+model | none (unknown: nothing decided)
    "rule_id": "category",  # the winning rule's id
    "first_failure_time": "datetime64[ns]",  # time printed on the first failing line (naive, with the job's year: log, else file mtime)
    "first_failure_rank": "Int64",
    "first_failure_host": "category",
    "first_failure_path": "object",
    "first_failure_line": "Int64",  # 1-based line number in first_failure_path
    "first_failure_text": "object",  # the line (a traceback: its last MAX_TEXT characters)
    "culprit_ranks": "object",  # "2" or "1, 2": the rank(s) that caused a hang/mismatch (not the waiters), or None
    "culprit_source": "category",  # flight_recorder | progress | message (how the culprit was found), or None
    "culprit_process_group": "object",  # the process group where it shows (Flight Recorder), or None
    "culprit_collective": "object",  # "<op> #<seq> sizes=[...]" the culprit never reached / issued differently, or None
    "symptoms": "object",  # list[str]: root-cause ids explained as collateral, first seen first
    "versions": "object",  # "name=version, ..." (nccl, torch, cuda, driver, vllm...) found in the logs, or None
    "error": "object",  # why the job (or some of its files) could not be read; None when all was read
    "seconds": "float64",  # wall time of the job's analysis
    # the exception printed at the first failure as CPython's last traceback line prints it ("OSError: [Errno 28]
    # No space left on device"; at most MAX_TEXT characters), or None: the JSON report's ``exception`` flattened
    "exception": "object",
}
_CATEGORIES = {
    "verdict": ["failure", "no_failure", "unknown"],
    "method": ["rule", "model", "rule+model", "none"],
    "culprit_source": ["flight_recorder", "progress", "message"],
}
MAX_TEXT = 1000
# a CSV cell starting with one of these is a formula to Excel/LibreOffice/Sheets (OWASP "CSV injection"): written
# with a leading apostrophe, which spreadsheets show as text; ``read_table`` takes it off again
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_safe(v: Any) -> Any:
    if isinstance(v, str) and (
        v.startswith(_FORMULA_START) or (v.startswith("'") and v[1:].startswith(_FORMULA_START))
    ):
        return "'" + v
    return v


def _csv_unsafe(v: Any) -> Any:
    return v[1:] if isinstance(v, str) and v.startswith("'") and v[1:].startswith(_FORMULA_START) else v


OUTPUT_SUFFIXES = (".parquet", ".csv", ".jsonl")


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
                from ..taxonomy import ALL_IDS

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
    columns as JSON arrays and times as ISO 8601, and text cells starting with ``= + - @`` (a spreadsheet formula)
    behind an apostrophe; ``.jsonl`` writes one JSON object per job.

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
            for col, dtype in COLUMNS.items():
                if dtype in ("object", "category"):
                    flat[col] = [_csv_safe(v) for v in flat[col].astype(object)]
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
            df = df.apply(lambda col: col.map(_csv_unsafe))
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
