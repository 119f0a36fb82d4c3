"""Wave BC (``heldout58``: real HF Trainer runs under torchrun, Keras 3 on the torch backend, Ray Train on a two-node
Ray cluster), measured blind before any change for it: what was changed for its misses.

A traceback is an exception fact whatever its words (a raised ``DeprecationWarning`` held none of the prefilter's);
an installed package raising a deprecation refuses an API an earlier release accepted, and so do HfArgumentParser and
Keras refusing an argument a release removed (``tables.MOVED_KEYWORDS``); a rank's own handler reporting
SIGHUP is the terminal closing; Ray Train's ``WorkerGroupError`` relays its workers' errors; "Training completed"
after every error line stands for progress lines HF Trainer does not print; and a log that ends mid-run keeps its
``no_failure`` but says so, with low confidence."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.ended_mid_run import CONFIDENCE, short_of_total
from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, SignalFact
from logsleuth.parse import parse
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # 6 blank claim notes logged at ERROR and dropped; Trainer then said "Training completed" (wavebc_a)
        ("run-wavebc-a-claims-healthy-blank-notes/job.log", "no_failure"),
        # SIGHUP to the process group: each rank's handler "received SIGHUP, stopping" (wavebc_b)
        ("run-wavebc-b-kr-milk-terminal-closed/job.log", "terminal_hangup"),
        # Ray Train v2 refusing ``TorchTrainer(resume_from_checkpoint=...)`` by raising a DeprecationWarning (wavebc_c)
        ("run-wavebc-c-skl-delay-v1-resume-api/job.log", "library_version_mismatch"),
        # a flag transformers 5 removed, refused by HfArgumentParser (wavebc_a); Keras 2's optimizer ``lr``, refused
        # by Keras 3 (wavebc_b)
        ("run-wavebc-a-claims-old-launch-flags/job.log", "library_version_mismatch"),
        ("run-wavebc-b-kr-milk-keras2-config/job.log", "library_version_mismatch"),
        # every process of the worker node killed: the head's worker got "Connection reset by peer", the driver's
        # WorkerGroupError relays it (wavebc_c)
        ("run-wavebc-c-skl-delay-worker-node-lost/job.log", "peer_process_died"),
    ],
)
def test_wave_bc_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(path: str, first: int, last: int) -> list[object]:
    """The facts of the events of the real log ``path`` that start within lines ``first``..``last``."""
    lines = (CORPUS / path).read_text().splitlines()
    return [f for ev in parse(enumerate(lines, 1), path) if first <= ev.line <= last for f in facts_of(ev)]


def test_a_raised_deprecation_from_an_installed_package_is_an_api_mismatch() -> None:
    (fact,) = _facts("run-wavebc-c-skl-delay-v1-resume-api/job.log", 30, 40)
    assert isinstance(fact, ExceptionFact)
    assert fact.type == "DeprecationWarning" and fact.family == "api_mismatch"


def test_a_deprecation_the_users_own_code_raises_is_not() -> None:
    # the same traceback cut after the user's frame: the user's own code raised it
    lines = (CORPUS / "run-wavebc-c-skl-delay-v1-resume-api/job.log").read_text().splitlines()[29:40]
    text = [*lines[:5], lines[-1]]
    (ev,) = list(parse(enumerate(text, 1), "job.log"))
    (fact,) = [f for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    assert fact.family != "api_mismatch"


def test_a_ranks_own_sighup_report_is_the_terminal_closing() -> None:
    facts = _facts("run-wavebc-b-kr-milk-terminal-closed/job.log", 19, 20)
    assert [(f.signal, f.sender) for f in facts if isinstance(f, SignalFact)] == [("SIGHUP", "terminal")] * 2


@pytest.mark.parametrize(
    ("text", "short"),
    [
        ("[rank0] 16:39:47 Epoch 2/8 step 20/34 - loss: 254.6970", "Epoch 2/8 step 20/34"),
        ("[wtg-train-01 rank0] 13:50:26 epoch 2 step 40/60 loss 0.0172", "step 40/60"),
        ("Epoch [1][200/62598]\tlr: 1.000e-03, loss: 1.9091", "Epoch [1][200/62598]"),
        # the last step of the last epoch, counted from 0 or from 1: finished
        ("Epoch 8/8 step 34/34 - loss: 12.1", None),
        ("epoch 7/8 step 34/34 loss 12.1", None),
        # mid-run, but no total stated
        ("epoch 2 step 40 loss 0.0172", None),
    ],
)
def test_short_of_total(text: str, short: str | None) -> None:
    assert short_of_total(text) == short


def test_a_log_that_stops_mid_run_stays_no_failure_with_low_confidence() -> None:
    # rank 1 SIGSTOPped with a 30-min process-group timeout: the output stops at "Epoch 2/8 step 20/34" (wavebc_b)
    diag = analyze([str(CORPUS / "run-wavebc-b-kr-milk-stopped-quiet/job.log")], model=False)
    assert diag.root_cause == "no_failure" and diag.confidence == CONFIDENCE
    assert "stops mid-run" in diag.message and "Epoch 2/8 step 20/34" in diag.message


def test_a_finished_run_keeps_its_confidence() -> None:
    diag = analyze([str(CORPUS / "run-wavebc-b-kr-milk-healthy/job.log")], model=False)
    assert diag.root_cause == "no_failure" and diag.confidence > CONFIDENCE


def test_the_model_names_a_gpu_cause_only_where_the_log_names_a_gpu() -> None:
    """A job of CPU processes cannot put two ranks on one GPU: a vote for ``duplicate_gpu`` where the rules abstained
    is listed, not taken, unless a line read or a version printed names a GPU (``combine.NEEDS_GPU``)."""
    import dataclasses

    from logsleuth import combine as comb
    from logsleuth.classify import model
    from logsleuth.rules import load_rules

    rules = load_rules()
    sure = model.Vote("duplicate_gpu", 0.97, (("duplicate_gpu", 0.97),), 0.5)
    # a Keras-on-torch run over gloo with a Keras input-shape ValueError (wavebc_b): nothing names a GPU
    cpu = analyze([str(CORPUS / "run-wavebc-b-kr-milk-new-sensor/job.log")], rules=rules, model=False)
    abstained = dataclasses.replace(cpu, verdict="unknown", root_cause="unknown", confidence=0.4)
    out = comb.combine(abstained, lambda: sure, rules)
    assert out.root_cause == "unknown"
    assert any(h.root_cause == "duplicate_gpu" and h.method == "model" for h in out.hypotheses)
    # the same vote on a log whose lines name the GPUs (HRNet/HRNet-Semantic-Segmentation#171) decides
    gpu = analyze([str(CORPUS / "gh-HRNet-HRNet-Semantic-Segmentation-171/train.log")], rules=rules, model=False)
    shown = dataclasses.replace(gpu, verdict="unknown", root_cause="unknown", confidence=0.4)
    assert comb.combine(shown, lambda: sure, rules).root_cause == "duplicate_gpu"
