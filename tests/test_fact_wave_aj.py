"""Wave AJ (``heldout39``), measured blind (35/48 failures, 1/12 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import CudaError, ExceptionFact, GpuHardware
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def _answer(rel: str) -> tuple[str, str | None]:
    d = analyze([str(CORPUS / rel)], model=False)
    return d.root_cause, d.rule_id


def test_nvidia_smi_saying_a_gpu_is_lost_is_a_hardware_fact() -> None:
    # JosephKJ/OWOD#81
    line = "Unable to determine the device handle for GPU 0000:02:00.0: GPU is lost. Reboot the system to recover this GPU"
    assert [f.what for f in _facts(line) if isinstance(f, GpuHardware)] == ["nvidia_smi_error"]
    assert _answer("gh-JosephKJ-OWOD-81/nvidia_smi.log")[0] == "gpu_hardware_fault"


def test_rocms_legacy_error_number_is_read_as_the_runtime_error() -> None:
    # ROCm/tensorflow-upstream#82: TensorFlow's ROCm stream executor prints hipError_t as its number
    line = ("2019-01-08 19:06:11.303639: E tensorflow/stream_executor/rocm/rocm_driver.cc:601] failed to allocate 7.35G "
            "(7889485824 bytes) from device: hipError_t(1002)")
    assert [f.name for f in _facts(line) if isinstance(f, CudaError)] == ["cudaErrorMemoryAllocation"]
    assert not [f for f in _facts("hipError_t(9999) from device") if isinstance(f, CudaError)]
    assert _answer("gh-ROCm-tensorflow-upstream-82/tf_test.log")[0] == "cuda_oom"
    # ROCmSoftwarePlatform/tensorflow#30: MIOpen's buffer allocation
    assert _answer("gh-ROCmSoftwarePlatform-tensorflow-30/keras_train.log") == ("cuda_oom", "framework-gpu-allocator-oom")


def test_a_tensorflow_checkpoint_write_resource_exhausted_is_a_full_disk() -> None:
    # mozilla/DeepSpeech#374: TensorFlow maps ENOSPC to RESOURCE_EXHAUSTED
    (e,) = [f for f in _facts((CORPUS / "gh-mozilla-DeepSpeech-374" / "train.log").read_text())
            if isinstance(f, ExceptionFact)]
    assert e.family == "disk_full"
    # GPU memory words in the same status code are not a disk
    line = "ResourceExhaustedError: OOM when allocating tensor with shape[64,512,512] and type float on /job:localhost"
    assert all(f.family != "disk_full" for f in _facts(line) if isinstance(f, ExceptionFact))


def test_rays_version_check_against_the_cluster_is_the_environment() -> None:
    # a real run here (corpus/generators/waveaj_b): a driver from another venv with Ray 2.58 joins a 2.60 cluster
    assert _answer("run-waveaj-b-raytrain-fastspeech-project-venv/job.log") == (
        "library_version_mismatch",
        "exception-environment",
    )


def test_a_caught_exception_the_loop_went_on_from_is_not_the_failure() -> None:
    # a real run here (corpus/generators/waveaj_a): matplotlib missing, traceback.print_exc(), training to the end
    assert _answer("run-waveaj-a-torchrun-har-healthy-confusion-plot/job.log") == (
        "no_failure",
        "went-on-after-exception",
    )


def test_an_uncaught_exception_stays_the_failure_while_another_job_trains_on() -> None:
    # real runs (waves N and T): a sweep's second job fails on the first one's port, the first trains to the end;
    # mp.spawn's parent re-raises its child's error from the script's <module> frame
    for rel in ("run-waven-b-mpspawn-gru-mt-lr-sweep-shared-port/job.log",
                "run-wavet-b-mpspawn-pointnet-sweep-two-runs-one-port/job.log"):
        assert _answer(rel)[0] == "port_in_use"


def test_the_log_stopping_at_torchs_extension_root_line_is_a_hang() -> None:
    # OpenRLHF/OpenRLHF#208: every rank waits on a stale build lock
    assert _answer("gh-OpenRLHF-OpenRLHF-208/slurm_sft_multinode.log") == (
        "silent_hang",
        "extension-build-lock-wait-at-end",
    )
