"""CUDA runtime/driver error codes and NVIDIA Xid numbers, and what each says about a failed job.

Sources:
- ``cudaError_t``: CUDA Runtime API, "enum cudaError" (https://docs.nvidia.com/cuda/cuda-runtime-api/
  group__CUDART__TYPES.html, ``driver_types.h``, CUDA 12.x): name and code. The message is the string
  ``cudaGetErrorString`` returns, which torch prints after "CUDA error: " and NCCL inside "Cuda failure '...'"
  (the same strings as ``cuGetErrorString`` for the driver's ``CUresult`` where both exist).
- ``CUresult``: CUDA Driver API, "enum cudaError_enum" (``cuda.h``), printed by name by Triton ("Triton Error
  [CUDA]: ..."), CuPy (``CUDADriverError: CUDA_ERROR_...``), JAX/XLA and NCCL's ``CUCHECK`` callers.
- Xid: NVIDIA's Xid catalog (https://docs.nvidia.com/deploy/xid-errors/analyzing-xid-catalog.html: 13, 31, 43 and
  45 are the application's or a consequence of another error, the rest of those below point at the GPU, its
  memory, NVLink, the bus or its firmware), with the cloud health checks built on it for 32/46/119/120/140/143
  (https://docs.crusoecloud.com/command-center/instance-health,
  https://docs.nvidia.com/health-validation/reference/checks/xid.md).
"""

from __future__ import annotations

from typing import NamedTuple


class CudaErrorEntry(NamedTuple):
    """One ``cudaError_t`` value (``CUDA_ERRORS``)."""

    message: str  # what cudaGetErrorString returns
    name: str
    code: int
    family: str  # what the error says about the failure; see ``CUDA_FAMILIES``

    @property
    def hardware(self) -> bool:
        """The error itself says the device or its link failed (ECC, NVLink)."""
        return self.family == "hardware"


# family -> what it means for the job. ``version`` and ``gpu_memory`` and ``hardware`` name a root cause by
# themselves (rules ``cuda-error-version``, ``cuda-error-gpu-memory``, ``cuda-hardware-fault``); ``kernel_fault`` is a
# kernel that faulted (the context is dead; rule ``cuda-error-kernel-fault``); the others need a second fact.
CUDA_FAMILIES: dict[str, str] = {
    "hardware": "the GPU, its memory or its NVLink failed",
    "gpu_memory": "GPU memory ran out",
    "version": "the driver, the CUDA runtime and the compiled kernels do not fit together",
    "kernel_fault": "a kernel faulted on the device (bad address, assert, bad instruction); the context is dead",
    "launch_failure": "a kernel raised an exception; a failing GPU when it recurs on one device",
    "device_unavailable": "no usable GPU: none visible, busy (exclusive mode, a dead GPU), or a bad ordinal",
    "p2p": "GPU peer access is not possible between these devices",
    "usage": "the API was called with a bad argument or in a bad state",
    "unknown": "the driver gave no reason",
    "system_not_ready": "the GPU system is not ready for CUDA work: a driver daemon it needs (NVSwitch Fabric Manager) is not running",
}

