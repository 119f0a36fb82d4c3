"""The fact layer: typed facts read from parsed lines, sourced tables, fact conditions in rules, new root causes."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from logsleuth import load_rules, render
from logsleuth.factlayer import facts_of, validate_condition
from logsleuth.factlayer.kinds import ExceptionFact, GpuHardware, NcclWarning, NumericHealth, ProcessExit
from logsleuth.factlayer.tables import nccl_subsystem, signal_of_exit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.loader import load_file
from logsleuth.rules.validate import validate
from logsleuth.taxonomy import ROOT_CAUSES


def facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


@pytest.mark.parametrize("line, reporter, signal, code", [
    ("[2024-03-01 10:00:00,000] [ERROR] [launch.py:321:sigkill_handler] ['/usr/bin/python', '-u', 'train.py'] "
     "exits with return code = -9", "deepspeed", "SIGKILL", -9),
    ("srun: error: node-7: task 3: Killed", "slurm", "SIGKILL", None),
    ("mpirun noticed that process rank 3 with PID 4242 on node node-2 exited on signal 11 (Segmentation fault).",
     "mpirun", "SIGSEGV", None),
    ("pdsh@node-0: node-1: ssh exited with exit code 137", "pdsh", "SIGKILL", 137),
    ("Segmentation fault (core dumped)", "shell", "SIGSEGV", None),
    ("Fatal Python error: Aborted", "faulthandler", "SIGABRT", None),
])
def test_process_exit_is_normalised_across_launchers(line: str, reporter: str, signal: str, code: int | None) -> None:
    exits = [f for f in facts(line) if isinstance(f, ProcessExit)]
    assert len(exits) == 1
    e = exits[0]
    assert (e.reporter, e.signal, e.code) == (reporter, signal, code)
    assert e.fields()["kind"] == "process_exit" and e.line == 1


def test_reporter_names_the_rank_and_host_it_is_about() -> None:
    (e,) = facts("mpirun noticed that process rank 3 with PID 4242 on node node-2 exited on signal 9 (Killed).")
    assert e.fields()["rank"] == 3 and e.fields()["host"] == "node-2" and e.fields()["pid"] == 4242


def test_exit_code_to_signal_follows_the_shell_and_subprocess_conventions() -> None:
    assert signal_of_exit(-11) == "SIGSEGV" and signal_of_exit(139) == "SIGSEGV" and signal_of_exit(134) == "SIGABRT"
    assert signal_of_exit(1) is None and signal_of_exit(0) is None and signal_of_exit(None) is None


@pytest.mark.parametrize("text, family", [
    ("MemoryError: Unable to allocate 74.5 GiB for an array", "host_memory"),
    ("numpy.core._exceptions._ArrayMemoryError: Unable to allocate 74.5 GiB for an array", "host_memory"),
    ("terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc", "host_memory"),
    ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB", "cuda_oom"),
    ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.", "host_memory"),
    ("ModuleNotFoundError: No module named 'flash_attn'", "environment"),
    ("OSError: [Errno 28] No space left on device: '/ckpt/step_10'", "disk_full"),
    ("ValueError: bad shape", ""),
])
def test_exception_family_comes_from_the_sourced_table(text: str, family: str) -> None:
    exc = [f for f in facts(text) if isinstance(f, ExceptionFact)]
    assert exc and exc[0].family == family


def test_traceback_exception_keeps_innermost_frame_and_chained_cause() -> None:
    text = ("Traceback (most recent call last):\n"
            '  File "/home/user/train.py", line 10, in <module>\n'
            "    save(model)\n"
            '  File "/home/user/ckpt.py", line 3, in save\n'
            "    f.write(b)\n"
            "OSError: [Errno 28] No space left on device\n")
    (exc,) = [f for f in facts(text) if isinstance(f, ExceptionFact)]
    assert exc.errno == 28 and exc.family == "disk_full"
    assert exc.innermost == "/home/user/ckpt.py:3 in save" and exc.user_code


@pytest.mark.parametrize("file, subsystem", [
    ("transport/net_ib.cc", "ib"), ("transport/net_ib/p2p.cc", "ib"), ("misc/ibvwrap.cc", "ib"),
    ("misc/socket.cc", "socket"), ("bootstrap.cc", "socket"), ("transport/p2p.cc", "p2p"),
    ("transport/shm.cc", "shm"), ("misc/shmutils.cc", "shm"), ("include/alloc.h", "cuda"), ("made/up.cc", ""),
])
def test_nccl_source_file_names_its_subsystem(file: str, subsystem: str) -> None:
    assert nccl_subsystem(file) == subsystem


def test_nccl_warn_fact_carries_file_line_and_subsystem() -> None:
    (w,) = facts("node-1:4242:4300 [0] misc/ibvwrap.cc:190 NCCL WARN Call to ibv_reg_mr_iova2 failed with error "
                 "Cannot allocate memory")
    assert isinstance(w, NcclWarning) and (w.file, w.src_line, w.subsystem) == ("misc/ibvwrap.cc", 190, "ib")
    assert w.host == "node-1" and w.pid == 4242


def test_xid_catalog_tells_hardware_from_application_faults() -> None:
    (hw,) = facts("NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.")
    (app,) = facts("NVRM: Xid (PCI:0000:3b:00): 13, pid=4242, Graphics SM Warp Exception")
    assert isinstance(hw, GpuHardware) and hw.xid == 79 and hw.hardware
    assert isinstance(app, GpuHardware) and app.xid == 13 and not app.hardware


def test_numeric_health() -> None:
    assert [f.what for f in facts("{'loss': nan, 'learning_rate': 1e-05, 'epoch': 0.1}")] == ["nan_loss"]
    (o,) = facts("[deepspeed] OVERFLOW! Rank 0 Skipping step. Attempted loss scale: 2, reducing to 1")
    assert isinstance(o, NumericHealth) and o.what == "overflow_skip" and o.scale == 1.0
    assert facts("{'loss': 2.31, 'learning_rate': 1e-05}") == []


def test_evidence_keeps_facts_in_order(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("step 1 loss 2.3\nsrun: error: node-7: task 0: Killed\n")
    ev = collect([str(log)], load_rules())
    assert [f.kind for f in ev.facts] == ["process_exit"] and ev.facts[0].line == 2


def test_fact_conditions_are_validated(tmp_path: Path) -> None:
    assert validate_condition({"kind": "process_exit", "signal": ["SIGKILL"]}) is None
    assert "unknown fact kind" in (validate_condition({"kind": "nope"}) or "")
    assert "no field" in (validate_condition({"kind": "process_exit", "colour": 1}) or "")
    assert "unknown operator" in (validate_condition({"kind": "numeric", "scale": {"about": 1}}) or "")
    rule = tmp_path / "bad-fact-rule.yaml"
    rule.write_text("id: bad-fact-rule\nroot_cause: native_crash\nrole: cause\ntitle: t\nseverity: high\n"
                    "match:\n  facts:\n    - {kind: process_exit, colour: red}\nmessage: m\nfix: f\n"
                    "examples:\n  match: ['a']\n  no_match: ['b']\n")
    problems = validate([load_file(rule)])
    assert problems and "no field 'colour'" in problems[0][1] and problems[0][0].startswith(str(rule))


def test_fallback_cause_yields_to_a_specific_one(tmp_path: Path) -> None:
    """An abort (fatal signal, a fallback reading) printed next to a CUDA illegal memory access is that CUDA error."""
    log = tmp_path / "job.log"
    log.write_text("Fatal Python error: Aborted\n"
                   "RuntimeError: CUDA error: an illegal memory access was encountered\n")
    d = analyze([str(log)], model=False)
    assert d.root_cause == "nccl_cuda_error"
    assert any(h.root_cause == "native_crash" for h in d.hypotheses) or any(
        m.root_cause == "native_crash" for m in d.symptoms)


@pytest.mark.parametrize("text, root_cause", [
    ("srun: error: node-7: task 3: Segmentation fault (core dumped)\n", "native_crash"),
    ("{'loss': nan, 'grad_norm': nan, 'learning_rate': 1e-05, 'epoch': 0.1}\n", "training_divergence"),
    ("NVRM: Xid (PCI:0000:3b:00): 79, pid=4242, GPU has fallen off the bus.\n", "gpu_hardware_fault"),
    ("OSError: [Errno 28] No space left on device: '/ckpt/step_10/model.safetensors'\n", "disk_full"),
])
def test_new_root_causes_reach_every_report_format_with_a_fix(tmp_path: Path, text: str, root_cause: str) -> None:
    assert root_cause in ROOT_CAUSES
    log = tmp_path / "job.log"
    log.write_text(text)
    d = analyze([str(log)], model=False)
    assert d.root_cause == root_cause and d.fix.summary and d.fix.steps
    data = json.loads(render(d, "json"))
    assert data["root_cause"]["id"] == root_cause and data["fix"]["summary"] == d.fix.summary
    assert root_cause in render(d, "markdown") and d.fix.steps[0][:30] in render(d, "markdown")
    html = render(d, "html")
    assert root_cause in html and "<script" not in html


def test_native_crash_names_the_library_of_the_innermost_native_frame(tmp_path: Path) -> None:
    """The stack glog's failure handler prints after the signal: signal trampoline and libc frames are skipped."""
    log = tmp_path / "job.log"
    log.write_text("step 10 loss 2.1\n"
                   "*** SIGSEGV (@0x0) received by PID 4242 (TID 0x7f00) from PID 0; stack trace: ***\n"
                   "    @     0x7f8b10042520  (unknown) (/usr/lib/x86_64-linux-gnu/libc.so.6+0x42520)\n"
                   "    @     0x7f8b1c2d3e4f  ncclProxyProgress() (/usr/lib/x86_64-linux-gnu/libnccl.so.2+0x1234)\n"
                   "    @     0x7f8b1c2d4000  ncclProxyService() (/usr/lib/x86_64-linux-gnu/libnccl.so.2+0x2000)\n"
                   "Segmentation fault (core dumped)\n")
    d = analyze([str(log)], model=False)
    assert d.root_cause == "native_crash"
    assert "libnccl.so.2 (ncclProxyProgress())" in d.message


