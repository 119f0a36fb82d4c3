"""Wave CA (real multi-node torchrun/gloo runs of Avalanche 0.6.0, Hugging Face PEFT and timm): two general facts.

- A training loop that starts again after it said it finished (``kinds.TrainingStarted``: Avalanche's "-- >> Start of
  training phase << --", HF Trainer's "***** Running training *****", a script's "Starting training") makes that finish
  one phase's: a collective that times out in the next phase is a timeout in training, not a collective issued after
  the loop (``peer_left.collective_after_finish``), and a kill after it is no hang at shutdown
  (``shutdown_hang.hung_after_finish``).
- A loss printed under a metric path ("\\tLoss_Epoch/train_phase/train_stream/Task000 = nan", Avalanche's
  ``TextLogger``; TensorBoard-style "train/loss") is a loss (``extract._NAN_LOSS``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import _NAN_LOSS, facts_of
from logsleuth.factlayer.kinds import TrainingStarted
from logsleuth.pipeline import analyze
from logsleuth.progress import progress_counter
from logsleuth.types import Event

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _started(text: str) -> TrainingStarted | None:
    ev = Event(line=1, end_line=1, path="x.log", text=text, source="trainer", level="info")
    return next((f for f in facts_of(ev) if isinstance(f, TrainingStarted)), None)


@pytest.mark.parametrize(
    ("line", "by"),
    [
        ("-- >> Start of training phase << --", "avalanche"),
        ("[INFO|trainer.py:2519] 2026-12-05 10:00:00,000 >> ***** Running training *****", "transformers"),
        ("Starting training for 300 epochs...", "script"),
        ("2026-12-05 10:00:00,000 - INFO - __main__ - Start training", "script"),
        ("Restarting training from the last checkpoint", None),  # not a loop's own start word
        ("waiting before starting training", None),  # not at the start of the message
    ],
)
def test_a_training_loop_says_it_starts(line: str, by: str | None) -> None:
    f = _started(line)
    assert (f.by if f else None) == by


def test_a_timeout_in_the_next_continual_learning_experience_stays_a_timeout() -> None:
    # Avalanche's loop printed "Training completed" after experience 0, then started experience 1's training phase,
    # where a rank delayed past the 20 s process-group timeout
    d = analyze([str(LOGS / "run-waveca-z-slow-rank1-pg-timeout/job.log")], model=False)
    assert d.root_cause == "collective_timeout"
    assert d.rule_id != "collective-after-finish"


def test_a_finish_followed_by_a_new_training_phase_is_no_hang_at_shutdown(tmp_path: Path) -> None:
    # Megatron's "[after training is done]" then Slurm's cancel 8 minutes later reads as a hang at shutdown; the same
    # log with a training loop starting again between them (an edit: only that line added) does not
    src = LOGS / "gh-NVIDIA-NeMo-Megatron-Bridge-3427/slurm.log"
    assert analyze([str(src)], model=False).rule_id == "hung-after-finish"
    lines = src.read_text(encoding="utf-8").splitlines()
    at = next(i for i, ln in enumerate(lines) if "[after training is done]" in ln)
    edited = tmp_path / "slurm.log"
    edited.write_text("\n".join([*lines[: at + 1], "***** Running training *****", *lines[at + 1 :]]) + "\n")
    assert analyze([str(edited)], model=False).rule_id != "hung-after-finish"


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("\tLoss_Epoch/train_phase/train_stream/Task000 = nan", True),  # wave CA's Avalanche run at a huge lr
        ("\tLoss_Exp/eval_phase/test_stream/Task000/Exp001 = nan", True),
        ("step 40 train/loss: inf", True),
        ("\tLoss_Epoch/train_phase/train_stream/Task000 = 0.0783", False),
        ("\tTop1_Acc_Epoch/train_phase/train_stream/Task000 = nan", False),  # an accuracy, not a loss
    ],
)
def test_a_loss_under_a_metric_path_is_a_loss(line: str, found: bool) -> None:
    assert (_NAN_LOSS.search(line) is not None) is found


def test_avalanches_nan_loss_through_a_run_that_exits_0_is_divergence() -> None:
    d = analyze([str(LOGS / "run-waveca-z-huge-lr/job.log")], model=False)
    assert d.root_cause == "training_divergence"


@pytest.mark.parametrize(
    ("line", "counter"),
    [
        # timm's train.py ``train_one_epoch`` line, and the same head in wave CA's own loop built on timm
        ("Train: 2 [   4/12 ( 42%)]  Loss: 1.53 (1.61)  Time: 0.245s,  130.61/s  LR: 1.000e-03", (2, 4, -1)),
        ("Train: 2 [  4/12]  Loss: 2.288 (2.300)  LR: 1.988e-03  Time: 0.7s", (2, 4, -1)),
        ("train: 3 samples [4/12] read", None),  # no counter in the head's place
    ],
)
def test_timms_train_line_is_progress(line: str, counter: tuple[int, int, int] | None) -> None:
    assert progress_counter(line) == counter
