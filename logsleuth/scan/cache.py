"""The scan's JSONL cache: finished rows keyed by the job's file fingerprint and the settings that decide a row."""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import InputError
from .jobs import Job

if TYPE_CHECKING:
    from ..rules.engine import RuleSet

CACHE_FORMAT = 3  # 2: rows are stored redacted (as written to the table); 3: rows carry `exception`


def _model_fingerprint() -> str:
    try:
        from ..classify.model import MODEL_DIR, SIDECAR_FILE
    except Exception:  # noqa: BLE001 - no classifier installed
        return "none"
    sidecar = Path(MODEL_DIR) / SIDECAR_FILE
    try:
        return hashlib.sha256(sidecar.read_bytes()).hexdigest()[:16]
    except OSError:
        return "none"


def settings_key(rules: RuleSet, model: bool, max_job_bytes: int | None, redact: bool = True) -> str:
    """What, besides the files, decides a job's row: logsleuth's version, the rules, the model, the options."""
    from .. import __version__

    parts = [
        f"format={CACHE_FORMAT}",
        f"logsleuth={__version__}",
        f"rules={rules.fingerprint()}",
        f"model={_model_fingerprint() if model else 'off'}",
        f"max_job_bytes={max_job_bytes}",
        f"redact={redact}",
    ]
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


class CacheWriter:
    """Appends one JSON line per finished job and flushes it, so a killed scan keeps what it finished."""

    def __init__(self, path: str | os.PathLike[str], settings: str) -> None:
        self.path = os.fspath(path)
        self.settings = settings
        try:
            self.f = open(self.path, "a", encoding="utf-8")  # noqa: SIM115
        except OSError as exc:
            raise InputError(f"cannot write the scan cache ({exc.strerror})", self.path) from exc

    def add(self, job: Job, row: dict[str, Any]) -> None:
        self.f.write(
            json.dumps(
                {"settings": self.settings, "fingerprint": job.fingerprint, "row": row}, ensure_ascii=False, default=str
            )
            + "\n"
        )
        self.f.flush()

    def close(self) -> None:
        self.f.close()

    def compact(self, rows: Iterable[tuple[str, dict[str, Any]]]) -> None:
        """Rewrite the cache (atomically) with ``(fingerprint, row)`` entries only, dropping stale and torn lines."""
        tmp = f"{self.path}.tmp-{os.getpid()}"
        try:
            with open(tmp, "w", encoding="utf-8") as f:
                for fingerprint, row in rows:
                    f.write(
                        json.dumps(
                            {"settings": self.settings, "fingerprint": fingerprint, "row": row},
                            ensure_ascii=False,
                            default=str,
                        )
                        + "\n"
                    )
            os.replace(tmp, self.path)
        finally:
            if os.path.exists(tmp):
                os.unlink(tmp)
