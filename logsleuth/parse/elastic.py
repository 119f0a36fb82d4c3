"""The torchrun/elastic failure summary printed with ``ChildFailedError``.

Format from ``torch/distributed/elastic/multiprocessing/errors/__init__.py`` (``ChildFailedError.format_msg``)::

    Root Cause (first observed failure):
    [0]:
      time      : 2024-05-01_10:00:00
      host      : node-1
      rank      : 1 (local_rank: 1)
      exitcode  : -9 (pid: 1234)
      error_file: <N/A>
      traceback : Signal 9 (SIGKILL) received by PID 1234

Each ``[i]:`` entry (under ``Failures:`` or ``Root Cause``) becomes one event whose params hold the fields.

When the worker wrote an error file (``@record`` on its entry point), the ``traceback :`` field holds the worker's
whole formatted exception, indented under the entry::

      traceback : Traceback (most recent call last):
        File "/job/train.py", line 83, in lookup_label_column
          return columns[name]
      KeyError: 'label_smoothing_target'

That replay is collected as a Python traceback too (``Entry.tb``), so the worker's exception is named even when
only the summary was kept (a pasted tail, a clipped log, a driver that lost the worker's stderr).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import regex

from .. import plausible
from . import timestamps
from .traceback import HEADER, Traceback

_SECTION = regex.compile(r"\s*(?P<root>Root Cause \(first observed failure\)|Failures):\s*$")
_ENTRY = regex.compile(r"\s*\[(?P<i>\d+)\]:\s*$")
_FIELD = regex.compile(r"\s+(?P<key>[a-z_]+)\s*:\s?(?P<value>.*)$")
_RANK = regex.compile(r"(?P<rank>-?\d+)(?: \(local_rank: (?P<lr>\d+)\))?")
_EXIT = regex.compile(r"(?P<code>-?\d+)(?: \(pid: (?P<pid>\d+)\))?")
_TIME = regex.compile(r"(?P<date>\d{4}-\d\d-\d\d)_(?P<clock>\d\d:\d\d:\d\d)")


@dataclass
class Entry:
    """One ``[i]:`` entry being collected."""

    line: int
    root: bool
    lines: list[str] = field(default_factory=list)
    end_line: int = 0
    fields: dict[str, str] = field(default_factory=dict)
    tb: Traceback | None = None  # the error file's traceback replayed under ``traceback :``
    tb_open: bool = False

    def params(self) -> dict[str, Any]:
        """Typed fields: ``rank``, ``local_rank``, ``host``, ``exitcode``, ``pid``, ``error_file``, ``time``, ``root``."""
        f = self.fields
        out: dict[str, Any] = {
            "root": self.root,
            "host": f.get("host"),
            "error_file": f.get("error_file"),
            "traceback": f.get("traceback", ""),
        }
        r = _RANK.match(f.get("rank", ""))
        if r:
            out["rank"] = plausible.rank(r["rank"])
            out["local_rank"] = plausible.rank(r["lr"])
        e = _EXIT.match(f.get("exitcode", ""))
        if e:
            out["exitcode"] = plausible.number(e["code"], minimum=-(1 << 31))
            out["pid"] = plausible.pid(e["pid"])
        t = _TIME.match(f.get("time", ""))
        out["time"] = timestamps.full(t["date"], t["clock"]) if t else None
        return out


class SummaryBlock:
    """State machine over the summary; ``feed`` returns finished entries."""

    def __init__(self) -> None:
        self.root: bool | None = None  # inside a section when not None
        self.entry: Entry | None = None

    @property
    def active(self) -> bool:
        return self.root is not None

    def feed(self, line_no: int, text: str, body: str) -> tuple[bool, Entry | None]:
        """Returns ``(consumed, finished_entry)``; an unconsumed line is parsed as an ordinary line."""
        s = _SECTION.match(body)
        if s:
            done = self._finish()
            self.root = s["root"].startswith("Root")
            return False, done
        if self.root is None:
            return False, None
        if self.entry is not None and self.entry.tb is not None and self._feed_tb(line_no, text, body):
            return True, None
        e = _ENTRY.match(body)
        if e:
            done = self._finish()
            self.entry = Entry(line_no, self.root, [text], line_no)
            return True, done
        f = _FIELD.match(body)
        if f and self.entry is not None:
            value = f["value"].strip()
            self.entry.fields[f["key"]] = value
            self.entry.lines.append(text)
            self.entry.end_line = line_no
            if f["key"] == "traceback" and value == HEADER:
                self.entry.tb = Traceback(line_no, [text], line_no)
                self.entry.tb_open = True
            return True, None
        if body.strip() in ("<NO_OTHER_FAILURES>", ""):
            return False, None
        # a ---- or ==== rule, or anything else, ends the section
        done = self._finish()
        self.root = None
        return False, done

    def _feed_tb(self, line_no: int, text: str, body: str) -> bool:
        """Offer a line to the entry's replayed traceback (indented two spaces deeper than a printed one).

        Returns True when the line belongs to it: frames and code while it is open, then a chained exception's
        ``The above exception...`` / ``During handling...`` line and its next header (the last exception wins,
        as Python prints the outermost last)."""
        entry = self.entry
        assert entry is not None and entry.tb is not None
        if not body.startswith("  ") or (_FIELD.match(body) and not body.startswith("    ")):  # a field line
            return False
        inner = body[2:]
        if inner.startswith(HEADER):
            entry.tb = Traceback(line_no, [text], line_no)
            entry.tb_open = True
            return True
        if not entry.tb_open:
            if inner.startswith(("The above exception", "During handling of the above")):
                return True
            return False
        status = entry.tb.add(line_no, text, inner)
        if status == "foreign":
            entry.tb_open = False
            return False
        if status == "done":
            entry.tb_open = False
        return True

    def _finish(self) -> Entry | None:
        e, self.entry = self.entry, None
        return e

    def close(self) -> Entry | None:
        self.root = None
        return self._finish()
