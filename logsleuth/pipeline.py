"""The analysis pipeline for one job: ``collect`` (read -> parse -> rules, streaming with bounded memory) gives a
frozen ``JobEvidence``; ``decide`` (pure: rules' context -> diagnose -> model vote) gives the ``Diagnosis``."""

from __future__ import annotations

import dataclasses
import os
import time
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import Any, Protocol, overload, runtime_checkable

from .bar_clock import BarClock
from .collective_paths import ranks_in_different_collectives
from .combine import combine, rule_decides
from .diagnose import diagnose
from .ended_mid_run import output_stopped_mid_run
from .errors import InputError
from .evidence import JobEvidence, RankActivity
from .factlayer import Fact
from .factlayer.kinds import ProcessExit
from .factlayer.reason import (
    FactStream,
    coordination_aborts,
    crash_library,
    exception_summary,
    fallback_records,
    handled_when_interrupted,
    in_records,
    interrupted_from,
    peer_loss_aborts,
    raised_from,
    sibling_terminations,
    spark_stops,
    stopped_after_failure,
    teardown_from,
    unwinding,
)
from .factlayer.tables import is_advisory
from .facts import find_versions, find_world_size
from .flight import from_paths as flight_from_paths
from .flight.read import only_dumps
from .hang import decide as decide_hang
from .hang import unheeded_sigterm
from .install_skew import package_installed_twice
from .interrupted import interrupted_while_waiting
from .jobfiles import error_file_event, error_files, infer
from .memory_trend import MemoryTrend, peer_lost_while_memory_grew
from .nccl_carried_on import NcclWarnsCarriedOn
from .never_met import membership_never_formed
from .numeric_tail import NumericTail, implausible_rate, loss_exploded
from .one_host_failed import one_host_failed
from .parse import parse
from .parse.decoration import undecorate
from .parse.timestamps import YEARLESS, iso_dated
from .peer_left import collective_after_finish, peer_left_cleanly
from .plausible import ranges
from .progress import ProgressTracker, silent_first
from .read import LineGate, ReadStats, SizeLimitError, expand_paths, iter_lines
from .recovered import (
    all_exited_cleanly,
    dataset_finished_after_retry,
    finished_after_failure,
    resumed_after_failure,
    retried_after_failure,
    went_on_after_errors,
    went_on_after_exception,
    went_on_after_signal,
)
from .relaunched import relaunched_after_failure
from .rules.engine import RuleSet, load_rules
from .rules.linegate import GateView, tail_lines
from .shape_memo import line_shape
from .shutdown_hang import hung_after_finish, job_end, teardown_after_success
from .taxonomy import title as taxonomy_title
from .types import Diagnosis, Event, Match
from .version_warned import version_warned_before_failure


@runtime_checkable  # decide tells a model from a loader of one by its vote method
class Voter(Protocol):
    """What ``decide`` needs of a model: ``classify.model.Classifier.vote``."""

    def vote(
        self,
        notable: Sequence[Event],
        tail: Sequence[Event],
        diagnosis: Diagnosis | None = None,
        *,
        explain: bool = False,
    ) -> Any: ...


MAX_MATCHES_PER_RULE = 500  # a symptom repeated on a million lines needs no more evidence than this
MAX_UNEXPLAINED = 200
MAX_FACTS = 2000  # typed facts kept per job (a NaN loss printed every step needs no more)
MAX_NOTABLE = 400  # warning+ or rule-matched events kept for the classifier
TAIL_EVENTS = 40  # the job's last events, kept for the classifier (hangs show in how a log ends)


@dataclass
class JobState:
    """What the analysis keeps while streaming: bounded lists and counters, never all events."""

    matches: list[Match] = field(default_factory=list)
    facts: list[Fact] = field(default_factory=list)
    per_rule: dict[str, int] = field(default_factory=dict)
    unexplained: list[Event] = field(default_factory=list)
    context_hits: set[int] = field(default_factory=set)
    versions: dict[str, str] = field(default_factory=dict)
    elastic_root: Event | None = None
    last_lines: dict[str, int] = field(default_factory=dict)
    notable: list[Event] = field(default_factory=list)
    tail: deque[Event] = field(default_factory=lambda: deque(maxlen=TAIL_EVENTS))
    events: int = 0
    error_events: int = 0
    # multi-rank bookkeeping (bounded by the number of ranks/hosts, not by the log size)
    clock: dict[int, datetime | None] = field(
        default_factory=dict
    )  # id(kept event) -> its time, or the file's last time before it
    years: dict[int, int] = field(default_factory=dict)  # year -> count of full timestamps
    world_size: int | None = None
    ranks: dict[int, RankTally] = field(default_factory=dict)
    hosts: set[str] = field(default_factory=set)
    progress: ProgressTracker = field(default_factory=ProgressTracker)  # per-rank last step printed
    last_time: datetime | None = None  # the job's latest timed line (raw, maybe year-less)
    stream: FactStream = field(default_factory=FactStream)  # facts that take earlier events to know
    numbers: NumericTail = field(default_factory=NumericTail)  # did the loss end finite after any NaN/Inf
    memory: MemoryTrend = field(default_factory=MemoryTrend)  # memory sizes still growing when a process went quiet
    nccl_warns: NcclWarnsCarriedOn = field(default_factory=NcclWarnsCarriedOn)  # WARNs a process went on after
    bars: BarClock = field(default_factory=BarClock)  # when the tqdm bars last moved (logs with untimed progress)


