"""Every rank of one host failing at start-up in library code the other hosts run too (``one_host_failed``).

Wave BY's real run: Lhotse 1.x on every host's venv, an older Lhotse first on node b's ``PYTHONPATH``; both of
node b's ranks raise ``TypeError: object.__init__() takes exactly one argument`` inside the old sampler, node a's
ranks lose their peers in DDP's start-up check. Edits of that log change only the fact in question.
"""

from __future__ import annotations

from pathlib import Path

from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
OLD_LHOTSE = LOGS / "run-waveby-z-old-lhotse-node-b/job.log"


def _write(tmp_path: Path, text: str) -> Path:
    out = tmp_path / "job.log"
    out.write_text(text, encoding="utf-8")
    return out


def test_every_rank_of_one_host_failing_in_a_library_is_that_hosts_release() -> None:
    d = analyze([str(OLD_LHOTSE)], model=False)
    assert d.root_cause == "library_version_mismatch"
    assert d.rule_id == "one-host-failed-in-library"
    assert "asr-node-b" in d.message and "ranks 2, 3" in d.message
    assert "lhotse/dataset/sampling/base.py" in d.message
    assert d.first_failure is not None and d.first_failure.rank in (2, 3)


def test_one_rank_alone_failing_so_is_not_a_whole_host(tmp_path: Path) -> None:
    # rank 2's traceback dropped: one rank of node b raised it, which a rank-dependent bug does as well
    lines = OLD_LHOTSE.read_text(encoding="utf-8").splitlines(keepends=True)
    kept = [ln for ln in lines if not ln.startswith("[rank2]: ")]
    assert len(kept) < len(lines)
    d = analyze([str(_write(tmp_path, "".join(kept)))], model=False)
    assert d.root_cause == "worker_exception"


def test_a_host_whose_other_ranks_did_not_fail_so_is_not_the_cause(tmp_path: Path) -> None:
    # every rank on one host: ranks 0 and 1 ran the same statement there without that error
    text = OLD_LHOTSE.read_text(encoding="utf-8")
    assert "asr-node-a" in text
    d = analyze([str(_write(tmp_path, text.replace("asr-node-a", "asr-node-b")))], model=False)
    assert d.root_cause == "worker_exception"


def test_after_progress_the_same_failure_is_left_to_the_rules(tmp_path: Path) -> None:
    # a training step printed before the failure: ranks no longer run the same statements, data differs per rank
    text = OLD_LHOTSE.read_text(encoding="utf-8")
    anchor = "[rank3]: Traceback (most recent call last):\n"
    assert anchor in text
    wave_bx = (LOGS / "run-wavebx-t-rank-stopped/job.log").read_text(encoding="utf-8").splitlines(keepends=True)
    step = next(ln for ln in wave_bx if "epoch 1 step 10: loss" in ln)  # a real progress line of another real run
    d = analyze([str(_write(tmp_path, text.replace(anchor, step + anchor, 1)))], model=False)
    assert d.root_cause == "worker_exception"
