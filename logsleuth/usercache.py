"""The user cache directory (compiled rules, Hyperscan databases, literal factors, the secret-plugin gate, jinja2
bytecode): where it is, one folder per logsleuth version, and a bound on its size.

Every cache key hashes its inputs, so an edited rule set or template leaves its old entries behind for good; without
pruning the folder only grows (87 MB after one day of development here). ``cache_dir()`` prunes at most once an hour
per cache root (a ``.pruned`` stamp), in the process that first asks for it:

- entries of other logsleuth versions (``<root>/v<other version>/``, and the flat files written into ``<root>``
  before the cache had a folder per version) unused for ``STALE_S``;
- then, while the root holds more than ``MAX_BYTES``, the least recently used entries.

"Used" is the later of a file's mtime and atime (Linux ``relatime`` moves atime on the first read in a day). A file
used in the last ``GRACE_S`` is never removed: a process running now may be about to read it. Only names logsleuth
writes are touched, so ``LOGSLEUTH_CACHE_DIR`` may point at a folder holding other files.
"""

from __future__ import annotations

import functools
import os
import time
from pathlib import Path

import regex

MAX_BYTES = 32 << 20  # a built-in rule set's entries take ~0.6 MB; the bound leaves room for ~50 edited ones
STALE_S = 24 * 3600  # another version's entries unused this long go
GRACE_S = 600  # never remove what was used this recently (a running process may need it)
PRUNE_EVERY_S = 3600
STAMP = ".pruned"

# what logsleuth writes: rules.engine (rules-), rules.native (hs-), rules.prefilter (literals-), secret_plugins,
# report (jinja2's FileSystemBytecodeCache: __jinja2_<sha1>.cache in templates-<options>/), write_atomic's temporaries
_OWN_FILE = regex.compile(
    r"(?:rules|hs|literals|secret-plugins)-[0-9a-f]{8,64}\.(?:json|db)|__jinja2_[0-9a-f]{40}\.cache|\..+\.tmp-\d+"
)
_TEMPLATES = regex.compile(r"templates-[0-9a-f]{12}")
_VERSION_DIR = regex.compile(r"v\d[\w.+-]*")


def root() -> Path:
    """The cache root: ``$LOGSLEUTH_CACHE_DIR`` (used as given), else ``$XDG_CACHE_HOME/logsleuth``, else
    ``~/.cache/logsleuth``."""
    env = os.environ.get("LOGSLEUTH_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "logsleuth"


def version_dir_name() -> str:
    from . import __version__

    return "v" + regex.sub(r"[^\w.+-]", "_", __version__)


def cache_dir() -> Path:
    """Where this version caches: ``$LOGSLEUTH_CACHE_DIR`` itself when set (the caller chose the folder), else
    ``<root>/v<version>``. Prunes the root now and then (``maybe_prune``); never raises for an unusable folder
    (writers skip a cache they cannot write)."""
    r = root()
    here = r if os.environ.get("LOGSLEUTH_CACHE_DIR") else r / version_dir_name()
    _maybe_prune_once(str(r), str(here))
    return here


@functools.cache
def _maybe_prune_once(root_dir: str, current: str) -> None:
    maybe_prune(Path(root_dir), Path(current))


def maybe_prune(root_dir: Path, current: Path, now: float | None = None) -> bool:
    """``prune`` unless the root was pruned in the last ``PRUNE_EVERY_S`` (its ``.pruned`` stamp); True when it ran."""
    now = time.time() if now is None else now
    stamp = root_dir / STAMP
    try:
        if now - stamp.stat().st_mtime < PRUNE_EVERY_S:
            return False
    except OSError:
        pass  # no stamp yet (or no root): prune, which is cheap on an empty folder
    try:
        root_dir.mkdir(parents=True, exist_ok=True)
        stamp.touch()
    except OSError:
        return False  # read-only: nothing was written here either
    prune(root_dir, current, now=now)
    return True


def _files(folder: Path) -> list[tuple[Path, os.stat_result]]:
    """logsleuth's own files in ``folder`` and in its ``templates-*`` folders."""
    out: list[tuple[Path, os.stat_result]] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return out
    for e in entries:
        try:
            if e.is_file(follow_symlinks=False) and _OWN_FILE.fullmatch(e.name):
                out.append((Path(e.path), e.stat(follow_symlinks=False)))
            elif e.is_dir(follow_symlinks=False) and _TEMPLATES.fullmatch(e.name):
                out.extend(_files(Path(e.path)))
        except OSError:
            continue  # removed meanwhile by another process
    return out


def prune(root_dir: Path, current: Path, *, now: float | None = None) -> list[Path]:
    """Remove other versions' stale entries, then the least recently used ones while the root holds more than
    ``MAX_BYTES``; never a file used in the last ``GRACE_S``, never a name logsleuth does not write.

    Args:
        root_dir: the cache root (``root()``).
        current: this version's folder (``cache_dir()``; == ``root_dir`` when ``LOGSLEUTH_CACHE_DIR`` is set).
        now: the time to judge ages against (seconds since the epoch); default: now.

    Returns:
        The files removed.
    """
    now = time.time() if now is None else now
    folders = [root_dir]
    try:
        folders += [Path(e.path) for e in os.scandir(root_dir) if e.is_dir() and _VERSION_DIR.fullmatch(e.name)]
    except OSError:
        return []
    if current not in folders:
        folders.append(current)

    def mine(p: Path) -> bool:  # this version's: in its folder or in one of its templates folders
        return p.parent == current or (p.parent.parent == current and _TEMPLATES.fullmatch(p.parent.name) is not None)

    entries = [(p, st, mine(p)) for f in folders for p, st in _files(f)]
    stale_folders = _stale_folders(root_dir, current, now)
    removed: list[Path] = []

    def used(st: os.stat_result) -> float:
        return max(st.st_mtime, st.st_atime)

    def remove(p: Path) -> bool:
        try:
            p.unlink()
        except FileNotFoundError:
            return True  # another process pruned it
        except OSError:
            return False
        removed.append(p)
        return True

    kept = []
    for p, st, is_mine in entries:
        if not is_mine and now - used(st) > STALE_S and remove(p):
            continue
        kept.append((p, st))
    total = sum(st.st_size for _, st in kept)
    for p, st in sorted(kept, key=lambda e: used(e[1])):
        if total <= MAX_BYTES:
            break
        if now - used(st) > GRACE_S and remove(p):
            total -= st.st_size
    _remove_if_empty(stale_folders)
    return removed


def _stale_folders(root_dir: Path, current: Path, now: float) -> list[Path]:
    """Other versions' folders and templates folders (inner ones first) in which nothing was added or removed for
    ``STALE_S``: judged before pruning, because removing files moves a folder's mtime. A folder a process still
    writes into (jinja2 writes into its templates folder without creating it) is never among them."""
    out: list[Path] = []
    try:
        dirs = [Path(e.path) for e in os.scandir(root_dir) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return out
    for d in dirs:
        if d == current or (root_dir == current and _TEMPLATES.fullmatch(d.name)):
            continue
        if _VERSION_DIR.fullmatch(d.name):
            candidates = [p for p in d.iterdir() if p.is_dir() and _TEMPLATES.fullmatch(p.name)] + [d]
        elif _TEMPLATES.fullmatch(d.name):
            candidates = [d]
        else:
            continue
        for c in candidates:
            try:
                if now - c.stat().st_mtime > STALE_S:
                    out.append(c)
            except OSError:
                continue
    return out


def _remove_if_empty(folders: list[Path]) -> None:
    for d in folders:
        try:
            d.rmdir()  # only when empty
        except OSError:
            pass