@dataclass
class RankTally:
    """One rank's footprint while streaming (frozen into ``evidence.RankActivity`` by ``collect``)."""

    events: int = 0
    errors: int = 0
    first: datetime | None = None
    last: datetime | None = None
    hosts: set[str] = field(default_factory=set)


def consume(events: Iterable[Event], rules: RuleSet, state: JobState) -> None:
    """Run the rules over one file's ``events``, updating ``state``."""
    match_event = rules.match_event
    context_hits = rules.context_hits
    hits = state.context_hits
    last_lines = state.last_lines
    last_time: datetime | None = None
    for ev in events:
        state.events += 1
        if ev.end_line > last_lines.get(ev.path, 0):
            last_lines[ev.path] = ev.end_line
        if ev.time is not None:
            last_time = ev.time
            if state.last_time is None or _later(ev.time, state.last_time):
                state.last_time = ev.time
            if ev.time.year != YEARLESS:
                state.years[ev.time.year] = state.years.get(ev.time.year, 0) + 1
        text = ev.text
        shape = line_shape(text)  # the trackers' regexes run once per line shape (``shape_memo``)
        context_hits(text, hits)
        find_versions(text, state.versions)
        # line by line, as the reader's gate reads world sizes on lines it does not keep (``linegate.GateView``)
        for ln in text.split("\n") if "\n" in text else (text,):
            ws = find_world_size(ln)
            if ws is not None and ws > (state.world_size or 0):
                state.world_size = ws
        rank = ev.rank
        if rank is not None:
            act = state.ranks.get(rank)
            if act is None:
                act = state.ranks[rank] = RankTally()
            act.events += 1
            act.errors += ev.is_error
            if last_time is not None:
                act.first = act.first or last_time
                act.last = last_time
            if ev.host:
                act.hosts.add(ev.host)
        counter = state.progress.add(ev, last_time, shape)
        if ev.host:
            state.hosts.add(ev.host)
        facts = state.stream.facts(ev, state.versions)
        if facts:
            state.facts.extend(facts[: max(0, MAX_FACTS - len(state.facts))])
        state.numbers.add(ev, facts, counter, shape)  # the progress line parsed once for both
        state.memory.add(ev, shape)
        state.nccl_warns.see(ev)
        state.bars.add(ev)
        found = match_event(ev, facts)
        kept = bool(facts)
        if found:
            for m in found:
                n = state.per_rule.get(m.rule_id, 0)
                if n < MAX_MATCHES_PER_RULE:
                    state.matches.append(m)
                    kept = True
                state.per_rule[m.rule_id] = n + 1
        state.tail.append(ev)
        if (found or ev.level != "info" and ev.level != "debug") and len(state.notable) < MAX_NOTABLE:
            state.notable.append(ev)
        if (ev.is_error or (ev.source == "nccl" and ev.level == "warning")) and not is_advisory(ev.text):
            # NCCL prints failures as WARN (src/debug.cc has no ERROR level): an unexplained WARN is not a healthy log
            state.error_events += ev.is_error
            if not found and len(state.unexplained) < MAX_UNEXPLAINED:
                state.unexplained.append(ev)
                kept = True
                if not ev.is_error and ev.source == "nccl":
                    state.nccl_warns.warned(ev)
        elif facts and not found and len(state.unexplained) < MAX_UNEXPLAINED and any(map(_failed_exit, facts)):
            # a launcher or runner reporting a failed process at info level (Kaldi's "run.pl: job failed, log is in
            # X"): not a healthy log, even when no rule says why it failed
            state.unexplained.append(ev)
        if ev.source == "elastic" and ev.params.get("root") and state.elastic_root is None:
            state.elastic_root = ev
            kept = True
        if kept:
            state.clock[id(ev)] = ev.time or last_time


