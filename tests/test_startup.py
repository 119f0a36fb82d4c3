"""Start-up: ``logsleuth analyze`` of a small log imports only what it needs and reads its caches warm."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CORPUS, ROOT

# a 6-line NCCL log a rule decides (no classifier vote)
SMALL = CORPUS / "logs" / "gh-nvidia-nccl-976" / "allreduce_perf_h100.log"
# what a small, rule-decided analysis must not pay for: the scan's table stack, the classifier's numeric stack,
# detect-secrets (and the requests it imports), YAML parsing (rules come from the compiled cache), the JSON
# contract's pydantic models
HEAVY = (
    "pandas",
    "pyarrow",
    "numpy",
    "sklearn",
    "skops",
    "rich",
    "torch",
    "ray",
    "detect_secrets",
    "requests",
    "yaml",
    "logsleuth.models",
    "logsleuth.rules.schema",
    "logsleuth.scan",
)

CLI = """
import json, sys
sys.argv = ["logsleuth", "analyze", {path!r}, "-f", {fmt!r}]
from logsleuth.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({{"code": code, "heavy": sorted(m for m in {heavy!r} if m in sys.modules)}}), file=sys.stderr)
"""


def _analyze(fmt: str, cache: Path) -> tuple[str, dict]:
    env = dict(os.environ, LOGSLEUTH_CACHE_DIR=str(cache), PYTHONPATH=str(ROOT), CI="true")
    res = subprocess.run(
        [sys.executable, "-c", CLI.format(path=str(SMALL), fmt=fmt, heavy=HEAVY)],
        capture_output=True, text=True, env=env, timeout=120,
    )
    return res.stdout, json.loads(res.stderr.strip().splitlines()[-1])


@pytest.mark.parametrize("fmt", ["text", "json"])
def test_small_log_analysis_imports_nothing_heavy(tmp_path: Path, fmt: str) -> None:
    cold_out, cold = _analyze(fmt, tmp_path)  # cold caches: rules validated and cached, templates compiled
    assert list(tmp_path.glob("rules-*.json"))
    warm_out, warm = _analyze(fmt, tmp_path)
    assert cold["code"] == warm["code"] == 0
    if fmt == "json":  # the same report but for its timings
        cold_out, warm_out = ({k: v for k, v in json.loads(o).items() if k != "stats"} for o in (cold_out, warm_out))
    assert warm_out == cold_out and "nccl_cuda_error" in str(warm_out)
    assert warm["heavy"] == [], warm["heavy"]


def test_import_logsleuth_is_lazy() -> None:
    code = "import sys, logsleuth; print(sorted(m for m in sys.modules if m.startswith('logsleuth')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.strip() == "['logsleuth', 'logsleuth.errors']"
    code = "import logsleuth; print(list(logsleuth.scan.COLUMNS)[0], logsleuth.analyze.__module__, logsleuth.Diagnosis)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert out.stdout.split()[:2] == ["job", "logsleuth.pipeline"]


@pytest.mark.parametrize(("preset", "want"), [(None, "1"), ("4", "4")])
def test_the_cli_starts_numpy_without_a_blas_thread_pool_unless_the_user_asked(preset: str | None, want: str) -> None:
    # a log the rules leave open loads the classifier (numpy); OpenBLAS reads the variable when numpy loads
    code = (
        "import os, sys; sys.argv = ['logsleuth', 'analyze', '-', '-f', 'json']\n"
        "from logsleuth.cli import main\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "assert 'numpy' in sys.modules\n"
        "from threadpoolctl import threadpool_info\n"
        "pools = [i['num_threads'] for i in threadpool_info() if i['internal_api'] == 'openblas']\n"
        "print(os.environ['OPENBLAS_NUM_THREADS'], max(pools, default=0), file=sys.stderr)"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    out = subprocess.run([sys.executable, "-c", code], input="step 1 loss 0.5\nstep 2 loss 0.4\n", env=env,
                         capture_output=True, text=True, cwd=ROOT, check=True)
    env_value, pool = out.stderr.strip().splitlines()[-1].split()
    assert env_value == want
    if preset is None and pool != "0":  # numpy's OpenBLAS (a numpy on another BLAS has no such pool)
        assert pool == "1"
