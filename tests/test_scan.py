"""``logsleuth scan``: jobs from an archive, one row each, in parallel, cached, robust to bad files."""
from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from logsleuth.cli import app
from logsleuth.scan import COLUMNS, ScanProgress, discover, read_table, render_summary, scan, summarize, write_table
from tests.conftest import CORPUS, manifest_rows

runner = CliRunner()
OOM = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n"
HEALTHY = "[2024-05-01 10:00:00,000] [INFO] step 10 loss 1.23\n"


def _existing_manifest() -> list[dict[str, str]]:
    return [r for r in manifest_rows() if (CORPUS / r["file"]).exists()]


def _write(p: Path, text: str | bytes) -> Path:
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text)
    return p


def _noise(lines: int, seed: int = 0) -> str:
    return "".join(f"[2024-05-01 10:{(i // 60) % 60:02d}:{i % 60:02d},000] [INFO] step {i + seed} loss 0.{i % 97:02d}\n"
                   for i in range(lines))


@pytest.fixture(scope="module")
def corpus_table(rules) -> pd.DataFrame:
    return scan([str(CORPUS)], group_by="file", jobs=2, rules=rules)


def test_corpus_scan_gives_one_correct_row_per_manifest_job(corpus_table: pd.DataFrame) -> None:
    rows = _existing_manifest()
    by_job = {os.path.normpath(j): i for i, j in enumerate(corpus_table["job"])}
    expected = {os.path.normpath(str(CORPUS / r["file"])): r["label"] for r in rows}
    missing = set(expected) - set(by_job)
    assert not missing, f"manifest jobs without their own row: {sorted(missing)}"
    for entry in expected:  # a multi-file job (a directory entry) is one row, not split into several
        inside = [j for j in by_job if j == entry or j.startswith(entry + os.sep)]
        assert inside == [entry], inside
    # held-out logs measure generalisation (``logsleuth eval``); only dev logs must come out right
    dev = {os.path.normpath(str(CORPUS / r["file"])) for r in rows if (r.get("split") or "dev") == "dev"}
    wrong = {j: (corpus_table["root_cause"].iloc[by_job[j]], label) for j, label in expected.items()
             if j in dev and corpus_table["root_cause"].iloc[by_job[j]] != label}
    assert not wrong, wrong
    assert corpus_table["error"].isna().all()


def test_table_has_the_documented_columns_and_dtypes(corpus_table: pd.DataFrame, tmp_path: Path) -> None:
    df = corpus_table
    assert list(df.columns) == list(COLUMNS)
    for col, dtype in COLUMNS.items():
        assert str(df[col].dtype) == dtype, col
    assert df["job"].is_unique and list(df["job"]) == sorted(df["job"])
    failures = df[df["verdict"] == "failure"]
    assert len(failures) > 0 and failures["first_failure_line"].notna().all()
    assert (df["files"] == df["paths"].map(len)).all()
    assert (df["bytes"] == df["paths"].map(lambda ps: sum(os.path.getsize(p) for p in ps))).all()
    out = tmp_path / "x.parquet"
    write_table(df, out)
    back = pd.read_parquet(out)
    assert len(back) == len(df) and list(back.columns) == list(COLUMNS)
    assert str(back["first_failure_time"].dtype).startswith("datetime64")
    assert isinstance(back["verdict"].dtype, pd.CategoricalDtype)