def _after_interrupt(m: Match, interrupted: dict[str, int]) -> bool:
    """``m`` is part of the user's interrupt (``interrupted``: per file, the line it was reported at): an exception its
    unwinding raised after it (``unwinding``), or a symptom from that line on - the other processes' lost connections to
    the ones it stopped first, also when printed into the interrupt's own traceback. What the job waited on is read
    from what came before."""
    line = interrupted.get(m.event.path)
    if line is None:
        return False
    if m.role == "symptom":
        return m.event.line >= line
    return unwinding(m.event) and m.event.line > line


def line_gate(rules: RuleSet) -> LineGate | None:
    """The reader's gate for ``rules`` (built once per rule set; ``rules.linegate.build``), or None when no line
    may be skipped (then every line is parsed, as before)."""
    if hasattr(rules, "_line_gate"):  # built before for this rule set (None: no gate)
        return rules._line_gate
    from .rules.linegate import build

    gate = build(rules)
    rules._line_gate = gate  # type: ignore[attr-defined]  # a cache slot on the rule set, set only here
    return gate


def _later(a: datetime, b: datetime) -> bool:
    """``a`` after ``b``; a full date and a year-less one compare by month, day and clock."""
    if (a.year == YEARLESS) != (b.year == YEARLESS):
        return a.replace(year=2000) > b.replace(year=2000)
    return a > b


def _job_year(state: JobState, files: Sequence[str] = ()) -> int | None:
    """The year most full timestamps print; else the newest file's mtime year (a log is written in its year)."""
    if state.years:
        return max(state.years, key=lambda y: state.years[y])
    mtimes = []
    for f in files:
        if f != "-":
            try:
                mtimes.append(os.stat(f).st_mtime)
            except OSError:
                continue
    return datetime.fromtimestamp(max(mtimes)).year if mtimes else None


@overload
def _dated_event(e: Event, year: int | None) -> Event: ...
@overload
def _dated_event(e: None, year: int | None) -> None: ...
def _dated_event(e: Event | None, year: int | None) -> Event | None:
    if e is None or e.time is None or e.time.year != YEARLESS or year is None:
        return e
    return dataclasses.replace(e, time=_normalise(e.time, year))


def _dated_matches(ms: Sequence[Match], year: int | None) -> tuple[Match, ...]:
    return tuple(
        dataclasses.replace(m, event=_dated_event(m.event, year))
        if m.event.time is not None and m.event.time.year == YEARLESS
        else m
        for m in ms
    )


def dated(diag: Diagnosis, year: int | None) -> Diagnosis:
    """``diag`` with every year-less event time set to ``year`` (the JSON contract prints times with a year)."""
    if year is None:
        return diag
    return dataclasses.replace(
        diag,
        first_failure=_dated_event(diag.first_failure, year),
        symptoms=_dated_matches(diag.symptoms, year),
        evidence=_dated_matches(diag.evidence, year),
        unexplained=tuple(_dated_event(e, year) for e in diag.unexplained),
        hypotheses=tuple(dataclasses.replace(h, evidence=_dated_matches(h.evidence, year)) for h in diag.hypotheses),
    )


def _normalise(t: datetime | None, year: int | None) -> datetime | None:
    if t is not None and t.year == YEARLESS and year is not None:
        try:
            return t.replace(year=year)
        except ValueError:  # Feb 29 in a non-leap year
            return t
    return t


def _order(ev: JobEvidence, kept: Sequence[Event]) -> Callable[[Event], Any]:
    """Sort key for the job's time line: time across files when every kept event has one, else file order."""
    file_index = ev.file_index
    times = ev.clock
    use_time = len(file_index) > 1 and bool(kept) and all(times.get(id(e)) is not None for e in kept)
    if not use_time:
        return lambda e: (file_index.get(e.path, 0), e.line)
    return lambda e: (times.get(id(e)) or datetime.max, file_index.get(e.path, 0), e.line)


MAX_LISTED_RANKS = 1024  # a JSON rank list stops here; ``ranks.counts`` has the full sizes
MAX_RUNS = 64  # runs of consecutive ranks written out in ``ranks.ranges`` ("0-3, 5, 7-2047")


def _missing(world_size: int, seen: list[int]) -> tuple[list[int], int, list[tuple[int, int]]]:
    """The ranks of ``range(world_size)`` absent from sorted ``seen``: the first ``MAX_LISTED_RANKS``, how many in
    all, and their runs; walks the gaps between seen ranks, so the cost does not grow with ``world_size``."""
    listed: list[int] = []
    runs: list[tuple[int, int]] = []
    count, prev = 0, -1
    for r in [*(s for s in seen if s < world_size), world_size]:
        gap = range(prev + 1, r)
        if gap:
            count += len(gap)
            runs.append((gap[0], gap[-1]))
            if len(listed) < MAX_LISTED_RANKS:
                listed.extend(gap[: MAX_LISTED_RANKS - len(listed)])
        prev = r
    return listed, count, runs


