"""Numbers read from a log are checked before they size anything (issue 16, item 1).

The lines are real corpus lines (corpus/logs) with only their number changed.
"""
from __future__ import annotations

import json
import time

from typer.testing import CliRunner

from logsleuth import plausible
from logsleuth.cli import app
from logsleuth.pipeline import analyze
from logsleuth.report import render
from logsleuth.rules import load_rules

REAL_JOINED = "torch.distributed.DistStoreError: Timed out after 21 seconds waiting for clients. 1/{n} clients joined."
REAL_NRANKS = ("gpu-node-1:148:148 [2] NCCL INFO comm 0x1c8ac350 rank {r} nranks {n} cudaDev 2 nvmlDev 2 busId c000 "
               "commId 0x6fbfd5d1beb402af - Init COMPLETE")


def test_number_rejects_huge_and_out_of_range() -> None:
    assert plausible.number("9" * 5000) is None  # int() would raise past 4300 digits
    assert plausible.world_size("100000000") is None
    assert plausible.world_size("0") is None
    assert plausible.world_size("2048") == 2048
    assert plausible.rank(str(plausible.MAX_WORLD_SIZE)) is None
    assert plausible.pid("-1") is None
    assert plausible.ranges([5, 0, 1, 2, 7, 8]) == [(0, 2), (5, 5), (7, 8)]


def test_huge_world_size_line_finishes_under_a_second(tmp_path) -> None:
    load_rules()
    warm = tmp_path / "warm.log"
    warm.write_text("[rank0]: world_size=2\n")
    render(analyze([warm]), "text")  # imports, rules and model loaded once, as in a long-lived process
    p = tmp_path / "job.log"
    p.write_text("[rank0]: world_size=100000000\n")
    t0 = time.perf_counter()
    d = analyze([p])
    outs = [render(d, fmt) for fmt in ("text", "markdown", "html", "json")]
    assert time.perf_counter() - t0 < 1.0
    assert d.ranks["world_size"] is None  # implausible: not used to size the missing-rank list
    assert all(len(o) < 50_000 for o in outs)


def test_world_size_2048_prints_ranges_and_caps_json(tmp_path) -> None:
    p = tmp_path / "job.log"
    p.write_text(REAL_NRANKS.format(r=0, n=2048) + "\n" + REAL_JOINED.format(n=2048) + "\n")
    d = analyze([p], model=False)
    data = json.loads(render(d, "json"))
    ranks = data["ranks"]
    assert ranks["world_size"] == 2048
    assert len(ranks["missing"]) == 1024 and ranks["missing"][:2] == [1, 2]
    assert ranks["counts"]["missing"] == 2047 and ranks["ranges"]["missing"] == "1-2047"
    text = render(d, "text")
    assert "never appeared 1-2047" in text and "1, 2, 3" not in text
    assert "never appeared: 1-2047" in render(d, "markdown")


def test_huge_numbers_in_every_sizing_place_are_ignored(tmp_path) -> None:
    huge = "9" * 5000
    p = tmp_path / "job.log"
    p.write_text("\n".join([
        REAL_JOINED.format(n="99999999999"),
        REAL_NRANKS.format(r=huge, n=huge),
        f"[rank{huge}]: RuntimeError: boom",
        "[rank3]: world_size=100000000",
    ]) + "\n")
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "json", "--no-model"])
    assert res.exit_code == 0, res.output
    ranks = json.loads(res.stdout)["ranks"]
    assert ranks["world_size"] is None and ranks["seen"] == [3] and ranks["missing"] == []


def test_huge_numbers_in_fact_lines_are_ignored(tmp_path) -> None:
    huge = "9" * 5000
    p = tmp_path / "job.log"
    p.write_text("\n".join([
        f"[rank0]: OSError: [Errno {huge}] No space left on device",
        f"[2024-05-01 10:00:00,000] [INFO] [launch.py:316:sigkill_handler] Killing subprocess {huge}",
        f"subprocess.CalledProcessError: Command '['python', 'train.py']' returned non-zero exit status {huge}.",
        f"NVRM: Xid (PCI:0000:3b:00): {huge}, pid=4242, GPU has fallen off the bus.",
        f"exits with return code = {huge}",
        f"[rank0]: epoch {huge} step {huge} loss 0.5",  # a progress line (progress.progress_counter)
    ]) + "\n")
    res = CliRunner().invoke(app, ["analyze", str(p), "-f", "json", "--no-model"])
    assert res.exit_code == 0, res.output
