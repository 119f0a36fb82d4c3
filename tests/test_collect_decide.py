"""The core's shape: ``collect`` once (frozen evidence), ``decide`` as often as needed (pure, rule set passed in)."""
from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from logsleuth.evidence import JobEvidence
from logsleuth.pipeline import analyze, collect, decide
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parents[1] / "corpus"
JOB = CORPUS / "logs/gen-torchrun-rank-raises/ws2_rank1_valueerror/job.log"


def test_evidence_is_frozen_and_decide_is_repeatable() -> None:
    rules = load_rules()
    ev = collect([str(JOB)], rules)
    assert isinstance(ev, JobEvidence)
    with pytest.raises(dataclasses.FrozenInstanceError):
        ev.matches = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        ev.versions["torch"] = "0"  # type: ignore[index]
    a, b = decide(ev, rules), decide(ev, rules)
    assert a.root_cause == b.root_cause == "worker_exception"
    assert a.first_failure == b.first_failure and a.ranks == b.ranks
    assert analyze([str(JOB)], rules=rules, model=False).root_cause == a.root_cause


def test_decide_uses_the_rule_set_it_is_given(tmp_path: Path) -> None:
    """A user rule that overrides the winning rule's title changes ``decide``'s answer; nothing global is read."""
    rules = load_rules()
    ev = collect([str(JOB)], rules)
    won = decide(ev, rules)
    rule = rules.by_id[won.rule_id]
    text = Path(rule.path).read_text(encoding="utf-8")
    assert f"title: {rule.spec.title}" in text
    (tmp_path / Path(rule.path).name).write_text(text.replace(f"title: {rule.spec.title}", "title: Overridden title"))
    custom = load_rules([tmp_path])
    assert decide(collect([str(JOB)], custom), custom).title == "Overridden title"
    assert decide(ev, rules).title == won.title


def test_decide_loads_a_lazy_model_only_when_it_can_change_the_answer() -> None:
    rules = load_rules()
    ev = collect([str(JOB)], rules)
    calls: list[int] = []

    def loader() -> None:
        calls.append(1)
        return None

    from logsleuth.combine import rule_decides

    d = decide(ev, rules, loader)
    assert d.root_cause == "worker_exception" and d.method == "rule"
    assert calls == ([] if rule_decides(decide(ev, rules)) else [1])