def _ranges_text(runs: list[tuple[int, int]], count: int) -> str:
    """``[(0, 3), (5, 5)]`` -> ``"0-3, 5"``; past ``MAX_RUNS`` runs, `` … (N in all)``."""
    text = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs[:MAX_RUNS])
    return text + (f" … ({count} in all)" if len(runs) > MAX_RUNS else "")


def _rank_summary(ev: JobEvidence, diag: Diagnosis) -> dict[str, Any]:
    """Which ranks/hosts reported, which never appeared, which fell silent before the first failure.

    Rank lists hold at most ``MAX_LISTED_RANKS`` ids each (the lowest); ``counts`` gives each list's full size and
    ``ranges`` each full list as text runs (``"1-2047"``). ``world_size`` is the largest plausible one the log
    stated (``plausible.world_size``).
    """
    ranks = ev.ranks
    seen = sorted(ranks)
    with_errors = [r for r in seen if ranks[r].errors]
    missing, n_missing, missing_runs = _missing(ev.world_size, seen) if ev.world_size and seen else ([], 0, [])
    quiet: list[int] = []
    ff = diag.first_failure
    ff_time = ev.time_of(ff) if ff is not None else None
    if ff_time is not None:
        quiet = [r for r in seen if ranks[r].last is not None and (ranks[r].last or ff_time) < ff_time]
    listed = seen[:MAX_LISTED_RANKS]
    ranges_text = {
        k: _ranges_text(ranges(v), len(v))
        for k, v in (("seen", seen), ("with_errors", with_errors), ("silent_before_failure", quiet))
    }
    ranges_text["missing"] = _ranges_text(missing_runs, n_missing)
    prog = ev.progress
    sf = silent_first(dict(prog))
    return {
        "world_size": ev.world_size,
        "seen": listed,
        "hosts": sorted(ev.hosts)[:MAX_LISTED_RANKS],
        "with_errors": with_errors[:MAX_LISTED_RANKS],
        "missing": missing,
        "silent_before_failure": quiet[:MAX_LISTED_RANKS],
        "last_seen": {str(r): iso_dated(t) for r in listed if (t := ranks[r].last)},
        "counts": {
            "seen": len(seen),
            "hosts": len(ev.hosts),
            "with_errors": len(with_errors),
            "missing": n_missing,
            "silent_before_failure": len(quiet),
        },
        "ranges": ranges_text,
        "progress": {str(r): prog[r].to_dict() for r in sorted(prog)[:MAX_LISTED_RANKS] if prog[r].lines},
        "silent_first": {"ranks": list(sf.ranks)[:MAX_LISTED_RANKS], "reason": sf.reason, "detail": sf.detail}
        if sf
        else None,
    }


def _unknown_when_damaged(diag: Diagnosis, skipped: Sequence[dict[str, Any]]) -> Diagnosis:
    """A job with a file that could not be read to its end is never ``no_failure``: the part not read may hold the
    failure (a rank's truncated ``.gz`` ends where it raised). At most ``unknown``, saying why."""
    if not skipped or diag.verdict != "no_failure":
        return diag
    first = skipped[0]["error"]
    more = f" and {len(skipped) - 1} more" if len(skipped) > 1 else ""
    return dataclasses.replace(
        diag,
        verdict="unknown",
        root_cause="unknown",
        title=taxonomy_title("unknown"),
        confidence=0.0,
        message=f"no failure in what could be read, but {len(skipped)} file(s) were not read to the end ({first}"
        f"{more}): the rest may hold it",
    )


def _context_dropped(evidence: JobEvidence, kept: list[Match], rules: RuleSet) -> list[Event]:
    """Error events whose only rule matches ``finalize`` dropped because the context a rule ``requires`` never occurred
    (a cause named only in a setting the log does not show): they failed all the same, so they are unexplained, as
    if no rule had matched them - never a healthy log (a lone "NCCL error: unhandled system error" without the
    weight-sync context rule ``weight-sync-nccl-error-cumem`` needs). Matches dropped for an ``absent`` line or a
    ``tail_lines`` position are left out: there the context says the line was not the job's failure."""
    hits = set(evidence.context_hits)
    explained = {id(m.event) for m in kept}
    out: list[Event] = []
    for m in evidence.matches:
        ev = m.event
        rule = rules.by_id[m.rule_id]
        if id(ev) in explained or not rule.requires or any(i in hits for i in rule.requires):
            continue
        explained.add(id(ev))  # listed once, whichever of its rules comes first
        if (ev.is_error or (ev.source == "nccl" and ev.level == "warning")) and not is_advisory(ev.text):
            out.append(ev)
    return out[: max(0, MAX_UNEXPLAINED - len(evidence.unexplained))]


