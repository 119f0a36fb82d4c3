"""Issue 12's done-when: every root-cause id of the taxonomy (``taxonomy.ROOT_CAUSES``, the ids of taxonomy.md that
are causes) reaches the JSON, text, Markdown and HTML reports with its fix: summary, every step and every reference.

Two ways a cause is reported, both checked for every id:
- a rule decided it: a real corpus log labelled with the id (the first one, in manifest order, the rules diagnose as
  that id; which log it is does not matter here, only that the report carries the fix);
- the classifier named it with no rule matching the decisive line: the generic advice ``combine.fix_for`` borrows
  from a cause rule of that id.
"""

from __future__ import annotations

import json

import pytest
from markupsafe import escape

import logsleuth
from logsleuth.combine import fix_for
from logsleuth.report import md_text, prepare
from logsleuth.taxonomy import ROOT_CAUSES
from logsleuth.types import Diagnosis
from tests.conftest import CORPUS, manifest_rows

FORMATS = ("json", "text", "markdown", "html")
TRIES = 4  # labelled logs tried per id before giving up


def _expected(fmt: str, text: str, line_start: bool) -> str:
    """``text`` (a redacted fix string) as the format prints it."""
    if fmt == "markdown":
        return md_text(text, line_start, keep_code=True)
    if fmt == "html":
        return str(escape(text))
    return text


def _check_fix_in_every_format(d: Diagnosis | dict, root_cause: str) -> None:
    fix = prepare(d)["fix"]  # what every format renders from (redacted)
    assert fix["summary"] and fix["steps"], f"{root_cause}: empty fix"
    for fmt in FORMATS:
        out = logsleuth.render(d, fmt)
        if fmt == "json":
            doc = json.loads(out)
            assert doc["root_cause"]["id"] == root_cause and doc["fix"] == fix
            continue
        assert root_cause in out, (root_cause, fmt)
        assert _expected(fmt, fix["summary"], True) in out, (root_cause, fmt, "summary")
        for step in fix["steps"]:
            assert _expected(fmt, step, False) in out, (root_cause, fmt, step)
        for ref in fix["references"]:
            assert (str(escape(ref)) if fmt == "html" else ref) in out, (root_cause, fmt, ref)


@pytest.mark.parametrize("root_cause", sorted(ROOT_CAUSES))
def test_rule_decided_cause_reports_its_fix_in_every_format(rules, root_cause: str) -> None:
    rows = [r for r in manifest_rows() if r["label"] == root_cause][:TRIES]
    assert rows, f"no corpus log labelled {root_cause}"
    for row in rows:
        d = logsleuth.analyze([str(CORPUS / row["file"])], rules=rules, model=False)
        if d.root_cause == root_cause:
            break
    else:
        pytest.fail(f"none of the first {TRIES} logs labelled {root_cause} is diagnosed as {root_cause}")
    _check_fix_in_every_format(d, root_cause)


@pytest.mark.parametrize("root_cause", sorted(ROOT_CAUSES))
def test_model_named_cause_reports_the_generic_fix_in_every_format(rules, root_cause: str) -> None:
    fix, severity = fix_for(rules, root_cause)
    assert severity is not None, f"no cause rule of {root_cause} to borrow a fix from"
    stats = {"bytes": 0, "lines": 0, "events": 0, "seconds": 0.0}  # the contract's required stats
    d = Diagnosis(verdict="failure", root_cause=root_cause, confidence=0.7, method="model", fix=fix, stats=stats)
    _check_fix_in_every_format(d, root_cause)
