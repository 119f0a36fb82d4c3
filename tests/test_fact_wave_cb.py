"""Wave CB (real multi-node torchrun/gloo runs of OLMo-core 3.0.0 and ms-swift 4.6.0): four general facts.

- A catch-all exception raised from (or while handling) an exception that is only a symptom is a symptom too
  (``factlayer.reason.raised_from``, ``diagnose._wrappers_of_symptoms``): OLMo-core's ``Trainer.is_canceled`` re-raises
  a gloo "Connection reset by peer" as ``RuntimeError("An error occurred")``, which hid the peer's SIGSEGV/SIGABRT.
- A loss check that puts the value before the word ("nan loss encountered at step 4", OLMo-core's
  ``_check_and_pass_on_metrics``) is a non-finite loss (``extract._NAN_LOSS``).
- torchelastic's agent losing the store in its exit barrier ("Error waiting on exit barrier", reached only once its
  local workers SUCCEEDED) is the job's teardown, not a collective after the loop (``shutdown_hang.agent_teardown``).
- A private exception class ("_DownloadDeadlineError", grpc's "_InactiveRpcError") is an exception the generic rule
  reads (``rules/python/python-worker-exception.yaml``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import _NAN_LOSS
from logsleuth.factlayer.reason import raised_from
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.engine import load_rules

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(("run", "signal"), [("rank2-segv", "SIGSEGV"), ("rank3-abort-step100", "SIGABRT")])
def test_a_generic_wrapper_of_a_lost_peer_does_not_hide_the_peers_crash(run: str, signal: str) -> None:
    d = analyze([str(LOGS / f"run-wavecb-x-{run}/job.log")], model=False)
    assert d.root_cause == "native_crash"
    assert signal in d.message
    assert any(h.root_cause == "worker_exception" for h in d.symptoms)  # kept, as a symptom


def test_the_wrapper_is_linked_to_the_exception_it_was_raised_from() -> None:
    ev = collect([str(LOGS / "run-wavecb-x-rank2-segv/job.log")], load_rules())
    links = raised_from(ev.facts)
    wrapper = next(f.event for f in ev.facts if getattr(f, "message", "") == "An error occurred")
    cause = links[id(wrapper)]
    assert "Connection reset by peer" in cause.text and cause.line < wrapper.line


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("RuntimeError: nan loss encountered at step 4", "nan"),
        ("Detected NaN loss at iteration 3", "NaN"),
        ("found inf loss at iteration 12", "inf"),
        ("nan loss check: on", None),  # a setting's name, not a value
        ("enable nan loss detection", None),
    ],
)
def test_a_loss_check_with_the_value_first(text: str, value: str | None) -> None:
    m = _NAN_LOSS.search(text)
    assert (m["v"] if m else None) == value


def test_olmo_cores_nan_loss_check_is_divergence() -> None:
    assert analyze([str(LOGS / "run-wavecb-x-lr-1e6/job.log")], model=False).root_cause == "training_divergence"


def test_a_store_lost_in_the_agents_exit_barrier_is_teardown() -> None:
    d = analyze([str(LOGS / "run-wavecb-x-healthy-eval/job.log")])
    assert d.root_cause == "no_failure"
    assert "exit barrier" in d.message


def test_without_the_exit_barrier_line_the_lost_store_stays_a_failure(tmp_path: Path) -> None:
    # the same real log with the agent's "Error waiting on exit barrier" report taken out (an edit): nothing says the
    # agent's workers had succeeded, so the lost store after the loop's finish is read as before
    src = (LOGS / "run-wavecb-x-healthy-eval/job.log").read_text(encoding="utf-8").splitlines()
    out = tmp_path / "job.log"
    out.write_text("\n".join(ln for ln in src if "api.py:1008]" not in ln) + "\n", encoding="utf-8")
    assert analyze([str(out)], model=False).root_cause != "no_failure"


def test_a_private_exception_class_is_an_exception() -> None:
    d = analyze([str(LOGS / "run-wavecb-y-dataset-path-typo/job.log")], model=False)
    assert d.root_cause == "worker_exception"
    assert d.first_failure is not None and d.first_failure.rank == 0