def _failed_exit(f: Fact) -> bool:
    """A ``ProcessExit`` that says a process failed: a non-zero code, a crash or kill signal, or a runner's bare
    "failed" (no code). Stops by SIGTERM/SIGINT/SIGHUP are left out: a launcher stopping the other workers, an operator's
    Ctrl-C or a closed terminal say nothing about a failure of their own."""
    if not isinstance(f, ProcessExit):
        return False
    if f.signal:
        return f.signal not in ("SIGTERM", "SIGINT", "SIGHUP")
    return f.code != 0 if f.code is not None else f.reporter == "kaldi"


def collect(
    paths: Sequence[str | os.PathLike[str]] | None,
    rules: RuleSet,
    *,
    gate: bool = True,
    max_bytes: int | None = None,
) -> JobEvidence:
    """Read and parse one job's logs once and keep its evidence (no decision is taken here).

    Several files (or a directory) are one job: per-rank files (torchrun ``--log-dir``, Ray session folders,
    ``rank<k>.log``, Slurm ``%j-%t.out``) get their rank/pid from the path where lines do not say, torchrun
    ``error.json`` files are read, and kept events get a time on the job's clock (year-less clocks take the job's
    year).

    Args:
        paths: files, directories (walked for ``*.log|out|err|txt``, optionally ``.gz``/``.zst``) or ``"-"`` for
            stdin; None or empty reads stdin. All paths together are one job.
        rules: the loaded rule set whose patterns are matched while streaming.
        gate: skip lines no rule, recogniser or fact can concern without decoding them (``line_gate``).
        max_bytes: stop with ``SizeLimitError`` once the job's uncompressed bytes pass this.

    A file that cannot be opened, or that breaks mid-way (truncated/corrupt ``.gz``/``.zst``, read error), is named
    in ``stats["skipped"]`` (``path``, ``error``; ``line``: the last line read); the lines before the fault are used
    (and ``decide`` never calls such a job ``no_failure``).

    Returns:
        The job's frozen ``JobEvidence``.

    Raises:
        InputError: missing/unreadable/binary input, or input with no readable log lines.
        SizeLimitError: more than ``max_bytes`` of (decompressed) log data.
    """
    t0 = time.perf_counter()
    given = [os.fspath(p) for p in (paths or ["-"])]
    dumps_only = {p for p in given if only_dumps(p)}  # Flight Recorder dumps given beside the logs: not log input
    if dumps_only and len(dumps_only) == len(given):
        raise InputError(
            "only Flight Recorder dumps given: pass the job's logs too (files or their directory)", given[0]
        )
    files = expand_paths([p for p in given if p not in dumps_only])
    err_files = error_files([p for p in given if os.path.isdir(p)])
    facts = {p: infer(p) for p in (*files, *err_files)}
    torchrun_runs = {p.replace("\\", "/").rsplit("/attempt_", 1)[0] for p, f in facts.items() if f.kind == "torchrun"}
    if len(torchrun_runs) == 1:
        # one node's torchrun log dir: its local ranks are the global ranks
        facts = {p: dataclasses.replace(f, rank=f.local_rank) if f.kind == "torchrun" else f for p, f in facts.items()}
    read_stats = ReadStats(max_bytes=max_bytes)
    state = JobState()
    rules.begin_job()
    lgate = line_gate(rules) if gate else None
    seen = GateView(state.context_hits, state.versions, lambda: len(state.notable) < MAX_NOTABLE)
    colls = state.stream.colls
    if lgate is not None:
        seen.colls = colls  # the gate reads NCCL's COLL trace calls on its raw blocks (``CollTrace.tap``)
    file_index: dict[str, int] = {}
    skipped: list[dict[str, Any]] = []
    tail = tail_lines(len(files))  # each file's always-parsed last lines, out of the job's budget
    for path in files:
        file_index.setdefault(path, len(file_index))
        f = facts[path]
        seen.comm_ranks.clear()  # a file's path may name its rank: NCCL's communicator ranks are per file
        try:
            lines = undecorate(iter_lines(path, read_stats, lgate, seen, tail))
            # NCCL's COLL trace calls are read before parsing (``CollTrace.tap``, ``.skim``): most of a traced log, one
            # fact
            consume(parse(colls.tapped_only(lines) if lgate is not None else colls.skim(lines), path, f), rules, state)
        except SizeLimitError:
            raise
        except InputError as exc:
            if len(files) == 1:
                raise
            # one unopenable file of a multi-file job: note it, go on
            skipped.append({"path": path, "error": str(exc), "line": None})
    for dmg in read_stats.damaged:  # files that broke mid-way: their lines before the fault were used
        skipped.append(
            {
                "path": dmg["path"],
                "line": dmg["line"],
                "error": f"{dmg['path']}: {dmg['error']} after line {dmg['line']}",
            }
        )
    for path in err_files:
        ev = error_file_event(path, facts[path])
        if ev is not None:
            file_index.setdefault(path, len(file_index))
            consume([ev], rules, state)
    if seen.world_size is not None and seen.world_size > (state.world_size or 0):
        state.world_size = seen.world_size
    if state.events == 0:
        where = files[0] if len(files) == 1 else None
        if skipped:
            raise InputError(
                f"no readable log lines; {len(skipped)} file(s) failed, first: {skipped[0]['error']}", where
            )
        raise InputError("empty input: no log lines to analyse", where)
    year = _job_year(state, files)
    stats = {
        "bytes": read_stats.bytes,
        "lines": read_stats.lines,
        "events": state.events,
        "error_events": state.error_events,
        "truncated_lines": read_stats.truncated_lines,
        "skipped_lines": read_stats.skipped_lines,
        "paths": list(file_index),
        "skipped": skipped,
        "rules_over_budget": rules.over_budget(),
        "numbers_recovered": state.numbers.recovered(),
        "seconds": round(time.perf_counter() - t0, 4),
    }
    ranks = {
        r: RankActivity(a.events, a.errors, _normalise(a.first, year), _normalise(a.last, year), frozenset(a.hosts))
        for r, a in state.ranks.items()
    }
    progress = {
        r: dataclasses.replace(
            p,
            time=_normalise(p.time, year),
            last_time=_normalise(p.last_time, year),
            clock_from=_normalise(p.clock_from, year),
            clock_floor=_normalise(p.clock_floor, year),
            deduplicated=state.progress.deduplicated,
        )
        for r, p in state.progress.ranks.items()
    }
    carried_on = state.nccl_warns.carried_on()  # NCCL WARNs their process went on from: not unexplained failures
    # Flight Recorder dumps next to the logs or given as files (raises InputError for a dump it refuses to read)
    flight = flight_from_paths([p for p in given if p != "-"], state.world_size)
    return JobEvidence(
        matches=tuple(state.matches),
        facts=tuple(state.facts),
        context_hits=frozenset(state.context_hits),
        last_lines=MappingProxyType(dict(state.last_lines)),
        unexplained=tuple(e for e in state.unexplained if id(e) not in carried_on),
        notable=tuple(state.notable),
        tail=tuple(state.tail),
        versions=MappingProxyType(dict(state.versions)),
        elastic_root=state.elastic_root,
        world_size=state.world_size,
        ranks=MappingProxyType(ranks),
        hosts=frozenset(state.hosts),
        clock=MappingProxyType({k: _normalise(t, year) for k, t in state.clock.items()}),
        file_index=MappingProxyType(file_index),
        stats=MappingProxyType(stats),
        progress=MappingProxyType(progress),
        unranked_progress=tuple(
            dataclasses.replace(
                p,
                time=_normalise(p.time, year),
                last_time=_normalise(p.last_time, year),
                clock_from=_normalise(p.clock_from, year),
                clock_floor=_normalise(p.clock_floor, year),
            )
            for p in state.progress.unranked.values()
        ),
        end_time=_normalise(state.last_time, year),
        flight=flight,
        year=year,
        memory_growth=state.memory.growing(),
        loss_explosion=state.numbers.exploded(),
        implausible_rate=state.numbers.implausible_rate(),
        bar_moved=state.bars.last_moved(lambda t: _normalise(t, year)),
    )


