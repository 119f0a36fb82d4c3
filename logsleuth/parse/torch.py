"""PyTorch c10d / glog-style lines.

Formats (PyTorch ``c10/util/Logging.cpp`` and ``torch/_logging``):
``[E1121 10:00:00.123456 1234 ProcessGroupNCCL.cpp:1234] msg`` (torch >= 2.2, bracketed, tid optional; the month
is not zero-padded in some releases: ``[E218 11:54:18.495933619 ...]``),
``[E ProcessGroupNCCL.cpp:475] msg`` / ``[W socket.cpp:601] [c10d] msg`` (older), and the unbracketed
``W1121 10:00:00.123000 1234 torch/distributed/elastic/multiprocessing/api.py:897] msg`` that torch >= 2.4's
Python loggers print; and glog >= 0.6's prefix with the year (``FLAGS_log_year_in_prefix``, on by default:
``F20221031 10:52:42.193126 106986 eager_nccl_comm_manager.cpp:75] Check failed: ...``, OneFlow's logs). A file path under ``distributed/elastic`` or ``distributed/run`` marks the elastic agent.
"""

from __future__ import annotations

import regex

from .. import plausible
from . import timestamps
from .record import Recognised

_GLOG = regex.compile(
    r"\[?(?P<lvl>[IWEF])(?:(?P<yr>(?:19|20)\d\d)?(?P<mo>\d{1,2}?)(?P<d>\d\d) (?P<clock>\d\d:\d\d:\d\d(?:\.\d+)?)(?: +(?P<tid>\d+))? | )"
    r"(?P<file>[^\s\]:]+):(?P<ln>\d+)\]"
)
_LEVELS = {"I": "info", "W": "warning", "E": "error", "F": "fatal"}
_RANK_IN_MSG = regex.compile(r"\[(?:PG [^\]]*)?\s*Rank (?P<rank>\d+)\]|\bRank (?P<rank2>\d+)\b")


def recognise(body: str) -> Recognised | None:
    """Recognise a glog-style torch line; None when ``body`` is not one."""
    if not body or body[0] not in "[IWEF":
        return None
    m = _GLOG.match(body)
    if not m:
        return None
    file = m["file"]
    source = "elastic" if ("elastic" in file or "distributed/run" in file) else "torch"
    rec = Recognised(source, _LEVELS[m["lvl"]], start=m.end())
    if m["clock"]:
        rec.time = timestamps.yearless(m["mo"], m["d"], m["clock"])
        if m["yr"] and rec.time is not None:
            try:
                rec.time = rec.time.replace(year=int(m["yr"]))
            except ValueError:  # 29 February of a year that has none: keep the year-less time
                pass
    rec.params["file"] = file
    if m["tid"]:
        # the prefix's id: ``%(process)d`` in torch's Python loggers (``torch/_logging/_internal.py``
        # ``TorchLogsFormatter``: the elastic agent's lines), a thread id in C++ glog
        rec.params["glog_id"] = int(m["tid"])
    r = _RANK_IN_MSG.search(body, m.end(), m.end() + 120)
    if r:
        rec.rank = plausible.rank(r["rank"] or r["rank2"])
    return rec