# Ordered so that a message that contains another's (``unspecified launch failure in prior launch``) comes first.
CUDA_ERRORS: tuple[CudaErrorEntry, ...] = (
    CudaErrorEntry("uncorrectable ECC error encountered", "cudaErrorECCUncorrectable", 214, "hardware"),
    CudaErrorEntry(
        "uncorrectable NVLink error detected during the execution", "cudaErrorNvlinkUncorrectable", 220, "hardware"
    ),
    CudaErrorEntry("out of memory", "cudaErrorMemoryAllocation", 2, "gpu_memory"),
    CudaErrorEntry(
        "CUDA driver version is insufficient for CUDA runtime version", "cudaErrorInsufficientDriver", 35, "version"
    ),
    CudaErrorEntry(
        "API call is not supported in the installed CUDA driver", "cudaErrorCallRequiresNewerDriver", 36, "version"
    ),
    CudaErrorEntry("CUDA driver is a stub library", "cudaErrorStubLibrary", 34, "version"),
    CudaErrorEntry(
        "system has unsupported display driver / cuda driver combination",
        "cudaErrorSystemDriverMismatch",
        803,
        "version",
    ),
    # 802: "the system is not yet ready to start any CUDA work ... verify the system configuration is in a valid state
    # and all required driver daemons are actively running" (Runtime API); on NVSwitch systems (HGX, DGX) the Fabric
    # Manager not running (NVIDIA/nccl-tests#264: "Test CUDA failure common.cu:941 'system not yet initialized'")
    CudaErrorEntry("system not yet initialized", "cudaErrorSystemNotReady", 802, "system_not_ready"),
    CudaErrorEntry(
        "forward compatibility was attempted on non supported HW",
        "cudaErrorCompatNotSupportedOnDevice",
        804,
        "version",
    ),
    CudaErrorEntry(
        "no kernel image is available for execution on the device", "cudaErrorNoKernelImageForDevice", 209, "version"
    ),
    CudaErrorEntry(
        "the provided PTX was compiled with an unsupported toolchain", "cudaErrorUnsupportedPtxVersion", 222, "version"
    ),
    # a library whose fat binary has no code for this GPU's architecture looks its kernels up and misses them: CUDA 11+
    # says "named symbol not found" (NCCL 2.14.3+cuda11.8 on an sm_120 GPU, pytorch/pytorch#152077), older CUDA
    # "invalid device function"; a cubin for another architecture is "device kernel image is invalid"
    CudaErrorEntry("named symbol not found", "cudaErrorSymbolNotFound", 500, "version"),
    CudaErrorEntry("invalid device function", "cudaErrorInvalidDeviceFunction", 98, "version"),
    CudaErrorEntry("device kernel image is invalid", "cudaErrorInvalidKernelImage", 200, "version"),
    CudaErrorEntry(
        "all CUDA-capable devices are busy or unavailable", "cudaErrorDevicesUnavailable", 46, "device_unavailable"
    ),
    CudaErrorEntry(
        "CUDA-capable device(s) is/are busy or unavailable", "cudaErrorDevicesUnavailable", 46, "device_unavailable"
    ),  # CUDA >= 10
    CudaErrorEntry("no CUDA-capable device is detected", "cudaErrorNoDevice", 100, "device_unavailable"),
    CudaErrorEntry("invalid device ordinal", "cudaErrorInvalidDevice", 101, "device_unavailable"),
    CudaErrorEntry(
        "exclusive-thread device already in use by a different thread",
        "cudaErrorDeviceAlreadyInUse",
        216,
        "device_unavailable",
    ),
    CudaErrorEntry(
        "peer access is not supported between these two devices", "cudaErrorPeerAccessUnsupported", 217, "p2p"
    ),
    CudaErrorEntry("peer mapping resources exhausted", "cudaErrorTooManyPeers", 711, "p2p"),
    CudaErrorEntry("an illegal memory access was encountered", "cudaErrorIllegalAddress", 700, "kernel_fault"),
    CudaErrorEntry("the launch timed out and was terminated", "cudaErrorLaunchTimeout", 702, "kernel_fault"),
    CudaErrorEntry("device-side assert triggered", "cudaErrorAssert", 710, "kernel_fault"),
    CudaErrorEntry("hardware stack error", "cudaErrorHardwareStackError", 714, "kernel_fault"),
    CudaErrorEntry("an illegal instruction was encountered", "cudaErrorIllegalInstruction", 715, "kernel_fault"),
    CudaErrorEntry("misaligned address", "cudaErrorMisalignedAddress", 716, "kernel_fault"),
    CudaErrorEntry(
        "operation not supported on global/shared address space", "cudaErrorInvalidAddressSpace", 717, "kernel_fault"
    ),
    CudaErrorEntry("invalid program counter", "cudaErrorInvalidPc", 718, "kernel_fault"),
    CudaErrorEntry("unspecified launch failure", "cudaErrorLaunchFailure", 719, "launch_failure"),
    CudaErrorEntry("too many resources requested for launch", "cudaErrorLaunchOutOfResources", 701, "usage"),
    CudaErrorEntry("initialization error", "cudaErrorInitializationError", 3, "device_unavailable"),
    CudaErrorEntry("context is destroyed", "cudaErrorContextIsDestroyed", 709, "usage"),
    CudaErrorEntry("invalid resource handle", "cudaErrorInvalidResourceHandle", 400, "usage"),
    CudaErrorEntry("invalid argument", "cudaErrorInvalidValue", 1, "usage"),
    CudaErrorEntry("unknown error", "cudaErrorUnknown", 999, "unknown"),
)
CUDA_ERROR_BY_NAME: dict[str, CudaErrorEntry] = {e.name: e for e in CUDA_ERRORS}