def decide(
    evidence: JobEvidence,
    rules: RuleSet,
    model: Voter | Callable[[], Voter | None] | None = None,
    *,
    explain: bool = False,
) -> Diagnosis:
    """Judge one job's evidence: rules (context applied), root cause vs symptoms, then the model's vote if given.

    Pure: nothing global is read; the same evidence and rule set give the same diagnosis.

    Args:
        evidence: what ``collect`` kept (with the same ``rules``: its matches are that rule set's).
        rules: the rule set (context, titles, messages, fixes, ``explains``).
        model: anything with ``vote(notable, tail, diagnosis, explain=)`` (a ``classify.model.Classifier``), or a
            zero-argument callable returning one or None (loaded only if the model can change the answer); None:
            rules only.
        explain: record the model's vote, top lines and features in ``stats["explain"]``.

    Returns:
        The ``Diagnosis``; ``stats`` is a copy of ``evidence.stats``; ``ranks`` summarises rank activity.
    """
    matches = rules.finalize(list(evidence.matches), set(evidence.context_hits), dict(evidence.last_lines))
    if evidence.stats.get("numbers_recovered"):  # a skipped overflow step the loss recovered from: the scaler working
        matches = [m for m in matches if m.root_cause != "training_divergence"]
    # a SIGTERM after the script said training was done is its teardown, and so is what its file printed from that
    # signal on (the processes being stopped): no cause, not even a symptom of one
    stop = teardown_from(evidence.facts)
    if stopped_executors := spark_stops(evidence.facts):  # a Spark executor's SIGTERM as the driver commanded
        matches = [m for m in matches if (m.event.path, m.event.line) not in stopped_executors]
    unexplained = list(evidence.unexplained)
    if dropped := _context_dropped(evidence, matches, rules):
        files = {p: i for i, p in enumerate(dict.fromkeys(e.path for e in unexplained + dropped))}
        unexplained = sorted(unexplained + dropped, key=lambda e: (files[e.path], e.line))
    if stop:
        matches = [m for m in matches if m.event.line < stop.get(m.event.path, m.event.line + 1)]
        unexplained = [e for e in unexplained if e.line < stop.get(e.path, e.line + 1)]
    if stopped_executors:
        unexplained = [e for e in unexplained if (e.path, e.line) not in stopped_executors]
    if fell_back := fallback_records(evidence.facts):  # an error text a fallback already handled (its own record)
        matches = [m for m in matches if not in_records(m.event, fell_back)]
        unexplained = [e for e in unexplained if not in_records(e, fell_back)]
    handled = handled_when_interrupted(evidence.facts)
    if handled:  # an exception a loop caught and was still handling when the user interrupted: not a failure
        matches = [m for m in matches if id(m.event) not in handled]
    if interrupted := interrupted_from(evidence.facts):
        matches = [m for m in matches if not _after_interrupt(m, interrupted)]
    order = _order(evidence, [m.event for m in matches])
    diag = diagnose(
        matches,
        rules,
        unexplained,
        order=order,
        stats=dict(evidence.stats),
        versions=dict(evidence.versions),
        elastic_root=evidence.elastic_root,
        siblings=sibling_terminations(evidence.facts)
        | stopped_after_failure(evidence.facts)
        | peer_loss_aborts(evidence.facts)
        | coordination_aborts(evidence.facts),
        raised_from=raised_from(evidence.facts),
    )
    diag = dataclasses.replace(diag, ranks=_rank_summary(evidence, diag))
    diag = _name_crash_library(evidence, diag)
    diag = peer_lost_while_memory_grew(evidence, diag)
    diag = peer_left_cleanly(evidence, diag)  # mp.spawn's only failure lost its peer: the others had exited cleanly
    diag = collective_after_finish(evidence, diag)  # a collective waited after a loop said it finished
    diag = membership_never_formed(evidence, diag)  # a rendezvous/quorum wait ran out before anyone trained a step
    diag = package_installed_twice(evidence, diag)  # one package's module run from two installs as different code
    diag = one_host_failed(evidence, diag)  # all of one host's ranks failed in library code at start-up, no other host
    diag = loss_exploded(evidence, diag)
    diag = implausible_rate(evidence, diag)  # a learning rate of 10+ and a loss that never came down
    # a lost store after every worker succeeded is shutdown order: read from facts that the job succeeded, which the
    # model's vote on its lines does not overrule
    torn = teardown_after_success(evidence, diag)
    # a failure the ranks went on from (a restarted worker resumed past it): read from per-rank progress, final too
    torn = resumed_after_failure(evidence, torn)
    torn = relaunched_after_failure(evidence, torn)  # the launcher failed for good, a new launch did the work
    torn = retried_after_failure(evidence, torn)  # Ray retried the failed task and the job went on
    torn = dataset_finished_after_retry(evidence, torn)  # Ray retried the task and Ray Data's execution finished
    torn = went_on_after_exception(evidence, torn)  # a caught exception the loop printed and went on from
    torn = went_on_after_errors(evidence, torn, matches)  # error lines no rule explains, every rank trained past
    torn = finished_after_failure(evidence, torn)  # the orchestrator reported the whole run succeeded after it
    torn = all_exited_cleanly(evidence, torn)  # an exception's answer while the launcher saw every process exit 0
    torn = went_on_after_signal(evidence, torn)  # a stop signal caught, training went on, every process exited 0
    # the user's Ctrl-C with nothing failed before it: the job was waiting (a fact the model's vote does not overrule)
    torn = interrupted_while_waiting(evidence, torn)
    torn = output_stopped_mid_run(evidence, torn)  # nothing failed, but the output stops short of its stated totals
    if torn is not diag:
        diag = dataclasses.replace(torn, ranks=_rank_summary(evidence, torn))
    if model is not None and not (rule_decides(diag) and not explain):  # else the model could not change the answer
        clf = model if isinstance(model, Voter) else model()
        if clf is not None:
            notable, tail, first = evidence.notable, evidence.tail, diag
            diag = combine(first, lambda: clf.vote(notable, tail, first, explain=explain), rules, explain=explain)
    # hangs: the culprit rank from Flight Recorder dumps or per-rank progress, and silent_hang (after the model,
    # which does not know the culprit facts)
    diag = decide_hang(
        diag,
        flight=evidence.flight,
        progress=dict(evidence.progress),
        end=job_end(evidence),
        unheeded=unheeded_sigterm(evidence.facts, evidence.tail),
        unranked=evidence.unranked_progress,
        bars=evidence.bar_moved,
    )
    diag = ranks_in_different_collectives(evidence, diag)  # timeouts in different collectives: a mismatch
    diag = hung_after_finish(evidence, diag)  # finished training, then killed from outside: hung at shutdown
    diag = version_warned_before_failure(evidence, diag)  # unexplained failure after a library's version warning
    diag = _unknown_when_damaged(dated(diag, evidence.year), evidence.stats.get("skipped") or [])
    # the exception at the first failure with its chained causes ("The above exception was the direct cause...")
    return dataclasses.replace(diag, exception=exception_summary(evidence.facts, diag.first_failure))


