"""Exception families read from libraries' own message templates (the strings in the sources named in
``factlayer/tables.py``), filled in the way those sources format them; not logs. Real logs for the same facts are
in the corpus (waves up to J)."""

from __future__ import annotations

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.parse import parse_text


def _family(line: str) -> str:
    (e,) = [f for ev in parse_text(line + "\n") for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    return e.family


@pytest.mark.parametrize(
    ("line", "family"),
    [
        # aten/src/ATen/mps/MPSAllocator.mm, c10/xpu/XPUCachingAllocator.cpp
        ("RuntimeError: MPS backend out of memory (MPS allocated: 17.00 GB, other allocations: 1.00 GB, max allowed: "
         "18.13 GB). Tried to allocate 256.00 MB on private pool.", "cuda_oom"),
        ("torch.OutOfMemoryError: XPU out of memory. Tried to allocate 2.00 GiB.", "cuda_oom"),
        # torch/cuda/__init__.py _lazy_init / _check_driver; torch/backends/cudnn/__init__.py
        ("AssertionError: Torch not compiled with CUDA enabled", "environment"),
        ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU and installed "
         "a driver from http://www.nvidia.com/Download/index.aspx", "environment"),
        ("RuntimeError: cuDNN version incompatibility: PyTorch was compiled  against (8, 9, 2) but found runtime "
         "version (8, 5, 0).", "environment"),
        # flash-attention csrc/flash_attn/flash_api.cpp
        ("RuntimeError: FlashAttention only supports Ampere GPUs or newer.", "environment"),
        # numpy 1.24 release notes: the expired aliases
        ("AttributeError: module 'numpy' has no attribute 'float'", "api_mismatch"),
        ("AttributeError: module 'mymodel' has no attribute 'build_encoder'", ""),
        # accelerate/commands/config/config_args.py BaseConfig.from_yaml_file (wave AZ's real run)
        ("ValueError: The config file at accelerate_config.yaml had unknown keys (['ipex_config']), please try "
         "upgrading your `accelerate` version or fix (and potentially remove) these keys from your config file.",
         "environment"),
        ("ValueError: The `Result` class should be imported from `ray.tune`. Please update your imports.", ""),
        # keras/src/callbacks/model_checkpoint.py and keras/src/saving/saving_api.py (Keras 3 under Keras 2 code)
        ("ValueError: When using `save_weights_only=True` in `ModelCheckpoint`, the filepath provided must end in "
         "`.weights.h5` (Keras weights format). Received: filepath=best_model.h5", "api_mismatch"),
        ("ValueError: Invalid filepath extension for saving. Please add either a `.keras` extension for the native "
         "Keras format (recommended) or a `.h5` extension. Use `model.export(filepath)` if you want to export a "
         "SavedModel for use with TFLite/TFServing/etc. Received: filepath=export/footfall_model", "api_mismatch"),
        # tensorflow/core/common_runtime/collective_param_resolver_local.cc
        ("tensorflow.python.framework.errors_impl.InvalidArgumentError: Collective ops is aborted by: Shape mismatch in "
         "the collective instance 103. Op at device /job:worker/replica:0/task:0/device:CPU:0 expected shape [17,64] "
         "but another member in the group expected shape [16,64].", "collective_mismatch"),
        # CPython's argument check on a private callee
        ("TypeError: _write_item() missing 1 required positional argument: 'serialization_format'", "api_mismatch"),
    ],
)
def test_library_message_families(line: str, family: str) -> None:
    assert _family(line) == family


def test_hip_error_uses_the_cuda_error_table() -> None:
    # c10/hip/HIPException.h prints hipGetErrorString's text, which is CUDA's for the same error
    facts = [f for ev in parse_text("RuntimeError: HIP error: invalid device function\n") for f in facts_of(ev)]
    assert any(type(f).__name__ == "CudaError" and f.family for f in facts)


def test_unraisable_exception_is_reported_not_raised() -> None:
    # the tail of deepspeedai/DeepSpeed#1077 (corpus gh-deepspeedai-DeepSpeed-1077): CPython's unraisable hook
    text = (
        "Exception ignored in: <function DeepSpeedCPUAdam.__del__ at 0x7f30c6ca0830>\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/local/lib/python3.7/dist-packages/deepspeed/ops/adam/cpu_adam.py", line 91, in __del__\n'
        "    self.ds_opt_adam.destroy_adam(self.opt_id)\n"
        "AttributeError: 'DeepSpeedCPUAdam' object has no attribute 'ds_opt_adam'\n"
    )
    (tb,) = [ev for ev in parse_text(text) if ev.source == "python"]
    assert tb.level == "warning" and tb.params["unraisable"]
    assert tb.text.startswith("Exception ignored in")


@pytest.mark.parametrize(
    "line",
    [
        # python/ray/_private/services.py determine_plasma_store_config
        "2024-05-01 10:00:00,000\tWARNING services.py:1889 -- WARNING: The object store is using /tmp instead of "
        "/dev/shm because /dev/shm has only 67108864 bytes available. This will harm performance!",
        # NCCL net plugin lookup without a plugin installed (src/net.cc ncclNetPluginLoad)
        "node-1:1234:1234 [0] NCCL WARN NET/Plugin: Failed to find ncclNetPlugin_v8 symbol.",
    ],
)
def test_advisories_healthy_jobs_print(line: str) -> None:
    from logsleuth.factlayer.tables import is_advisory

    assert is_advisory(line)


@pytest.mark.parametrize(("line", "signal"), [
    ("trainer-1 exited with code 137", "SIGKILL"),  # Docker Compose's container report
    ("Exited with exit code 139", "SIGSEGV"),
])
def test_exit_code_of_a_signal_in_a_wrapper_report(line: str, signal: str) -> None:
    from logsleuth.factlayer.kinds import ProcessExit

    (e,) = [f for ev in parse_text(line + "\n") for f in facts_of(ev) if isinstance(f, ProcessExit)]
    assert e.signal == signal
