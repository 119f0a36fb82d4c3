"""Writing results to a user-given ``-o`` path: checked up front, written atomically, no temp file left behind."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

from .errors import InputError


def check_output(path: str | os.PathLike[str]) -> Path:
    """Fail early (before any work) when ``path`` cannot be written as a file.

    Raises:
        InputError: ``path`` is a directory, or its parent directory does not exist.
    """
    p = Path(path)
    if p.is_dir():
        raise InputError("is a directory; -o needs a file path (e.g. DIR/report.html)", str(p))
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise InputError("parent directory does not exist", str(p))
    return p


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike[str]) -> Iterator[Path]:
    """Yield a temporary path next to ``path``; on success it is renamed onto ``path``, on any error removed.

    A reader never sees half a file, and Ctrl-C or a failing writer leaves nothing behind.

    Raises:
        InputError: see ``check_output``.
    """
    target = check_output(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        yield Path(tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_text(text: str, path: str | os.PathLike[str]) -> None:
    """Write ``text`` (UTF-8) to ``path`` atomically."""
    with atomic_path(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
