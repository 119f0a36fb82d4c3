"""Helpers the torchrun and trainer generators share: command templating, copying a torchrun ``--log-dir`` tree,
and reading/writing a manifest fragment (``corpus/manifest.d/*.csv``, merged by ``merge_manifest.py``)."""
from __future__ import annotations

import csv
import shutil
from collections.abc import Sequence
from pathlib import Path


def fill(items: Sequence[str], subs: dict[str, str]) -> list[str]:
    """``items`` with every ``{key}`` replaced by ``subs[key]`` (a command line's port, log dir...)."""
    out = []
    for it in items:
        for k, v in subs.items():
            it = it.replace("{" + k + "}", v)
        out.append(it)
    return out


def copy_logdir(job: Path, dest: Path, console: bytes) -> None:
    """Copy torchrun's ``--log-dir`` tree under ``job/logs`` to ``dest`` (replaced), with the console output as
    ``console.log``. torchrun writes one ``<rdzv_id>_<random>`` directory per invocation; its contents go to
    ``dest`` directly."""
    if dest.exists():
        shutil.rmtree(dest)
    dest.mkdir(parents=True)
    root = job / "logs"
    runs = sorted(p for p in root.iterdir() if p.is_dir()) if root.exists() else []
    for r in runs:
        for item in r.iterdir():
            (shutil.copytree if item.is_dir() else shutil.copy)(item, dest / item.name)
    (dest / "console.log").write_bytes(console)


def read_fragment(path: Path) -> dict[str, list[str]]:
    """A manifest fragment's rows keyed by their ``file`` column ({} when it does not exist yet)."""
    if not path.exists():
        return {}
    with path.open(newline="") as f:
        r = csv.reader(f)
        next(r, None)
        return {row[0]: row for row in r if row}


def write_fragment(path: Path, rows: dict[str, list[str]], header: Sequence[str]) -> None:
    """Write ``rows`` (sorted by file) under ``header``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        for k in sorted(rows):
            w.writerow(rows[k])
