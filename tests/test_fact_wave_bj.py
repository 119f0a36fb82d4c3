"""Wave BJ (``heldout65``: real runs of TRL on CPU, TorchRL's multi-process collectors, the HF Trainer inside Ray
Train, and sentence-transformers under torchrun), measured blind before any change for it: what was changed for its
misses.

- A single-process trainer's own SIGTERM handler ("WARNING ppo: received SIGTERM at iteration 20; stopping") is a
  signal from outside, like a rank's (``extract._SCRIPT_GOT_SIGNAL``).
- Where no rank prints progress of its own, the rank-less progress stream measures how long progress had stopped
  before the job was stopped (``hang.decide``'s ``unranked``).
- Ray Train restarted its worker group and the training loop then said it finished, with no progress line in between
  (a Trainer's log dicts) and nothing failing after: the job recovered.
- A traceback logged under a rank's ERROR line belongs to that rank, whose own finish line after it says the error
  was handled.
- "X requires tensorboard to be installed" is a missing package."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex

from logsleuth.factlayer import tables
from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import SignalFact
from logsleuth.pipeline import analyze
from logsleuth.types import Event

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause", "rule"),
    [
        # SIGTERM to a healthy PPO trainer after iteration 20 (wavebj_b)
        ("run-wavebj-b-ppo-preempted/job.log", "job_preempted", "rank-received-sigterm"),
        # a collector worker SIGSTOPped after iteration 12: no progress for 29 s (iterations took ~2 s), then the
        # scheduler's SIGTERM (wavebj_b)
        ("run-wavebj-b-ppo-worker-stopped/job.log", "silent_hang", "rank-progress"),
        # Ray Train's FailurePolicy retried twice (a SIGKILLed worker, then a checkpoint-copy race), then "rank 0:
        # training finished at step 300" (wavebj_c)
        ("run-wavebj-c-ray-healthy-retry/job.log", "no_failure", "retried-after-failure"),
        # rank 0 logged ENOSPC for its metrics file, disabled it and trained to "training done" (wavebj_d)
        ("run-wavebj-d-st-healthy-metrics/job.log", "no_failure", "run-finished-after-failure"),
        # transformers' TensorBoardCallback without tensorboard (wavebj_c, wavebj_d)
        ("run-wavebj-c-ray-tensorboard/job.log", "library_version_mismatch", "exception-environment"),
        ("run-wavebj-d-st-report-tensorboard/job.log", "library_version_mismatch", "exception-environment"),
        # Dask's client closing its connection after its work failed is no finish line (wave AP's runs)
        ("run-waveap-a-shell-stockout-new-listing/job.log", "native_crash", "process-crashed-by-signal"),
    ],
)
def test_wave_bj_logs_by_facts(log: str, cause: str, rule: str) -> None:
    diag = analyze([str(CORPUS / log)], model=False)
    assert (diag.root_cause, diag.rule_id) == (cause, rule)


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        ("2026-12-02 10:08:38,984 WARNING ppo: received SIGTERM at iteration 20; stopping", "SIGTERM"),
        # Ray's raylet at a normal shutdown, and DeepSpeed's launcher (a launcher fact of its own)
        (
            "[2026-11-21 16:05:43,468 I 72 72] (raylet) main.cc:1174: received SIGTERM. Existing local drain request",
            None,
        ),
        ("[INFO] [launch.py:262:sigkill_handler] Main process received SIGTERM, exiting", None),
    ],
)
def test_single_process_handler_signal(line: str, signal: str | None) -> None:
    ev = Event(line=1, end_line=1, path="job.log", text=line, source="other", level="warning")
    unknown = [f.signal for f in facts_of(ev) if isinstance(f, SignalFact) and f.sender == "unknown"]
    assert unknown == ([signal] if signal else [])


def test_requires_to_be_installed_is_environment() -> None:
    message = (
        "TensorBoardCallback requires tensorboard to be installed. Either update your PyTorch version or install "
        "tensorboardX."
    )
    assert next((f for p, f in tables.MESSAGE_PATTERNS if regex.search(p, message)), "") == "environment"
