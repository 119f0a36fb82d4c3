"""vLLM's logger: ``INFO 01-22 20:05:19 [llm_engine.py:12] msg`` (>= 0.8) or ``INFO 01-22 20:05:19 llm_engine.py:12] msg``.

Format from ``vllm/logger.py`` (``_FORMAT = "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s"``,
``_DATE_FORMAT = "%m-%d %H:%M:%S"``); worker processes add a ``(VllmWorkerProcess pid=N)`` prefix.
"""

from __future__ import annotations

import regex

from . import timestamps
from .record import Recognised

_LINE = regex.compile(
    r"(?P<lvl>DEBUG|INFO|WARNING|ERROR|CRITICAL) (?P<mo>\d\d)-(?P<d>\d\d) (?P<clock>\d\d:\d\d:\d\d(?:\.\d+)?) "
    r"\[?(?P<file>[\w./-]+\.py):(?P<ln>\d+)\]"
)


def recognise(body: str) -> Recognised | None:
    """Recognise a vLLM logger line; None when ``body`` is not one."""
    if not body or body[0] not in "DIWEC":
        return None
    m = _LINE.match(body)
    if not m:
        return None
    level = {"CRITICAL": "fatal"}.get(m["lvl"], m["lvl"].lower())
    rec = Recognised("vllm", level, time=timestamps.yearless(m["mo"], m["d"], m["clock"]), start=m.end())
    rec.params["file"] = m["file"]
    return rec