def test_communicator_rank_never_overrides_the_global_rank_a_path_names(tmp_path: Path) -> None:
    """NCCL's ``rank 0 nranks 2`` in rank3.log is rank 3's place in a 2-rank group, not global rank 0."""
    log = tmp_path / "rank3.log"
    log.write_text("node-1:4242:4300 [3] NCCL INFO comm 0x55d5 rank 0 nranks 2 cudaDev 3 busId 3b000 - Init COMPLETE\n")
    ev = collect([str(log)], load_rules())
    assert set(ev.ranks) == {3}
    (only,) = [e for e in parse_text(log.read_text())]
    assert only.rank == 0 and only.params["comm_rank"] == 0  # without a path, the group rank is all there is


def test_ucx_signal_handler_and_backtrace_are_facts() -> None:
    """UCX's handler: ``Caught signal 7 (Bus error: ...)`` and `` N 0x... sym()  ???:0`` frames (NCCL API names its
    library when the frame does not)."""
    text = ("[node-1:3039 :0:3095] Caught signal 7 (Bus error: nonexistent physical address)\n"
            "==== backtrace (tid:   3095) ====\n"
            " 0 0x0000000000043090 killpg()  ???:0\n"
            " 2 0x000000000007587d ncclGroupEnd()  ???:0\n")
    fs = facts(text)
    (e,) = [f for f in fs if isinstance(f, ProcessExit)]
    assert (e.reporter, e.signal) == ("ucx", "SIGBUS")
    assert ("libnccl.so", "ncclGroupEnd()") in [(f.library, f.symbol) for f in fs if f.kind == "native_frame"]


