"""detect-secrets' plugins behind their exact gate: the same values found, the package imported only when needed."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from logsleuth import redact, secret_plugins
from tests.conftest import CORPUS, ROOT
from tests.test_redact import LOG


def _corpus_lines() -> list[str]:
    lines: list[str] = []
    for p in sorted((CORPUS / "logs").rglob("*")):
        if p.is_file() and p.suffix in (".log", ".txt", ".out", ".err", ".json"):
            lines.extend(p.read_text(encoding="utf-8", errors="replace").splitlines())
    return lines


def test_gated_plugins_find_exactly_what_ungated_plugins_find(monkeypatch: pytest.MonkeyPatch) -> None:
    # every corpus line and every planted secret of test_redact, with and without the gate
    lines = [ln for ln in [*_corpus_lines(), *LOG.splitlines()] if ln.strip()]
    gated = [sorted(set(redact._plugin_hits(ln))) for ln in lines]
    assert any(gated), "the planted secrets must reach the plugins"
    monkeypatch.setattr(secret_plugins, "gates", lambda: ((lambda line: True), (lambda line: True)))
    ungated = [sorted(set(redact._plugin_hits(ln))) for ln in lines]
    diff = [(ln, g, u) for ln, g, u in zip(lines, gated, ungated) if g != u]
    assert not diff, diff[:5]


def test_every_shipped_plugin_has_a_gate() -> None:
    # a plugin without one (None) would make every candidate line import detect-secrets again
    described = secret_plugins._descriptions()
    assert len(described) == len(secret_plugins.plugins()) > 20
    assert all(d["patterns"] for d in described), [d for d in described if not d["patterns"]]
    assert {d["kind"] for d in described} == {"format", "keyword"}


def _run(code: str, cache: Path) -> dict:
    env = dict(os.environ, LOGSLEUTH_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


REDACT = """
import json, sys
from logsleuth.redact import redact_text
out = [redact_text(t) for t in {texts!r}]
print(json.dumps({{"out": out, "imported": "detect_secrets" in sys.modules}}))
"""


def test_detect_secrets_is_imported_only_for_a_line_a_plugin_may_flag(tmp_path: Path) -> None:
    plain = ["NCCL WARN Cuda failure 'invalid argument' in transport/nvls.cc:165 (NCCL_P2P_DISABLE=1 CUDA_VISIBLE_DEVICES)"]
    flagged = ['payload = "Q2hhbmdlTWUhIFRoaXMgaXMgYSB0ZXN0IHNlY3JldA"']  # a quoted high-entropy string
    first = _run(REDACT.format(texts=plain), tmp_path)  # cold cache: the package is read once to write it
    assert list(tmp_path.glob("secret-plugins-*.json"))
    warm = _run(REDACT.format(texts=plain), tmp_path)
    assert warm == {"out": plain, "imported": False} and first["out"] == plain
    hit = _run(REDACT.format(texts=flagged), tmp_path)
    assert hit["imported"] and "[REDACTED]" in hit["out"][0]


def test_a_corrupt_gate_cache_still_redacts(tmp_path: Path) -> None:
    _run(REDACT.format(texts=["x"]), tmp_path)
    for p in tmp_path.glob("secret-plugins-*.json"):
        p.write_text('[{"kind": "format", "patterns": [["(unclosed", 0, 0]]}]')
    hit = _run(REDACT.format(texts=['payload = "Q2hhbmdlTWUhIFRoaXMgaXMgYSB0ZXN0IHNlY3JldA"']), tmp_path)
    assert "[REDACTED]" in hit["out"][0]
