"""A traceback behind a line prefix that ``prefix`` does not know, learned from the traceback's own header.

Wrappers put their own tag in front of every line of a job's output - "[worker-1] ", "<task 3> ", a tab-separated
export's "worker-1\\t", glog's "E1130 10:00:00.123456 1234 train.py:42] ", a launcher's "ERROR: " - and a new wrapper
appears with every framework. CPython prints a traceback's header alone on its line ("Traceback (most recent call
last):", ``Lib/traceback.py``), so what stands before it on that line is the wrapper's tag. The lines that follow
with the same tag are the traceback's, read without it. The tag's dates and clocks may change from line to line; its
other characters (a worker's name, a pid) may not, so two workers' interleaved tracebacks stay apart.
"""

from __future__ import annotations

import regex

from .traceback import HEADER

# longest tag taken as a prefix: longer text before the header is a message that quotes one
MAX_PREFIX = 96
# tagged tracebacks open at once; past it the oldest is closed (a tag with a counter in it never matches again)
MAX_OPEN = 16
# a rank the tag names: Determined's "[rank=3]", "rank 3", "rank:3"
_RANK = regex.compile(r"(?i)\brank[ =:]?(\d{1,6})\b")
# a date, a clock (with its fraction), glog's "<level><MMDD>" head: the parts of a tag that change from line to line
_VARYING = regex.compile(r"\d{4}-\d\d-\d\d|\d{1,2}:\d\d:\d\d(?:[.,]\d+)?|(?<![\w])[IWEF]\d{4}(?= )")


def header_prefix(body: str) -> str | None:
    """The tag before a traceback header that ends ``body``, e.g. ``"[worker-1] "`` for ``"[worker-1] Traceback
    (most recent call last):"``; None when the header is not there, starts the line, or is quoted in a message
    (a quote, or more than ``MAX_PREFIX`` characters, before it)."""
    i = body.find(HEADER)
    if i <= 0 or i > MAX_PREFIX or body[i + len(HEADER) :].strip():
        return None
    tag = body[:i]
    if not tag.strip() or any(q in tag for q in "'\"`") or tag.rstrip().endswith(("\\n", "=")):
        return None
    return tag


def pattern(tag: str) -> tuple[str, regex.Pattern[str] | None]:
    """How to find ``tag`` at the start of a line: ``(head, pattern)``, the tag's literal text up to its first date or
    clock, and a pattern for the whole tag with its dates and clocks free to change (None when it has none: then the
    head is the whole tag). A line without the head is never matched against the pattern."""
    parts: list[str] = []
    pos = 0
    head = tag
    for m in _VARYING.finditer(tag):
        if not parts:
            head = tag[: m.start()]
        parts.append(regex.escape(tag[pos : m.start()]))
        parts.append(r"[IWEF]?[\d:.,-]+")
        pos = m.end()
    if not parts:
        return tag, None
    parts.append(regex.escape(tag[pos:]))
    return head, regex.compile("".join(parts))


def match(line: str, found: tuple[str, regex.Pattern[str] | None]) -> int:
    """The length of the tag ``found`` (``pattern``'s result) at the start of ``line``, or -1 when it is not there."""
    head, pat = found
    if not line.startswith(head):
        return -1
    if pat is None:
        return len(head)
    m = pat.match(line)
    return m.end() if m else -1


def rank(tag: str) -> str | None:
    """The digits of the rank a tag names ("fa88a9df [rank=3] || ", Determined's trial logs), else None."""
    m = _RANK.search(tag)
    return m[1] if m else None
