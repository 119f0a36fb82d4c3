"""Stream log lines from files, directories, ``.gz``/``.zst`` files and stdin.

Memory stays flat whatever the input size: files are read line by line through a 1 MiB buffer, and a
line longer than ``MAX_LINE_BYTES`` keeps its first ``MAX_LINE_BYTES`` and drops the rest (counted in
``ReadStats.truncated_lines``). Text is decoded as UTF-8 with invalid bytes replaced (U+FFFD), ANSI
escape sequences are removed, NUL bytes dropped, and carriage-return redraws (tqdm progress bars)
folded to their last state.

Damaged input never hides what it held: a truncated or corrupt ``.gz``/``.zst`` stream (``Decompressed``) or a read
error mid-file ends the file's lines where the fault is, the lines before it are used, and the fault is recorded in
``ReadStats.damaged`` (file, last good line, what broke). Decompressed bytes are what counts against size limits.
"""

from __future__ import annotations

import io
import json
import os
import re
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, BinaryIO

import regex

from .errors import InputError


class SizeLimitError(InputError):
    """The job's (decompressed) bytes passed ``ReadStats.max_bytes``."""


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
        skipped_lines: lines read but not yielded because a ``LineGate`` ruled them out.
        damaged: one ``{"path", "line", "error"}`` per file whose reading stopped at a fault (``line``: the last line
            read before it); its earlier lines were yielded.
        max_bytes: when set, reading raises ``SizeLimitError`` once ``bytes`` (uncompressed) passes it.
    """

    bytes: int = 0
    lines: int = 0
    truncated_lines: int = 0
    paths: list[str] = field(default_factory=list)
    skipped_lines: int = 0  # lines a ``LineGate`` let the reader skip (counted in ``lines``, never yielded)
    damaged: list[dict[str, Any]] = field(default_factory=list)
    max_bytes: int | None = None

    def check_size(self) -> None:
        """Raise ``SizeLimitError`` when the bytes read so far pass ``max_bytes``."""
        if self.max_bytes is not None and self.bytes > self.max_bytes:
            raise SizeLimitError(
                f"over the limit of {self.max_bytes} bytes of log data (decompressed); read no further"
            )


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
        if len(parts) > 1 and _BAR_FRAME.match(text):
            # a line printed with no newline before the bar redrew over it (TorchTNT's ``StdoutLogger``: "[Step 10]
            # loss=2.2087 ... Train Iteration Time (seconds)=0.0400" then "\rTrain Epoch 0:  21%|...|"): the terminal
            # hid it, the file holds it; keep it, then the bar's last frame
            said = next((p for p in reversed(parts[:-1]) if not _BAR_FRAME.match(p)), None)
            if said is not None:
                text = f"{said.rstrip()} {text.lstrip()}"
    if "%" in text and "|" in text:
        text = unglue_bar(text)
    return text


# A progress bar's frame at the start of a line: tqdm's "desc: 57%|█████▋    | 22/38 [00:01<00:00, 3.21it/s, loss=0.3]"
# (``tqdm.std.tqdm.format_meter``) and fastprogress's "Epoch 2/40 : |████----| 57.89% [22/38 00:01<00:00... 0.66]"
# (fastai's console bar, ``fastprogress.fastprogress.ConsoleProgressBar``). The bracket may be cut short by the text
# glued to it when two processes write at once ("[03:03<1:51:02, 17.67[2023-07-26 15:17:17,349] [INFO] ...").
_BAR_FRAME = regex.compile(
    r"[^|\[]{0,80}?(?:\d{1,3}%\|[^|]*\| *\d+(?:\.\d+)?[kMG]?/(?:\d+(?:\.\d+)?[kMG]?|\?) "
    r"|\|[█\-]*\| *\d+(?:\.\d+)?% )\[[^\]\[]*(?:\]|(?=\[\d{4}-))"
)
# what starts a line of its own: a dated or glog header, a rank or role tag, a level, a traceback, an exception, a
# Ray worker's prefix
_LINE_START = regex.compile(
    r"\s*(?:\[?\d{4}[-/]\d\d[-/]\d\d[ T]\d\d:\d\d|\[?[IWEF]\d{4} \d\d:|\[rank\d+\]|\[[a-z_]*\d+\]:"
    r"|\[?(?:INFO|WARNING|ERROR|DEBUG|CRITICAL)\b|Traceback \(most recent|[A-Za-z_.]*(?:Error|Exception):|\(\w+ pid=)"
)


def unglue_bar(text: str) -> str:
    """The line a process printed after a progress bar's last frame, without the frame.

    A bar draws its frames with ``\\r`` and no newline, so the next line any code prints (a logger's record, a
    traceback, torchrun's "Received 15 death signal") lands after the frame on the same line, where its own
    prefix (time, rank, level) is no longer at the start. Only cut when what follows the frame starts like a line
    (``_LINE_START``), so a bar's own postfix stays.

    Args:
        text: one cleaned line.

    Returns:
        The text after the frame, or ``text`` unchanged when it holds no frame followed by a line start.
    """
    m = _BAR_FRAME.match(text)
    if m is None or not _LINE_START.match(text, m.end()):
        return text
    return text[m.end() :].lstrip()


def expand_paths(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    """Turn user-given paths into the list of files to read.

    Directories are walked recursively for ``*.log``, ``*.out``, ``*.err``, ``*.txt`` (optionally ``.gz``/``.zst``),
    in sorted order. ``"-"`` stands for stdin and is kept as is. A file reached twice (given twice, inside a given
    directory too, or through a symlink) is kept once, at its first place.

    Raises:
        InputError: a path does not exist, or a directory holds no log files.
    """
    out: list[str] = []
    seen: set[str] = set()  # real paths: the same file given twice (or through a symlink) is read once
    for s in _expand(paths):
        key = s if s == "-" else os.path.realpath(s)
        if key not in seen:
            seen.add(key)
            out.append(s)
    return out


def _expand(paths: Iterable[str | os.PathLike[str]]) -> list[str]:
    out: list[str] = []
    for p in paths:
        s = os.fspath(p)
        if s == "-":
            out.append(s)
            continue
        path = Path(s)
        if path.is_dir():
            found = sorted(walk_logs(s))
            if not found:
                raise InputError("directory holds no log files (*.log, *.out, *.err, *.txt, optionally .gz/.zst)", s)
            out.extend(found)
        elif path.exists():
            out.append(s)
        else:
            raise InputError("no such file or directory", s)
    return out


# rank0.log, worker-1.err.gz, and rotated logs (logrotate/RotatingFileHandler): train.log.1, stdout.log.2.gz; and
# PaddlePaddle's launcher's per-process files, which have no suffix (``python -m paddle.distributed.launch``:
# ``<log_dir>/workerlog.<local rank>``, ``paddle/distributed/launch/job/container.py``)
_LOG_NAME = regex.compile(
    r"\.(?:log|out|err|txt)(?:\.\d{1,4})?(?:\.(?:gz|zst))?$|^workerlog\.\d+(?:\.(?:gz|zst))?$", flags=regex.I
)
# a raw line (or block of lines) that ``clean_line`` leaves as it is: ASCII, no CR redraw, escape or NUL
PLAIN_LINE = re.compile(rb"[^\x80-\xff\r\x1b\x00]*\Z")
GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"


def is_log_name(name: str) -> bool:
    """True for the file names a directory walk picks up (``rank0.log``, ``worker-1.err.gz``, rotated
    ``train.log.1`` and ``stdout.log.2.gz``)."""
    return _LOG_NAME.search(name) is not None


def walk_logs(root: str) -> Iterator[str]:
    """Regular files with log names under ``root``, sorted per directory; symlinked directories are followed, each
    real directory once (a link back up the tree is no loop). FIFOs, sockets and devices are never returned."""
    seen: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            continue
        if (st.st_dev, st.st_ino) in seen:
            dirnames[:] = []
            continue
        seen.add((st.st_dev, st.st_ino))
        dirnames.sort()
        for name in sorted(filenames):
            path = os.path.join(dirpath, name)
            if is_log_name(name) and os.path.isfile(path):
                yield path


def _compression(path: str) -> str | None:
    """``gz``/``zst`` from the file's magic bytes (a compressed log may lack the suffix), else None."""
    try:
        with open(path, "rb") as f:
            head = f.read(4)
    except OSError:
        return None
    if head.startswith(GZIP_MAGIC):
        return "gz"
    if head.startswith(ZSTD_MAGIC):
        return "zst"
    return None


DECOMPRESS_CHUNK = 1 << 20  # most bytes one gzip inflate call may produce
_ZSTD_FEED = 1024  # compressed bytes per zstd call: its output per call stays under ~32 MiB even for a bomb
MAX_RATIO = 250  # decompressed/compressed past which a stream is taken for a compression bomb...
RATIO_FLOOR = 64 << 20  # ...once it has produced this much (real logs compress ~5-50x; deflate's ceiling is 1032x)


class Decompressed(io.RawIOBase):
    """The decompressed bytes of a gzip (any number of members) or zstd (any number of frames) stream that end,
    instead of raising, at a fault.

    Everything decoded before a truncated end (no end-of-stream marker: ``gzip`` would raise ``EOFError`` and lose
    its last buffer) or a corrupt spot (``zlib.error``, ``zstandard.ZstdError``) is delivered, then end of file;
    ``fault`` says what broke. Input is fed in small pieces, so no single call produces more than ~1 MiB (gzip) or
    ~32 MiB (zstd), and a stream producing more than ``MAX_RATIO`` times its compressed size (past
    ``RATIO_FLOOR``) is stopped as a compression bomb.

    Args:
        raw: the compressed file, opened binary (closed with this object).
        kind: ``"gz"`` or ``"zst"``.
    """

    def __init__(self, raw: BinaryIO, kind: str) -> None:
        super().__init__()
        self._raw, self._kind = raw, kind
        self.fault: str | None = None
        self.compressed = 0  # compressed bytes read
        self.produced = 0  # decompressed bytes delivered
        self._pending: bytes | memoryview = b""  # memoryview for zstd (sliced without copies), bytes for gzip
        self._out, self._pos = b"", 0
        self._in_member = False  # input has gone into the current member/frame and its end is not reached
        self._done = False
        self._dec = self._new()

    def _new(self) -> Any:
        if self._kind == "gz":
            return zlib.decompressobj(16 + zlib.MAX_WBITS)  # gzip header and trailer (CRC, size) checked
        import zstandard

        return zstandard.ZstdDecompressor().decompressobj()

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while self._pos >= len(self._out):
            if self._done:
                return 0
            self._out, self._pos = self._step(), 0
        n = min(len(b), len(self._out) - self._pos)
        b[:n] = self._out[self._pos : self._pos + n]
        self._pos += n
        return n

    def _stop(self, fault: str | None) -> bytes:
        self.fault, self._done = fault, True
        return b""

    def _step(self) -> bytes:
        """The next piece of output (possibly empty); sets ``_done`` (and ``fault``) at the end."""
        if not self._pending:
            block = self._raw.read(1 << 16)
            self.compressed += len(block)
            self._pending = memoryview(block) if self._kind == "zst" else block
            if not self._pending:
                return self._stop(
                    "the compressed stream ends before its end marker (truncated file)" if self._in_member else None
                )
        self._in_member = True
        try:
            if self._kind == "gz":
                out = self._dec.decompress(self._pending, DECOMPRESS_CHUNK)
                self._pending = self._dec.unconsumed_tail
            else:
                piece, self._pending = self._pending[:_ZSTD_FEED], self._pending[_ZSTD_FEED:]  # memoryviews: no copy
                out = self._dec.decompress(piece)
        except Exception as exc:  # noqa: BLE001 - zlib.error / zstandard.ZstdError: corrupt data
            return self._stop(f"corrupt compressed data ({exc})")
        if self._dec.eof:  # end of one member/frame: another may follow (concatenated .gz/.zst files)
            rest = self._dec.unused_data + bytes(self._pending)
            rest = rest if rest.strip(b"\0") else b""  # zero padding after the last member is allowed
            self._pending = memoryview(rest) if self._kind == "zst" else rest
            self._in_member = False
            self._dec = self._new()
        self.produced += len(out)
        if self.produced > RATIO_FLOOR and self.produced > MAX_RATIO * self.compressed:
            self._stop(
                f"decompresses to over {MAX_RATIO}x its size (a compression bomb?); stopped after "
                f"{self.produced >> 20} MiB"
            )
        return out

    def close(self) -> None:
        self._raw.close()
        super().close()


def _open(path: str) -> tuple[BinaryIO, Decompressed | None]:
    """The file's (decompressed) byte stream, and its ``Decompressed`` layer for compressed files."""
    if path == "-":
        return _docker_json(sys.stdin.buffer), None
    kind = _compression(path)  # by magic bytes, not by suffix
    if kind == "zst":
        try:
            import zstandard  # noqa: F401
        except ImportError as exc:
            raise InputError("reading .zst needs the zstandard package: pip install 'logsleuth[zstd]'", path) from exc
    try:
        raw = open(path, "rb", buffering=0 if kind else BUFFER_BYTES)  # noqa: SIM115 - closed by iter_lines
    except OSError as exc:
        raise InputError(exc.strerror or str(exc), path) from exc
    if kind is None:
        return _docker_json(raw), None
    dec = Decompressed(raw, kind)
    return _docker_json(io.BufferedReader(dec, BUFFER_BYTES)), dec


def _docker_json(stream: Any) -> Any:
    """``stream``, or its ``DockerJsonLines`` view when it starts like a docker json-file log."""
    peek = getattr(stream, "peek", None)
    if peek is not None and peek(7)[:7] == b'{"log":':
        return io.BufferedReader(DockerJsonLines(stream), BUFFER_BYTES)
    return stream


class DockerJsonLines(io.RawIOBase):
    """The console a docker ``json-file`` log holds (``/var/lib/docker/containers/<id>/<id>-json.log``: one JSON
    object per line, ``{"log": "<text>\\n", "stream": "stderr", "time": "<RFC 3339 nano>"}``, moby
    ``daemon/logger/jsonfilelog``), as plain text: each record's ``log`` behind its ``time`` (which the parser reads
    as a container runtime's time, ``parse.prefix``). A line the daemon split (16 KiB, no ``\\n`` at the end of
    ``log``) goes on in the next record, as it does here; a line that is not such a record passes as it is.

    Args:
        raw: the file's (decompressed) byte stream, buffered (closed with this object).
    """

    def __init__(self, raw: BinaryIO) -> None:
        super().__init__()
        self._raw = raw
        self._out, self._pos = b"", 0
        self._open_line = False  # the last record's text did not end its line: no time in front of the next

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while self._pos >= len(self._out):
            chunk = self._raw.readlines(BUFFER_BYTES)
            if not chunk:
                return 0
            self._out, self._pos = b"".join(self._decode(line) for line in chunk), 0
        n = min(len(b), len(self._out) - self._pos)
        b[:n] = self._out[self._pos : self._pos + n]
        self._pos += n
        return n

    def _decode(self, line: bytes) -> bytes:
        if not line.startswith(b'{"log":'):
            self._open_line = False
            return line
        try:
            rec = json.loads(line)
            text, when = rec["log"], rec.get("time", "")
        except (ValueError, KeyError, TypeError):
            return line
        if not isinstance(text, str):
            return line
        head = f"{when} " if when and not self._open_line else ""
        self._open_line = not text.endswith("\n")
        return (head + text).encode("utf-8", "surrogatepass")

    def close(self) -> None:
        if self._raw is not sys.stdin.buffer:
            self._raw.close()
        super().close()


def _check_text(head: bytes, path: str) -> None:
    if not head:
        return
    bad = sum(head.count(b) for b in _CONTROL)
    if bad > len(head) * 0.1:
        raise InputError(f"looks like binary data, not a text log ({bad} control bytes in the first {len(head)})", path)


class LineGate:
    """Which lines of a file a consumer can possibly need, found in whole blocks of bytes with one RE2 search.

    A line is *needed* when one of ``patterns`` (regular expressions over the raw bytes of a line, e.g. the literal
    factors of every rule and context pattern, plus the words that make a line a warning or an error) matches in
    it; its ``before`` preceding and ``after`` following lines are kept with it, and ``block_after`` lines after a
    line holding one of ``block_literals`` (the start of a multi-line record such as a traceback), and ``ending_after``
    lines after one ending with one of ``block_endings`` (an exception line whose message follows). The last
    ``tail`` lines of every file are always kept. A line holding an escape (``\\x1b``) or NUL byte is judged twice:
    as it is, and as ``clean_line`` leaves it (removing them could join a literal). A line that only
    ``check_patterns`` hit is kept when ``confirm(raw line)`` says so (a native check of the real regexes behind those
    literals); with ``check_block``, one native scan of the whole block names the lines to keep instead, and
    ``check_patterns`` are searched only in the lines it calls foreign. Every block also goes to ``tap`` (facts read
    on the fly from lines that then need no parsing). Everything else is counted and skipped without being decoded.

    RE2 (``pip install google-re2``) searches ~0.2-1 GB/s for hundreds of alternatives; ``regex`` and ``re`` manage
    ~1 MB/s on the same alternation, so without RE2 ``compile`` returns None and callers read every line.

    Args:
        patterns: RE2-syntax regular expressions (``(?i:...)`` for case-insensitive parts).
        block_literals: plain strings that start a multi-line record (``Traceback (most recent call last)``).
        block_endings: plain strings that, ending a line a pattern hit (trailing blanks aside), keep the
            ``ending_after`` lines after it (``Error:``).
        before, after, block_after, tail: context sizes, in lines.
        check_patterns: RE2-syntax regexes whose hits are kept only when ``confirm`` accepts the line.
        confirm: ``(raw line bytes, seen) -> bool``; ``seen`` is what the caller passed to ``iter_lines``.
        check_block: ``(block bytes, seen) -> (ends, foreign)``: offsets (exclusive ends) of matches that keep the line
            they end in, and offsets inside lines the native scan cannot judge (non-ASCII: ``check_patterns`` decide).
        tap: ``(block bytes, seen) -> offsets``: reads what it wants from a block of whole lines; the lines holding
            the offsets it returns are kept.
        capped_patterns, capped_wanted: RE2-syntax regexes that keep a line only while ``capped_wanted(seen)`` is
            true (lines that only fill a capped list: once it is full, they need no parsing).
        fold_patterns, fold: RE2-syntax regexes whose lines are kept when ``fold(raw line, seen)`` says so.
        block_extent: ``(block bytes, line start, line end, literal) -> lines | None``: how many lines after a line
            holding a block literal its record certainly spans (a traceback up to its exception line), or None when
            the block does not tell (then ``block_after``).
    """

    def __init__(
        self,
        patterns: Iterable[str],
        block_literals: Iterable[str] = (),
        *,
        block_endings: Iterable[str] = (),
        ending_after: int = 8,
        before: int = 2,
        after: int = 2,
        block_after: int = 300,
        tail: int = 400,
        check_patterns: Iterable[str] = (),
        confirm: Callable[[bytes, Any], bool] | None = None,
        check_block: Callable[[bytes, Any], tuple[list[int], list[int]]] | None = None,
        tap: Callable[[bytes, Any], list[int]] | None = None,
        capped_patterns: Iterable[str] = (),
        capped_wanted: Callable[[Any], bool] | None = None,
        fold_patterns: Iterable[str] = (),
        fold: Callable[[bytes, Any], bool] | None = None,
        block_extent: Callable[[bytes, int, int, bytes], int | None] | None = None,
    ) -> None:
        self.patterns = tuple(patterns)
        self.block_literals = tuple(block_literals)
        self.block_endings = tuple(e.encode() for e in block_endings)
        self.ending_after = ending_after
        self.before, self.after, self.block_after, self.tail = before, after, block_after, tail
        self.check_patterns = tuple(check_patterns) if confirm is not None or check_block is not None else ()
        self.confirm = confirm
        self.check_block = check_block
        self.tap = tap
        self.capped_patterns = tuple(capped_patterns)
        self.capped_wanted = capped_wanted
        self._capped: Any = None
        self.fold_patterns = tuple(fold_patterns) if fold is not None else ()
        self.fold = fold
        self.block_extent = block_extent
        self._fold: Any = None
        self._compiled: tuple[Any, tuple[bytes, ...], Any] | None = None

    @staticmethod
    def available() -> bool:
        """True when the RE2 bindings are installed."""
        try:
            import re2  # noqa: F401
        except ImportError:
            return False
        return True

    def compile(self) -> tuple[Any, tuple[bytes, ...], Any] | None:
        """``(gate, block_literals, check)``: one RE2 pattern over bytes, the encoded block literals and the RE2
        pattern of ``check_patterns`` (None without them); None without RE2 or without patterns."""
        if self._compiled is None:
            if not self.patterns or not self.available():
                return None
            import re2

            opts = re2.Options()
            opts.max_mem = 64 << 20
            blocks = tuple(lit.encode() for lit in self.block_literals)
            joined = "|".join(f"(?:{p})" for p in (*self.patterns, *(re2.escape(b).decode() for b in blocks)))
            check = None
            if self.check_patterns:
                check = re2.compile("|".join(f"(?:{p})" for p in self.check_patterns).encode(), opts)
            if self.capped_patterns:
                self._capped = re2.compile("|".join(f"(?:{p})" for p in self.capped_patterns).encode(), opts)
            if self.fold_patterns:
                self._fold = re2.compile("|".join(f"(?:{p})" for p in self.fold_patterns).encode(), opts)
            self._compiled = (re2.compile(joined.encode(), opts), blocks, check)
        return self._compiled


def _iter_raw(stream: BinaryIO, stats: ReadStats, where: list[int]) -> Iterator[tuple[int, bytes]]:
    """Every line as ``(line_number, raw bytes)``, over-long lines cut; ``where[0]`` is the last line number."""
    readline = stream.readline
    line_no = 0
    limited = stats.max_bytes is not None
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
        where[0] = line_no
        stats.bytes += len(raw)
        stats.lines += 1
        if limited:
            stats.check_size()
        yield line_no, raw


def _iter_gated(
    stream: BinaryIO,
    stats: ReadStats,
    where: list[int],
    gate: LineGate,
    compiled: tuple[Any, Any, Any],
    seen: Any,
    tail: int,
) -> Iterator[tuple[int, bytes]]:
    """The lines ``gate`` keeps, in order, as ``(line_number, raw bytes)``; reads whole blocks.

    Decisions lag ``tail`` lines behind the read position, so that the file's last ``tail`` lines can be kept and a
    match can still keep the lines before it.
    """
    before, lag = gate.before, max(tail, gate.before)
    held: list[bytes] = []  # undecided lines, the first being line number held_first
    held_first = 1
    keep: set[int] = set()
    carry = b""
    dropping = False  # inside the cut-off rest of an over-long line
    eof = False
    while not eof:
        block = stream.read(BUFFER_BYTES)
        if not block:
            eof = True
            if not carry:
                break
            block = b"\n"  # the last line had no newline
            stats.bytes -= 1
        stats.bytes += len(block)
        stats.check_size()
        if dropping:
            nl = block.find(b"\n")
            if nl < 0:
                continue
            block = block[nl + 1 :]
            dropping = False
        data = carry + block
        last_nl = data.rfind(b"\n")
        first_cut = False
        if last_nl < 0:
            if len(data) >= MAX_LINE_BYTES:
                data, carry, dropping = data[:MAX_LINE_BYTES] + b"\n", b"", True
                stats.truncated_lines += 1
                last_nl = MAX_LINE_BYTES
                first_cut = True
            else:
                carry = data
                continue
        else:
            carry = data[last_nl + 1 :]
            if len(carry) >= MAX_LINE_BYTES:
                data = data[: last_nl + 1] + carry[:MAX_LINE_BYTES] + b"\n"
                carry, dropping = b"", True
                stats.truncated_lines += 1
                last_nl = len(data) - 1
        region = data[:last_nl]
        lines = region.split(b"\n")
        if not first_cut and len(lines[0]) >= MAX_LINE_BYTES:
            # only the first line can be this long (carry and block are each at most MAX_LINE_BYTES); like the
            # plain reader, a line of exactly MAX_LINE_BYTES counts as cut
            lines[0] = lines[0][:MAX_LINE_BYTES]
            stats.truncated_lines += 1
        base = held_first + len(held)
        for i, extent in _marks(region, gate, compiled, seen):
            h = base + i
            keep.update(range(max(1, h - before), h + extent + 1))
        escaped = _escaped_lines(region)
        if escaped:
            # the parser sees these lines without their escapes and NULs (``clean_line``): judge that text
            cleaned = b"\n".join(clean_line(region[a:b]).encode() for _i, a, b in escaped)
            for i, extent in _marks(cleaned, gate, compiled, seen):
                h = base + escaped[i][0]
                keep.update(range(max(1, h - before), h + extent + 1))
        held.extend(lines)
        stats.lines += len(lines)
        where[0] = held_first + len(held) - 1
        if eof or len(held) > lag:
            n = len(held) if eof else len(held) - lag
            yield from _decide(held, held_first, n, keep, tail if eof else 0, stats)
            end = held_first + n
            keep = {k for k in keep if k >= end}
            del held[:n]
            held_first = end
    yield from _decide(held, held_first, len(held), keep, tail, stats)


def _hit_lines(search: Any, region: bytes, base: int) -> Iterator[tuple[int, int, int]]:
    """``(line number, start, end)`` of each line of ``region`` (whose first line is number ``base``) where the RE2
    pattern ``search`` matches, once per line."""
    pos, idx, size = 0, 0, len(region)
    while pos <= size:
        m = search.search(region, pos)
        if m is None:
            break
        start = m.start()
        idx += region.count(b"\n", pos, start)
        line_start = region.rfind(b"\n", 0, start) + 1
        line_end = region.find(b"\n", start)
        if line_end < 0:
            line_end = size
        yield base + idx, line_start, line_end
        pos = line_end + 1  # the next line: one hit per line is enough
        idx += 1


def _marks(buf: bytes, gate: LineGate, compiled: tuple[Any, Any, Any], seen: Any) -> Iterator[tuple[int, int]]:
    """``(line index, lines kept after it)`` of each line of ``buf`` (lines joined by ``\\n``) that ``gate`` keeps
    (several times for some)."""
    search, block_literals, check = compiled
    after, endings = gate.after, gate.block_endings
    for i, line_start, line_end in _hit_lines(search, buf, 0):
        keep = after
        for lit in block_literals:
            if buf.find(lit, line_start, line_end) >= 0:
                extent = gate.block_extent(buf, line_start, line_end, lit) if gate.block_extent is not None else None
                keep = gate.block_after if extent is None else min(extent, gate.block_after)
                break
        else:
            if endings and buf[line_start:line_end].rstrip().endswith(endings):
                keep = max(after, gate.ending_after)
        yield i, keep
    if gate._capped is not None and (gate.capped_wanted is None or gate.capped_wanted(seen)):
        for i, _s, _e in _hit_lines(gate._capped, buf, 0):
            yield i, after
    if gate._fold is not None:
        for i, line_start, line_end in _hit_lines(gate._fold, buf, 0):
            if gate.fold(buf[line_start:line_end], seen):  # type: ignore[misc]
                yield i, after
    if gate.tap is not None:
        for i, _s, _e in lines_at(buf, gate.tap(buf, seen), 0):
            yield i, after
    if gate.check_block is not None:
        ends, foreign = gate.check_block(buf, seen)
        for i, _s, _e in lines_at(buf, ends, 0):
            yield i, after
        if foreign and check is not None:  # the literals decide there: one search over those lines joined
            spans = list(lines_at(buf, foreign, 0))
            joined = b"\n".join(buf[a:b] for _i, a, b in spans)
            for j, _s, _e in _hit_lines(check, joined, 0):
                yield spans[j][0], after
    elif check is not None:
        confirm = gate.confirm
        for i, line_start, line_end in _hit_lines(check, buf, 0):
            if confirm(buf[line_start:line_end], seen):  # type: ignore[misc]
                yield i, after


def _escaped_lines(region: bytes) -> list[tuple[int, int, int]]:
    """``(line index, start, end)`` of the lines of ``region`` holding an escape (``\\x1b``) or NUL byte."""
    at: list[int] = []
    for byte in (b"\x1b", b"\x00"):
        pos = region.find(byte)
        while pos >= 0:
            at.append(pos + 1)
            nl = region.find(b"\n", pos)
            pos = region.find(byte, nl) if nl >= 0 else -1
    return list(lines_at(region, at, 0)) if at else []


def lines_at(region: bytes, ends: list[int], base: int) -> Iterator[tuple[int, int, int]]:
    """``(line number, start, end)`` of each line of ``region`` (first line number ``base``) holding the byte just
    before one of the offsets ``ends`` (exclusive match ends, any order), once per line."""
    pos, idx, line_end = 0, 0, -1
    size = len(region)
    for e in sorted(ends):
        at = max(0, e - 1)
        if at <= line_end:
            continue  # same line as the previous hit
        idx += region.count(b"\n", pos, at)
        line_start = region.rfind(b"\n", 0, at) + 1
        line_end = region.find(b"\n", at)
        if line_end < 0:
            line_end = size
        yield base + idx, line_start, line_end
        pos = line_start


def _decide(
    held: list[bytes], first: int, n: int, keep: set[int], tail: int, stats: ReadStats
) -> list[tuple[int, bytes]]:
    """The kept lines among ``held[:n]`` (line numbers from ``first``); the last ``tail`` of them always."""
    end = first + n
    tail_from = end - tail
    kept = sorted(k for k in keep if first <= k < min(end, tail_from))
    kept.extend(range(max(first, tail_from), end))
    stats.skipped_lines += n - len(kept)
    return [(k, held[k - first]) for k in kept]


def iter_lines(
    path: str, stats: ReadStats | None = None, gate: LineGate | None = None, seen: Any = (), tail: int | None = None
) -> Iterator[tuple[int, str]]:
    """Yield ``(line_number, text)`` for one file or ``"-"`` (stdin), line numbers 1-based.

    Args:
        path: a file path (``.gz``/``.zst`` decompressed on the fly) or ``"-"``.
        stats: counters to update (bytes are uncompressed bytes).
        gate: when given (and RE2 is installed), yield only the lines it keeps (with their true line numbers);
            the others are counted in ``stats.lines`` and ``stats.skipped_lines`` and never decoded.
        seen: passed to ``gate.confirm`` (the pipeline passes the job's live set of context hits).
        tail: with ``gate``, how many of the file's last lines are always kept (default ``gate.tail``).

    A truncated or corrupt compressed stream, or a read error mid-file, ends the lines at the fault: the lines before
    it are yielded and ``stats.damaged`` gets ``{"path", "line", "error"}`` (``line``: the last line read).

    Raises:
        InputError: unopenable file or binary data.
        SizeLimitError: ``stats.max_bytes`` passed (decompressed bytes count).
    """
    stats = stats if stats is not None else ReadStats()
    stats.paths.append(path)
    stream, dec = _open(path)
    where = [0]
    fault: str | None = None
    compiled = gate.compile() if gate is not None else None
    try:
        peek = getattr(stream, "peek", None)
        if peek is not None:
            _check_text(peek(SNIFF_BYTES)[:SNIFF_BYTES], path)
        if compiled is None:
            for line_no, raw in _iter_raw(stream, stats, where):
                yield line_no, clean_line(raw)
        else:
            last = gate.tail if tail is None else tail  # type: ignore[union-attr]  # compiled implies gate
            for line_no, raw in _iter_gated(stream, stats, where, gate, compiled, seen, last):  # type: ignore[arg-type]  # compiled implies gate
                yield line_no, clean_line(raw)
        fault = dec.fault if dec is not None else None
    except SizeLimitError as exc:
        raise SizeLimitError(exc.message, f"{path}:{where[0]}" if where[0] else path) from None
    except OSError as exc:  # a read error mid-file: what was read stands
        fault = f"read error ({exc.strerror or exc})"
    finally:
        if stream is not sys.stdin.buffer:
            stream.close()
    if fault is not None:
        stats.damaged.append({"path": path, "line": where[0], "error": fault})
