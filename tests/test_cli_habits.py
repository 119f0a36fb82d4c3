"""CLI habits shared with ruff/ripgrep/pip: --version, -q/-v, --debug anywhere, -f json everywhere, closed pipes and
stdin, -o checks, --fail-on unknown. Real subprocesses where the habit is about the process (pipes, fds)."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from logsleuth import __version__
from logsleuth.cli import _fails, app, hoist_global_flags, main
from tests.conftest import CORPUS

runner = CliRunner()
LOG = str(CORPUS / "logs/gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log")


def _run(*args: str, **kw) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "logsleuth", *args], capture_output=True, text=True, timeout=120, check=False, **kw)


def test_version_flag() -> None:
    res = runner.invoke(app, ["--version"])
    assert res.exit_code == 0 and res.stdout.strip() == f"logsleuth {__version__}"


def test_global_flags_are_hoisted_from_anywhere() -> None:
    assert hoist_global_flags(["analyze", "x.log", "--debug", "-q"]) == ["--debug", "-q", "analyze", "x.log"]
    assert hoist_global_flags(["analyze", "--", "-v"]) == ["analyze", "--", "-v"]


def test_debug_after_the_subcommand_shows_the_traceback(tmp_path) -> None:
    proc = _run("analyze", str(tmp_path / "missing.log"), "--debug")
    assert proc.returncode == 2 and "Traceback" in proc.stderr


def test_verbose_and_quiet(capsys) -> None:
    with pytest.raises(SystemExit) as exc:
        main(["analyze", LOG, "-v", "-f", "json"])
    assert exc.value.code == 0
    err = capsys.readouterr().err
    assert "lines" in err and "events" in err
    with pytest.raises(SystemExit):
        main(["-q", "analyze", LOG, "-v"])
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("args", [["rules", "list"], ["rules", "validate"], ["rules", "test", "--id", "gloo-timeout"]])
def test_format_json_on_rules_commands(args: list[str]) -> None:
    res = runner.invoke(app, [*args, "-f", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    if args[1] == "list":
        assert {"id", "root_cause", "role", "severity", "title"} <= set(data[0])
    elif args[1] == "validate":
        assert data["problems"] == [] and data["valid"] > 50
    else:
        assert data["failed"] == 0 and data["passed"] >= 1


def test_eval_keeps_json_alias_and_accepts_format() -> None:
    res = runner.invoke(app, ["eval", "--help"])
    assert res.exit_code == 0 and "--json" in res.stdout and "--format" in res.stdout


def test_closed_pipe_is_quiet() -> None:
    proc = subprocess.run(f"{sys.executable} -m logsleuth rules list | head -1", shell=True, capture_output=True,
                          text=True, timeout=120, check=False)
    assert proc.stdout.count("\n") == 1 and proc.stderr == ""


def test_closed_stdin_is_one_line() -> None:
    code = "import os; os.close(0); from logsleuth.cli import main; main(['analyze'])"
    closed = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert closed.returncode == 2 and closed.stderr.count("\n") == 1 and "stdin is closed" in closed.stderr


def test_directory_as_output_fails_before_work_and_leaves_nothing(tmp_path) -> None:
    res = runner.invoke(app, ["analyze", LOG, "-o", str(tmp_path)])
    assert res.exit_code == 2 and "is a directory" in res.output
    assert list(tmp_path.iterdir()) == []
    out = tmp_path / "r.md"
    assert runner.invoke(app, ["analyze", LOG, "-f", "markdown", "-o", str(out)]).exit_code == 0
    assert [p.name for p in tmp_path.iterdir()] == ["r.md"]  # no temp file left next to it


def test_failing_render_leaves_no_temp_file(tmp_path) -> None:
    tdir = tmp_path / "tpl"
    tdir.mkdir()
    (tdir / "text.j2").write_text("{{ d.no_such_field }}")
    res = runner.invoke(app, ["analyze", LOG, "--template-dir", str(tdir), "-o", str(tmp_path / "out.txt")])
    assert res.exit_code == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tpl"]


def test_fail_on_unknown_exits_1_for_an_unknown_verdict() -> None:
    log = str(CORPUS / "logs/gh-carperai-trlx-340/gptj_summarize_ppo.log")  # rules alone abstain on it
    assert runner.invoke(app, ["analyze", log, "--no-model", "--fail-on", "info"]).exit_code == 0
    res = runner.invoke(app, ["analyze", log, "--no-model", "--fail-on", "unknown", "-f", "json"])
    assert res.exit_code == 1 and json.loads(res.stdout)["verdict"] == "unknown"


def test_fail_on_unknown_levels() -> None:
    assert _fails("unknown", None, "unknown") and not _fails("unknown", None, "info")
    assert _fails("failure", "low", "unknown") and not _fails("failure", "low", "high")
    assert not _fails("no_failure", None, "unknown")


def test_scan_exits_2_when_no_job_could_be_read(tmp_path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "job.log").write_bytes(b"\x00\x01\x02binary" * 100)
    res = runner.invoke(app, ["scan", str(tmp_path), "--no-progress", "-j", "1"])
    assert res.exit_code == 2 and "no job could be read" in res.output


def test_scan_checks_output_before_scanning(tmp_path) -> None:
    res = runner.invoke(app, ["scan", LOG, "-o", str(tmp_path / "missing" / "x.parquet")])
    assert res.exit_code == 2 and "parent directory does not exist" in res.output
