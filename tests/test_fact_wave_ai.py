"""Wave AI (``heldout38``), measured blind (43/54 failures, 2/16 healthy flagged): the facts added for its misses."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import NativeFrame, NumericHealth, ProcessExit, RanksOnOneDevice
from logsleuth.factlayer.reason import FactStream
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def _stream(text: str) -> list:
    fs = FactStream()
    return [f for ev in parse_text(text) for f in fs.facts(ev, {})]


@pytest.mark.parametrize(
    ("line", "signal", "library"),
    [
        # tensorflow/tensorflow#45744: TF 2.4.0's wheel built with AVX2 on a CPU without it
        ("traps: python[434569] trap invalid opcode ip:7fb785029c48 sp:7ffd15a859a0 error:0 in "
         "libtensorflow_framework.so.2[7fb7842a2000+1c55000]", "SIGILL", "libtensorflow_framework.so.2"),
        # made here (this sandbox's kernel, dmesg): ctypes.string_at(0), then ud2, div by 0 and hlt run from an
        # executable mmap
        ("[ 1624.960811] python3[25259]: segfault at 0 ip 00007fd84b385ad8 sp 00007fff2f0512c8 error 4 in "
         "libc.so.6[167ad8,7fd84b244000+156000] likely on CPU 1 (core 1, socket 0)", "SIGSEGV", "libc.so.6"),
        ("[ 1629.375113] traps: python3[25317] trap invalid opcode ip:7fb6dc561000 sp:7ffc3b05e158 error:0 in "
         "dev/zero[0,7fb6dc561000+1000]", "SIGILL", None),
        ("[ 1629.460835] traps: python3[25358] trap divide error ip:7f41351f0009 sp:7ffc6363df38 error:0 in "
         "dev/zero[9,7f41351f0000+1000]", "SIGFPE", None),
        ("[ 1629.544943] traps: python3[25399] general protection fault ip:7fdceefc8000 sp:7ffd45973e78 error:0 in "
         "dev/zero[0,7fdceefc8000+1000]", "SIGSEGV", None),
    ],
)
def test_the_kernels_fault_report_is_a_process_ended_by_its_signal(line: str, signal: str, library: str | None) -> None:
    facts = _facts(line)
    (e,) = [f for f in facts if isinstance(f, ProcessExit)]
    assert (e.reporter, e.signal) == ("kernel", signal)
    assert e.proc == int(re.search(r"python3?\[(\d+)\]", line)[1])
    assert [f.library for f in facts if isinstance(f, NativeFrame)] == ([library] if library else [])


def test_a_kernel_fault_report_alone_is_a_native_crash(tmp_path) -> None:
    d = analyze([str(CORPUS / "gh-tensorflow-tensorflow-45744" / "dmesg.log")], model=False)
    assert d.root_cause == "native_crash" and "libtensorflow_framework" in d.message


def test_words_near_the_kernels_state_nothing() -> None:
    # "trap" and "segfault" in prose or option names (values chosen)
    for text in ("INFO: set a trap for SIGTERM in the wrapper", "segfault_handler installed", "WARN: retry trap 3"):
        assert not [f for f in _facts(text) if isinstance(f, ProcessExit)]


# open-mmlab/mmdetection#8940: mmdetection's MPI launcher did not set LOCAL_RANK; three ranks' errors
_MIXED = [
    "RuntimeError: Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cuda:{}! "
    "(when checking argument for argument weight in method wrapper__cudnn_convolution)".format(i)
    for i in (1, 2, 3)
]


def test_ranks_that_all_touch_one_device_share_it() -> None:
    (f,) = [f for f in _stream("\n".join(_MIXED)) if isinstance(f, RanksOnOneDevice)]
    assert (f.device, f.others) == ("cuda:0", "cuda:1, cuda:2")  # stated once, on the second line
    d = analyze([str(CORPUS / "gh-open-mmlab-mmdetection-8940" / "mpirun_yolox.log")], model=False)
    assert d.root_cause == "duplicate_gpu"


def test_one_process_mixing_devices_states_nothing() -> None:
    assert not [f for f in _stream(_MIXED[0]) if isinstance(f, RanksOnOneDevice)]
    assert not [f for f in _stream(_MIXED[0] + "\n" + _MIXED[0]) if isinstance(f, RanksOnOneDevice)]


def test_an_infinite_perplexity_is_a_non_finite_loss() -> None:
    # OpenNMT/OpenNMT-tf#744
    line = ("INFO:tensorflow:Evaluation result for step 435000: loss = 148890.718750 ; perplexity = inf")
    assert [f.what for f in _facts(line) if isinstance(f, NumericHealth)] == ["inf_loss"]
    assert not [f for f in _facts("INFO: perplexity = 12.31 ; loss = 2.51") if isinstance(f, NumericHealth)]


def test_open_mpi_dialling_the_docker_bridge_is_the_wrong_interface(tmp_path) -> None:
    log = CORPUS / "gh-horovod-horovod-310" / "mpirun_docker.log"
    d = analyze([str(log)], model=False)
    assert d.root_cause == "nccl_network_config"
    # its second line alone: Open MPI's connect() to the docker0 bridge address
    one = tmp_path / "one.log"
    one.write_text(log.read_text().splitlines()[1] + "\n")
    d = analyze([str(one)], model=False)
    assert (d.root_cause, d.rule_id) == ("nccl_network_config", "connect-to-non-routable-address")
    assert "172.17.0.1" in d.message


def test_open_mpi_meeting_a_peer_at_an_unpublished_address_is_the_wrong_interface() -> None:
    # horovod/horovod#209: btl_base_verbose's "Match incoming connection ... failed", the job then hung
    d = analyze([str(CORPUS / "gh-horovod-horovod-209" / "btl-tcp.log")], model=False)
    assert (d.root_cause, d.rule_id) == ("nccl_network_config", "openmpi-tcp-peer-address-mismatch")


_FASTSOCKET = CORPUS / "gh-google-nccl-fastsocket-4" / "fastsocket_2node.log"


def test_nccl_warns_a_process_carried_on_from_are_not_a_failure(tmp_path) -> None:
    # google/nccl-fastsocket#4: the plugin WARNs, then the same processes print "Connected after 1000 retries."
    assert analyze([str(_FASTSOCKET)], model=False).verdict == "no_failure"
    # the same log cut after its WARNs: nothing shows the processes went on, so the WARNs stay unexplained
    cut = tmp_path / "cut.log"
    cut.write_text("".join(_FASTSOCKET.read_text().splitlines(keepends=True)[:5]))
    assert analyze([str(cut)], model=False).root_cause == "unknown"


def test_a_warn_followed_by_its_return_code_trace_is_a_failed_call() -> None:
    from logsleuth.nccl_carried_on import NcclWarnsCarriedOn

    # NVIDIA/nccl-tests#252 (node-b's WARN and its NCCLCHECK trace), then INFO lines of the same process
    text = (
        "node-b:25146:25854 [0] ib_plugin.c:1105 NCCL WARN NET/IB : Got completion from peer 10.0.9.1<49189> with "
        "error 4, opcode 5327, len 5327, vendor err 81 (Send)\n"
        "node-b:25146:25854 [0] NCCL INFO transport/net.cc:1137 -> 6\n"
        "node-b:25146:25854 [0] NCCL INFO proxy.cc:698 -> 6\n"
        "node-b:25146:25854 [0] NCCL INFO proxy.cc:878 -> 6 [Progress Thread]\n"
    )
    track = NcclWarnsCarriedOn()
    events = list(parse_text(text))
    track.warned(events[0])
    for ev in events[1:]:
        track.see(ev)
    assert track.carried_on() == frozenset()


def test_a_log_ending_on_xformers_wanting_the_cuda_build_of_the_installed_release_is_not_a_failure() -> None:
    # baichuan-inc/Baichuan2#248: "built for PyTorch 2.1.0+cu121 ... (you have 2.1.0+cpu)", harmless per the team
    d = analyze([str(CORPUS / "gh-baichuan-inc-Baichuan2-248" / "chat.log")], model=False)
    assert d.verdict == "no_failure"
    # unslothai/unsloth#8580: built for 2.10.0, 2.11.0 installed - another release, the extension cannot load
    d = analyze([str(CORPUS / "gh-unslothai-unsloth-8580" / "studio.log")], model=False)
    assert d.root_cause == "library_version_mismatch"
