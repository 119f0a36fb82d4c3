"""Prefixes that launchers and loggers put in front of a message: timestamps, ``[rank3]:``, ``[default3]:``,
Ray's ``(ActorName pid=123, ip=10.0.0.1)``. Stripped repeatedly, outermost first.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import regex

from .. import plausible
from . import timestamps

# 2024-05-01 10:00:00,123 | [2024-05-01T10:00:00.123Z] | 2024-05-01 10:00:00 - (python logging, DeepSpeed, Slurm, NCCL 2.23+)
_TIME = regex.compile(
    r"\[?(?P<date>\d{4}-\d\d-\d\d)[ T_](?P<clock>\d\d:\d\d:\d\d(?:[.,]\d+)?)(?:Z|[+-]\d\d:?\d\d)?\]?(?:\s*[-|:]\s+|\s+|$)"
)
# torch >= 2.2 prefixes every line of a rank's output with [rankN]: (c10d logging and tee'd stdio)
_RANK = regex.compile(r"\[rank(?P<rank>\d+)\](?::\s?|\s(?=\S))")
# a bare wall clock in front of a rank tag: python logging with ``datefmt="%H:%M:%S"`` and a ``[rank%d]`` field, e.g.
# "01:47:48 [rank1] step 42 loss 0.0172". The clock has no date, so it is dropped (the event takes its file's last
# dated time); only taken when a rank tag follows, so a number at the start of a message is never read as a clock.
_CLOCK_RANK = regex.compile(r"\d\d:\d\d:\d\d(?:[.,]\d+)? (?=\[rank\d+\])")
# torchrun --tee/--redirects prefix "[{role_name}{local_rank}]:" e.g. "[default3]:"
_ROLE = regex.compile(r"\[(?P<role>[a-z][a-z_]*?)(?P<local_rank>\d+)\]:\s?")
# a launcher wrapper's "[<pid>] " in front of a rank prefix, e.g. "[80746] [rank0]:[E321 02:07:08...] ..."
# (https://github.com/hiyouga/LLaMA-Factory/issues/7396); only taken when a rank/role prefix follows
_PID = regex.compile(r"\[(?P<pid>\d+)\] (?=\[(?:rank\d+\]|[a-z][a-z_]*?\d+\]:))")
# Ray forwards worker output as "(ActorName pid=123, ip=10.0.0.1) ", "(pid=123) ", "(raylet, ip=...) ", "(autoscaler +2s) "
_RAY = regex.compile(
    r"\((?:(?P<actor>[A-Za-z_][\w.:<>\[\]-]*?)(?:\s+|,\s*|(?=\)))|(?=pid=))"
    r"(?:pid=(?P<pid>\d+))?(?:,?\s*ip=(?P<ip>[0-9a-fA-F.:]+))?(?:[ ,][^()]*)?\) ?"
)
_RAY_NAMES = frozenset({"raylet", "autoscaler", "gcs_server", "monitor", "dashboard", "log_monitor"})
# "[repeated 7x across cluster]" (Ray log deduplication) at the end of a line
REPEATED = regex.compile(r"\s*\[repeated (?P<n>\d+)x across cluster\]\s*$")


@dataclass(slots=True)
class Prefix:
    """What the prefixes said. ``ray`` is True when a Ray forwarding prefix was seen."""

    time: datetime | None = None
    rank: int | None = None
    local_rank: int | None = None
    pid: int | None = None
    host: str | None = None
    actor: str | None = None
    ray: bool = False
    repeated: int = 1


def strip(text: str) -> tuple[Prefix, str]:
    """Split ``text`` into its prefixes and the message body.

    Returns:
        ``(prefix, body)``: body is ``text`` without the recognised prefixes (and without a trailing
        ``[repeated Nx across cluster]``).
    """
    pre = Prefix()
    body = text
    for _ in range(5):
        if not body:
            break
        c = body[0]
        if c == "(":
            m = _RAY.match(body)
            if m and (m["pid"] or m["ip"] or (m["actor"] or "").split()[0] in _RAY_NAMES):
                pre.ray = True
                pre.actor = m["actor"] or pre.actor
                if m["pid"]:
                    pre.pid = plausible.pid(m["pid"])
                if m["ip"]:
                    pre.host = m["ip"]
                body = body[m.end() :]
                continue
        elif c == "[":
            m = _PID.match(body)
            if m and pre.pid is None:
                pre.pid = plausible.pid(m["pid"])
                body = body[m.end() :]
                continue
            m = _RANK.match(body)
            if m:
                pre.rank = plausible.rank(m["rank"])
                body = body[m.end() :]
                continue
            m = _ROLE.match(body)
            if m:
                pre.local_rank = plausible.rank(m["local_rank"])
                body = body[m.end() :]
                continue
            m = _TIME.match(body)
            if m and pre.time is None:
                pre.time = timestamps.full(m["date"], m["clock"])
                body = body[m.end() :]
                continue
        elif c.isdigit() and pre.time is None:
            m = _TIME.match(body)
            if m:
                pre.time = timestamps.full(m["date"], m["clock"])
                body = body[m.end() :]
                continue
            m = _CLOCK_RANK.match(body)
            if m and pre.rank is None:
                body = body[m.end() :]
                continue
        break
    if body.endswith("]") and "repeated" in body:
        m = REPEATED.search(body)
        if m:
            pre.repeated = plausible.number(m["n"]) or 1
            body = body[: m.start()]
    return pre, body
