"""NCCL debug lines (``NCCL_DEBUG=INFO|WARN``): ``host:pid:tid [cudaDev] NCCL INFO|WARN message``.

Format from NCCL's ``src/debug.cc`` (``ncclDebugLog``): ``"%s:%d:%d [%d] NCCL %s "`` with hostname, pid,
tid, CUDA device; continuation lines of a WARN carry the same prefix with a ``file.cc:line`` instead of ``NCCL``
(releases up to 2.3 left the word ``NCCL`` out: ``[3] INFO ...``, ``[3] file.cu:45 WARN ...``).
"""

from __future__ import annotations

import regex

from .. import plausible
from .record import Recognised

_LINE = regex.compile(
    r"(?P<host>[\w.\-]+):(?P<pid>\d+):(?P<tid>\d+) \[(?P<dev>\d+|[a-z]+)\] "
    r"(?:(?:NCCL )?(?P<lvl>INFO|WARN|ERROR|TRACE|ABORT)\b|(?P<src>[\w/.-]+\.(?:cc|c|h|cu|cpp)):\d+"
    r"|(?P<func>\w+):\d+ NCCL (?P<flvl>INFO|WARN|ERROR)\b)"
)
# a net plugin logs through NCCL's logger with its C function where NCCL's own lines name the file (aws-ofi-nccl's
# ``NCCL_OFI_WARN``: "host:199:263 [2] process_err_completion:1562 NCCL WARN NET/OFI Request ... completed with error")
# NCCL 2.1-2.3 printed the level without the "NCCL" word: "host:13:42 [3] INFO bootstrap.cu:45 -> 2 [Net]",
# "host:13:42 [3] include/socket.h:371 WARN Connection closed by remote peer" (horovod/horovod#210, #243, #666)
# continuation/plugin lines printed without the host prefix: "include/socket.h:344 NCCL WARN ..."
# (and a line quoted without its prefix at all: "NCCL WARN NET/IB : Got async event : port error")
_BARE = regex.compile(
    r"(?:(?P<src>[\w/.-]+\.(?:cc|c|h|cu|cpp)):\d+ (?:NCCL )?|\w+:\d+ NCCL |NCCL )(?P<lvl>INFO|WARN|ERROR)\b"
)
_LEVELS = {"INFO": "info", "TRACE": "debug", "WARN": "warning", "ERROR": "error", "ABORT": "error", None: "warning"}
# "comm 0x55d5 rank 3 nranks 8 cudaDev 3 ..." names the communicator rank
_COMM_RANK = regex.compile(r"\brank (?P<rank>\d+) nranks (?P<nranks>\d+)")


def recognise(body: str) -> Recognised | None:
    """Recognise a NCCL line; None when ``body`` is not one."""
    if ":" not in body:
        return None
    m = _LINE.match(body)
    if not m:
        b = _BARE.match(body)
        return Recognised("nccl", _LEVELS[b["lvl"]], start=b.end()) if b else None
    rec = Recognised("nccl", _LEVELS[m["lvl"] or m["flvl"]], host=m["host"], pid=plausible.pid(m["pid"]), start=m.end())
    if m["dev"].isdigit():
        rec.params["cuda_dev"] = plausible.number(m["dev"])
    r = _COMM_RANK.search(body, m.end())
    if r:
        # a communicator (group) rank, not the global rank: ``parse._event`` uses it only when neither the line's
        # prefix nor the file's path names the global rank
        rec.params["comm_rank"] = plausible.rank(r["rank"])
        rec.params["nranks"] = plausible.world_size(r["nranks"])
    return rec
