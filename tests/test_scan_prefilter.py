"""The rule engine's literal prefilter (Aho-Corasick over the patterns' literal factors) never hides a match."""
from __future__ import annotations

import pytest

from logsleuth.factlayer import fact_matches, facts_of
from logsleuth.parse import parse, parse_text
from logsleuth.read import iter_lines
from logsleuth.rules.engine import _search
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
    jobs: list[list] = []  # each corpus file is one job, as ``collect`` sees it
    for f in sorted((CORPUS / "logs").rglob("*")):
        if f.is_file() and f.suffix != ".json":
            try:
                jobs.append(list(parse(iter_lines(str(f)), str(f))))
            except Exception:  # noqa: BLE001 - unreadable inputs are other tests' business
                continue
    jobs.append(list(parse_text("addreſs already in use\nBROKEN PIPE\nstep 1 loss 0.1")))
    assert sum(map(len, jobs)) > 1000
    for events in jobs:
        # a fresh per-job regex budget per file, as ``collect`` starts one per job: spent over the whole corpus as
        # one job, a pattern the prefilter cannot rule out would reach its budget, be switched off, and "disagree"
        rules.begin_job()
        for ev in events:
            _agree(rules, ev)
        assert rules.over_budget() == [], events[0].path if events else ""


def _agree(rules, ev) -> None:
    """The engine's matches and context hits for ``ev`` == every rule and context pattern run without a prefilter."""
    facts = facts_of(ev)
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
    assert got == want, (ev.path, ev.line)
    hits: set[int] = set()
    rules.context_hits(ev.text, hits)
    assert hits == {i for i, p in enumerate(rules.context_patterns) if _search(p, ev.text)}, (ev.path, ev.line)
