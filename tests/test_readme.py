"""README's Python API snippets run as written: every ```python block that imports logsleuth is executed, with only
its placeholder paths pointed at corpus logs ("job.log" -> a corpus log, "/archive/jobs" -> a corpus folder)."""
from __future__ import annotations

import re

import pytest

from tests.conftest import CORPUS, ROOT

PLACEHOLDERS = {
    '"job.log"': repr(str(CORPUS / "logs/gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log")),
    '"/archive/jobs"': repr(str(CORPUS / "logs/gen-torchrun-rank-raises")),
}


def _snippets() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```python\n(.*?)^```", text, flags=re.DOTALL | re.MULTILINE)
    return [b for b in blocks if re.search(r"^import logsleuth", b, flags=re.MULTILINE)]


def test_readme_has_api_snippets() -> None:
    assert len(_snippets()) >= 2


@pytest.mark.parametrize("index", range(len(_snippets())))
def test_readme_python_snippet_runs(index: int, tmp_path, monkeypatch, capsys) -> None:
    code = _snippets()[index]
    for placeholder, real in PLACEHOLDERS.items():
        code = code.replace(placeholder, real)
    monkeypatch.chdir(tmp_path)  # snippets that write files write them here
    exec(compile(code, f"README.md python snippet {index}", "exec"), {"__name__": "readme_snippet"})  # noqa: S102 - the README is ours
    assert capsys.readouterr().out.strip()  # each snippet prints something real
