"""Facts added after wave P (heldout18) was measured blind (27/34 failures, 1/10 healthy flagged): THC's CUDA check
(Lua Torch, PyTorch <= 1.x), NCCL <= 2.3's lines without the word "NCCL", a torch.distributions argument check that
printed NaN values, and a failure Ray retried after which the job went on. Logs: real runs of corpus/generators/
wavep_a/ and wavep_b/ and thread excerpts (corpus/manifest.d/wave-p-*.csv)."""

from __future__ import annotations

import dataclasses
import traceback
from pathlib import Path

import pytest

from logsleuth.factlayer import extract
from logsleuth.factlayer.kinds import CudaError, NcclWarning, NumericHealth
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # cutorch "THCudaCheck FAIL file=.../init.c line=261 error=2 : out of memory" (XingangPan/SCNN#19)
        ("gh-XingangPan-SCNN-19/train.log", "cuda_oom"),
        # PPO's advantage normalised over a one-sample minibatch: "Expected parameter logits ... found invalid
        # values:\ntensor([[nan, nan], ..."
        ("run-wavep-b-mpspawn-ppo-cartpole-minibatch-remainder-of-one/job.log", "training_divergence"),
    ],
)
def test_wave_p_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


@pytest.mark.parametrize(
    ("log", "name"),
    [
        ("gh-XingangPan-SCNN-19/train.log", "cudaErrorMemoryAllocation"),
        # "RuntimeError: cuda runtime error (35) : CUDA driver version is insufficient for CUDA runtime version at
        # /pytorch/aten/src/THC/THCGeneral.cpp:74"
        ("gh-microsoft-human-pose-estimation.pytorch-23/train.log", "cudaErrorInsufficientDriver"),
        # "RuntimeError: cuda runtime error (39) : uncorrectable ECC error encountered at ..."
        ("gh-NVIDIA-semantic-segmentation-33/train-8gpu.log", "cudaErrorECCUncorrectable"),
    ],
)
def test_thc_checks_are_cuda_errors(log: str, name: str) -> None:
    text = (CORPUS / log).read_text(encoding="utf-8", errors="replace")
    facts = [f for ev in parse_text(text) for f in extract.facts_of(ev)]
    assert name in {f.name for f in facts if isinstance(f, CudaError)}


def test_nccl_2_3_lines_without_the_word_nccl() -> None:
    # horovod/horovod#666 (NCCL 2.3.5): "host:pid:tid [dev] file:line WARN ..." and "[dev] INFO file:line -> 2"
    lines = (CORPUS / "gh-horovod-horovod-666/mpirun.log").read_text(encoding="utf-8").splitlines()
    events = parse_text("\n".join(lines[:3]) + "\n")
    assert [e.source for e in events] == ["nccl"] * 3
    warn = [f for f in extract.facts_of(events[0]) if isinstance(f, NcclWarning)]
    assert [(w.file, w.subsystem, w.trace) for w in warn] == [("include/socket.h", "socket", False)]
    trace = [f for f in extract.facts_of(events[1]) if isinstance(f, NcclWarning)]
    assert [(t.file, t.result, t.trace) for t in trace] == [("transport/net_socket.cu", "ncclSystemError", True)]


def _validation_error(**kwargs: object) -> str:
    """The traceback of torch.distributions' own ValueError for ``Categorical(**kwargs)`` (raised here, not written
    by hand)."""
    torch = pytest.importorskip("torch")
    try:
        torch.distributions.Categorical(**kwargs, validate_args=True)
    except ValueError:
        return traceback.format_exc()
    raise AssertionError("torch.distributions accepted the values")


def test_distribution_check_with_nan_values_is_numeric_health() -> None:
    torch = pytest.importorskip("torch")
    text = _validation_error(logits=torch.tensor([[float("nan"), 0.0]]))
    facts = [f for ev in parse_text(text) for f in extract.facts_of(ev)]
    assert [f.what for f in facts if isinstance(f, NumericHealth)] == ["nan_output"]
    # out-of-range probabilities are the caller's own bug, not a divergence
    text = _validation_error(probs=torch.tensor([[-0.5, 1.5]]))
    assert not [f for ev in parse_text(text) for f in extract.facts_of(ev) if isinstance(f, NumericHealth)]


def test_a_failure_ray_retried_is_healthy_when_the_job_went_on() -> None:
    # a rollout actor's process exited hard at iteration 6; Ray restarted it, retried the task, and the run finished
    d = analyze([str(CORPUS / "run-wavep-b-rayactors-ppo-cartpole-worker-restart-healthy/job.log")])
    assert (d.root_cause, d.rule_id) == ("no_failure", "retried-after-failure")
    assert any(m.root_cause == "host_oom_killed" for m in d.symptoms)  # the death stays listed


@pytest.mark.parametrize(
    "log",
    [
        # Ray retried, and the work failed again afterwards: the retry did not save the job
        "run-wavei-rayjob-data-featurize-memory-monitor/job.log",
        "run-wavek-b-rayserve-activation-cache-memory-monitor/job.log",
        "gen-ray-ppo-reward-task/job.log",
    ],
)
def test_a_retry_that_did_not_save_the_job_stays_a_failure(log: str) -> None:
    d = analyze([str(CORPUS / log)], model=False)
    assert d.verdict == "failure" and d.rule_id != "retried-after-failure"


def test_the_model_names_a_version_pair_only_where_the_log_states_versions() -> None:
    """vllm-project/vllm#7896, one line ("NCCL error: unhandled cuda error ... [repeated 6x across cluster]", a faulty
    GPU host): after wave P's LlamaFactory#1169 (the same error under NCCL 2.18.5, a known-bad release) the model
    learnt to read that wording as a version pair. With no version in the log, its vote is listed, not taken."""
    from logsleuth import combine as comb
    from logsleuth.classify import model

    rules = load_rules()
    d = analyze([str(CORPUS / "gh-vllm-project-vllm-7896/ray_tp_serve.log")], rules=rules, model=False)
    assert d.root_cause == "nccl_cuda_error" and not d.versions
    sure = model.Vote("library_version_mismatch", 0.97, (("library_version_mismatch", 0.97),), 0.5)
    out = comb.combine(d, lambda: sure, rules)
    assert out.root_cause == "nccl_cuda_error"
    assert any(h.root_cause == "library_version_mismatch" and h.method == "model" for h in out.hypotheses)
    # where the rules abstained, the same vote may decide once the log printed a version (torch's NCCL error names it:
    # LlamaFactory#1169), and stays listed without one (a symptom-only answer like this one's now stands either way)
    dv = analyze([str(CORPUS / "gh-hiyouga-LlamaFactory-1169/sft_wsl_two_gpus.log")], rules=rules, model=False)
    assert dv.versions.get("nccl") == "2.18.5"
    abstained = dataclasses.replace(d, verdict="unknown", root_cause="unknown", confidence=0.4)
    assert comb.combine(abstained, lambda: sure, rules).root_cause == "unknown"
    versioned = dataclasses.replace(abstained, versions=dv.versions)
    assert comb.combine(versioned, lambda: sure, rules).root_cause == "library_version_mismatch"
