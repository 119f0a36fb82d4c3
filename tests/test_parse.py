"""Recognisers on real lines (taken from corpus logs) and traceback/summary assembly."""
from __future__ import annotations

from logsleuth.parse import mask, parse_text


def one(text: str):
    events = parse_text(text)
    assert len(events) == 1, events
    return events[0]


def test_nccl_line() -> None:
    e = one("gpu-node-1:1234:1300 [3] NCCL WARN NET/Socket : No usable listening interface found")
    assert (e.source, e.level, e.host, e.pid, e.params["cuda_dev"]) == ("nccl", "warning", "gpu-node-1", 1234, 3)


def test_c10d_glog_line_with_rank_prefix() -> None:
    e = one("[rank7]:[E218 11:54:18.495933619 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 7] "
            "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress")
    assert (e.source, e.level, e.rank) == ("torch", "error", 7)
    assert e.time is not None and (e.time.month, e.time.day, e.time.hour) == (2, 18, 11)


def test_elastic_python_logging_and_glog_forms() -> None:
    e = one("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 2973583 closing signal SIGHUP")
    assert (e.source, e.level) == ("elastic", "warning")
    e = one("W0920 09:10:41.195000 84933 site-packages/torch/distributed/elastic/multiprocessing/api.py:900] "
            "Sending process 85005 closing signal SIGHUP")
    assert (e.source, e.level) == ("elastic", "warning")


def test_ray_prefix_and_raylet_cpp_line() -> None:
    e = one("(raylet, ip=10.0.0.10) [2022-09-22 16:02:34,214 E 138 138] (raylet) node_manager.cc:2966: System memory low")
    assert (e.source, e.level, e.host) == ("ray", "error", "10.0.0.10")
    e = one("(RayTrainWorker pid=1234, ip=10.0.0.2) step 3 loss 0.25 [repeated 7x across cluster]")
    assert (e.pid, e.host, e.params["repeated"], e.params["actor"]) == (1234, "10.0.0.2", 7, "RayTrainWorker")


def test_vllm_and_deepspeed_lines() -> None:
    e = one("INFO 01-22 20:05:19 [llm_engine.py:12] Initializing an LLM engine (v0.6.3)")
    assert (e.source, e.level) == ("vllm", "info")
    e = one("[2023-12-12 17:36:22,024] [INFO] [launch.py:315:main] WORLD INFO DICT")
    assert (e.source, e.level, e.time.year) == ("deepspeed", "info", 2023)


def test_interleaved_tracebacks_are_kept_apart_by_prefix() -> None:
    events = parse_text("\n".join([
        "[rank1]: Traceback (most recent call last):",
        "[rank0]: Traceback (most recent call last):",
        '[rank1]:   File "/home/user/train.py", line 9, in step',
        '[rank0]:   File "/usr/lib/python3.11/site-packages/torch/distributed/c10d.py", line 2, in all_reduce',
        "[rank1]: IndexError: list index out of range",
        "[rank0]: RuntimeError: Connection closed by peer",
    ]))
    tbs = {e.rank: e for e in events if e.source == "python"}
    assert tbs[1].params["exc_type"] == "IndexError" and tbs[1].params["user_frame"] == "/home/user/train.py:9 in step"
    assert tbs[0].params["exc_type"] == "RuntimeError" and (tbs[0].line, tbs[0].end_line) == (2, 6)


def test_elastic_summary_entry_becomes_one_event() -> None:
    events = parse_text("\n".join([
        "Root Cause (first observed failure):",
        "[0]:",
        "  time      : 2024-11-21_15:40:01",
        "  host      : node-1",
        "  rank      : 3 (local_rank: 1)",
        "  exitcode  : -9 (pid: 142)",
        "  error_file: <N/A>",
        "  traceback : Signal 9 (SIGKILL) received by PID 142",
        "============================================================",
    ]))
    entry = next(e for e in events if e.params.get("root"))
    assert (entry.rank, entry.local_rank, entry.host, entry.params["exitcode"], entry.pid) == (3, 1, "node-1", -9, 142)


def test_masks() -> None:
    assert mask("Timed out after 1801 seconds waiting for clients. 17/33 clients joined.") == \
        "Timed out after <NUM> seconds waiting for clients. <NUM>/<NUM> clients joined."
    assert mask("connect to 10.0.0.11:29500 at /home/user/x.py 0x7f00ab") == "connect to <IP> at <PATH> <HEX>"
