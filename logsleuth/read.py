"""Stream log lines from files, directories, ``.gz``/``.zst`` files and stdin.

Memory stays flat whatever the input size: files are read line by line through a 1 MiB buffer, and a
line longer than ``MAX_LINE_BYTES`` keeps its first ``MAX_LINE_BYTES`` and drops the rest (counted in
``ReadStats.truncated_lines``). Text is decoded as UTF-8 with invalid bytes replaced (U+FFFD), ANSI
escape sequences are removed, NUL bytes dropped, and carriage-return redraws (tqdm progress bars)
folded to their last state.
"""
from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import BinaryIO

import regex

from .errors import InputError

MAX_LINE_BYTES = 1 << 20  # 1 MiB: longer lines are cut (a 10 MB JSON dump says nothing a rule needs)
BUFFER_BYTES = 1 << 20
SNIFF_BYTES = 8192
LOG_SUFFIXES = (".log", ".out", ".err", ".txt")
COMPRESSED_SUFFIXES = (".gz", ".zst")

# CSI (colours, cursor moves), OSC (titles, hyperlinks) and two-byte escapes.
_ANSI = regex.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")
# Bytes that never occur in text logs; \t \n \r \x1b (ANSI) and \x0c are allowed.
_CONTROL = bytes(b for b in range(32) if b not in (9, 10, 12, 13, 27))


@dataclass
class ReadStats:
    """Counters filled while streaming.

    Attributes:
        bytes: uncompressed bytes read.
        lines: lines read.
        truncated_lines: lines longer than ``MAX_LINE_BYTES`` that were cut.
        paths: the paths read, in order.
    """

    bytes: int = 0
    lines: int = 0
    truncated_lines: int = 0
    paths: list[str] = field(default_factory=list)


def clean_line(raw: bytes) -> str:
    """Decode one raw line: UTF-8 with replacement, no line ending, no ANSI, NULs dropped, CR redraws folded.

    Args:
        raw: the line's bytes, with or without its ``\\n``/``\\r\\n`` ending.

    Returns:
        The printable text of the line.
    """
    text = raw.decode("utf-8", "replace").rstrip("\r\n")
    if "\x1b" in text:
        text = _ANSI.sub("", text)
    if "\x00" in text:
        text = text.replace("\x00", "")
    if "\r" in text:
        # a progress bar redraws with \r: what the terminal finally showed is the last non-empty state
        parts = [p for p in text.split("\r") if p.strip()]
        text = parts[-1] if parts else ""
    return text


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Turn user-given paths into the list of files to read.

    Directories are walked recursively for ``*.log``, ``*.out``, ``*.err``, ``*.txt`` (optionally ``.gz``/``.zst``),
    in sorted order. ``"-"`` stands for stdin and is kept as is.

    Raises:
        InputError: a path does not exist, or a directory holds no log files.
    """
    out: list[str] = []
    for p in paths:
        s = os.fspath(p)
        if s == "-":
            out.append(s)
            continue
        path = Path(s)
        if path.is_dir():
            found = sorted(str(f) for f in path.rglob("*") if f.is_file() and is_log_name(f.name))
            if not found:
                raise InputError("directory holds no log files (*.log, *.out, *.err, *.txt, optionally .gz/.zst)", s)
            out.extend(found)
        elif path.exists():
            out.append(s)
        else:
            raise InputError("no such file or directory", s)
    return out


def is_log_name(name: str) -> bool:
    """True for the file names a directory walk picks up (``rank0.log``, ``worker-1.err.gz``...)."""
    lower = name.lower()
    for comp in COMPRESSED_SUFFIXES:
        if lower.endswith(comp):
            lower = lower[: -len(comp)]
            break
    return lower.endswith(LOG_SUFFIXES)


def _open(path: str) -> BinaryIO:
    if path == "-":
        return sys.stdin.buffer
    try:
        if path.endswith(".gz"):
            return io.BufferedReader(gzip.GzipFile(path, "rb"), BUFFER_BYTES)  # type: ignore[arg-type]
        if path.endswith(".zst"):
            try:
                import zstandard
            except ImportError as exc:
                raise InputError("reading .zst needs the zstandard package: pip install 'logsleuth[zstd]'", path) from exc
            raw = open(path, "rb")  # noqa: SIM115 - closed through the reader
            return io.BufferedReader(zstandard.ZstdDecompressor().stream_reader(raw, closefd=True), BUFFER_BYTES)
        return open(path, "rb", buffering=BUFFER_BYTES)  # noqa: SIM115
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from exc


def _check_text(head: bytes, path: str) -> None:
    if not head:
        return
    bad = sum(head.count(b) for b in _CONTROL)
    if bad > len(head) * 0.1:
        raise InputError(f"looks like binary data, not a text log ({bad} control bytes in the first {len(head)})", path)


def iter_lines(path: str, stats: ReadStats | None = None) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for one file or ``"-"`` (stdin), line numbers 1-based.

    Args:
        path: a file path (``.gz``/``.zst`` decompressed on the fly) or ``"-"``.
        stats: counters to update (bytes are uncompressed bytes).

    Raises:
        InputError: unreadable file, binary data, or a corrupt/truncated compressed stream (naming ``path:line``).
    """
    stats = stats if stats is not None else ReadStats()
    stats.paths.append(path)
    stream = _open(path)
    line_no = 0
    try:
        peek = getattr(stream, "peek", None)
        if peek is not None:
            _check_text(peek(SNIFF_BYTES)[:SNIFF_BYTES], path)
        readline = stream.readline
        while True:
            raw = readline(MAX_LINE_BYTES)
            if not raw:
                break
            if len(raw) == MAX_LINE_BYTES and not raw.endswith(b"\n"):
                # drain the rest of the over-long line without keeping it
                stats.truncated_lines += 1
                while True:
                    rest = readline(MAX_LINE_BYTES)
                    stats.bytes += len(rest)
                    if not rest or rest.endswith(b"\n"):
                        break
            line_no += 1
            stats.bytes += len(raw)
            stats.lines += 1
            yield line_no, clean_line(raw)
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        raise InputError(f"corrupt or truncated compressed data after line {line_no} ({exc})", f"{path}:{line_no}") from exc
    except OSError as exc:
        if type(exc).__module__.startswith("zstandard") or "zstd" in str(exc).lower():
            raise InputError(f"corrupt .zst data after line {line_no} ({exc})", f"{path}:{line_no}") from exc
        raise InputError(exc.strerror or str(exc), f"{path}:{line_no}") from exc
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