@pytest.mark.parametrize("line, what", [
    ("[rank0] step 4 loss nan", "nan_loss"),
    ("2026-01-01 10:00:00,000 [rank1] INFO train: step 3 loss inf", "inf_loss"),
    ("RuntimeError: loss scale 6.1e-05 fell below 1e-4 at step 34: gradients overflow every step", "min_loss_scale"),
])
def test_numeric_health_wordings(line: str, what: str) -> None:
    assert what in [f.what for f in facts(line) if isinstance(f, NumericHealth)]


def test_exception_after_a_line_prefix_and_torch_zip_writer_disk_full() -> None:
    (e,) = [f for f in facts("[rank0]: numpy._core._exceptions._ArrayMemoryError: Unable to allocate 335. GiB")
            if isinstance(f, ExceptionFact)]
    assert e.family == "host_memory"
    (z,) = [f for f in facts("RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 1280 vs 1174")
            if isinstance(f, ExceptionFact)]
    assert z.family == "disk_full"


def test_catch_all_exception_chained_to_a_specific_cause_is_that_cause(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("Traceback (most recent call last):\n"
                   '  File "/home/user/train.py", line 9, in save\n'
                   "    torch.save(state, path)\n"
                   "RuntimeError: basic_ios::clear: iostream error\n"
                   "\n"
                   "During handling of the above exception, another exception occurred:\n"
                   "\n"
                   "Traceback (most recent call last):\n"
                   '  File "/home/user/train.py", line 9, in save\n'
                   "    torch.save(state, path)\n"
                   "RuntimeError: [enforce fail at inline_container.cc:672] . unexpected pos 1280 vs 1174\n")
    d = analyze([str(log)], model=False)
    assert d.root_cause == "disk_full"
