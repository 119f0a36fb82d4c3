"""A model quantity checked for NaN/Inf is read by the check's grammar, whatever library words it
(``extract._NAN_OUTPUT``): "<output|tensor|weights|logits...> contains|has|had NaN/Inf", "NaN ... detected|found in
<output|weights...>", JAX's "invalid value (nan) encountered in". A label or feature column holding NaN is the data's
fault, and numpy's "invalid value encountered in" RuntimeWarning is harmless: neither is divergence."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import _NAN_OUTPUT
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_ignites_terminate_on_nan_is_divergence() -> None:
    # a real Ignite run (corpus/generators/wavean_b): TerminateOnNan stops training and the job exits 0
    log = CORPUS / "run-wavean-b-spawn-poi-popularity-correction" / "job.log"
    assert analyze([str(log)], model=False).root_cause == "training_divergence"


@pytest.mark.parametrize(
    ("message", "nonfinite"),
    [
        # message templates from the sources the regex's comment names
        ("TerminateOnNan: Output 'nan' contains NaN or Inf. Stop training", True),  # ignite/handlers/terminate_on_nan.py
        ("CheckNumerics : Tensor had NaN values", True),  # tensorflow/core/kernels/check_numerics_op.cc
        ("FloatingPointError: invalid value (nan) encountered in jit(train_step)", True),  # jax/_src/dispatch.py
        ("RuntimeError: Encountered `nan` values in tensor", True),  # torchmetrics/aggregation.py
        # not a diverged model
        ("Check failed: valid: Label contains NaN, infinity or a value too large.", False),  # xgboost src/data/data.cc
        ("RuntimeWarning: invalid value encountered in divide", False),  # numpy
        ("[LightGBM] [Warning] No further splits with positive gain, best gain: -inf", False),
    ],
)
def test_nonfinite_check_grammar(message: str, nonfinite: bool) -> None:
    assert bool(_NAN_OUTPUT.search(message)) is nonfinite


def test_torchmetrics_refusing_a_nan_loss_is_divergence() -> None:
    # a real TorchMetrics run (corpus/generators/waveby_x) at a huge learning rate: MeanMetric's default
    # nan_strategy="error" raises on the loss it averages
    log = CORPUS / "run-waveby-x-huge-lr" / "job.log"
    assert analyze([str(log)], model=False).root_cause == "training_divergence"
