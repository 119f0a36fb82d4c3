"""Every rule's own examples: ``match`` must fire, ``no_match`` must not (through the real parser and engine)."""
from __future__ import annotations

import pytest

from logsleuth import load_rules
from logsleuth.rules.examples import fires

_RULES = load_rules()
_CASES = [
    pytest.param(rf.spec.id, kind, text, id=f"{rf.spec.id}-{kind}{i}")
    for rf in _RULES.files
    for kind, texts in (("match", rf.spec.examples.match), ("no_match", rf.spec.examples.no_match))
    for i, text in enumerate(texts)
]


@pytest.mark.parametrize(("rule_id", "kind", "text"), _CASES)
def test_rule_example(rule_id: str, kind: str, text: str) -> None:
    assert fires(_RULES, rule_id, text) is (kind == "match")


def test_every_taxonomy_cause_with_real_logs_has_a_rule() -> None:
    """... or a fact-based decision (``hang.FACT_DECIDED``: causes no single line shows, e.g. ``silent_hang``)."""
    from logsleuth.hang import FACT_DECIDED
    from tests.conftest import manifest_rows

    # Rules are written from the dev split; a held-out batch is measured before any rule for it exists.
    labels = {r["label"] for r in manifest_rows() if (r.get("split") or "dev") == "dev"} - {"no_failure", "unknown"}
    covered = {r.spec.root_cause for r in _RULES.rules} | FACT_DECIDED
    assert labels <= covered, f"labels without any rule: {sorted(labels - covered)}"
