"""The CLI through typer's CliRunner, plus a real subprocess with a pipe (as users run it)."""
from __future__ import annotations

import gzip
import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from logsleuth.cli import app
from tests.conftest import CORPUS, manifest_rows

runner = CliRunner()


def _first(label: str) -> str:
    """The first single-file corpus log with this label."""
    return str(next(CORPUS / r["file"] for r in manifest_rows() if r["label"] == label and (CORPUS / r["file"]).is_file()))


def test_analyze_json_contract() -> None:
    res = runner.invoke(app, ["analyze", _first("batch_size_mismatch"), "-f", "json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["schema_version"] == 1 and d["verdict"] == "failure"
    assert d["root_cause"]["id"] == "batch_size_mismatch"
    assert set(d["root_cause"]) >= {"id", "title", "confidence", "method", "rule_id"}
    assert set(d["first_failure"]) >= {"path", "line", "time", "host", "rank", "text"}
    assert d["evidence"] and all({"path", "line", "text", "rule_id"} <= set(e) for e in d["evidence"])
    assert d["fix"]["summary"] and d["fix"]["steps"]
    assert set(d["stats"]) >= {"bytes", "lines", "events", "seconds"}


def test_batch_size_fix_computes_valid_sizes(tmp_path) -> None:
    log = tmp_path / "ds.log"
    log.write_text("AssertionError: Check batch related parameters. train_batch_size is not equal to "
                   "micro_batch_per_gpu * gradient_acc_step * world_size 256 != 2 * 18 * 7\n")
    d = json.loads(runner.invoke(app, ["analyze", str(log), "-f", "json"]).stdout)
    text = " ".join(d["fix"]["steps"]) + d["fix"]["summary"]
    # multiples of micro_batch * world_size = 14 around 256
    assert "252" in text and "266" in text


def test_markdown_and_text_formats() -> None:
    path = _first("rendezvous_timeout")
    md = runner.invoke(app, ["analyze", path, "-f", "markdown"])
    assert md.exit_code == 0 and "rendezvous_timeout" in md.stdout and "<details>" in md.stdout
    txt = runner.invoke(app, ["analyze", path])
    assert txt.exit_code == 0 and "root cause: rendezvous_timeout" in txt.stdout and "Fix:" in txt.stdout


def test_report_rerenders_saved_json(tmp_path) -> None:
    out = tmp_path / "d.json"
    assert runner.invoke(app, ["analyze", _first("port_in_use"), "-f", "json", "-o", str(out)]).exit_code == 0
    res = runner.invoke(app, ["report", str(out), "-f", "markdown"])
    assert res.exit_code == 0 and "port_in_use" in res.stdout


def test_fail_on_exit_code() -> None:
    path = _first("port_in_use")
    assert runner.invoke(app, ["analyze", path, "--fail-on", "high"]).exit_code == 1
    assert runner.invoke(app, ["analyze", path, "--fail-on", "critical"]).exit_code == 0
    assert runner.invoke(app, ["analyze", _first("no_failure"), "--fail-on", "info"]).exit_code == 0


@pytest.mark.parametrize("content,needle", [
    (b"", "empty input"),
    (bytes(range(256)) * 40, "binary"),
])
def test_bad_input_is_one_line_exit_2(tmp_path, content: bytes, needle: str) -> None:
    p = tmp_path / "bad.log"
    p.write_bytes(content)
    res = runner.invoke(app, ["analyze", str(p)])
    assert res.exit_code == 2
    assert needle in res.stderr and len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr


def test_truncated_gzip_is_unknown_not_healthy_and_missing_file_exits_2(tmp_path) -> None:
    p = tmp_path / "cut.log.gz"
    data = gzip.compress(b"step 1 loss 0.5\n" * 20000)
    p.write_bytes(data[:200])
    res = runner.invoke(app, ["analyze", str(p), "-f", "json", "--no-model"])
    assert res.exit_code == 0, res.stderr
    d = json.loads(res.stdout)
    assert d["verdict"] == "unknown" and "not read to the end" in d["root_cause"]["message"]
    assert d["stats"]["skipped"][0]["path"] == str(p) and d["stats"]["skipped"][0]["line"] > 0
    for path in (str(tmp_path / "empty.log.gz"), str(tmp_path / "missing.log")):
        if path.endswith(".gz"):
            (tmp_path / "empty.log.gz").write_bytes(data[:5])  # not even one line before the fault
        res = runner.invoke(app, ["analyze", path])
        assert res.exit_code == 2 and "Traceback" not in res.stderr and res.stderr.count("\n") == 1


def test_odd_but_valid_input_is_analysed(tmp_path) -> None:
    p = tmp_path / "odd.log"
    p.write_bytes(b"\x1b[32mINFO\x1b[0m start\r\n\xff\xfe garbage\r\n" + b"y" * (10 * 1024 * 1024) + b"\n"
                  b"[rank0]: Traceback (most recent call last):\n[rank0]:   File \"/home/user/t.py\", line 3, in <module>\n"
                  b"[rank0]: KeyError: 'label'\n")
    res = runner.invoke(app, ["analyze", str(p), "-f", "json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["root_cause"]["id"] == "worker_exception"


def test_malformed_rule_is_path_line_exit_2(tmp_path) -> None:
    (tmp_path / "broken.yaml").write_text("id: broken\nroot_cause: not_a_cause\nrole: cause\n")
    res = runner.invoke(app, ["analyze", _first("port_in_use"), "--rules", str(tmp_path)])
    assert res.exit_code == 2 and "broken.yaml:" in res.stderr and "Traceback" not in res.stderr


def test_rules_validate_and_test_commands() -> None:
    assert "rules valid" in runner.invoke(app, ["rules", "validate"]).stdout
    res = runner.invoke(app, ["rules", "test"])
    assert res.exit_code == 0 and " 0 failed" in res.stdout


def test_stdin_pipe_in_a_real_subprocess() -> None:
    from pathlib import Path

    log = Path(_first("rendezvous_timeout")).read_bytes()
    proc = subprocess.run([sys.executable, "-m", "logsleuth", "analyze", "-f", "json"], input=log,
                          capture_output=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["root_cause"]["id"] == "rendezvous_timeout"


def test_debug_flag_shows_traceback(tmp_path) -> None:
    proc = subprocess.run([sys.executable, "-m", "logsleuth", "--debug", "analyze", str(tmp_path / "x.log")],
                          capture_output=True, timeout=120, text=True)
    assert proc.returncode == 2 and "Traceback" in proc.stderr
