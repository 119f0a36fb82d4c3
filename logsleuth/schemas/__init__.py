"""The committed JSON Schemas of the public contract (``diagnosis``, ``scan-row``, ``verify``; draft 2020-12),
generated from ``logsleuth.models``; ``validate`` checks a document against one (``jsonschema``).

``tests/test_contract.py`` fails when a committed file differs from what the models generate; regenerate them with
``python -c "import logsleuth.schemas as s; s.write_all()"`` (``logsleuth schema NAME`` prints the committed file).
"""

from __future__ import annotations

import functools
import json
import os
from pathlib import Path
from typing import Any

from ..errors import InputError

DRAFT = "https://json-schema.org/draft/2020-12/schema"
NAMES = ("diagnosis", "scan-row", "verify")
HERE = Path(__file__).resolve().parent


def generate(name: str) -> dict[str, Any]:
    """The JSON Schema the models give for ``name`` (one of ``NAMES``).

    Raises:
        InputError: unknown name.
    """
    from ..models import SCHEMAS

    if name not in SCHEMAS:
        raise InputError(f"unknown schema {name!r}; choose one of {', '.join(NAMES)}")
    schema = SCHEMAS[name].model_json_schema(mode="serialization")
    return {"$schema": DRAFT, "$id": f"https://logsleuth.dev/schemas/{name}.json", **schema}


def dumps(schema: dict[str, Any]) -> str:
    """The committed text of a schema (stable key order, 2-space indent, final newline)."""
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def write_all() -> None:
    """Rewrite every committed schema from the models (after a model change)."""
    for name in NAMES:
        (HERE / f"{name}.json").write_text(dumps(generate(name)), encoding="utf-8")


@functools.cache
def load(name: str) -> dict[str, Any]:
    """The committed schema ``logsleuth/schemas/<name>.json`` (shipped in the wheel)."""
    if name not in NAMES:
        raise InputError(f"unknown schema {name!r}; choose one of {', '.join(NAMES)}")
    return json.loads((HERE / f"{name}.json").read_text(encoding="utf-8"))


@functools.cache
def _validator(name: str) -> Any:
    from jsonschema import Draft202012Validator

    return Draft202012Validator(load(name))


def errors(name: str, doc: Any) -> list[str]:
    """Every way ``doc`` breaks schema ``name``, as ``field.path: message`` (empty when valid)."""
    out = []
    for err in sorted(_validator(name).iter_errors(doc), key=lambda e: list(map(str, e.absolute_path))):
        where = ".".join(str(p) for p in err.absolute_path) or "(document)"
        out.append(f"{where}: {err.message[:200]}")
    return out


def validate(name: str, doc: Any, source: str | None = None) -> None:
    """Check ``doc`` against schema ``name``.

    Raises:
        InputError: the first problem (and how many there are), naming ``source``.
    """
    problems = errors(name, doc)
    if problems:
        more = f" (+{len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InputError(f"not a valid logsleuth {name} document: {problems[0]}{more}", source)


def read_json(path: str | os.PathLike[str], name: str = "diagnosis") -> dict[str, Any]:
    """Read and validate a saved JSON document (``analyze -f json`` for ``diagnosis``).

    Raises:
        InputError: unreadable file, not JSON, or not valid against the schema.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"cannot read a JSON {name} ({exc})", str(path)) from exc
    validate(name, data, str(path))
    return data
