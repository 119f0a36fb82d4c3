"""Facts added after wave J (heldout12) was measured blind: each reads how a library, launcher or scheduler prints a
fact in general, never a fixture's path. The logs are the corpus's (public threads named in corpus/manifest.d/
wave-j-*.csv, and real runs of corpus/generators/wavej/generate.py); short lines are copied from them."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.extract import api_mismatch, in_rendezvous
from logsleuth.factlayer.kinds import ExceptionFact, NcclWarning, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, collect, decide
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _exceptions(text: str) -> list[ExceptionFact]:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ExceptionFact)]


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("gh-NVIDIA-NeMo-RL-3793", "cuda_oom"),  # RayTaskError(OutOfMemoryError) raised by the task's own code
        ("gh-NVIDIA-nccl-905", "ib_transport_error"),  # a NCCL WARN quoted without its prefix
        ("gh-ROCm-Megatron-LM-83", "library_version_mismatch"),  # a private callee's signature
        ("gh-deepspeedai-DeepSpeed-1077", "library_version_mismatch"),  # plain ``Exception:`` with the CUDA mismatch
        ("gh-kubeflow-pytorch-operator-125", "rendezvous_timeout"),  # raised inside torch's rendezvous handler
        ("gh-mila-iqia-milabench-183", "library_version_mismatch"),  # NCCL topology search: reverse path
        ("gh-ray-project-ray-14535", "shm_exhausted"),  # object store larger than /dev/shm
        ("gh-verl-project-verl-3358", "ray_scheduling_stall"),  # "16.0" GPUs: a float count
        ("gh-wyf3-llm_related-13", "batch_size_mismatch"),  # TRL's check, cut mid-line
        ("run-wavej-accelerate-deepspeed-hf-train-batch-size", "batch_size_mismatch"),  # message on the next lines
        ("run-wavej-lightning-sklearn-numpy-abi-mismatch", "library_version_mismatch"),  # numpy ABI
        ("run-wavej-slurm-compile-scratch-full", "disk_full"),  # ld's ENOSPC at the end of CppCompileError's output
        ("run-wavej-pytorchjob-c10d-healthy", "no_failure"),  # lost store after every worker succeeded
    ],
)
def test_wave_j_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_ray_task_error_wrapping_out_of_memory_is_cuda_unless_ray_reports_the_node() -> None:
    (gpu,) = _exceptions(
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::DTensorPolicyWorkerV2.get_logprobs() (pid=2671339, "
        "ip=10.0.0.1, actor_id=d5836b60449efbd220b3c2f406000000, repr=DTensorPolicyWorkerV2[rank=0])\n"
    )
    assert gpu.family == "cuda_oom"
    # Ray's memory monitor names the node's memory in its own report (node_manager.cc CreateOomKillMessageDetails)
    (host,) = _exceptions(
        "ray.exceptions.RayTaskError(OutOfMemoryError): ray::f() Task was killed due to the node running low on "
        "memory.\n"
    )
    assert host.family == "host_memory"


def test_prefixless_nccl_warn_is_a_warning_of_its_subsystem() -> None:
    (w,) = [f for ev in parse_text("NCCL WARN NET/IB : Got async event : port error\n") for f in facts_of(ev)
            if isinstance(f, NcclWarning)]
    assert (w.file, w.subsystem) == ("", "ib")


def test_signature_mismatch_is_a_version_pair_only_from_installed_code_or_a_private_callee() -> None:
    msg = "EngineArgs.__init__() got an unexpected keyword argument 'worker_extension_cls'"
    assert api_mismatch("TypeError", msg, "/usr/lib/python3/dist-packages/vllm/entrypoints/llm.py:212 in __init__",
                        False)
    assert not api_mismatch("TypeError", msg, "/home/user/train.py:88 in main", True)  # the user's own call
    assert not api_mismatch("ValueError", msg, "/usr/lib/python3/dist-packages/vllm/llm.py:212 in __init__", False)
    (private,) = _exceptions("TypeError: _write_item() missing 1 required positional argument: 'serialization_format'\n")
    assert private.family == "api_mismatch"
    (public,) = _exceptions("TypeError: forward() missing 1 required positional argument: 'x'\n")
    assert public.family == ""


def test_rendezvous_frame_is_the_store_unless_the_port_was_taken() -> None:
    inner = "/usr/lib/python3.10/site-packages/torch/distributed/rendezvous.py:189 in _create_c10d_store"
    assert in_rendezvous(inner, "host not found: Name or service not known")
    assert not in_rendezvous(inner, "The server socket has failed to listen on any local network address. port: "
                                    "29500, useIpv6: false, code: -98, name: EADDRINUSE, message: address already in use")
    assert not in_rendezvous("/home/user/train.py:12 in main", "host not found: Name or service not known")


def test_bare_exception_line_is_an_exception() -> None:
    (e,) = _exceptions("Exception: Installed CUDA version 11.0 does not match the version torch was compiled with 10.1, "
                       "unable to compile cuda/cpp extensions without a matching cuda version.\n")
    assert (e.type, e.family) == ("Exception", "environment")
    assert not _exceptions("Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7f30c6ca0830>\n")


def test_teardown_after_success_needs_every_exit_clean() -> None:
    rules = load_rules()
    ev = collect([str(CORPUS / "run-wavej-pytorchjob-c10d-healthy")], rules)
    assert decide(ev, rules).verdict == "no_failure"
    # the same log with one worker's non-zero exit: the lost store may be a failure again
    some = next(f for f in ev.facts)
    failed = ProcessExit(event=some.event, code=1, reporter="torchrun")
    worse = dataclasses.replace(ev, facts=(*ev.facts, failed))
    assert decide(worse, rules).root_cause == "peer_process_died"
