"""Which of many regexes match a text, decided natively: one Hyperscan database (Intel's multi-pattern engine, the
``hyperscan`` package) holding every rule and context regex.

Hyperscan compiles most of the rules' Python regexes as they are; a pattern it refuses (a lookaround) is compiled in
its prefilter mode (``HS_FLAG_PREFILTER``: it matches a superset), and one it cannot take at all, or that holds a
non-ASCII character, is reported as "may match" on every text. The database is scanned over ASCII text only: there
``\\w``, ``\\d``, ``\\s``, ``\\b`` and case-insensitivity mean the same in Hyperscan and in Python's ``regex`` (for
other text, and for the ASCII separators ``\\x1c-\\x1f`` that Python's ``\\s`` matches, ``hits`` answers None and the
caller uses the literal prefilter). The callers still run ``regex`` on the patterns that hit (for their groups), so a
superset is safe, a subset never happens.

Compiling takes ~1 s for 230 patterns, so the serialized database is cached on disk (``cache_dir()``), keyed by a hash
of the patterns and the Hyperscan version; a corrupt or foreign cache file is rebuilt.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from ..usercache import cache_dir  # where callers have always found it (rules.native.cache_dir)

FORMAT = 1
_BAD_TEXT = frozenset("\x1c\x1d\x1e\x1f")


def available() -> bool:
    """True when the ``hyperscan`` package loads (its wheel carries the library) and ``LOGSLEUTH_NO_HYPERSCAN`` is
    not set (it forces the pure-Python fallback, for tests and comparisons)."""
    if os.environ.get("LOGSLEUTH_NO_HYPERSCAN"):
        return False
    try:
        import hyperscan  # noqa: F401
    except Exception:  # noqa: BLE001 - ImportError, or an OSError from a library that cannot load here
        return False
    return True


def write_atomic(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename; an unwritable cache is silently skipped."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only home: compile again next time


def compile_database(
    patterns: Sequence[str],
    *,
    multi: bool = False,
    use_cache: bool = True,
    exact: bool = False,
    once: Collection[int] = (),
) -> tuple[Any, frozenset[int]]:
    """``(database, always)``: a block-mode Hyperscan database of ``patterns`` (ids = their indexes) and the
    indexes it cannot decide (to be treated as matching everywhere).

    Args:
        patterns: Python regexes.
        multi: report every match end (``hits_in_block``) instead of one match per pattern.
        use_cache: read/write the compiled database under ``cache_dir()``.
        exact: a pattern Hyperscan refuses goes to ``always`` instead of being compiled in prefilter mode.
        once: with ``multi``, indexes of patterns reported once per scan (``HS_FLAG_SINGLEMATCH``: the first match
            only) when Hyperscan takes them as they are; one it takes only in prefilter mode (a superset, whose first
            match may be a false one) is reported at every match end like the others.

    Raises:
        ImportError: hyperscan cannot be loaded (check ``available()`` first).
    """
    import hyperscan

    version = getattr(hyperscan, "__version__", "") or str(getattr(hyperscan, "HS_VERSION", ""))
    single = frozenset(once) if multi else frozenset()
    key_parts = [
        FORMAT,
        version,
        multi,
        list(patterns),
        *(["exact"] if exact else []),
        *([sorted(single)] if single else []),
    ]
    key = hashlib.sha256(json.dumps(key_parts).encode()).hexdigest()[:24]
    db_path = cache_dir() / f"hs-{key}.db"
    meta_path = cache_dir() / f"hs-{key}.json"
    if use_cache and db_path.exists() and meta_path.exists():
        try:
            meta = json.loads(meta_path.read_text())
            db = hyperscan.loadb(db_path.read_bytes(), hyperscan.HS_MODE_BLOCK)
            db.scratch = hyperscan.Scratch(db)
            return db, frozenset(meta["always"])
        except Exception:  # noqa: BLE001 - corrupt, truncated, or from another Hyperscan build: rebuild
            pass
    base = 0 if multi else hyperscan.HS_FLAG_SINGLEMATCH
    exprs: list[bytes] = []
    ids: list[int] = []
    flags: list[int] = []
    always: set[int] = set()
    for i, p in enumerate(patterns):
        if not p.isascii():
            always.add(i)
            continue
        tries = (base,) if exact else (base, base | hyperscan.HS_FLAG_PREFILTER)
        if i in single:
            tries = (hyperscan.HS_FLAG_SINGLEMATCH, *tries)
        for f in tries:
            try:
                hyperscan.Database().compile(expressions=[p.encode()], ids=[i], elements=1, flags=[f])
            except Exception:  # noqa: BLE001 - hyperscan.error: unsupported construct
                continue
            exprs.append(p.encode())
            ids.append(i)
            flags.append(f)
            break
        else:
            always.add(i)
    if not exprs:  # nothing Hyperscan can take: no database (every pattern is in ``always``)
        return None, frozenset(always)
    db = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    db.compile(expressions=exprs, ids=ids, elements=len(exprs), flags=flags)
    if use_cache:
        write_atomic(db_path, hyperscan.dumpb(db))
        write_atomic(meta_path, json.dumps({"format": FORMAT, "always": sorted(always)}).encode())
    db.scratch = hyperscan.Scratch(db)
    return db, frozenset(always)


def _on_match(pid: int, _start: int, _end: int, _flags: int, found: set[int]) -> None:
    found.add(pid)


class NativeMatcher:
    """Indexes of ``patterns`` that match a text (a superset: see the module docstring); built lazily."""

    def __init__(self, patterns: Sequence[str]) -> None:
        self.patterns = list(patterns)
        self._db: Any = None
        self._always: frozenset[int] = frozenset()
        self._ready = False

    def __getstate__(self) -> dict[str, Any]:  # the database is native memory: a worker loads it from the cache
        return {"patterns": self.patterns}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["patterns"])  # type: ignore[misc]  # re-run the constructor: same fields as a new one

    def _load(self) -> None:
        self._db, self._always = compile_database(self.patterns)
        self._ready = True

    def hits(self, text: str) -> set[int] | None:
        """Pattern indexes that may match in ``text``; None when ``text`` is not plain ASCII (ask someone else)."""
        if not text.isascii() or any(c in text for c in _BAD_TEXT):  # (isdisjoint would hash every character)
            return None
        if not self._ready:
            self._load()
        found: set[int] = set(self._always)
        if self._db is not None:
            self._db.scan(text.encode("ascii"), match_event_handler=_on_match, context=found)
        return found


def _stop(*_args: Any) -> bool:
    return True  # a non-zero return ends the scan (hyperscan.ScanTerminated)


def any_matcher(patterns: Sequence[str]) -> Any:
    """A function ``(data: bytes) -> bool``: whether any of ``patterns`` (Python regexes) matches ASCII ``data``, in
    one Hyperscan scan that stops at the first match (the same answer as ``re`` there: see the module docstring).

    Returns None when Hyperscan is not available or cannot take every pattern exactly: the caller then tests the
    patterns itself."""
    if not available():
        return None
    import hyperscan

    try:
        db, always = compile_database(patterns, exact=True)
    except Exception:  # noqa: BLE001 - a broken hyperscan install: the caller's own test
        return None
    if db is None or always:
        return None

    def any_match(data: bytes) -> bool:
        try:
            db.scan(data, match_event_handler=_stop)
        except hyperscan.ScanTerminated:
            return True
        return False

    return any_match
