"""Shared fixtures: the repository paths and the loaded rules (loaded once per session)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

from logsleuth import load_rules

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"


def manifest_rows() -> list[dict[str, str]]:
    """Rows of corpus/manifest.csv (file, label, source, notes)."""
    with open(CORPUS / "manifest.csv", newline="", encoding="utf-8") as f:
        return list(csv.DictReader(f))


@pytest.fixture(scope="session")
def rules():
    return load_rules()


@pytest.fixture(autouse=True)
def _fresh_regex_budget(request: pytest.FixtureRequest) -> None:
    """The session's shared ``rules`` start every test with a fresh per-job regex budget (``RuleSet.begin_job``):
    a test that matches events directly (not through ``collect``, which starts one per job) would otherwise spend
    what earlier tests left, and a pattern switched off mid-session changes later tests' answers."""
    if "rules" in request.fixturenames:
        request.getfixturevalue("rules").begin_job()


@pytest.fixture(autouse=True)
def _grouped_cv_only_in_slow_tests(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 15: the classifier's grouped cross-validation (``classify.evaluate.evaluate``) runs only in tests marked
    ``slow``, so ``-m 'not slow'`` stays a quick run. ``evaluate`` calls ``ecosystem_groups`` once per run whatever
    ``--group-by`` says: outside a slow test that call fails the test with the reason."""
    if request.node.get_closest_marker("slow") is not None:
        return
    from logsleuth.classify import evaluate

    def refuse(*_args: object, **_kwargs: object) -> list[str]:
        raise AssertionError("grouped cross-validation in a test not marked slow: add @pytest.mark.slow")

    monkeypatch.setattr(evaluate, "ecosystem_groups", refuse)
