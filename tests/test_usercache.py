"""The user cache stays bounded: one folder per logsleuth version, other versions' entries removed once stale, the
least recently used entries removed past ``MAX_BYTES``, nothing used in the last minutes and nothing logsleuth did not
write (``logsleuth/usercache.py``). Every test uses its own HOME / XDG_CACHE_HOME / LOGSLEUTH_CACHE_DIR."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import logsleuth
from logsleuth import report, usercache
from logsleuth.types import Diagnosis

ROOT = Path(__file__).resolve().parent.parent
HOUR = 3600
HEX24, HEX40, HEX12 = "a" * 24, "b" * 40, "c" * 12


def _file(path: Path, size: int = 100, age_s: float = 0) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"x" * size)
    t = time.time() - age_s
    os.utime(path, (t, t))
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("LOGSLEUTH_CACHE_DIR", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    return tmp_path


def test_each_version_has_its_own_folder(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    name = "v" + logsleuth.__version__
    assert usercache.cache_dir() == home / ".cache" / "logsleuth" / name
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / "xdg"))
    assert usercache.cache_dir() == home / "xdg" / "logsleuth" / name
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(home / "mine"))
    assert usercache.cache_dir() == home / "mine"  # a folder the user chose is used as given


def test_other_versions_and_flat_legacy_entries_go_once_stale(home: Path) -> None:
    root = home / ".cache" / "logsleuth"
    current = root / usercache.version_dir_name()
    old_rules = _file(root / "v0.0.9" / f"rules-{HEX24}.json", age_s=3 * 24 * HOUR)
    old_tpl = _file(root / "v0.0.9" / f"templates-{HEX12}" / f"__jinja2_{HEX40}.cache", age_s=3 * 24 * HOUR)
    legacy_db = _file(root / f"hs-{HEX24}.db", age_s=2 * 24 * HOUR)
    legacy_tpl = _file(root / f"templates-{HEX12}" / f"__jinja2_{HEX40}.cache", age_s=2 * 24 * HOUR)
    recent_other = _file(root / "v0.0.8" / f"literals-{HEX24}.json", age_s=HOUR)  # maybe still in use elsewhere
    mine = _file(current / f"rules-{HEX24}.json", age_s=30 * 24 * HOUR)  # this version's: only the size bound
    foreign = _file(root / "notes.txt", age_s=30 * 24 * HOUR)  # not a name logsleuth writes
    for folder in (old_tpl.parent, old_tpl.parent.parent, legacy_tpl.parent):  # nothing added for days
        os.utime(folder, (time.time() - 2 * 24 * HOUR,) * 2)
    busy_tpl = root / "v0.0.7" / f"templates-{HEX12}"  # empty, but a file was added or removed lately
    busy_tpl.mkdir(parents=True)
    removed = usercache.prune(root, current)
    assert sorted(removed) == sorted([old_rules, old_tpl, legacy_db, legacy_tpl])
    assert recent_other.exists() and mine.exists() and foreign.exists()
    assert not (root / "v0.0.9").exists() and not legacy_tpl.parent.exists()  # stale folders, once empty, go too
    assert busy_tpl.is_dir()  # a process of that version may still write there


def test_past_the_size_bound_the_least_recently_used_go_first(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usercache, "MAX_BYTES", 2500)
    root = home / ".cache" / "logsleuth"
    current = root / usercache.version_dir_name()
    files = [_file(current / f"rules-{i:024x}.json", 1000, age_s=(i + 1) * HOUR) for i in range(4)]  # 0 newest
    atime_only = _file(current / f"hs-{HEX24}.db", 1000, age_s=9 * HOUR)
    t = time.time() - 60  # read a minute ago (atime), written long ago: recently used
    os.utime(atime_only, (t, os.stat(atime_only).st_mtime))
    removed = usercache.prune(root, current)
    assert removed == [files[3], files[2], files[1]]  # oldest first, until 2,000 bytes are left
    assert files[0].exists() and atime_only.exists()


def test_files_used_in_the_last_minutes_are_never_removed(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(usercache, "MAX_BYTES", 10)
    current = home / "c"
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(current))
    fresh = _file(current / f"rules-{HEX24}.json", 1000, age_s=usercache.GRACE_S / 2)
    old = _file(current / f"templates-{HEX12}" / f"__jinja2_{HEX40}.cache", 1000, age_s=2 * usercache.GRACE_S)
    foreign = _file(current / "big.parquet", 5000, age_s=30 * 24 * HOUR)  # LOGSLEUTH_CACHE_DIR may hold others' files
    assert usercache.prune(current, current) == [old]
    assert fresh.exists() and foreign.exists() and old.parent.is_dir()  # this version's templates folder stays


def test_pruning_runs_at_most_once_an_hour(home: Path) -> None:
    root, now = home / "r", time.time()
    assert usercache.maybe_prune(root, root / "v1", now=now)
    assert not usercache.maybe_prune(root, root / "v1", now=now + 60)
    os.utime(root / usercache.STAMP, (now - usercache.PRUNE_EVERY_S - 1,) * 2)
    assert usercache.maybe_prune(root, root / "v1", now=now)


def test_a_real_run_caches_under_its_version_and_prunes_stale_entries(tmp_path: Path) -> None:
    """``logsleuth analyze`` in a fresh HOME: the rules, Hyperscan and template caches land in ``v<version>/`` and a
    stale entry of an older layout is gone."""
    root = tmp_path / ".cache" / "logsleuth"
    stale = _file(root / f"rules-{HEX24}.json", age_s=2 * 24 * HOUR)
    log = tmp_path / "job.log"
    log.write_text("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB\n")
    env = {k: v for k, v in os.environ.items() if k not in ("LOGSLEUTH_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=str(tmp_path), PYTHONPATH=str(ROOT), CI="true")
    res = subprocess.run([sys.executable, "-m", "logsleuth", "analyze", str(log), "--no-model"],
                         capture_output=True, text=True, env=env, timeout=300)
    assert res.returncode == 0 and "cuda_oom" in res.stdout, res.stderr
    assert not stale.exists() and (root / usercache.STAMP).exists()
    current = root / usercache.version_dir_name()
    assert list(current.glob("rules-*.json")) and list(current.glob("templates-*/__jinja2_*.cache"))
    assert [p.name for p in root.iterdir() if p.is_file() and p.name != usercache.STAMP] == []


def test_a_template_cache_pruned_under_a_running_process_does_not_fail_a_render(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LOGSLEUTH_CACHE_DIR", str(tmp_path / "cache"))
    templates = tmp_path / "tpl"
    templates.mkdir()
    (templates / "text.j2").write_text("{{ d.root_cause.id }}\n")
    report._environment.cache_clear()
    try:
        env = report._environment(str(templates))  # its bytecode folder exists now...
        for folder in (tmp_path / "cache").glob("templates-*"):
            folder.rmdir()  # ...and is pruned before the first template is compiled and written there
        assert env.bytecode_cache is not None
        d = Diagnosis(verdict="failure", root_cause="cuda_oom", stats={"bytes": 0, "lines": 0, "events": 0})
        assert logsleuth.render(d, "text", template_dir=templates) == "cuda_oom"
    finally:
        report._environment.cache_clear()
