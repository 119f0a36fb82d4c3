"""Ray's own log lines: ``2024-01-01 10:00:00,123\tINFO worker.py:1724 -- msg`` (timestamp stripped first),
and Ray warnings/errors printed by the driver (``(autoscaler +2s) Warning: ...``, ``ray.exceptions...``).

Format from ``ray/_private/ray_constants.py`` (``LOGGER_FORMAT = "%(asctime)s\\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s"``).
"""
from __future__ import annotations

import regex

from .record import Recognised

_LINE = regex.compile(r"(?P<lvl>DEBUG|INFO|WARNING|ERROR|CRITICAL)\s+(?P<file>[\w.-]+\.py):(?P<ln>\d+) -- ")
_WARNING = regex.compile(r"(?:Warning|WARNING|Error|ERROR):? ")


def recognise(body: str, from_ray_prefix: bool = False) -> Recognised | None:
    """Recognise a Ray logger line; with ``from_ray_prefix`` any body is Ray's (level from ``Warning:``/``Error:``)."""
    m = _LINE.match(body)
    if m:
        level = {"CRITICAL": "fatal"}.get(m["lvl"], m["lvl"].lower())
        rec = Recognised("ray", level, start=m.end())
        rec.params["file"] = m["file"]
        return rec
    if body.startswith("ray.exceptions.") or body.startswith("ray::"):
        return Recognised("ray", "error")
    if from_ray_prefix:
        w = _WARNING.match(body)
        if w:
            return Recognised("ray", "warning" if w.group().lower().startswith("warn") else "error")
    return None
