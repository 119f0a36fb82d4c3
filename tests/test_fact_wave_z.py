"""Facts added before wave Z (sealed batch ``heldout29``) was measured, from misses of earlier unsealed batches."""

from __future__ import annotations

from pathlib import Path

from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _diagnose(tmp_path: Path, text: str) -> tuple[str, str | None]:
    log = tmp_path / "job.log"
    log.write_text(text)
    d = analyze([str(log)], model=False)
    return d.root_cause, d.rule_id


def test_a_log_ending_on_a_version_warning_is_the_mismatch() -> None:
    # unslothai/unsloth#8580: the service's journal ends on xFormers' "built for PyTorch 2.10.0 (you have 2.11.0)"
    d = analyze([str(CORPUS / "gh-unslothai-unsloth-8580" / "studio.log")], model=False)
    assert (d.root_cause, d.rule_id) == ("library_version_mismatch", "version-warned-before-failure")
    assert "log ends there" in d.title


def test_a_version_warning_followed_by_training_decides_nothing(tmp_path: Path) -> None:
    # the same journal lines, then a healthy run's first 60 lines (run-waveh-mpirun-healthy-4ranks): no longer the end
    journal = (CORPUS / "gh-unslothai-unsloth-8580" / "studio.log").read_text()
    healthy = "".join((CORPUS / "run-waveh-mpirun-healthy-4ranks" / "job.log").open().readlines()[:42])
    assert _diagnose(tmp_path, journal + healthy)[0] == "no_failure"


def test_a_finished_run_ending_on_a_version_warning_stays_healthy(tmp_path: Path) -> None:
    # a Lightning run that says it finished (``RunFinished``), then the warning lines as the log's last: the loop was
    # done, whatever the library said after it
    finished = "`Trainer.fit` stopped: `max_epochs=2` reached.\n"
    journal = (CORPUS / "gh-unslothai-unsloth-8580" / "studio.log").read_text()
    assert _diagnose(tmp_path, finished + journal)[0] == "no_failure"
