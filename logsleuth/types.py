"""Core data types: frozen dataclasses, dicts only at the edges (``to_dict``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final, Literal

Source = Literal["nccl", "torch", "elastic", "ray", "vllm", "deepspeed", "python", "jvm", "trainer", "other"]
Level = Literal["debug", "info", "warning", "error", "fatal"]
Role = Literal["cause", "symptom"]
Verdict = Literal["failure", "no_failure", "unknown"]

LEVELS: tuple[str, ...] = ("debug", "info", "warning", "error", "fatal")
LEVEL_RANK = {name: i for i, name in enumerate(LEVELS)}
SEVERITIES: tuple[str, ...] = ("info", "low", "medium", "high", "critical")
SEVERITY_RANK = {name: i for i, name in enumerate(SEVERITIES)}
# the JSON contract's version (``logsleuth.models`` types it; here so that rendering needs no pydantic)
SCHEMA_VERSION: Final = 1  # Final: typed Literal[1], what the models' schema_version field accepts


@dataclass(frozen=True, slots=True)
class Event:
    """One normalized log record: a line, or a multi-line block (a Python traceback, an elastic summary).

    Attributes:
        line: 1-based number of the first line in ``path``.
        end_line: 1-based number of the last line (== ``line`` for single lines).
        path: the file the record came from (``"-"`` for stdin).
        time: wall-clock time printed on the line, naive local time; None when the line has none.
        host: host name or IP named by the line's prefix (NCCL ``host:pid:tid``, Ray ``ip=``, elastic ``host :``).
        pid: process id named by the line.
        rank: global rank named by the line (``[rank3]:``, ``[Rank 3]``, elastic ``rank : 3``).
        local_rank: local rank (torchrun ``[default3]:`` prefix, elastic ``local_rank: 3``).
        source: which software printed it (see ``Source``).
        level: severity printed or inferred (see ``Level``).
        text: the original text, ANSI codes and a log collector's prefix (docker compose ``svc-1  | ``, syslog/journald
            ``Nov 28 10:00:00 host ident[pid]: ``, ``kubectl logs --prefix``) removed; lines joined by ``\\n`` for blocks.
        template: ``text``'s message with variable parts masked (``<NUM>``, ``<IP>``...).
        params: extra fields a recogniser extracted (e.g. ``exc_type``, ``exitcode``, ``user_frame``).
    """

    line: int
    end_line: int
    path: str
    text: str
    source: str = "other"
    level: str = "info"
    time: datetime | None = None
    host: str | None = None
    pid: int | None = None
    rank: int | None = None
    local_rank: int | None = None
    template: str = ""
    params: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)

    @property
    def is_error(self) -> bool:
        return LEVEL_RANK[self.level] >= LEVEL_RANK["error"]

    def to_dict(self) -> dict[str, Any]:
        from .parse.timestamps import iso

        return {
            "path": self.path,
            "line": self.line,
            "end_line": self.end_line,
            "time": iso(self.time),
            "host": self.host,
            "pid": self.pid,
            "rank": self.rank,
            "local_rank": self.local_rank,
            "source": self.source,
            "level": self.level,
            "text": self.text,
        }


@dataclass(frozen=True, slots=True)
class Match:
    """A rule that fired on an event.

    Attributes:
        rule_id: the rule's id (== its file name).
        root_cause: taxonomy id the rule diagnoses.
        role: ``cause`` or ``symptom``.
        event: the event it matched.
        groups: the regex's named groups (strings), merged with the event's params.
        severity: the rule's severity (``info``..``critical``).
        priority: the rule's priority; higher wins when several rules match one event.
        confidence: 0..1 after context boosts/lowers.
    """

    rule_id: str
    root_cause: str
    role: str
    event: Event
    groups: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    severity: str = "medium"
    priority: int = 50
    confidence: float = 0.8


@dataclass(frozen=True, slots=True)
class Hypothesis:
    """A candidate root cause with its confidence (0..1), how it was reached and its evidence matches."""

    root_cause: str
    confidence: float
    method: str  # rule | model | rule+model (| none on a Diagnosis nothing decided)
    evidence: tuple[Match, ...] = ()
    rule_id: str | None = None


@dataclass(frozen=True, slots=True)
class Fix:
    """What to do: a one-paragraph summary, ordered steps and reference URLs."""

    summary: str = ""
    steps: tuple[str, ...] = ()
    references: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Diagnosis:
    """The answer for one job.

    Attributes:
        verdict: ``failure`` | ``no_failure`` | ``unknown``.
        root_cause: the winning taxonomy id (``no_failure``/``unknown`` for those verdicts).
        title: the winning rule's title, or a sentence for the verdicts that are not a cause.
        method: ``rule``, ``model``, ``rule+model``; ``none`` for an ``unknown`` no rule or model reached.
        message: the winning rule's message with its named groups filled in.
        hypotheses: ranked candidates, best first.
        first_failure: the event where the root cause first shows (for ``unknown``: the first unexplained error),
            or None; times carry the job's year (``pipeline.decide``).
        symptoms: matches explained as collateral of the root cause.
        unexplained: error events no rule explains (listed for ``unknown``).
        fix: what to do.
        stats: ``bytes``, ``lines``, ``events``, ``seconds`` (wall time of the analysis), ``paths``.
        versions: software versions found in the log (``torch``, ``nccl``, ``cuda``, ``vllm``...).
        ranks: ``world_size``, ranks ``seen``/``missing``/``with_errors``/``silent_before_failure``, ``hosts``, ``last_seen``.
        culprit: the rank(s) that caused a hang or mismatch, not the waiters (``hang.culprit_fields``): ``ranks``,
            ``source`` (``flight_recorder`` | ``progress``), ``process_group``, ``collective``, ``waiters``,
            ``confidence``, ``detail``; empty when neither dumps nor per-rank progress name one.
        exception: the exception printed at ``first_failure`` with its chained causes
            (``factlayer.reason.exception_summary``: ``type``, ``message``, ``innermost``, ``user_code``, ``path``,
            ``line``, ``caused_by``, ``chain``); empty when the first failure is not an exception.
    """

    verdict: str
    root_cause: str
    title: str = ""
    message: str = ""
    confidence: float = 0.0
    method: str = "rule"
    rule_id: str | None = None
    severity: str | None = None
    hypotheses: tuple[Hypothesis, ...] = ()
    first_failure: Event | None = None
    symptoms: tuple[Match, ...] = ()
    evidence: tuple[Match, ...] = ()
    unexplained: tuple[Event, ...] = ()
    fix: Fix = Fix()
    stats: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    versions: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    ranks: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    culprit: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
    exception: dict[str, Any] = field(default_factory=dict, compare=False, hash=False)
