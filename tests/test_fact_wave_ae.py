"""Wave AE (``heldout34``), measured blind (32/37 failures, 0/9 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, NumericHealth
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(text: str, kind: type) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, kind)]


@pytest.mark.parametrize(
    ("line", "what"),
    [
        # YOLOv3's per-head losses (YunYang1994/TensorFlow2.0-Examples#8): two spaces before the value
        ("=> STEP  750   lr: 0.000600   giou_loss:  nan   conf_loss: 10.89   prob_loss: 0.06   total_loss:  nan",
         "nan_loss"),
        ("epoch 3 total_loss=inf", "inf_loss"),
        ("step 10 loss_scale: nan", None),  # fp16's scaler, not a loss
        ("loss_cls: 0.31 loss_box_reg: 0.12", None),
    ],
)
def test_any_named_loss_that_went_non_finite(line: str, what: str | None) -> None:
    got = [f.what for f in _facts(line + "\n", NumericHealth)]
    assert got == ([what] if what else [])


def test_a_diverged_run_whose_losses_have_names() -> None:
    log = CORPUS / "gh-YunYang1994-TensorFlow2.0-Examples-8/train.log"
    assert analyze([str(log)], model=False).root_cause == "training_divergence"


@pytest.mark.parametrize(
    ("line", "family"),
    [
        # TensorFlow 1.x's op error as Session.run prints it (Kyubyong/transformer#116): host RAM on a CPU device
        ("ResourceExhaustedError (see above for traceback): OOM when allocating tensor with shape[1024,98,98] and "
         "type float on /job:localhost/replica:0/task:0/device:CPU:0 by allocator cpu", "host_memory"),
        ("InvalidArgumentError (see above for traceback): You must feed a value for placeholder tensor 'x'", ""),
    ],
)
def test_tensorflow_1_session_errors_are_exceptions(line: str, family: str) -> None:
    (fact,) = _facts(line + "\n", ExceptionFact)
    assert fact.type.endswith("Error") and fact.family == family


def test_tensorflow_allocator_oom_on_a_cpu_device_is_host_memory() -> None:
    log = CORPUS / "gh-Kyubyong-transformer-116/train_cpu.log"
    assert analyze([str(log)], model=False).root_cause == "host_oom_killed"
