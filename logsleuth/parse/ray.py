"""Ray's own log lines: ``2024-01-01 10:00:00,123\tINFO worker.py:1724 -- msg`` (timestamp stripped first),
and Ray warnings/errors printed by the driver (``(autoscaler +2s) Warning: ...``, ``ray.exceptions...``).

Format from ``ray/_private/ray_constants.py`` (``LOGGER_FORMAT = "%(asctime)s\\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s"``).
"""

from __future__ import annotations

import regex

from .. import plausible
from .record import Recognised

_LINE = regex.compile(r"(?P<lvl>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(?P<file>[\w.-]+\.py):(?P<ln>\d+) -- ")
# Ray's C++ components (raylet, gcs): "[2023-07-23 15:21:29,851 E 9751 9751] (raylet) node_manager.cc:3084: msg";
# the timestamp is stripped first, leaving "E 9751 9751] ..."
_CPP = regex.compile(r"(?P<lvl>[IWEFD]) (?P<pid>\d+) (?P<tid>\d+)\] (?:\(\w+\) )?")
_CPP_LEVELS = {"I": "info", "W": "warning", "E": "error", "F": "fatal", "D": "debug"}
_WARNING = regex.compile(r"(?:Warning|WARNING|Error|ERROR):? ")


def recognise(body: str, from_ray_prefix: bool = False) -> Recognised | None:
    """Recognise a Ray logger line; with ``from_ray_prefix`` any body is Ray's (level from ``Warning:``/``Error:``)."""
    m = _LINE.match(body)
    if m:
        level = {"CRITICAL": "fatal"}.get(m["lvl"], m["lvl"].lower())
        rec = Recognised("ray", level, start=m.end())
        rec.params["file"] = m["file"]
        return rec
    c = _CPP.match(body)
    if c:
        return Recognised("ray", _CPP_LEVELS[c["lvl"]], pid=plausible.pid(c["pid"]), start=c.end())
    if body.startswith("ray.exceptions.") or body.startswith("ray::"):
        return Recognised("ray", "error")
    if from_ray_prefix:
        w = _WARNING.match(body)
        if w:
            return Recognised("ray", "warning" if w.group().lower().startswith("warn") else "error")
    return None
