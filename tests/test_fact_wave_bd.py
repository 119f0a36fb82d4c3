"""Wave BD (``heldout59``: real runs under the legacy ``torch.distributed.launch``, FSDP2 with DCP under torchrun, and
MMEngine's ``Runner``), measured blind before any change for it: what was changed for its misses.

A batch-size check worded with command-line flags ("--batch-size 128 != --micro-batch 32 * ...") is a batch
configuration check; an ``assert`` on the loss being finite that fails (OpenMMLab's ``CheckInvalidLossHook``, whose
message is None) is a NaN loss; and MMEngine's validation-loop records ("Epoch(val) [3][4/4]") are no training step,
so a run that logged errors and trained on past them is read as going on."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.ended_mid_run import short_of_total
from logsleuth.factlayer.extract import _family, facts_of
from logsleuth.factlayer.kinds import ExceptionFact, NumericHealth
from logsleuth.parse import parse
from logsleuth.pipeline import analyze
from logsleuth.progress import progress_counter

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # the script's own batch check, worded with its flags (wavebd_a)
        ("run-wavebd-a-kws-batch-accum/job.log", "batch_size_mismatch"),
        # NaN pixels in the data; the team's copy of mmdet's invalid-loss hook fails its assert on rank 1 (wavebd_c)
        ("run-wavebd-c-leaf-cloud-masked/job.log", "training_divergence"),
        # missing tiles logged at ERROR on both ranks, then three epochs with validation and exit 0 (wavebd_c)
        ("run-wavebd-c-leaf-healthy-missing-tiles/job.log", "no_failure"),
    ],
)
def test_wave_bd_logs_by_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(path: str, first: int, last: int) -> list[object]:
    """The facts of the events of the real log ``path`` that start within lines ``first``..``last``."""
    lines = (CORPUS / path).read_text().splitlines()
    return [f for ev in parse(enumerate(lines, 1), path) if first <= ev.line <= last for f in facts_of(ev)]


def test_a_failed_assert_on_a_finite_loss_is_a_nan_loss() -> None:
    facts = _facts("run-wavebd-c-leaf-cloud-masked/job.log", 227, 245)
    exc = [f for f in facts if isinstance(f, ExceptionFact)]
    assert [(f.type, f.message) for f in exc] == [("AssertionError", "None")]
    assert [f.what for f in facts if isinstance(f, NumericHealth)] == ["nan_loss"]


def test_an_assert_on_something_else_is_no_nan_loss() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/job/train.py", line 30, in after_train_iter\n'
        "    assert len(batch) > 0, 'empty batch'\n"
        "AssertionError: empty batch"
    )
    facts = [f for ev in parse(enumerate(text.splitlines(), 1), "job.log") for f in facts_of(ev)]
    assert [f for f in facts if isinstance(f, NumericHealth)] == []
    # the finiteness check must be the innermost frame's code, not an earlier frame's
    text = (
        "Traceback (most recent call last):\n"
        '  File "/job/train.py", line 30, in step\n'
        "    assert torch.isfinite(loss), check(loss)\n"
        '  File "/job/train.py", line 12, in check\n'
        "    assert loss.dim() == 0\n"
        "AssertionError"
    )
    facts = [f for ev in parse(enumerate(text.splitlines(), 1), "job.log") for f in facts_of(ev)]
    assert [f for f in facts if isinstance(f, NumericHealth)] == []


@pytest.mark.parametrize(
    ("message", "family"),
    [
        ("--batch-size 128 != --micro-batch 32 * --grad-accum 1 * world size 2", "batch_config"),
        (
            "global batch size (24) must be a multiple of local batch size (8) times data-parallel degree (2)",
            "batch_config",
        ),
        ("Expected input batch-size (32) to match target batch-size (16).", ""),
    ],
)
def test_batch_checks_worded_with_flags(message: str, family: str) -> None:
    assert _family("ValueError", "", message, None) == family


@pytest.mark.parametrize(
    ("text", "counter"),
    [
        (
            "12/01 19:31:10 - mmengine - INFO - Epoch(train) [3][30/30]  lr: 5.0000e-03  eta: 0:00:00  loss: 0.0405",
            (3, 30, -1),
        ),
        ("12/01 19:31:11 - mmengine - INFO - Epoch(val) [3][4/4]    leaf/accuracy: 100.0000  data_time: 0.0018", None),
        ("12/01 19:31:11 - mmengine - INFO - Iter(test) [ 50/500]    loss: 0.2  time: 0.05", None),
    ],
)
def test_mmengine_validation_records_are_no_training_step(text: str, counter: tuple[int, int, int] | None) -> None:
    assert progress_counter(text) == counter


def test_a_bracketed_counter_is_quoted_whole() -> None:
    # wavebd_a's stalled rank: the legacy launcher's script prints "Epoch [2/4] Step [4/12] loss ..."
    assert short_of_total("Epoch [2/4] Step [4/12] loss 2.1362 lr 0.003000 (0.362s/step)") == "Epoch [2/4] Step [4/12]"
