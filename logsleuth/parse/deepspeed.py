"""DeepSpeed's logger: ``[2023-12-12 17:36:22,024] [INFO] [launch.py:315:main] msg``.

Format from ``deepspeed/utils/logging.py`` (``"[%(asctime)s] [%(levelname)s] [%(filename)s:%(lineno)d:%(funcName)s] %(message)s"``);
the leading timestamp is stripped by ``prefix.strip`` before this runs.
"""

from __future__ import annotations

import regex

from .record import Recognised

_LINE = regex.compile(
    r"\[(?P<lvl>DEBUG|INFO|WARNING|ERROR|CRITICAL)\] \[(?P<file>[\w.-]+):(?P<ln>\d+):(?P<fn>[\w<>]+)\]"
)


def recognise(body: str) -> Recognised | None:
    """Recognise a DeepSpeed logger line; None when ``body`` is not one."""
    if not body.startswith("["):
        return None
    m = _LINE.match(body)
    if not m:
        return None
    level = {"CRITICAL": "fatal"}.get(m["lvl"], m["lvl"].lower())
    rec = Recognised("deepspeed", level, start=m.end())
    rec.params["file"] = m["file"]
    return rec
