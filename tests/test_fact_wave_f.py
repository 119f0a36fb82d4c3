"""Facts and rules added after wave F (heldout8) was measured blind: each reads how a program prints a fact in
general (glibc/Go strerror, the NVIDIA kernel driver's status codes, the CUDACHECK macro of NCCL's examples), never a
fixture's path. Lines are copied from the public threads named beside them (the corpus keeps those logs too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import CudaError, GpuHardware
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze


def _facts(text: str, kind: type) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, kind)]


def _diagnose(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


# --- ENOSPC as Go prints it (lower case), not only glibc's "No space left on device" ---------------------------------
def test_go_style_enospc_is_disk_full(tmp_path: Path) -> None:
    # ray-project/ray#19064: a Go tool on a Ray release-test node failing to write its result file
    line = "write /tmp/ray_tmp_mount/cluster-1/tmp/release_test_out.json: no space left on device\n"
    assert _diagnose(tmp_path, line) == "disk_full"


def test_shm_enospc_in_lower_case_is_not_disk_full(tmp_path: Path) -> None:
    line = "write /dev/shm/nccl-Xy12: no space left on device\n"
    assert _diagnose(tmp_path, line) != "disk_full"


# --- NVIDIA driver statuses that need a GPU reset --------------------------------------------------------------------
SICHEK_51 = (
    "Test CUDA failure common.cu:1007\n"
    "'CUDA-capable device(s) is/are busy or unavailable'\n"
    "[Sun Jan 11 09:52:01 2026] NVRM: rpcRmApiAlloc_GSP: GspRmAlloc failed: hClient=0xc1d1a616; hParent=0x5c000054; "
    "hObject=0x5c00005b; hClass=0x0000c86f; paramsSize=0x00000170; paramsStatus=0x00000062; status=0x00000062 \n"
    "[Sun Jan 11 09:52:01 2026] NVRM: nvAssertOkFailedNoLog: Assertion failed: Reset required [NV_ERR_RESET_REQUIRED] "
    "(0x00000062) returned from status @ kernel_channel.c:2874 \n"
)


def test_rm_reset_required_is_a_hardware_fact_and_cause(tmp_path: Path) -> None:
    # scitix/sichek#51: one GPU fails every NCCL test until it is reset
    (f,) = _facts(SICHEK_51, GpuHardware)
    assert f.what == "rm_status" and f.hardware and f.meaning.startswith("NV_ERR_RESET_REQUIRED")
    assert _diagnose(tmp_path, SICHEK_51) == "gpu_hardware_fault"


@pytest.mark.parametrize(
    "line",
    [
        # a caller's error status (bad argument / no memory) is not the GPU's fault
        "NVRM: nvAssertOkFailedNoLog: Assertion failed: Invalid argument [NV_ERR_INVALID_ARGUMENT] (0x0000001F) "
        "returned from status @ mem.c:100",
        # the status name outside an NVRM line
        "we handle NV_ERR_RESET_REQUIRED [NV_ERR_RESET_REQUIRED] in our own tool",
    ],
)
def test_other_rm_statuses_are_no_hardware_fact(line: str) -> None:
    assert _facts(line, GpuHardware) == []


# --- CUDACHECK of NCCL's examples, as vLLM's custom all-reduce prints it ---------------------------------------------
VLLM_56193 = (
    "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:164 'invalid argument'\n"
    "(EngineCore) ERROR Worker proc VllmWorker-0 died unexpectedly (exit code: None)\n"
)


def test_cudacheck_failure_is_a_cuda_error_fact_and_nccl_cuda_error(tmp_path: Path) -> None:
    # vllm-project/vllm#56193: cudaIpcGetMemHandle rejects expandable-segment buffers in custom all-reduce
    (f,) = _facts(VLLM_56193, CudaError)
    assert f.name == "cudaErrorInvalidValue" and f.code == 1 and not f.hardware
    assert _diagnose(tmp_path, VLLM_56193) == "nccl_cuda_error"


# --- CUDA p2pBandwidthLatencyTest: P2P slower than a host copy -------------------------------------------------------
# stas00/ml-engineering#1 (three RTX A6000: P2P writes at a fifth of the host-copy speed; disabling IOMMU fixed NCCL)
ML_ENGINEERING_1 = """\
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1      2
     0 673.20  13.15  13.15
     1  12.99 673.20  22.20
     2  13.00  21.98 673.78
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1      2
     0 673.49   2.60   1.58
     1   2.12 672.33   1.70
     2   2.12   1.60 673.78
