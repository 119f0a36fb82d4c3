"""The rule engine's literal prefilter (Aho-Corasick over the patterns' literal factors) never hides a match."""
from __future__ import annotations

import multiprocessing
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import pytest

from logsleuth.factlayer import fact_matches, facts_of
from logsleuth.factlayer.kinds import Fact
from logsleuth.parse import parse, parse_text
from logsleuth.read import iter_lines
from logsleuth.rules import load_rules
from logsleuth.rules.engine import RuleSet, _search
from logsleuth.types import Event
from logsleuth.rules.prefilter import LiteralPrefilter, required_literals
from tests.conftest import CORPUS


@pytest.mark.parametrize(("pattern", "expected"), [
    (r"Timed out after (?P<s>\d+) seconds waiting for clients\.", ({" seconds waiting for clients."}, False)),
    (r"(?:ECONNRESET|broken pipe)", ({"ECONNRESET", "broken pipe"}, False)),
    (r"(?i:address already in use)", ({"address already in use"}, True)),
    (r"NCCL INFO Channel \d+(?:/\d+)?", ({"NCCL INFO Channel "}, False)),
    (r"exitcode\s*: (?P<c>[1-9]\d*)", ({"exitcode"}, False)),
])
def test_required_literals(pattern: str, expected: tuple[set[str], bool]) -> None:
    alts, ci = required_literals(pattern)
    assert (set(alts), ci) == expected


@pytest.mark.parametrize("pattern", [r"\d+", r"(?:a|\w+)x?", r"[A-Z]\w+", r"(?P<a>x)(?P=a)?y", r"\p{Lu}+"])
def test_no_literal_means_always_a_candidate(pattern: str) -> None:
    f = LiteralPrefilter([pattern, "needle"])
    assert 0 in f.hits("nothing to see") and 1 not in f.hits("nothing to see")


def test_case_insensitive_factors_and_unicode_folding() -> None:
    f = LiteralPrefilter(["(?i:address already in use)", "(?i:broken pipe)"])
    assert f.hits("OSError: [Errno 98] ADDRESS ALREADY IN USE") == {0}
    assert f.hits("Broken Pipe") == {1}
    assert f.hits("all good, step 7") == set()
    # regex's IGNORECASE folds the long s (U+017F) to "s": the prefilter must not hide such a line
    assert 0 in f.hits("addreſs already in use")


def test_prefilter_agrees_with_running_every_rule_on_the_whole_corpus(rules) -> None:
    distinct: dict[tuple[Any, ...], Event] = {}
    events = 0
    for f in sorted((CORPUS / "logs").rglob("*")):
        if not f.is_file() or f.suffix == ".json":
            continue
        try:
            job = list(parse(iter_lines(str(f)), str(f)))  # each corpus file is one job, as ``collect`` sees it
        except Exception:  # noqa: BLE001 - unreadable inputs are other tests' business
            continue
        # a fresh per-job regex budget per file, as ``collect`` starts one per job: spent over the whole corpus as
        # one job, a pattern the prefilter cannot rule out would reach its budget, be switched off, and "disagree"
        rules.begin_job()
        for ev in job:
            events += 1
            facts = facts_of(ev)
            rules.match_event(ev, facts)
            distinct.setdefault(_key(ev, facts), ev)
        assert rules.over_budget() == [], str(f)
    distinct.update((_key(ev, facts_of(ev)), ev) for ev in parse_text("addre\u017fs already in use\nBROKEN PIPE"))
    assert events > 100_000 and len(distinct) > 50_000, (events, len(distinct))
    # the reference (every rule run without a prefilter) is the cost: once per distinct event, on two processes
    # (CI has two cores), each loading the built-in rules itself
    unique = list(distinct.values())
    with ProcessPoolExecutor(2, mp_context=multiprocessing.get_context("spawn")) as pool:
        found = [d for part in pool.map(_disagreements, [unique[0::2], unique[1::2]]) for d in part]
    assert found == []


def _key(ev: Event, facts: tuple[Fact, ...]) -> tuple[Any, ...]:
    """What the rules read of an event: its source, its text and its facts' fields (events equal in these are
    answered the same)."""
    return ev.source, ev.text, tuple(tuple(sorted((k, repr(v)) for k, v in f.fields().items())) for f in facts)


def _disagreements(events: list[Event]) -> list[str]:
    """``_disagreement`` for each event, each with a fresh regex budget (as the first event of a job)."""
    rules = load_rules()
    out = []
    for ev in events:
        rules.begin_job()
        if (why := _disagreement(rules, ev, facts_of(ev))) is not None:
            out.append(why)
    return out


def _disagreement(rules: RuleSet, ev: Event, facts: tuple[Fact, ...]) -> str | None:
    """Where the engine's matches and context hits for ``ev`` differ from every rule and context pattern run without
    a prefilter, or None."""
    got = {m.rule_id for m in rules.match_event(ev, facts)}
    want = set()
    for r in rules.rules:
        if r.sources is not None and ev.source not in r.sources:
            continue
        if r.facts and not any(fact_matches(c, f) is not None for f in facts for c in r.facts):
            continue
        if r.any and not any(_search(p, ev.text) for p in r.any):
            continue
        if all(_search(p, ev.text) for p in r.all) and not any(_search(p, ev.text) for p in r.none):
            want.add(r.id)
    if got != want:
        return f"{ev.path}:{ev.line}: rules {sorted(got ^ want)}"
    hits: set[int] = set()
    rules.context_hits(ev.text, hits)
    if hits != {i for i, p in enumerate(rules.context_patterns) if _search(p, ev.text)}:
        return f"{ev.path}:{ev.line}: context patterns"
    return None
