"""Chained exceptions in reports: the JSON ``exception`` object (``caused_by``, ``chain``) and the "Exception chain"
section of the text, Markdown and HTML reports.

The logs are real runs here (2026-11-25, torch 2.13 CPU, Python 3.11):
- ``torchrun-chained-checkpoint-resume.log``: ``torchrun --nproc-per-node 2`` (gloo) of a script whose rank 1 catches
  the ``FileNotFoundError`` of opening a missing checkpoint and raises
  ``RuntimeError("could not resume from checkpoint step_1000") from e``; rank 0 then fails in ``barrier``.
- ``python-chained-during-handling.log``: ``python ctx.py``, which raises ``KeyError`` inside the
  ``except json.JSONDecodeError:`` of loading a truncated JSON config ("During handling of the above exception...").
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

import logsleuth
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.factlayer.reason import exception_summary
from logsleuth.pipeline import collect
from logsleuth.schemas import errors

DATA = Path(__file__).parent / "data"
RESUME = DATA / "torchrun-chained-checkpoint-resume.log"
HANDLING = DATA / "python-chained-during-handling.log"


@pytest.fixture(scope="module")
def resume_doc(rules) -> dict:
    d = logsleuth.analyze([str(RESUME)], rules=rules, model=False)
    return json.loads(logsleuth.render(d, "json", redact_secrets=False))


def test_json_names_the_chain_first_cause_first(resume_doc) -> None:
    exc = resume_doc["exception"]
    assert errors("diagnosis", resume_doc) == []
    # the first failure is rank 1's FileNotFoundError, which the RuntimeError was raised from
    assert (exc["type"], exc["line"], exc["path"]) == ("FileNotFoundError", 6, str(RESUME))
    assert exc["line"] == resume_doc["first_failure"]["line"]
    assert exc["caused_by"] is None and exc["user_code"] is True
    assert exc["innermost"].endswith("train.py:5 in load_checkpoint")
    assert [(c["type"], c["line"]) for c in exc["chain"]] == [("FileNotFoundError", 6), ("RuntimeError", 16)]
    assert exc["chain"][1]["message"] == "could not resume from checkpoint step_1000"


def test_caused_by_of_the_exception_raised_from_another(rules) -> None:
    """The outer exception of a chain (when it is what a diagnosis points at) names the type it was raised from."""
    ev = collect([str(RESUME)], rules)
    outer = next(f for f in ev.facts if isinstance(f, ExceptionFact) and f.type == "RuntimeError" and f.caused_by)
    s = exception_summary(ev.facts, outer.event)
    assert (s["type"], s["caused_by"], s["line"]) == ("RuntimeError", "FileNotFoundError", 16)
    assert [c["type"] for c in s["chain"]] == ["FileNotFoundError", "RuntimeError"]
    # rank 0's gloo error, printed later by another process, is not part of rank 1's chain
    gloo = next(f for f in ev.facts if isinstance(f, ExceptionFact) and "Connection closed by peer" in f.message)
    assert [c["type"] for c in exception_summary(ev.facts, gloo.event)["chain"]] == ["RuntimeError"]
    assert exception_summary(ev.facts, None) == {}


def test_during_handling_chain(rules) -> None:
    d = logsleuth.analyze([str(HANDLING)], rules=rules, model=False)
    doc = json.loads(logsleuth.render(d, "json", redact_secrets=False))
    assert errors("diagnosis", doc) == []
    assert [c["type"] for c in doc["exception"]["chain"]] == ["json.decoder.JSONDecodeError", "KeyError"]
    assert doc["exception"]["user_code"] is False  # innermost frame is in the stdlib's json decoder


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_every_format_shows_the_chain(resume_doc, fmt: str) -> None:
    out = logsleuth.render(resume_doc, fmt, redact_secrets=False)
    assert "Exception chain" in out
    assert out.index("FileNotFoundError", out.index("Exception chain")) < out.index("RuntimeError", out.index("Exception chain"))
    assert "could not resume from checkpoint step" in out
    assert "first failure" in out.split("Exception chain", 1)[1].lower()


@pytest.mark.parametrize("fmt", ["text", "markdown", "html"])
def test_caused_by_is_spelled_out(resume_doc, fmt: str) -> None:
    doc = json.loads(json.dumps(resume_doc))
    doc["exception"].update(type="RuntimeError", caused_by="FileNotFoundError", line=16)
    out = logsleuth.render(doc, fmt, redact_secrets=False)
    assert "was caused by" in out and "FileNotFoundError" in out.split("was caused by", 1)[1][:40]


def test_chain_text_is_escaped_in_html_and_markdown(resume_doc) -> None:
    doc = json.loads(json.dumps(resume_doc))
    doc["exception"]["chain"][1]["message"] = "<img src=x onerror=alert(1)> ![p](https://evil.example/x.png)"
    html = logsleuth.render(doc, "html", redact_secrets=False)
    assert "<img" not in html and "&lt;img src=x" in html
    md = logsleuth.render(doc, "markdown", redact_secrets=False)
    assert not re.search(r"(?<!\\)<img", md) and "\\<img" in md and "\\!\\[p\\]" in md


def test_no_chain_section_when_not_chained_or_for_old_documents(resume_doc) -> None:
    single = json.loads(json.dumps(resume_doc))
    single["exception"]["chain"] = single["exception"]["chain"][:1]
    old = {k: v for k, v in resume_doc.items() if k != "exception"}  # a JSON result saved before the field existed
    for doc in (single, old):
        for fmt in ("text", "markdown", "html"):
            assert "Exception chain" not in logsleuth.render(doc, fmt, redact_secrets=False)
    assert errors("diagnosis", old) == []


def test_secrets_in_a_chained_message_are_redacted(resume_doc) -> None:
    doc = json.loads(json.dumps(resume_doc))
    doc["exception"]["chain"][0]["message"] = "auth failed for hf_abcdefghijklmnopqrstuvwxyzABCDEFGH"
    for fmt in ("json", "text", "markdown", "html"):
        assert "hf_abcdefghijklmnopqrstuvwxyzABCDEFGH" not in logsleuth.render(doc, fmt)
