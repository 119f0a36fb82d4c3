"""The analysis pipeline for one job: read -> parse -> rules -> diagnose, streaming with bounded memory."""
from __future__ import annotations

import os
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from .diagnose import diagnose
from .errors import InputError
from .facts import find_versions
from .parse import parse
from .read import ReadStats, expand_paths, iter_lines
from .rules.engine import RuleSet, load_rules
from .types import Diagnosis, Event, Match

MAX_MATCHES_PER_RULE = 500  # a symptom repeated on a million lines needs no more evidence than this
MAX_UNEXPLAINED = 200
MAX_NOTABLE = 400  # warning+ or rule-matched events kept for the classifier
TAIL_EVENTS = 40  # the job's last events, kept for the classifier (hangs show in how a log ends)


@dataclass
class JobState:
    """What the analysis keeps while streaming: bounded lists and counters, never all events."""

    matches: list[Match] = field(default_factory=list)
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


def consume(events: Iterable[Event], rules: RuleSet, state: JobState) -> None:
    """Run the rules over ``events``, updating ``state``."""
    match_event = rules.match_event
    context_hits = rules.context_hits
    hits = state.context_hits
    last_lines = state.last_lines
    for ev in events:
        state.events += 1
        if ev.end_line > last_lines.get(ev.path, 0):
            last_lines[ev.path] = ev.end_line
        text = ev.text
        context_hits(text, hits)
        find_versions(text, state.versions)
        found = match_event(ev)
        if found:
            for m in found:
                n = state.per_rule.get(m.rule_id, 0)
                if n < MAX_MATCHES_PER_RULE:
                    state.matches.append(m)
                state.per_rule[m.rule_id] = n + 1
        state.tail.append(ev)
        if (found or ev.level != "info" and ev.level != "debug") and len(state.notable) < MAX_NOTABLE:
            state.notable.append(ev)
        if ev.is_error:
            state.error_events += 1
            if not found and len(state.unexplained) < MAX_UNEXPLAINED:
                state.unexplained.append(ev)
        if ev.source == "elastic" and ev.params.get("root") and state.elastic_root is None:
            state.elastic_root = ev


def analyze(
    paths: Sequence[str | os.PathLike[str]] | None = None,
    *,
    rules: RuleSet | None = None,
    rules_dirs: Sequence[str | os.PathLike[str]] = (),
    model: bool = True,
    explain: bool = False,
) -> Diagnosis:
    """Analyse one job's logs and return its diagnosis.

    Args:
        paths: files, directories (walked for ``*.log|out|err|txt``, optionally ``.gz``/``.zst``) or ``"-"`` for
            stdin; None or empty reads stdin. All paths together are one job.
        rules: a loaded rule set (load once and reuse it for many jobs); default: built-ins plus ``rules_dirs``.
        rules_dirs: extra rule directories (ignored when ``rules`` is given).
        model: let the shipped classifier vote (``--no-model`` turns it off); without a model file, rules only.
        explain: ask the classifier to record which lines/features drove its vote (in ``stats["explain"]``).

    Returns:
        A ``Diagnosis``; ``stats`` holds ``bytes`` (uncompressed), ``lines``, ``events``, ``seconds``, ``paths``.

    Raises:
        InputError: missing/unreadable/binary/corrupt input, or input with no log lines.
        RuleError: an invalid rule.
    """
    t0 = time.perf_counter()
    rules = rules if rules is not None else load_rules(rules_dirs)
    files = expand_paths(paths or ["-"])
    read_stats = ReadStats()
    state = JobState()
    file_index: dict[str, int] = {}
    for path in files:
        file_index.setdefault(path, len(file_index))
        consume(parse(iter_lines(path, read_stats), path), rules, state)
    if state.events == 0:
        where = files[0] if len(files) == 1 else None
        raise InputError("empty input: no log lines to analyse", where)
    matches = rules.finalize(state.matches, state.context_hits, state.last_lines)
    stats = {
        "bytes": read_stats.bytes,
        "lines": read_stats.lines,
        "events": state.events,
        "error_events": state.error_events,
        "truncated_lines": read_stats.truncated_lines,
        "paths": [p for p in files],
        "seconds": 0.0,
    }
    diag = diagnose(
        matches, rules, state.unexplained,
        order=lambda e: (file_index.get(e.path, 0), e.line),
        stats=stats, versions=state.versions, elastic_root=state.elastic_root,
    )
    if model:
        from .classify import apply as apply_model

        diag = apply_model(diag, state.notable, list(state.tail), explain=explain)
    diag.stats["seconds"] = round(time.perf_counter() - t0, 4)
    return diag
