"""The whole labeled corpus through ``analyze``: every log gets its expected root cause."""
from __future__ import annotations

import pytest

from logsleuth import analyze
from tests.conftest import CORPUS, manifest_rows

ROWS = manifest_rows()
# The rules were written from the dev split; the held-out split measures generalisation (tests/test_eval.py).
DEV = [r for r in ROWS if r.get("split", "dev") == "dev"]


def test_corpus_is_large_enough() -> None:
    assert len(ROWS) >= 40
    for r in ROWS:
        assert (CORPUS / r["file"]).exists(), r["file"]
        assert r["source"], f"{r['file']} has no source"


@pytest.mark.parametrize("row", DEV, ids=[r["file"] for r in DEV])
def test_corpus_log_is_diagnosed(row: dict[str, str], rules) -> None:
    d = analyze([str(CORPUS / row["file"])], rules=rules, model=False)
    assert d.root_cause == row["label"], f"{row['file']}: got {d.root_cause} ({d.rule_id}), expected {row['label']}"
    if row["label"] not in ("no_failure", "unknown"):
        assert d.verdict == "failure"
        assert d.first_failure is not None and d.evidence
        assert d.fix.summary
    else:
        assert d.verdict == row["label"]


def test_manifest_matches_its_fragments() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location("merge_manifest", CORPUS / "generators" / "merge_manifest.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)  # type: ignore[union-attr]
    assert [r["file"] for r in mod.merged_rows()] == [r["file"] for r in ROWS]
