"""Run every rule's own ``examples`` through the real parser and engine (like semgrep's ``ruleid:``/``ok:`` tests)."""

from __future__ import annotations

from dataclasses import dataclass

from ..factlayer.reason import FactStream
from ..facts import find_versions
from ..parse import parse_text
from ..types import Match
from .engine import RuleSet


@dataclass(frozen=True)
class ExampleResult:
    """One example's outcome; ``ok`` is False when a ``match`` example did not fire or a ``no_match`` one did."""

    rule_id: str
    kind: str  # match | no_match
    index: int
    ok: bool
    text: str


def fires(rules: RuleSet, rule_id: str, text: str) -> bool:
    """True when rule ``rule_id`` fires on some event parsed from ``text`` (its context evaluated on ``text``)."""
    rule = rules.by_id[rule_id]
    hits: set[int] = set()
    matches: list[Match] = []
    last = 0
    stream = FactStream()  # as the pipeline streams a job: facts that take earlier lines to know
    versions: dict[str, str] = {}
    for ev in parse_text(text, path="<example>"):
        rules.context_hits(ev.text, hits)
        find_versions(ev.text, versions)
        last = max(last, ev.end_line)
        matches.extend(m for m in rules.match_event(ev, stream.facts(ev, versions)) if m.rule_id == rule.id)
    return bool(rules.finalize(matches, hits, {"<example>": last}))


def run_examples(rules: RuleSet, rule_id: str | None = None) -> list[ExampleResult]:
    """Check the examples of one rule (or all). Returns one result per example."""
    out: list[ExampleResult] = []
    for rf in rules.files:
        s = rf.spec
        if rule_id is not None and s.id != rule_id:
            continue
        for i, text in enumerate(s.examples.match):
            out.append(ExampleResult(s.id, "match", i, fires(rules, s.id, text), text))
        for i, text in enumerate(s.examples.no_match):
            out.append(ExampleResult(s.id, "no_match", i, not fires(rules, s.id, text), text))
    return out
