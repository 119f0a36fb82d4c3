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


def logged_message(body: str) -> tuple[str, str]:
    """``(message, tag)`` of a vLLM logger line: the text after its ``LEVEL MM-DD HH:MM:SS [file.py:N] `` prefix and
    ``file.py:N``; ``(body, "")`` when ``body`` is not one.

    vLLM's ``NewLineFormatter`` (``vllm/logging_utils/formatter.py``) repeats the whole prefix on every line of a
    multi-line record, so a traceback logged with ``logger.exception`` (V1's "EngineCore encountered a fatal error.",
    V0's worker ``multiproc_worker_utils.py`` "Exception in worker ... while processing method ...") reads, line by
    line, ``ERROR 11-08 11:01:30 [core.py:502] Traceback (most recent call last):``, ``ERROR ... [core.py:502]   File
    ...``; every line of one record carries the same ``file.py:N`` (intel/llm-scaler#154, vllm-project/vllm#8879).
    """
    if not body or body[0] not in "DIWEC":
        return body, ""
    m = _LINE.match(body)
    if not m:
        return body, ""
    rest = body[m.end() :]
    return (rest[1:] if rest.startswith(" ") else rest), f"{m['file']}:{m['ln']}"
