"""``JobEvidence``: everything ``pipeline.collect`` keeps of one job, frozen, for ``pipeline.decide`` to judge.

Collecting reads and parses the logs once (the expensive part); deciding is pure over this record and a rule set,
so training and evaluation collect each corpus job once and decide as often as they need (rules only, with a
fold's model, ablated).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any

from .types import Event, Match


@dataclass(frozen=True, slots=True)
class RankActivity:
    """One global rank's footprint in the job (``Event.rank``; a communicator/group rank is never counted here).

    Attributes:
        events: events seen with this rank.
        errors: error-level events among them.
        first: time of its first event (raw, maybe year-less), or None.
        last: time of its last event, or None.
        hosts: hosts its lines named.
    """

    events: int = 0
    errors: int = 0
    first: datetime | None = None
    last: datetime | None = None
    hosts: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True, eq=False)  # identity: ``clock`` is keyed by the ids of its own events
class JobEvidence:
    """What one job's logs say, before any decision.

    Attributes:
        matches: raw rule matches in arrival order (``RuleSet.finalize`` has not applied context yet).
        context_hits: indices of the rule set's context patterns seen anywhere in the job.
        last_lines: path -> last line number seen (``tail_lines`` rules).
        unexplained: error events (and NCCL WARNs) no rule matched, in arrival order.
        notable: warning+ or rule-matched events (the classifier's input), in arrival order.
        tail: the job's last events (the classifier's input).
        facts: typed facts (``logsleuth.factlayer``: process exits, exceptions, NCCL warnings, hardware...) in arrival order.
        versions: software name -> version printed in the log.
        elastic_root: the elastic summary's "Root Cause (first observed failure)" entry, if any.
        world_size: the largest world size the logs state, or None.
        ranks: global rank -> ``RankActivity``.
        hosts: every host named.
        clock: ``id(event)`` of each kept event -> its time (or its file's last time before it), year-normalised.
        file_index: path -> its position among the job's inputs.
        stats: ``bytes``, ``lines``, ``events``, ``error_events``, ``truncated_lines``, ``skipped_lines``, ``paths``,
            ``skipped``, ``seconds`` (time spent collecting), ``numbers_recovered`` (every rank's last printed loss is
            finite after any NaN/Inf/overflow, no loss scale at its minimum: ``numeric_tail.NumericTail.recovered``).
        progress: global rank -> ``progress.RankProgress`` (last step printed, when), year-normalised.
        unranked_progress: the progress lines that name no rank, one ``progress.RankProgress`` (rank
            ``progress.UNRANKED``) per pid the lines name (one for lines with none), year-normalised.
        end_time: the job's latest timed line, year-normalised (how long progress had stopped before the log ends).
        flight: the analysis of the job's Flight Recorder dumps (``flight.FlightAnalysis``), None without dumps.
        memory_growth: memory sizes a process printed that were still growing at its last print
            (``memory_trend.MemoryGrowth``).
        loss_explosion: ranks whose finite loss ended far above its floor (``numeric_tail.LossExplosion``).
        implausible_rate: a learning rate of 10+ on the loss lines of a run whose loss never came below 10
            (``numeric_tail.ImplausibleRate``), None otherwise.
        bar_moved: when the job's tqdm progress bars last moved, at the latest (``bar_clock.BarMoved``), None when
            it printed no bar or a bar's last frame has no timed line after it.
        year: the job's year for year-less clocks: the year most full timestamps print, else the newest input
            file's mtime year; None (stdin with year-less clocks only) when neither is known.
    """

    matches: tuple[Match, ...] = ()
    context_hits: frozenset[int] = frozenset()
    last_lines: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    unexplained: tuple[Event, ...] = ()
    notable: tuple[Event, ...] = ()
    tail: tuple[Event, ...] = ()
    facts: tuple[Any, ...] = ()
    versions: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    elastic_root: Event | None = None
    world_size: int | None = None
    ranks: Mapping[int, RankActivity] = field(default_factory=lambda: MappingProxyType({}))
    hosts: frozenset[str] = frozenset()
    clock: Mapping[int, datetime | None] = field(default_factory=lambda: MappingProxyType({}), repr=False)
    file_index: Mapping[str, int] = field(default_factory=lambda: MappingProxyType({}))
    stats: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    progress: Mapping[int, Any] = field(default_factory=lambda: MappingProxyType({}))
    unranked_progress: tuple[Any, ...] = ()
    end_time: datetime | None = None
    flight: Any = None
    year: int | None = None
    memory_growth: tuple[Any, ...] = ()
    loss_explosion: tuple[Any, ...] = ()
    bar_moved: Any = None
    implausible_rate: Any = None

    def time_of(self, event: Event) -> datetime | None:
        """The job-clock time of a kept ``event`` (None when neither it nor a line before it in its file had one)."""
        return self.clock.get(id(event))
