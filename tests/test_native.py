"""The native (Hyperscan) pattern scan never hides a match, its cache is safe, and the fallback agrees with it."""
from __future__ import annotations

import pytest

from logsleuth import analyze
from logsleuth.rules import native
from logsleuth.rules.engine import _load_rules, builtin_rules_dir
from tests.conftest import CORPUS, manifest_rows

pytestmark = pytest.mark.skipif(not native.available(), reason="hyperscan cannot be loaded here")


def _patterns(rules) -> list:
    return [p for r in rules.rules for p in (*r.any, *r.all)] + list(rules.context_patterns)


def test_native_hits_hold_every_real_match_on_every_corpus_line(rules) -> None:
    compiled = _patterns(rules)
    checked = 0
    for path in sorted((CORPUS / "logs").rglob("*")):
        if not path.is_file() or path.suffix not in (".log", ".out", ".err", ".txt"):
            continue
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            got = rules.native.hits(line)
            if got is None:  # non-ASCII: the literal prefilter answers
                continue
            real = {k for k in rules.prefilter.hits(line) if compiled[k].search(line)}
            assert real <= got, (path, line, real - got)
            checked += bool(real)
    assert checked > 500  # the corpus's failing lines were among those checked


def test_native_answers_none_for_text_it_cannot_judge(rules) -> None:
    assert rules.native.hits("loss 0.5 ███") is None
    assert rules.native.hits("a\x1cb") is None
    assert rules.native.hits("step 10 loss 0.5") == set()


def test_a_corrupt_database_cache_is_rebuilt(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path))
    pats = [r"CUDA out of memory\. Tried to allocate (?P<n>\S+)", r"(?<!no )NCCL error"]
    m = native.NativeMatcher(pats)
    assert m.hits("torch: CUDA out of memory. Tried to allocate 2 GiB") == {0}
    assert m.hits("NCCL error in x") == {1}  # a lookbehind: compiled in prefilter mode (a superset)
    for f in tmp_path.iterdir():
        f.write_bytes(b"not a database")
    again = native.NativeMatcher(pats)
    assert again.hits("torch: CUDA out of memory. Tried to allocate 2 GiB") == {0}


def test_without_hyperscan_the_diagnoses_are_the_same(monkeypatch, rules) -> None:
    monkeypatch.setenv("LOGSLEUTH_NO_HYPERSCAN", "1")
    slow = _load_rules([builtin_rules_dir()])
    assert slow.native is None
    for row in manifest_rows()[::7]:
        path = str(CORPUS / row["file"])
        a = analyze([path], rules=rules, model=False)
        b = analyze([path], rules=slow, model=False)
        assert (a.root_cause, a.rule_id, [m.rule_id for m in a.symptoms]) == \
            (b.root_cause, b.rule_id, [m.rule_id for m in b.symptoms]), path
