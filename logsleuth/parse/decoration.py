"""A decoration that a paste or a tool put in front of every line of a file, found from the file's first lines and
taken off every line that has it, so that the parser sees the lines as the job printed them.

- a mail/Markdown quote: ``> `` (GitHub replies, mailing lists quote a log this way; also ``>> ``);
- a common indentation: the same run of spaces/tabs before every line (an indented Markdown code block, a log pasted
  into a YAML/JSON field or a ticket template); only what every line has is taken, so a traceback's own "  File"
  indentation stays;
- line numbers: ``grep -n`` ("12:text", context lines "13-text") and ``cat -n``/``nl`` ("    12<TAB>text"), told from
  Slurm's ``srun --label`` ("0: text", task ids from 0 that repeat) by numbers from 1 up that only grow;
- a hard wrap: a terminal or mail client folded each long line into pieces of one width (``_wrap_width``); the pieces
  are joined again.

Decided once per file from its first ``SAMPLE`` non-blank lines: a decoration is taken when every sampled line has it
(quotes and numbers: all but ``SLACK`` of them, for a paste that lost a line's decoration).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from itertools import chain

import regex

SAMPLE = 64  # non-blank lines read ahead to decide (fewer when the file is shorter)
MIN_LINES = 3  # line numbers are only read off a file with at least this many non-blank lines
SLACK = 0.05  # share of sampled lines that may lack a quote or a line number
MIN_WRAPPED = 3  # lines cut at one width before a paste is read as hard-wrapped
MIN_ENDS = 2  # of them followed by a shorter piece (the end of a wrapped line)
MIN_WIDTH, MAX_WIDTH = 40, 1000  # widths a terminal or mail client wraps at
_QUOTE = regex.compile(r">+ ?")
_NUMBERED = regex.compile(r"(?P<n>\d{1,9})(?::|-(?=\S)|\t)|\s+(?P<n2>\d{1,9})\t")


def undecorate(lines: Iterable[tuple[int, str]]) -> Iterator[tuple[int, str]]:
    """``lines`` (``(line_number, text)``, as ``read.iter_lines`` yields them) with the file's decoration taken off
    each line that has it; unchanged when the file has none."""
    it = iter(lines)
    head: list[tuple[int, str]] = []
    seen = 0
    for item in it:
        head.append(item)
        if item[1].strip():
            seen += 1
            if seen >= SAMPLE:
                break
    strip = _decoration([t for _n, t in head if t.strip()])
    rest: Iterable[tuple[int, str]] = it
    if strip is not None:
        head = [(n, strip(t)) for n, t in head]
        rest = ((n, strip(t)) for n, t in it)
    width = _wrap_width([t for _n, t in head if t.strip()])
    if width is None:
        yield from head
        yield from rest
        return
    yield from _unwrap(chain(head, rest), width)


def _wrap_width(sample: list[str]) -> int | None:
    """The width a paste was hard-wrapped at (a terminal or mail client folding long lines into pieces of exactly
    ``width`` characters), or None: the longest sampled length, when at least ``MIN_WRAPPED`` lines (and a tenth of the
    sample) have exactly it, at least half of those break inside a run of text (no space on either side of the cut),
    and at least ``MIN_ENDS`` are followed by a shorter piece."""
    if len(sample) < MIN_WRAPPED:
        return None
    width = max(len(t) for t in sample)
    if not MIN_WIDTH <= width <= MAX_WIDTH:
        return None
    cut = [i for i, t in enumerate(sample) if len(t) == width]
    if len(cut) < MIN_WRAPPED or len(cut) * 10 < len(sample):
        return None
    inside = sum(
        1 for i in cut if i + 1 < len(sample) and not sample[i][-1:].isspace() and not sample[i + 1][:1].isspace()
    )
    # a wrapped line ends in a shorter piece: lines that all have one length (a line repeated) are not pieces
    ends = sum(1 for i in cut if i + 1 < len(sample) and len(sample[i + 1]) < width)
    return width if inside * 2 >= len(cut) and ends >= MIN_ENDS else None


def _unwrap(lines: Iterable[tuple[int, str]], width: int) -> Iterator[tuple[int, str]]:
    """Each line of exactly ``width`` characters joined with the lines that continue it (numbered as its first), when
    they follow it (a gap in the line numbers ends the join)."""
    first: int | None = None
    last = 0
    parts: list[str] = []
    for n, t in lines:
        if parts and n != last + 1:  # the reader's gate skipped the piece that went on: the pieces so far stand alone
            yield first or last, "".join(parts)
            first, parts = None, []
        if first is None:
            first = n
        parts.append(t)
        last = n
        if len(t) != width:
            yield first, "".join(parts)
            first, parts = None, []
    if parts and first is not None:
        yield first, "".join(parts)


def _decoration(sample: list[str]):  # noqa: ANN202 - a str -> str function, or None
    if not sample:
        return None
    allowed = int(len(sample) * SLACK)
    quoted = sum(1 for t in sample if t.startswith(">"))
    if len(sample) - quoted <= allowed:
        return lambda t: t[m.end() :] if (m := _QUOTE.match(t)) else t
    numbers = [_number(t) for t in sample]
    found = [n for n in numbers if n is not None]
    if (
        len(sample) - len(found) <= allowed
        and len(found) >= MIN_LINES
        and found[0] > 0  # line numbers start at 1; srun --label's task ids ("0: ") at 0
        and all(a < b for a, b in zip(found, found[1:]))
    ):
        return lambda t: t[m.end() :] if (m := _NUMBERED.match(t)) else t
    indent = _common_indent(sample)
    k = len(indent)
    if k and any(t[k:].startswith('File "') for t in sample):
        # the least indented lines are a traceback's frames (an excerpt that starts inside one): they keep their own
        # two spaces
        indent = indent[:-2] if indent.endswith("  ") else ""
        k = len(indent)
    if k >= 2:
        return lambda t: t[k:] if t.startswith(indent) else t
    return None


def _number(text: str) -> int | None:
    m = _NUMBERED.match(text)
    if m is None:
        return None
    return int(m["n"] or m["n2"])


def _common_indent(sample: list[str]) -> str:
    first = sample[0]
    indent = first[: len(first) - len(first.lstrip(" \t"))]
    for t in sample[1:]:
        while indent and not t.startswith(indent):
            indent = indent[:-1]
        if not indent:
            break
    return indent