# ``CUresult`` name -> the runtime's name for the same error (Driver API ``cuda.h``; the runtime maps each to its
# ``cudaError_t``, e.g. CUDA_ERROR_OUT_OF_MEMORY (2) -> cudaErrorMemoryAllocation). Only errors with a family above.
CU_RESULTS: dict[str, str] = {
    "CUDA_ERROR_ECC_UNCORRECTABLE": "cudaErrorECCUncorrectable",
    "CUDA_ERROR_NVLINK_UNCORRECTABLE": "cudaErrorNvlinkUncorrectable",
    "CUDA_ERROR_OUT_OF_MEMORY": "cudaErrorMemoryAllocation",
    "CUDA_ERROR_SYSTEM_NOT_READY": "cudaErrorSystemNotReady",
    "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH": "cudaErrorSystemDriverMismatch",
    "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE": "cudaErrorCompatNotSupportedOnDevice",
    "CUDA_ERROR_STUB_LIBRARY": "cudaErrorStubLibrary",
    "CUDA_ERROR_NO_BINARY_FOR_GPU": "cudaErrorNoKernelImageForDevice",
    "CUDA_ERROR_NOT_FOUND": "cudaErrorSymbolNotFound",
    "CUDA_ERROR_INVALID_IMAGE": "cudaErrorInvalidKernelImage",
    "CUDA_ERROR_UNSUPPORTED_PTX_VERSION": "cudaErrorUnsupportedPtxVersion",
    "CUDA_ERROR_NO_DEVICE": "cudaErrorNoDevice",
    "CUDA_ERROR_INVALID_DEVICE": "cudaErrorInvalidDevice",
    "CUDA_ERROR_DEVICE_UNAVAILABLE": "cudaErrorDevicesUnavailable",
    "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED": "cudaErrorPeerAccessUnsupported",
    "CUDA_ERROR_ILLEGAL_ADDRESS": "cudaErrorIllegalAddress",
    "CUDA_ERROR_LAUNCH_TIMEOUT": "cudaErrorLaunchTimeout",
    "CUDA_ERROR_ASSERT": "cudaErrorAssert",
    "CUDA_ERROR_HARDWARE_STACK_ERROR": "cudaErrorHardwareStackError",
    "CUDA_ERROR_ILLEGAL_INSTRUCTION": "cudaErrorIllegalInstruction",
    "CUDA_ERROR_MISALIGNED_ADDRESS": "cudaErrorMisalignedAddress",
    "CUDA_ERROR_INVALID_ADDRESS_SPACE": "cudaErrorInvalidAddressSpace",
    "CUDA_ERROR_INVALID_PC": "cudaErrorInvalidPc",
    "CUDA_ERROR_LAUNCH_FAILED": "cudaErrorLaunchFailure",
    "CUDA_ERROR_UNKNOWN": "cudaErrorUnknown",
}

# Xid -> (meaning, the device/link failed).
XID: dict[int, tuple[str, bool]] = {
    8: ("GPU stopped processing (channel idle timeout; the catalog says restart the application)", False),
    13: ("Graphics Engine Exception (often an application out-of-bounds access)", False),
    31: ("GPU memory page fault (often an application illegal address)", False),
    32: ("Invalid or corrupted push buffer stream", True),
    43: ("GPU stopped processing (application fault, channel reset)", False),
    45: ("Preemptive cleanup, due to previous errors", False),
    46: ("GPU stopped processing (drain and reset the GPU)", True),
    48: ("Double Bit ECC Error", True),
    61: ("Internal micro-controller breakpoint/warning", True),
    62: ("Internal micro-controller halt", True),
    63: ("ECC page retirement or row remapping recording event", True),
    64: ("ECC page retirement or row remapper recording failure", True),
    68: ("NVDEC0 Exception (video decoder; application or driver)", False),
    69: ("Graphics Engine class error (application)", False),
    74: ("NVLink Error", True),
    79: ("GPU has fallen off the bus", True),
    92: ("High single-bit ECC error rate", True),
    94: ("Contained ECC error", True),
    95: ("Uncontained ECC error", True),
    109: ("Context Switch Timeout Error (often follows an application fault)", False),
    119: ("GSP RPC Timeout", True),
    120: ("GSP Error", True),
    123: ("SPI PMU RPC write failure", True),
    140: ("Unrecovered ECC error", True),
    143: ("GPU initialization failure", True),
    144: ("NVLink SAW error", True),
    145: ("NVLink RLW error", True),
    146: ("NVLink TLW error", True),
    147: ("NVLink TREX error", True),
    148: ("NVLink NVLPW error", True),
    149: ("NVLink NETIR error", True),
    150: ("NVLink MSE error", True),
    154: ("GPU recovery action changed (the driver asks for a GPU reset, node reboot or drain)", True),
}

# ROCm's legacy ``hipError_t`` numbers (HIP before 3.x, ``include/hip/hip_runtime_api.h``: "hipErrorMemoryAllocation =
# 1002", "hipErrorInitializationError = 1003", "hipErrorLaunchFailure = 1004"), which TensorFlow's ROCm stream executor
# prints as the number alone ("failed to allocate 7.35G (7889485824 bytes) from device: hipError_t(1002)",
# ``tensorflow/stream_executor/rocm/rocm_driver.cc``; ROCm/tensorflow-upstream#82) -> the runtime's name for it.
HIP_LEGACY_ERRORS: dict[int, str] = {
    1002: "cudaErrorMemoryAllocation",
    1003: "cudaErrorInitializationError",
    1004: "cudaErrorLaunchFailure",
}
