"""NCCL WARN lines, CUDA error codes and Xids read from their sources (``factlayer.nccl_source``, ``cuda_tables``).

Lines marked "template" are NCCL's printf format strings from NVIDIA/nccl's ``src/`` with values filled in (the file
and tag are named beside them); the others are real lines from the public threads named beside them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.cuda_tables import CU_RESULTS, CUDA_ERROR_BY_NAME, CUDA_ERRORS, CUDA_FAMILIES, XID
from logsleuth.factlayer.kinds import CudaError, GpuHardware, NcclWarning
from logsleuth.factlayer.nccl_source import NCCL_RESULTS, NCCL_WARN_TEMPLATES, nccl_subsystem
from logsleuth.factlayer.reason import FactStream
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze
from logsleuth.taxonomy import ROOT_CAUSES

WARN_FILES = Path(__file__).parent / "data" / "nccl_warn_files.txt"


def facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def warn(line: str) -> NcclWarning:
    (w,) = [f for f in facts(line) if isinstance(f, NcclWarning)]
    return w


def test_every_nccl_file_that_warns_has_a_subsystem() -> None:
    files = [ln for ln in WARN_FILES.read_text().splitlines() if ln and not ln.startswith("#")]
    assert len(files) == 140
    assert [f for f in files if not nccl_subsystem(f)] == []


@pytest.mark.parametrize("file, subsystem", [
    ("transport/net_ib/connect.cc", "ib"), ("misc/mlx5dvwrap.cc", "ib"), ("include/cudawrap.h", "cuda"),
    ("os/linux_ipcsocket.cc", "socket"), ("include/p2p.h", "p2p"), ("ras/rasnet.cc", "ras"),
    ("/opt/build/nccl/src/transport/shm.cc", "shm"), ("group.cc", "core"), ("misc/argcheck.cc", "argcheck"),
])
def test_files_added_for_newer_and_older_nccl(file: str, subsystem: str) -> None:
    assert nccl_subsystem(file) == subsystem


def test_template_causes_are_taxonomy_ids() -> None:
    assert {t.cause for t in NCCL_WARN_TEMPLATES if t.cause} <= set(ROOT_CAUSES)
    assert all(t.source for t in NCCL_WARN_TEMPLATES)


@pytest.mark.parametrize("line, subsystem, cause, symptom", [
    # NVIDIA/nccl#626: ranks disagreeing on the collective (NCCL PR #605)
    ("dell-PowerEdge-T640:342239:342270 [0] transport/net_socket.cc:424 NCCL WARN NET/Socket : peer "
     "192.168.161.30<59210> message truncated : receiving 1048576 bytes instead of 65536",
     "socket", "collective_mismatch", False),
    # NVIDIA/nccl#969
    ("so-ucloud-10-10-23-10:1307367:1307586 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer "
     "10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536", "ib", "collective_mismatch",
     False),
    # NVIDIA/nccl#1176: bootstrap's own exchange, not the network
    ("compute-st-p4de24xlarge-1:34639:36718 [5] bootstrap.cc:77 NCCL WARN Message truncated : received 256 bytes "
     "instead of 4", "core", "", False),
    # NVIDIA/nccl#520: ranks computed different rings
    ("compute-dy-p4d24xlarge-5:3048:4991 [2] graph/rings.cc:38 NCCL WARN Error : ring 2 does not loop back to start "
     "(7 != 2)", "core", "", False),
    # NVIDIA/nccl#844: the peer closed the connection first
    ("696b7901f9044f23b786795c0ef7257b000000:39:298 [0] include/socket.h:423 NCCL WARN Net : Connection closed by "
     "remote peer 10.0.0.4<52638>", "socket", "peer_process_died", True),
    # NVIDIA/nccl-tests#166: /dev/shm too small
    ("ubuntu:9621:9691 [6] misc/shmutils.cc:71 NCCL WARN Error: failed to extend /dev/shm/nccl-fjwOOB to 5967876 "
     "bytes", "shm", "", False),
    # template, src/proxy.cc (2.12-2.16): "Proxy Call to rank %d failed (%s)"
    ("node-1:4242:4300 [0] proxy.cc:907 NCCL WARN Proxy Call to rank 0 failed (Connect)", "proxy",
     "peer_process_died", True),
    # template, include/checks.h CUDACHECK "Cuda failure '%s'" expanded in proxy.cc: CUDA's failure, not the proxy's
    ("node-1:4242:4300 [0] proxy.cc:1234 NCCL WARN Cuda failure 'an illegal memory access was encountered'", "cuda",
     "", False),
    # template, include/cudawrap.h CUCHECK "Cuda failure %d '%s'" expanded in transport/p2p.cc: the P2P import
    ("node-1:4242:4300 [0] transport/p2p.cc:275 NCCL WARN Cuda failure 1 'invalid argument'", "p2p", "", False),
    # template, src/init.cc (2.30): "Mismatched NCCL version detected : rank %d version %d rank %d version %d"
    ("node-1:4242:4242 [0] init.cc:1043 NCCL WARN Mismatched NCCL version detected : rank 0 version 21805 rank 8 "
     "version 21903", "core", "library_version_mismatch", False),
    # template, src/init.cc (2.28+)
    ("node-1:4242:4300 [1] init.cc:1057 NCCL WARN Multiple Ranks are using the same GPU/Partition. Set "
     "NCCL_MULTI_RANK_GPU_ENABLE=1 to enable this configuration.", "core", "duplicate_gpu", False),
    # template, src/transport/net_socket.cc: "NET/Socket : no interface found"
    ("node-1:4242:4242 [0] transport/net_socket.cc:61 NCCL WARN NET/Socket : no interface found", "socket",
     "nccl_network_config", False),
    # template, src/misc/ibvwrap.cc "Call to " name " failed with error %s errno %d" (ulimit -l too small)
    ("node-1:4242:4300 [0] misc/ibvwrap.cc:68 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate "
     "memory errno 12", "ib", "", False),
])
def test_warn_template_states_subsystem_and_cause(line: str, subsystem: str, cause: str, symptom: bool) -> None:
    w = warn(line)
    assert (w.subsystem, w.cause, w.symptom) == (subsystem, cause, symptom)


@pytest.mark.parametrize("text, expected", [
    # NVIDIA/nccl#969 (the INFO lines that follow it, as printed)
    ("so-ucloud-10-10-23-10:1307367:1307586 [0] transport/net_ib.cc:1038 NCCL WARN NET/IB : req 0/1 tag 0 peer "
     "10.10.23.6<58683> collective mismatch error, local size 496640 remote size 65536\n"
     "so-ucloud-10-10-23-10:1307367:1307586 [0] NCCL INFO include/net.h:32 -> 5\n"
     "so-ucloud-10-10-23-10:1307367:1307586 [0] NCCL INFO transport/net.cc:890 -> 5\n"
     "so-ucloud-10-10-23-10:1307367:1307586 [0] NCCL INFO proxy.cc:520 -> 5\n", "collective_mismatch"),
    # NVIDIA/nccl#520: neither the network nor a known cause
    ("compute-dy-p4d24xlarge-5:3048:4991 [2] graph/rings.cc:38 NCCL WARN Error : ring 2 does not loop back to start "
     "(7 != 2)\ncompute-dy-p4d24xlarge-5:3048:4991 [2] NCCL INFO graph/connect.cc:281 -> 3\n", None),
])
def test_warn_templates_decide_the_diagnosis(tmp_path: Path, text: str, expected: str | None) -> None:
    p = tmp_path / "nccl.log"
    p.write_text(text)
    got = analyze([str(p)]).root_cause
    if expected is None:
        assert got not in ("nccl_network_config", "ib_transport_error")
    else:
        assert got == expected


def test_a_proxy_call_failure_alone_is_a_symptom(tmp_path: Path) -> None:
    # template, src/proxy.cc (2.12-2.16); nothing before it says what failed
    p = tmp_path / "rank3.log"
    p.write_text("node-1:4242:4300 [0] proxy.cc:907 NCCL WARN Proxy Call to rank 0 failed (Connect)\n")
    d = analyze([str(p)])
    assert d.root_cause == "peer_process_died" and d.confidence < 0.9


def test_nccl_results_are_the_enum() -> None:
    # src/nccl.h.in (2.30): ncclSuccess 0 .. ncclTimeout 8
    assert {n: c for n, (c, _, _) in NCCL_RESULTS.items()} == {
        "ncclUnhandledCudaError": 1, "ncclSystemError": 2, "ncclInternalError": 3, "ncclInvalidArgument": 4,
        "ncclInvalidUsage": 5, "ncclRemoteError": 6, "ncclInProgress": 7, "ncclTimeout": 8,
    }


@pytest.mark.parametrize("entry", CUDA_ERRORS, ids=lambda e: e.name)
def test_every_cuda_error_is_read_from_its_runtime_string(entry) -> None:
    # template: torch's CUDA check (c10/cuda/CUDAException.cpp) prints "CUDA error: " + cudaGetErrorString(err)
    (c,) = [f for f in facts(f"RuntimeError: CUDA error: {entry.message}") if isinstance(f, CudaError)]
    assert (c.name, c.code, c.family) == (entry.name, entry.code, entry.family)
    assert entry.family in CUDA_FAMILIES


def test_cu_results_map_to_known_runtime_errors() -> None:
    assert set(CU_RESULTS.values()) <= set(CUDA_ERROR_BY_NAME)
    # tensorflow/tensorflow#30912
    (c,) = [f for f in facts("2019-07-21 23:23:06.228049: E tensorflow/stream_executor/cuda/cuda_driver.cc:828] "
                             "failed to allocate 32.00M (33554432 bytes) from device: CUDA_ERROR_OUT_OF_MEMORY: out of "
                             "memory") if isinstance(f, CudaError)]
    assert (c.name, c.family) == ("cudaErrorMemoryAllocation", "gpu_memory")


@pytest.mark.parametrize("line, cause", [
    ("RuntimeError: CUDA error: uncorrectable NVLink error detected during the execution", "gpu_hardware_fault"),
    ("RuntimeError: CUDA error: system has unsupported display driver / cuda driver combination",
     "library_version_mismatch"),
    ("RuntimeError: CUDA error: hardware stack error", "nccl_cuda_error"),
    ("RuntimeError: CUDA error: out of memory", "cuda_oom"),
])
def test_cuda_error_families_name_their_cause(tmp_path: Path, line: str, cause: str) -> None:
    # templates: "CUDA error: " + the runtime's string, as torch raises it
    p = tmp_path / "train.log"
    p.write_text("Traceback (most recent call last):\n  File \"train.py\", line 3, in <module>\n    loss.backward()\n"
                 f"{line}\n")
    assert analyze([str(p)]).root_cause == cause


def test_nccl_out_of_memory_stays_nccls_cuda_error(tmp_path: Path) -> None:
    # NVIDIA/nccl#844: NCCL's own allocation failing is reported as NCCL's CUDA error (pytorch/pytorch#152302 shows
    # it with free memory), not as the framework's OOM
    p = tmp_path / "rank0.log"
    p.write_text("696b7901f9044f23b786795c0ef7257b000000:39:298 [0] include/alloc.h:48 NCCL WARN Cuda failure "
                 "'out of memory'\n")
    assert analyze([str(p)]).root_cause == "nccl_cuda_error"


@pytest.mark.parametrize("line, xid, hardware", [
    # tinygrad/tinygrad#6947: an application's bad address
    ("[22859.081860] NVRM: Xid (PCI:0000:01:00): 31, pid=14292, name=python, Ch 00000030, intr 00000000. MMU Fault: "
     "ENGINE HOST0 HUBCLIENT_ESC faulted @ 0x10_00200000. Fault is of type FAULT_PDE ACCESS_TYPE_VIRT_READ", 31, False),
    # pytorch/pytorch#51382
    ("[Wed Jan 27 23:04:35 2021] NVRM: Xid (PCI:0000:3d:00): 43, pid=35521, Ch 00000008", 43, False),
    # stas00/ml-engineering compute/accelerator/nvidia/debug.md
    ("NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: New row marked for remapping, reset gpu to activate.",
     63, True),
    # https://modal.com/docs/guide/gpu-health
    ("NVRM: Xid (PCI:0000:c6:00): 79, pid=1101234, name=nvc:[driver], GPU has fallen off the bus.", 79, True),
])
def test_xid_catalog_separates_application_from_hardware(line: str, xid: int, hardware: bool) -> None:
    (g,) = [f for f in facts(line) if isinstance(f, GpuHardware)]
    assert (g.xid, g.hardware) == (xid, hardware)


def test_application_xids_are_never_hardware() -> None:
    # NVIDIA's Xid catalog: 13, 31, 43 follow the application; 45 is clean-up after another error
    assert not any(XID[x][1] for x in (8, 13, 31, 43, 45, 68, 69, 109))
    assert all(XID[x][1] for x in (48, 63, 64, 74, 79, 92, 94, 95, 119, 120, 140, 154))


def test_driver_library_mismatch_is_a_version_problem_not_hardware(tmp_path: Path) -> None:
    # NVIDIA/nvidia-docker#1451 (the container failed to start; nvidia-smi on the host said the same)
    p = tmp_path / "job.log"
    p.write_text(
        "docker: Error response from daemon: OCI runtime create failed: container_linux.go:349: starting container "
        'process caused "process_linux.go:449: container init caused \\"process_linux.go:432: running prestart hook 1 '
        'caused \\\\\\"error running hook: exit status 1, stdout: , stderr: nvidia-container-cli: initialization '
        'error: nvml error: driver/library version mismatch\\\\\\\\n\\\\\\"\\"": unknown.\n'
        "ERRO[0000] error waiting for container: context canceled\n"
        "Failed to initialize NVML: Driver/library version mismatch\n"
    )
    d = analyze([str(p)])
    assert d.root_cause == "library_version_mismatch"
    (g, *_) = [f for f in facts("Failed to initialize NVML: Driver/library version mismatch") if isinstance(f, GpuHardware)]
    assert (g.what, g.hardware) == ("driver_mismatch", False)


def test_torch_last_error_block_is_read_as_the_nccl_warning(tmp_path: Path) -> None:
    # hkproj/pytorch-transformer-distributed#1 (solved with NCCL_SOCKET_IFNAME): torch's "Last error:" copy of NCCL's
    # last WARN message, without its file:line prefix, on the line after
    lines = [
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1333, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.18.6",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. ",
        "Last error:",
        "socketStartConnect: Connect to 192.168.19.14<52822> failed : No route to host",
    ]
    (w,) = [f for f in facts_in_stream("\n".join(lines)) if isinstance(f, NcclWarning)]
    assert (w.file, w.subsystem, w.result) == ("", "socket", "ncclSystemError")
    p = tmp_path / "rank1.log"
    p.write_text("\n".join(lines) + "\n")
    assert analyze([str(p)]).root_cause == "nccl_network_config"


def test_last_error_names_ib_where_the_text_alone_was_read_as_shared_memory(tmp_path: Path) -> None:
    # template: torch's "Last error:" block (torch/csrc/distributed/c10d/NCCLUtils.cpp) around misc/ibvwrap.cc's
    # "Call to " name " failed with error %s" (a small ulimit -l: NVIDIA/nccl-tests#206)
    p = tmp_path / "rank0.log"
    p.write_text(
        "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:1970, "
        "unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.20.5\n"
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or device error. \n"
        "Last error:\n"
        "Call to ibv_reg_mr failed with error Cannot allocate memory\n"
    )
    assert analyze([str(p)]).root_cause == "ib_transport_error"


def test_a_net_plugin_warn_with_a_function_name_is_read_by_its_message() -> None:
    # NVIDIA/nccl#563 (aws-ofi-nccl prints function:line)
    w = warn("ip-10-0-87-143:149:298 [5] register_mr_buffers:465 NCCL WARN NET/OFI Unable to register memory "
             "(type = 1) for device 0. RC: 12, Error: Cannot allocate memory")
    assert (w.file, w.subsystem) == ("register_mr_buffers", "ib")


def facts_in_stream(text: str) -> list:
    stream = FactStream()
    return [f for ev in parse_text(text) for f in stream.facts(ev, {})]
