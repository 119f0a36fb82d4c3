"""Wave BI (``heldout64``: real runs of skorch over HF Accelerate, ``torch.distributed.pipelining``, Ray Tune and
FSDP2 with ``torch.distributed.checkpoint``, plus issue threads), measured blind before any change for it: what was
changed for its misses.

- Ray Tune's "Trial status: 4 TERMINATED" (every trial ended without an error) is the experiment's finish: a trial
  actor killed and retried before it is a failure the run got past (``recovered.finished_after_failure``).
- The rank that failed printed its training loop's own finish line after the failure: the error was handled (a
  checkpoint save retried after freeing space). Not for a diverged loss, whose loop runs to its end anyway.
- ``math.exp`` of the loss raising "OverflowError: math range error" is a loss that blew up (``loss_overflow``).
- torch.distributed.pipelining's shape check: only the microbatch dimension differing is a batch size that does not
  split into the microbatches; another dimension differing in what a later stage received is the stages disagreeing
  on the tensor they exchange.
- A library's "X must be installed! Run `pip install x`." is a missing package, whatever exception type carries it."""

from __future__ import annotations

from pathlib import Path

import pytest
import regex

from logsleuth.factlayer import tables
from logsleuth.factlayer.extract import _EXP_OVERFLOW
from logsleuth.factlayer.kinds import NumericHealth, RunFinished
from logsleuth.pipeline import analyze, collect
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause", "rule"),
    [
        # a trial actor SIGKILLed after its first checkpoint; Tune retried it (FailureConfig(max_failures=2)) and every
        # trial ended TERMINATED (wavebi_c); since wave BO, Tune's "Restored on <ip> from checkpoint" is the retry report
        ("run-wavebi-c-tune-healthy-retry/job.log", "no_failure", "retried-after-failure"),
        # stage 1's checkpoint save hit ENOSPC twice, freed an old checkpoint each time and saved; then both stages
        # said "training done" (wavebi_b)
        ("run-wavebi-b-pp-healthy-ckpt-prune/job.log", "no_failure", "run-finished-after-failure"),
        # a learning rate of 80: losses in the thousands, then math.exp(val_loss) raised at the first eval (wavebi_b)
        ("run-wavebi-b-pp-lr/job.log", "training_divergence", "training-diverged"),
        # batch 18 into 4 microbatches: chunks of 5/5/4/4 against stages built for 4 rows (wavebi_b)
        ("run-wavebi-b-pp-microbatches/job.log", "batch_size_mismatch", "exception-batch-config"),
        # stage 0 cuts the sequence to 64 positions, stage 1 was built for 96 (wavebi_b)
        ("run-wavebi-b-pp-seq-len/job.log", "collective_mismatch", "exception-collective-mismatch"),
        # Ray Tune's OptunaSearch without optuna installed: an AssertionError says so (wavebi_c)
        ("run-wavebi-c-tune-optuna/job.log", "library_version_mismatch", "exception-environment"),
        # a run whose NaN loss was never checked trains on to "Training completed": still diverged (wave C's run)
        ("fresh-torchrun-nan-unchecked/job.log", "training_divergence", "training-diverged"),
        # a trial raising on a malformed row in every retry: the status table ends with ERROR, not all TERMINATED
        ("run-wavebi-c-tune-row/job.log", "worker_exception", "ray-task-raised"),
    ],
)
def test_wave_bi_logs_by_facts(log: str, cause: str, rule: str) -> None:
    diag = analyze([str(CORPUS / log)], model=False)
    assert (diag.root_cause, diag.rule_id) == (cause, rule)


def test_tune_status_is_a_finish_only_when_every_trial_terminated() -> None:
    evidence = collect([str(CORPUS / "run-wavebi-c-tune-healthy-retry/job.log")], load_rules())
    done = [f for f in evidence.facts if isinstance(f, RunFinished)]
    assert [(f.by, f.words.strip()) for f in done] == [("ray_tune", "Trial status: 4 TERMINATED")]
    # the same job's heartbeats while trials ran ("2 TERMINATED | 1 RUNNING") are not finishes
    stalled = collect([str(CORPUS / "run-wavebi-c-tune-trial-stopped/job.log")], load_rules())
    assert not [f for f in stalled.facts if isinstance(f, RunFinished)]


def test_exp_overflow_is_read_from_the_raising_source_line() -> None:
    evidence = collect([str(CORPUS / "run-wavebi-b-pp-lr/job.log")], load_rules())
    overflow = [f for f in evidence.facts if isinstance(f, NumericHealth) and f.what == "loss_overflow"]
    assert [f.event.line for f in overflow] == [25]
    # the same exception from a line that does not exponentiate says nothing about the loss
    text = overflow[0].event.text.replace("math.exp(v)", "float(v) ** 8")
    assert not regex.search(r"\bexp\(", text)
    assert _EXP_OVERFLOW.search(overflow[0].event.text) and not _EXP_OVERFLOW.search(text)


def _family(message: str) -> str:
    return next((f for p, f in tables.MESSAGE_PATTERNS if regex.search(p, message)), "")


@pytest.mark.parametrize(
    ("message", "family"),
    [
        # torch 2.13 (wavebi_b): only the microbatch dimension differs, on either stage
        ("Stage 0 input[0]: shape mismatch: torch.Size([4, 64]) vs torch.Size([5, 64])", "batch_config"),
        ("Stage 1 input[0]: shape mismatch: torch.Size([4, 64, 64]) vs torch.Size([5, 64, 64])", "batch_config"),
        # the sequence dimension differs in what stage 1 received from stage 0 (wavebi_b)
        (
            "Stage 1 input[0]: shape mismatch: torch.Size([4, 96, 64]) vs torch.Size([4, 64, 64]); stride mismatch: "
            "(6144, 64, 1) vs (4096, 64, 1)",
            "collective_mismatch",
        ),
        # stage 0's inputs are the user's batch: another dimension differing there is not a peer's tensor
        ("Stage 0 input[0]: shape mismatch: torch.Size([4, 96]) vs torch.Size([4, 64])", ""),
        # Ray Tune's search algorithms (wavebi_c)
        ("Optuna must be installed! Run `pip install optuna`.", "environment"),
    ],
)
def test_message_families(message: str, family: str) -> None:
    assert _family(message) == family
