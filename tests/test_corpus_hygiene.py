"""A corpus log must not name its own scenario: the real-run generators run each scenario in a directory named after
it, and a path such as ``/tmp/wavet-b-job/<...>-mmap-shard-rewritten-sigbus/pc.py`` in a traceback is the label
written into the text - something no user's log carries, which the classifier would learn
(corpus/generators/scrub_job_paths.py rewrites such directories to ``/workspace``)."""

from __future__ import annotations

import csv
import re
from pathlib import Path

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
SCENARIO = re.compile(r"(?:run|fresh)-(?:wave[a-z]-(?:[ab]-)?)?(?P<name>.+)")


def _text(p: Path) -> str:
    files = [p] if p.is_file() else [f for f in sorted(p.rglob("*")) if f.is_file()]
    out = []
    for f in files:
        data = f.read_bytes()
        if b"\0" not in data[:65536]:
            out.append(data.decode("utf-8", "replace"))
    return "".join(out)


def test_no_generated_log_names_its_own_scenario() -> None:
    leaks = []
    with (CORPUS / "manifest.csv").open(newline="") as f:
        for row in csv.DictReader(f):
            folder = row["file"].split("/")[1]
            m = SCENARIO.fullmatch(folder)
            if m is None or len(m["name"]) < 8:
                continue
            if m["name"] in _text(CORPUS / row["file"]):
                leaks.append(row["file"])
    assert not leaks, f"{len(leaks)} logs name their scenario, e.g. {leaks[:3]}"
