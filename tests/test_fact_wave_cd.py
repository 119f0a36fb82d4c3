"""Wave CD (real multi-node torchrun/gloo runs of Flair 0.15.1 and RecBole 1.2.1): two general facts from its two
blind misses, both RecBole runs where one node's workers raised before ``init_process_group`` and the other node's
ranks then timed out on the store.

- A store or rendezvous wait that times out after torchelastic reported a worker's failure ("Root Cause (first observed
  failure)") is not the chained cause of an exception printed before it: the rest of the job was waiting for the
  process that raised (``diagnose._chained_specific``'s ``died_at``). A wait printed inside the same exception's own
  message, with no failure reported before it (XGBoost's tracker, wave AM), still is.
- An API an installed package removed is a version mismatch wherever the package was installed from: NumPy 2's
  "`np.float_` was removed in the NumPy 2.0 release" raised from a NumPy on PYTHONPATH ("/tmp/.../numpy/__init__.py",
  not site-packages) (``extract._installed_code``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import _installed_code, api_mismatch
from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("run", "cause", "exception"),
    [
        ("run-wavecd-y-auc-metric-node-b", "worker_exception", "NotImplementedError"),
        ("run-wavecd-y-numpy2-node-b", "library_version_mismatch", "AttributeError"),
    ],
)
def test_the_store_timeout_after_a_reported_failure_is_the_job_waiting_for_it(
    run: str, cause: str, exception: str
) -> None:
    d = analyze([str(LOGS / run / "job.log")], model=False)
    assert d.root_cause == cause
    assert d.exception is not None and str(d.exception["type"]).endswith(exception)
    # the other node's store timeouts are kept, below the answer, not dropped
    assert any(h.root_cause == "rendezvous_timeout" for h in d.hypotheses[1:])


def test_a_wait_inside_the_exceptions_own_message_is_still_its_cause() -> None:
    d = analyze([str(LOGS / "run-waveam-b-mpirun-rank-returning-node" / "job.log")], model=False)
    assert d.root_cause == "rendezvous_timeout"


@pytest.mark.parametrize(
    ("innermost", "installed"),
    [
        ("/tmp/cd-y-pydeps/numpy/__init__.py:778 in __getattr__", True),
        ("/usr/lib/python3/dist-packages/numpy/__init__.py:778 in __getattr__", True),
        ("vllm/entrypoints/llm.py:177 in __init__", True),
        ("/tmp/wavecd-y-job/run/train_rec.py:134 in main", False),
        ("/home/me/numpy-experiments/train.py:12 in main", False),
    ],
)
def test_installed_code_is_read_from_the_package_directory(innermost: str, installed: bool) -> None:
    assert _installed_code(innermost, user=not installed) is installed


def test_numpy_2_removal_is_an_api_mismatch_only_from_numpys_own_code() -> None:
    msg = "`np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead."
    assert api_mismatch("AttributeError", msg, "/opt/deps/numpy/__init__.py:778 in __getattr__", user=True)
    # the same words raised by a user's own script are that script's business
    assert not api_mismatch("AttributeError", msg, "/workspace/train.py:40 in main", user=True)