@pytest.mark.parametrize("suffix", [".parquet", ".csv", ".jsonl"])
def test_every_output_format_round_trips(corpus_table: pd.DataFrame, tmp_path: Path, suffix: str) -> None:
    out = tmp_path / f"t{suffix}"
    write_table(corpus_table, out)
    back = read_table(out)
    assert [p for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temporary file left
    cols = [c for c in COLUMNS if c != "first_failure_text"]
    pd.testing.assert_frame_equal(back[cols], corpus_table[cols], check_categorical=False)


def test_logsleuth_scan_is_the_function_and_the_namespace_readme_uses(tmp_path: Path) -> None:
    import logsleuth

    _write(tmp_path / "a" / "job.log", HEALTHY + OOM)
    df = logsleuth.scan([str(tmp_path)], jobs=1)  # README: df = logsleuth.scan([...])
    assert list(df.columns) == list(logsleuth.scan.COLUMNS)
    assert df.iloc[0]["root_cause"] == "cuda_oom"
    logsleuth.scan.write_table(df, tmp_path / "t.jsonl")
    back = logsleuth.scan.read_table(tmp_path / "t.jsonl")
    assert back["job"].tolist() == df["job"].tolist()
    assert logsleuth.scan.scan is scan


def test_grouping_by_dir_by_file_and_multi_file_layouts(tmp_path: Path) -> None:
    _write(tmp_path / "job-a" / "rank0.log", HEALTHY)
    _write(tmp_path / "job-a" / "rank1.log", OOM)
    _write(tmp_path / "job-a" / "notes.md", "not a log")
    _write(tmp_path / "flat" / "slurm-1.out", HEALTHY)
    _write(tmp_path / "flat" / "slurm-2.out.gz", gzip.compress(OOM.encode()))
    run = tmp_path / "torchrun" / "run7"
    _write(run / "console.log", HEALTHY)
    _write(run / "attempt_0" / "0" / "stdout.log", HEALTHY)
    _write(run / "attempt_0" / "1" / "stderr.log", OOM)
    _write(tmp_path / "ray" / "session_1" / "logs" / "raylet.out", HEALTHY)
    _write(tmp_path / "ray" / "session_1" / "logs" / "events" / "event_RAYLET.log", HEALTHY)
    _write(tmp_path / "twonode" / "node0.log", HEALTHY)  # one agent's console per node of a multi-node job
    _write(tmp_path / "twonode" / "node1.log", OOM)
    _write(tmp_path / "solo" / "node3.log", HEALTHY)  # one node's log alone is an ordinary file

    by_dir = {j.name: j for j in discover([str(tmp_path)], "dir")}
    rel = {os.path.relpath(n, tmp_path): len(j.paths) for n, j in by_dir.items()}
    assert rel == {"job-a": 2, "flat": 2, "torchrun/run7": 3, "ray/session_1/logs": 2, "twonode": 2, "solo": 1}
    assert by_dir[str(run)].analyze_paths == (str(run),)  # a layout is analysed as a directory (error.json...)

    by_file = {os.path.relpath(j.name, tmp_path): len(j.paths) for j in discover([str(tmp_path)], "file")}
    assert by_file == {"job-a/rank0.log": 1, "job-a/rank1.log": 1, "flat/slurm-1.out": 1, "flat/slurm-2.out.gz": 1,
                       "torchrun/run7": 3, "ray/session_1/logs": 2, "twonode": 2, "solo/node3.log": 1}

    df = scan([str(tmp_path)], jobs=1).set_index("job")
    assert df.loc[str(tmp_path / "job-a"), "root_cause"] == "cuda_oom"
    assert df.loc[str(tmp_path / "job-a"), "first_failure_path"] == str(tmp_path / "job-a" / "rank1.log")
    assert df.loc[str(run), "root_cause"] == "cuda_oom"
    assert df.loc[str(tmp_path / "flat"), "root_cause"] == "cuda_oom"
    assert df.loc[str(tmp_path / "twonode"), "root_cause"] == "cuda_oom"


def test_bad_files_give_error_rows_and_the_scan_goes_on(tmp_path: Path) -> None:
    _write(tmp_path / "good" / "train.log", OOM)
    good_gz = gzip.compress((_noise(600) + OOM).encode())
    _write(tmp_path / "cut" / "train.log.gz", good_gz[: len(good_gz) // 2])
    # under --max-job-mb on disk, over it decompressed
    _write(tmp_path / "packed" / "train.log.gz", gzip.compress((_noise(3000) + OOM).encode()))
    _write(tmp_path / "binary" / "model.log", bytes(range(256)) * 64)
    _write(tmp_path / "empty" / "train.log", "")
    _write(tmp_path / "huge" / "train.log", _noise(2000))
    _write(tmp_path / "mixed" / "rank0.log", OOM)
    _write(tmp_path / "mixed" / "rank1.log", b"\x00\x01\x02\x03" * 4000)
    df = scan([str(tmp_path)], jobs=2, max_job_bytes=50_000).set_index("job")
    assert len(df) == 7
    err = {os.path.basename(j): e for j, e in df["error"].items()}
    assert err["good"] is None
    # a truncated .gz is diagnosed from the lines before the cut, and is never called healthy
    assert "truncated" in err["cut"] and "train.log.gz" in err["cut"]
    assert df.loc[str(tmp_path / "cut"), "verdict"] == "unknown" and df.loc[str(tmp_path / "cut"), "lines"] > 0
    assert "over the limit" in err["packed"] and "decompressed" in err["packed"]
    assert pd.isna(df.loc[str(tmp_path / "packed"), "verdict"])
    assert "binary" in err["binary"]
    assert "empty" in err["empty"]
    assert "over the limit" in err["huge"]
    assert "1 of 2 files unreadable" in err["mixed"]  # the readable rank still gets diagnosed
    assert df.loc[str(tmp_path / "mixed"), "root_cause"] == "cuda_oom"
    for name in ("packed", "binary", "empty", "huge"):
        row = df.loc[str(tmp_path / name)]
        assert pd.isna(row["verdict"]) and pd.isna(row["lines"]) and row["bytes"] >= 0
    summary = summarize(df.reset_index())
    assert dict(zip(summary["root_cause"], summary["jobs"]))["error"] == 4


def test_parallel_and_serial_scans_agree(tmp_path: Path, rules) -> None:
    for i in range(6):
        _write(tmp_path / f"job{i}" / "out.log", _noise(200, i) + (OOM if i % 2 else ""))
    one = scan([str(tmp_path)], jobs=1, rules=rules)
    two = scan([str(tmp_path)], jobs=2, rules=rules)
    pd.testing.assert_frame_equal(one.drop(columns="seconds"), two.drop(columns="seconds"))
    assert list(one["root_cause"]) == ["no_failure", "cuda_oom"] * 3


def test_cache_skips_unchanged_jobs_and_rescans_changed_ones(tmp_path: Path, rules) -> None:
    arch = tmp_path / "arch"
    for i in range(4):
        _write(arch / f"job{i}" / "out.log", _noise(50, i))
    cache = tmp_path / "cache.jsonl"
    seen: list[ScanProgress] = []
    first = scan([str(arch)], jobs=1, rules=rules, cache=cache, progress=seen.append)
    assert [e.cached for e in seen if e.job] == [False] * 4
    assert seen[0].job is None and seen[0].total == 4 and seen[-1].done_bytes == seen[0].total_bytes

    seen.clear()
    again = scan([str(arch)], jobs=1, rules=rules, cache=cache, progress=seen.append)
    assert [e.cached for e in seen if e.job] == [True] * 4
    pd.testing.assert_frame_equal(first, again)

    changed = arch / "job2" / "out.log"
    changed.write_text(_noise(50, 2) + OOM)
    os.utime(changed, ns=(time.time_ns(), time.time_ns() + 10**9))
    seen.clear()
    third = scan([str(arch)], jobs=1, rules=rules, cache=cache, progress=seen.append)
    assert {os.path.basename(e.job.name): e.cached for e in seen if e.job} == {
        "job0": True, "job1": True, "job2": False, "job3": True}
    assert third.set_index("job").loc[str(arch / "job2"), "root_cause"] == "cuda_oom"

    # another archive scanned with the same cache leaves this one's entries in it
    other = tmp_path / "other"
    _write(other / "jobX" / "out.log", _noise(20))
    scan([str(other)], jobs=1, rules=rules, cache=cache)
    seen.clear()
    scan([str(arch)], jobs=1, rules=rules, cache=cache, progress=seen.append)
    assert all(e.cached for e in seen if e.job)

    # other rules: nothing is reused
    extra = tmp_path / "rules"
    _write(extra / "my-rule.yaml", (Path(__file__).parent.parent / "rules" / "device" / "torch-cuda-out-of-memory.yaml")
           .read_text().replace("id: torch-cuda-out-of-memory", "id: my-rule"))
    seen.clear()
    scan([str(arch)], jobs=1, rules_dirs=[extra], cache=cache, progress=seen.append)
    assert not any(e.cached for e in seen if e.job)


def test_an_interrupted_scan_resumes_from_the_cache(tmp_path: Path, rules) -> None:
    arch = tmp_path / "arch"
    for i in range(5):
        _write(arch / f"job{i}" / "out.log", _noise(30, i))
    cache = tmp_path / "cache.jsonl"

    def stop_after_two(ev: ScanProgress) -> None:
        if ev.done == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        scan([str(arch)], jobs=1, rules=rules, cache=cache, progress=stop_after_two)
    assert len(cache.read_text().splitlines()) == 2
    with cache.open("a") as f:
        f.write('{"settings": "torn line of a killed wri')  # a scan killed mid-write
    seen: list[ScanProgress] = []
    df = scan([str(arch)], jobs=1, rules=rules, cache=cache, progress=seen.append)
    assert sum(e.cached for e in seen if e.job) == 2 and len(df) == 5
    assert len(cache.read_text().splitlines()) == 5  # compacted: one line per job


def test_cli_scan_writes_the_table_and_prints_the_summary(tmp_path: Path) -> None:
    for i in range(3):
        _write(tmp_path / "arch" / f"job{i}" / "out.log", _noise(20, i) + (OOM if i else ""))
    out = tmp_path / "r.csv"
    res = runner.invoke(app, ["scan", str(tmp_path / "arch"), "-o", str(out), "-f", "json", "-j", "2"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["total_jobs"] == 3
    assert {r["root_cause"]: r["jobs"] for r in summary["root_causes"]} == {"cuda_oom": 2, "no_failure": 1}
    df = pd.read_csv(out)
    assert len(df) == 3 and list(df.columns) == list(COLUMNS)
    assert "\r" not in res.stderr and "━" not in res.stderr  # not a terminal: no progress bar

    md = runner.invoke(app, ["scan", str(tmp_path / "arch"), "-f", "markdown", "--group-by", "file"])
    assert md.exit_code == 0 and md.stdout.startswith("| root cause | jobs |")
    assert "| cuda_oom | 2 | 66.7% |" in md.stdout

    bad = runner.invoke(app, ["scan", str(tmp_path / "nope")])
    assert bad.exit_code == 2 and "no such file" in bad.stderr
    bad = runner.invoke(app, ["scan", str(tmp_path / "arch"), "-o", str(tmp_path / "r.xlsx")])
    assert bad.exit_code == 2 and ".parquet, .csv or .jsonl" in bad.stderr


def test_progress_bar_only_on_a_terminal_and_not_in_ci(monkeypatch: pytest.MonkeyPatch) -> None:
    from rich.console import Console

    from logsleuth.scan_progress import ScanProgressBar, progress_wanted

    tty = Console(file=StringIO(), force_terminal=True, width=120)
    monkeypatch.delenv("CI", raising=False)
    assert progress_wanted(tty)
    assert not progress_wanted(Console(file=StringIO(), force_terminal=False))
    monkeypatch.setenv("CI", "true")
    assert not progress_wanted(tty)
    with ScanProgressBar(tty) as bar:
        bar(ScanProgress(None, None, False, 0, 2, 0, 3, 0, 2_000_000))
        bar(ScanProgress(None, {}, False, 1, 2, 2, 3, 1_000_000, 2_000_000))
    drawn = tty.file.getvalue()
    assert "1/2 jobs, 2/3 files" in drawn and "2.0 MB" in drawn


def _sigint_default() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stops_the_workers_and_leaves_no_output(tmp_path: Path) -> None:
    arch = tmp_path / "arch"
    for i in range(3):
        _write(arch / f"job{i}" / "out.log", _noise(200, i))
    fifo = tmp_path / "stuck" / "job.log"  # a job whose read blocks forever: the scan is mid-way, whatever the speed
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    out = tmp_path / "out.parquet"
    cache = tmp_path / "cache.jsonl"
    env = dict(os.environ, CI="true")
    # SIGINT as a terminal leaves it: a runner started in the background of a non-interactive shell (`cmd &` without
    # job control, as `nohup bash .ci/run &` does) passes SIGINT on ignored, and a Python started with SIGINT ignored
    # installs no KeyboardInterrupt handler, so the scan would rightly sit through the Ctrl-C (seen twice: 14 min)
    proc = subprocess.Popen([sys.executable, "-m", "logsleuth", "scan", str(arch), str(fifo), "-o", str(out),
                             "--cache", str(cache), "-j", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True,
                            preexec_fn=_sigint_default)
    deadline = time.time() + 120
    while time.time() < deadline and not (cache.exists() and cache.read_text().count("\n") >= 3):
        time.sleep(0.1)
    assert proc.poll() is None, proc.communicate()
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "interrupted" in err and "Traceback" not in err
    assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arch", "cache.jsonl", "stuck"]  # no temporary table left
    assert len(cache.read_text().splitlines()) == 3  # the finished jobs, ready for the resumed scan


def test_ctrl_c_never_leaves_the_exit_hook_racing_a_pool_still_winding_down(monkeypatch: pytest.MonkeyPatch) -> None:
    """``scan.local._terminate`` under a load where the pool's manager thread cannot finish in time (the wait set to
    0 s here): its wake-up pipe leaves the table Python 3.11's exit hook writes to without a lock, so the exit can
    never print "Bad file descriptor" with a traceback however slow the machine; the thread still finishes."""
    import concurrent.futures.process as cfp
    import multiprocessing

    from logsleuth.scan import local

    monkeypatch.setattr(local, "TERMINATE_WAIT_S", 0.0)
    pool = cfp.ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("fork"))
    pool.submit(time.sleep, 60)
    manager = pool._executor_manager_thread
    assert manager is not None and manager in cfp._threads_wakeups
    local._terminate(pool)
    assert not manager.is_alive() or manager not in cfp._threads_wakeups
    manager.join(timeout=60)
    assert not manager.is_alive()


def test_fifos_and_sockets_in_an_archive_are_not_jobs(tmp_path: Path) -> None:
    _write(tmp_path / "a" / "train.log", OOM)
    os.mkfifo(tmp_path / "a" / "pipe.log")
    assert [j.paths for j in discover([str(tmp_path)])] == [(str(tmp_path / "a" / "train.log"),)]


def test_summary_formats() -> None:
    df = pd.DataFrame({"root_cause": pd.Categorical(["cuda_oom", "cuda_oom", None]), "job": ["a", "b", "c"],
                       "first_failure_time": pd.to_datetime(["2024-05-01T10:00:00", "2024-05-03T10:00:00", None])})
    s = summarize(df)
    assert list(s["root_cause"]) == ["cuda_oom", "error"] and list(s["jobs"]) == [2, 1]
    text = render_summary(s, "text")
    assert text.splitlines()[1].split()[:3] == ["cuda_oom", "2", "66.7%"] and "2024-05-01T10:00:00" in text
    data = json.loads(render_summary(s, "json"))
    assert data["total_jobs"] == 3 and data["root_causes"][0]["last_seen"] == "2024-05-03T10:00:00"
