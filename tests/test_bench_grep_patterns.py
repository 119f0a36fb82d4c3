"""benchmarks/throughput.py's grep baseline: each rule regex it hands to ``grep -E`` must compile there and match
every line of the rule's own ``match`` examples that the regex itself matches (a superset where a wide repeat is
relaxed), so that the grep ratio measures the same work."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import regex

from logsleuth import load_rules

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "benchmarks"))
import throughput  # noqa: E402 - a script beside the package, not part of it

pytestmark = pytest.mark.skipif(shutil.which("grep") is None, reason="needs GNU grep")


def _grep_lines(pattern: str, lines: list[str]) -> set[int]:
    res = subprocess.run(
        ["grep", "-E", "-n", "-e", pattern],
        input="\n".join(lines) + "\n",
        capture_output=True,
        text=True,
        env=dict(os.environ, LC_ALL="C"),
    )
    assert res.returncode in (0, 1) and not res.stderr, (pattern, res.stderr)
    return {int(ln.split(":", 1)[0]) - 1 for ln in res.stdout.splitlines()}


def test_grep_patterns_match_the_lines_the_rules_match() -> None:
    checked = 0
    for rf in load_rules().files:
        lines = [ln for text in rf.spec.examples.match for ln in text.splitlines()]
        for pattern in (*rf.spec.match.any, *rf.spec.match.all):
            ere = throughput.ere(pattern)
            if ere is None:
                continue
            compiled = regex.compile(pattern)
            want = {i for i, ln in enumerate(lines) if compiled.search(ln)}
            assert want <= _grep_lines(ere, lines), (rf.spec.id, pattern, ere)
            checked += bool(want)
    assert checked > 50  # most patterns have an example line to check against


def test_wide_repeats_are_relaxed_and_brackets_translated() -> None:
    assert throughput.ere(r"(?P<what>[^\n]{0,200}?)(?:No space)") == "(.{0,})(No space)"
    assert throughput.ere(r"x[^\s:'\]]+\d{1,3}") == r"x[^][:space:]:']+[0-9]{1,3}"
    assert throughput.ere(r"a\nb") is None  # a pattern over two lines: grep reads one at a time