def _name_crash_library(evidence: JobEvidence, diag: Diagnosis) -> Diagnosis:
    """A native crash names the library of the innermost native frame when the log prints the stack."""
    if diag.root_cause != "native_crash" or diag.first_failure is None:
        return diag
    frame = crash_library(evidence.facts, diag.first_failure)
    if frame is None:
        return diag
    where = f"{frame.library}" + (f" ({frame.symbol})" if frame.symbol else "")
    msg = f"{diag.message} Innermost native frame outside the runtime: {where}, line {frame.line}."
    return dataclasses.replace(diag, message=msg)


def _shipped_model() -> Voter | None:
    from .classify.model import default

    return default()


def analyze(
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    rules: RuleSet | None = None,
    rules_dirs: Sequence[str | os.PathLike[str]] = (),
    model: bool = True,
    explain: bool = False,
    gate: bool = True,
    max_bytes: int | None = None,
) -> Diagnosis:
    """Analyse one job's logs and return its diagnosis: ``decide(collect(paths, rules), rules, shipped model)``.

    Args:
        paths: files, directories or ``"-"`` for stdin (see ``collect``); None or empty reads stdin.
        rules: a loaded rule set (load once and reuse it for many jobs); default: built-ins plus ``rules_dirs``.
        rules_dirs: extra rule directories (ignored when ``rules`` is given).
        model: let the shipped classifier vote (``--no-model`` turns it off); without a model file, rules only.
        explain: ask the classifier to record which lines/features drove its vote (in ``stats["explain"]``).
        gate: skip lines no rule, recogniser or fact can concern without decoding them (``line_gate``); the
            diagnosis is the same, rank activity (``ranks.last_seen``) then comes from the lines kept.
        max_bytes: stop with ``SizeLimitError`` once the job's uncompressed bytes pass this.

    Returns:
        A ``Diagnosis``; ``stats`` holds ``bytes`` (uncompressed), ``lines``, ``events``, ``seconds``, ``paths``;
        ``ranks`` which ranks/hosts reported, which are missing, which fell silent before the first failure.

    Raises:
        InputError: missing/unreadable/binary input, or input with no readable log lines (a file that breaks
            mid-way is used up to the fault and named in ``stats["skipped"]``; such a job is never ``no_failure``).
        SizeLimitError: more than ``max_bytes`` of (decompressed) log data.
        RuleError: an invalid rule.
        ModelError: the shipped model exists but cannot be loaded safely.
    """
    t0 = time.perf_counter()
    rules = rules if rules is not None else load_rules(rules_dirs)
    evidence = collect(paths, rules, gate=gate, max_bytes=max_bytes)
    diag = decide(evidence, rules, _shipped_model if model else None, explain=explain)
    diag.stats["seconds"] = round(time.perf_counter() - t0, 4)
    return diag
