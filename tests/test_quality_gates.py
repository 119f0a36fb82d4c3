"""Issue 15, Build 2 and 6: a plain install is enough for what README shows (scan to Parquet), version bounds where a
file format depends on a library's internals, CI's quality gates (ruff, mypy) and the slow marker on the classifier's
grouped cross-validation."""
from __future__ import annotations

import csv
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from packaging.requirements import Requirement

from tests.conftest import CORPUS, ROOT, manifest_rows

try:
    import tomllib
except ImportError:  # pragma: no cover - Python 3.10
    tomllib = None  # type: ignore[assignment]

PYPROJECT = ROOT / "pyproject.toml"
# packages only the extras bring (verify: torch, psutil; ray engine; zstd): a plain install has none of them
EXTRAS_ONLY = ("torch", "ray", "psutil", "zstandard")


def _project() -> dict:
    if tomllib is None:
        pytest.skip("tomllib needs Python 3.11")
    return tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))


def _requirements(names: list[str]) -> dict[str, Requirement]:
    return {r.name.lower(): r for r in map(Requirement, names)}


def test_base_dependencies_cover_scan_to_parquet_and_bound_the_model_libraries() -> None:
    project = _project()["project"]
    base = _requirements(project["dependencies"])
    assert "pyarrow" in base  # `scan -o results.parquet` on a plain install
    for name in EXTRAS_ONLY:
        assert name not in base  # the engines stay in extras
    for name in ("scikit-learn", "skops"):  # classify/model.skops depends on their internals
        assert any(s.operator == "<" for s in base[name].specifier), name
    extras = project["optional-dependencies"]
    assert "torch" in _requirements(extras["verify"]) and "ray" in _requirements(extras["ray"])


def test_scan_writes_parquet_without_any_extra_installed(tmp_path: Path) -> None:
    """``logsleuth scan DIR -o x.parquet`` with torch, ray, psutil and zstandard unimportable, as after a plain
    ``pip install .``; the rows read back."""
    jobs = tmp_path / "jobs"
    for src in [p for p in (CORPUS / r["file"] for r in manifest_rows()) if p.is_file()][:3]:
        dst = jobs / src.parent.name / src.name
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dst)
    out = tmp_path / "x.parquet"
    code = (
        "import sys\n"
        f"for m in {EXTRAS_ONLY!r}: sys.modules[m] = None  # import fails as if not installed\n"
        "from logsleuth.cli import main\n"
        f"sys.argv = ['logsleuth', 'scan', {str(jobs)!r}, '-o', {str(out)!r}, '-j', '1']\n"
        "main()\n"
    )
    res = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert res.returncode == 0, res.stderr
    import pyarrow.parquet as pq

    table = pq.read_table(out)
    assert table.num_rows == 3 and {"job", "verdict", "root_cause"} <= set(table.column_names)


def _commands(script: Path) -> list[str]:
    return [ln.strip() for ln in script.read_text(encoding="utf-8").splitlines() if ln.strip() and ln[0] != "#"]


def test_ci_runs_ruff_and_mypy_on_the_library_before_the_tests() -> None:
    cmds = _commands(ROOT / ".ci" / "run")

    def at(pattern: str) -> int:
        found = [i for i, c in enumerate(cmds) if re.search(pattern, c)]
        assert found, pattern
        return found[0]

    install = at(r"pip install .*-e '\.\[test\]'")
    gates = [at(r"ruff check logsleuth"), at(r"ruff format --check logsleuth"), at(r"^mypy logsleuth$")]
    assert install < min(gates) and max(gates) < at(r"python -m pytest")
    test_extra = _requirements(_project()["project"]["optional-dependencies"]["test"])
    assert {"ruff", "mypy", "types-pyyaml"} <= set(test_extra)
    mypy_cfg = _project()["tool"]["mypy"]
    assert mypy_cfg["files"] == ["logsleuth"] and mypy_cfg["warn_unused_ignores"] is True


@pytest.mark.skipif(shutil.which("ruff") is None, reason="ruff is not installed")
def test_library_passes_ruff() -> None:
    # mypy is CI's gate only (.ci/run): ~20 s cold, too slow to repeat here
    for args in (["check", "logsleuth"], ["format", "--check", "logsleuth"]):
        res = subprocess.run(["ruff", *args], capture_output=True, text=True, cwd=ROOT)
        assert res.returncode == 0, res.stdout + res.stderr


def test_grouped_cross_validation_outside_a_slow_test_fails(tmp_path: Path) -> None:
    """conftest's guard: a test that runs ``evaluate`` without ``@pytest.mark.slow`` fails with the reason."""
    from logsleuth.classify.evaluate import evaluate

    rows = [r for r in manifest_rows() if r["label"] != "no_failure"][:2]
    for r in rows:
        dst = tmp_path / r["file"]
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(CORPUS / r["file"], dst)
    with open(tmp_path / "manifest.csv", "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=["file", "label", "source", "notes"])
        w.writeheader()
        w.writerows({k: r[k] for k in ("file", "label", "source", "notes")} for r in rows)
    with pytest.raises(AssertionError, match="not marked slow"):
        evaluate(tmp_path, folds=2)


def test_the_slow_marker_is_registered() -> None:
    markers = _project()["tool"]["pytest"]["ini_options"]["markers"]
    assert any(m.startswith("slow:") and "cross-validation" in m for m in markers)
