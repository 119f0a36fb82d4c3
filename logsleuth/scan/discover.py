"""Find log files under the scanned paths and group them into jobs (``group_by`` dir/file; torchrun ``--log-dir``
and Ray session layouts stay one job, rooted where ``jobfiles.is_layout_root`` says the layout starts)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable, Iterator, Sequence

from ..errors import InputError
from ..jobfiles import is_layout_root
from ..read import walk_logs
from .jobs import Job


def _walk(root: str) -> Iterator[str]:
    """Log files under ``root`` (``read.walk_logs``: rotated names, symlinked folders once each)."""
    return walk_logs(root)


def _layout_root(path: str, top: str, roots: dict[str, bool]) -> str | None:
    """The nearest directory holding ``path`` (never above ``top``) that is a multi-file layout's root, or None."""
    cur = os.path.dirname(path) or "."
    top = top or "."
    for _ in range(64):
        is_root = roots.get(cur)
        if is_root is None:
            is_root = roots[cur] = is_layout_root(cur)
        if is_root:
            return cur
        if cur == top:
            break
        parent = os.path.dirname(cur)
        if not parent or parent == cur:
            break
        cur = parent
    return None


def _fingerprint(stats: Iterable[tuple[str, int, int]]) -> str:
    h = hashlib.sha256()
    for path, size, mtime in stats:
        h.update(f"{os.path.abspath(path)}\0{size}\0{mtime}\n".encode())
    return h.hexdigest()


def discover(paths: Sequence[str | os.PathLike[str]], group_by: str = "dir") -> list[Job]:
    """Find the log files under ``paths`` and group them into jobs.

    Args:
        paths: files and directories; directories are walked recursively for log file names. A file named
            explicitly is read whatever its name.
        group_by: ``dir`` (one directory = one job) or ``file`` (one file = one job); see the module docstring.

    Returns:
        Jobs sorted by name.

    Raises:
        InputError: a path does not exist, ``group_by`` is unknown, or no log file was found.
    """
    if group_by not in ("dir", "file"):
        raise InputError(f"unknown --group-by {group_by!r}; choose dir or file")
    groups: dict[str, list[str]] = {}
    layout: set[str] = set()
    ray_dirs: dict[str, bool] = {}
    for p in paths:
        s = os.path.normpath(os.fspath(p))
        if os.path.isdir(s):
            files = list(_walk(s))
            top = s
        elif os.path.exists(s):
            files = [s]
            top = os.path.dirname(s) or "."
        else:
            raise InputError("no such file or directory", s)
        for f in files:
            root = _layout_root(f, top, ray_dirs)
            if root is not None:
                layout.add(root)
                key = root
            else:
                key = (os.path.dirname(f) or ".") if group_by == "dir" else f
            members = groups.setdefault(key, [])
            if f not in members:
                members.append(f)
    if not groups:
        raise InputError(
            "no log files found (*.log, *.out, *.err, *.txt, optionally .gz/.zst)",
            ", ".join(os.fspath(p) for p in paths),
        )
    jobs: list[Job] = []
    for name, files in sorted(groups.items()):
        files.sort()
        stats = []
        for f in files:
            try:
                st = os.stat(f)
                stats.append((f, st.st_size, st.st_mtime_ns))
            except OSError:
                stats.append((f, 0, 0))  # reported as an error row when analysed
        jobs.append(
            Job(
                name=name,
                paths=tuple(files),
                bytes=sum(s[1] for s in stats),
                fingerprint=_fingerprint(stats),
                analyze_paths=(name,) if name in layout else tuple(files),
            )
        )
    return jobs