"""
# a public gist of two RTX 4090s that cannot access each other: the sample falls back to a host copy, equally fast
TWO_4090 = """\
Device=0 CANNOT Access Peer Device=1
Device=1 CANNOT Access Peer Device=0
Unidirectional P2P=Disabled Bandwidth Matrix (GB/s)
   D\\D     0      1
     0 913.74  11.97
     1  12.14 924.01
Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)
   D\\D     0      1
     0 915.35  12.00
     1  12.15 924.56
"""


def test_p2p_slower_than_host_copy_is_nccl_p2p_failure(tmp_path: Path) -> None:
    from logsleuth.factlayer.kinds import P2PSlowerThanCopy
    from logsleuth.factlayer.reason import FactStream

    stream = FactStream()
    found = [f for ev in parse_text(ML_ENGINEERING_1) for f in stream.facts(ev, {}) if isinstance(f, P2PSlowerThanCopy)]
    (f,) = found  # once per matrix, at the first slow pair
    assert (f.matrix, f.src, f.dst, f.enabled_gbps, f.disabled_gbps) == ("unidirectional", 0, 1, 2.6, 13.15)
    assert _diagnose(tmp_path, ML_ENGINEERING_1) == "nccl_p2p_failure"


def test_p2p_unavailable_pair_at_host_copy_speed_is_healthy(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, TWO_4090) == "no_failure"


def test_p2p_enabled_matrix_alone_or_latency_rows_say_nothing(tmp_path: Path) -> None:
    # nothing to compare with: the P2P-disabled matrix missing; latency matrices are not bandwidths
    enabled_only = ML_ENGINEERING_1.split("Unidirectional P2P=Enabled")[1]
    assert _diagnose(tmp_path, "Unidirectional P2P=Enabled" + enabled_only) == "no_failure"
    latency = ML_ENGINEERING_1.replace(
        "Unidirectional P2P=Enabled Bandwidth (P2P Writes) Matrix (GB/s)",
        "P2P=Enabled Latency (P2P Writes) Matrix (us)",
    )
    assert _diagnose(tmp_path, latency) == "no_failure"


# --- Ray: an actor died and the driver got no death cause ------------------------------------------------------------
# ray-project/ray#33157 (a release test's driver; the maintainer found nodes low on memory with workers killed)
RAY_33157 = """\
Traceback (most recent call last):
  File "distributed/test_scheduling.py", line 53, in <lambda>
    lambda: ray.get([actor.do_job.remote() for actor in actors])
  File "/home/user/anaconda3/lib/python3.7/site-packages/ray/_private/worker.py", line 2386, in get
    raise value
ray.exceptions.RayActorError: The actor died unexpectedly before finishing this task.

"""


def test_actor_death_without_cause_is_the_unexplained_kill_default(tmp_path: Path) -> None:
    d = analyze([str(_write(tmp_path, RAY_33157))], model=False)
    assert (d.root_cause, d.rule_id) == ("host_oom_killed", "ray-actor-died-cause-unknown")


def test_actor_death_with_a_context_is_left_to_that_context(tmp_path: Path) -> None:
    # Ray 2.x prints the death context under the message; here a native crash (a run here: fresh-ray-actor-abort)
    text = RAY_33157.replace(
        "this task.\n",
        "this task.\n\tclass_name: Learner\n\tactor_id: 882c565b7508e608bd4fa02901000000\n"
        "(Learner pid=7481) *** SIGABRT received at time=1795565675 on cpu 1 ***\n",
    )
    d = analyze([str(_write(tmp_path, text))], model=False)
    assert d.rule_id != "ray-actor-died-cause-unknown"


def _write(tmp_path: Path, text: str) -> Path:
    log = tmp_path / "job.log"
    log.write_text(text)
    return log
