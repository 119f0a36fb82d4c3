"""detect-secrets' plugins for ``redact``, imported only for a line one of them could flag.

Importing ``detect_secrets`` costs ~80 ms (it imports ``requests`` for its ``verify`` feature), more than the rest
of a small log's analysis. Most lines of a report cannot hold anything its plugins find, and that is decided
exactly from the regexes the plugins' own ``analyze_string`` runs (``detect_secrets/plugins/*.py``, v1.x):

- ``RegexBasedDetector`` subclasses: every pattern of ``denylist`` (``base.py``; overrides such as the JWT
  detector only filter what those patterns find);
- ``HighEntropyStringsPlugin``: its quoted-string ``regex``; a value of ``n`` characters has at most ``log2(n)``
  bits of Shannon entropy, so values shorter than ``2 ** entropy_limit`` never pass the limit;
- ``KeywordDetector``: the ``QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP`` regexes its ``analyze_string`` uses;
- any other plugin: always run (no gate).

The patterns are read from the installed package once and cached as JSON under ``rules.native.cache_dir()``,
keyed by the package's location and ``__version__.py``; a missing or stale cache imports the package once.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

GATE_FORMAT = 1
SKIPPED = frozenset({"Public IP (ipv4)"})  # hosts are aliased only with --redact-hosts
KEYWORD = "KeywordDetector"


@functools.lru_cache(maxsize=1)
def plugins() -> tuple[Any, ...]:
    """detect-secrets' plugin instances, minus its public-IPv4 detector; () when the package is missing."""
    try:
        from detect_secrets.core.plugins.util import get_mapping_from_secret_type_to_class
        from detect_secrets.plugins.base import BasePlugin
    except ImportError:  # pragma: no cover - a declared dependency; the own patterns still run
        return ()
    # cast: detect-secrets annotates the return with a TypeVar bound to nothing (mypy reads type[Never])
    mapping = cast("dict[str, type[BasePlugin]]", get_mapping_from_secret_type_to_class())
    return tuple(cls() for name, cls in sorted(mapping.items()) if name not in SKIPPED)


def _describe(plugin: Any) -> dict[str, Any]:
    """``{"kind": "keyword"|"format", "patterns": [[pattern, flags, min_len], ...] or None}`` for one plugin
    (``min_len``: the shortest second group worth reporting, 0 for no bound; None: always run it)."""
    from detect_secrets.plugins.base import RegexBasedDetector
    from detect_secrets.plugins.high_entropy_strings import HighEntropyStringsPlugin

    kind = "keyword" if type(plugin).__name__ == KEYWORD else "format"
    patterns: list[list[Any]] | None = None
    if isinstance(plugin, RegexBasedDetector):
        patterns = [[r.pattern, r.flags, 0] for r in plugin.denylist]
    elif isinstance(plugin, HighEntropyStringsPlugin) and plugin.regex.groups >= 2:
        # floor(2 ** limit) characters still get checked: the float entropy of exactly 2 ** limit may round up
        patterns = [[plugin.regex.pattern, plugin.regex.flags, int(2**plugin.entropy_limit)]]
    elif kind == "keyword" and getattr(plugin, "keyword_exclude", None) is None:
        from detect_secrets.plugins import keyword

        table = getattr(keyword, "QUOTES_REQUIRED_DENYLIST_REGEX_TO_GROUP", None)
        if isinstance(table, dict):
            patterns = [[r.pattern, r.flags, 0] for r in table]
    return {"kind": kind, "patterns": patterns}


def _cache_path() -> Path | None:
    import importlib.util

    try:
        spec = importlib.util.find_spec("detect_secrets")  # finds the package without running it
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.submodule_search_locations:
        return None
    where = Path(list(spec.submodule_search_locations)[0])
    try:
        version = (where / "__version__.py").read_bytes()
    except OSError:
        return None
    from .rules.native import cache_dir

    key = hashlib.sha256(f"{GATE_FORMAT}\0{where}\0".encode() + version).hexdigest()[:24]
    return cache_dir() / f"secret-plugins-{key}.json"


def _descriptions() -> list[dict[str, Any]]:
    """Every plugin's gate description, from the cache or (once) from the package."""
    path = _cache_path()
    if path is not None:
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            pass
    described = [_describe(p) for p in plugins()]
    if path is not None:
        from .rules.native import write_atomic

        write_atomic(path, json.dumps(described).encode())
    return described


Gate = Callable[[str], bool]


def _gate(entries: list[dict[str, Any]]) -> Gate:
    """True when one of the plugins described by ``entries`` may find something in the line."""
    if any(e["patterns"] is None for e in entries):
        return lambda line: True
    plain: list[tuple[re.Pattern[str], int]] = []
    bounded: list[tuple[re.Pattern[str], int]] = []
    for e in entries:
        for pattern, flags, min_len in e["patterns"]:
            (bounded if min_len else plain).append((re.compile(pattern, flags), min_len))

    def hit(line: str) -> bool:
        if any(r.search(line) for r, _ in plain):
            return True
        return any(len(m.group(2)) >= n for r, n in bounded for m in r.finditer(line))

    return hit


@functools.lru_cache(maxsize=1)
def gates() -> tuple[Gate, Gate]:
    """``(formats, keywords)``: may a format/entropy plugin, or the keyword plugin, find something in a line."""
    try:
        entries = _descriptions()
        formats = [e for e in entries if e["kind"] == "format"]
        return _gate(formats), _gate([e for e in entries if e["kind"] != "format"])
    except Exception:  # noqa: BLE001 - a pattern this Python cannot compile, an odd cache: no gate, run them all
        return (lambda line: True), (lambda line: True)
