"""Recognisers on real lines (taken from corpus logs) and traceback/summary assembly."""

from __future__ import annotations

from pathlib import Path

from logsleuth.parse import mask, parse_text

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def one(text: str):
    events = parse_text(text)
    assert len(events) == 1, events
    return events[0]


def test_nccl_line() -> None:
    e = one("gpu-node-1:1234:1300 [3] NCCL WARN NET/Socket : No usable listening interface found")
    assert (e.source, e.level, e.host, e.pid, e.params["cuda_dev"]) == ("nccl", "warning", "gpu-node-1", 1234, 3)


def test_c10d_glog_line_with_rank_prefix() -> None:
    e = one(
        "[rank7]:[E218 11:54:18.495933619 ProcessGroupNCCL.cpp:1484] [PG ID 0 PG GUID 0(default_pg) Rank 7] "
        "ProcessGroupNCCL's watchdog got stuck for 480 seconds without making progress"
    )
    assert (e.source, e.level, e.rank) == ("torch", "error", 7)
    assert e.time is not None and (e.time.month, e.time.day, e.time.hour) == (2, 18, 11)


def test_elastic_python_logging_and_glog_forms() -> None:
    e = one("WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 2973583 closing signal SIGHUP")
    assert (e.source, e.level) == ("elastic", "warning")
    e = one(
        "W0920 09:10:41.195000 84933 site-packages/torch/distributed/elastic/multiprocessing/api.py:900] "
        "Sending process 85005 closing signal SIGHUP"
    )
    assert (e.source, e.level) == ("elastic", "warning")


def test_ray_prefix_and_raylet_cpp_line() -> None:
    e = one(
        "(raylet, ip=10.0.0.10) [2022-09-22 16:02:34,214 E 138 138] (raylet) node_manager.cc:2966: System memory low"
    )
    assert (e.source, e.level, e.host) == ("ray", "error", "10.0.0.10")
    e = one("(RayTrainWorker pid=1234, ip=10.0.0.2) step 3 loss 0.25 [repeated 7x across cluster]")
    assert (e.pid, e.host, e.params["repeated"], e.params["actor"]) == (1234, "10.0.0.2", 7, "RayTrainWorker")


def test_vllm_and_deepspeed_lines() -> None:
    e = one("INFO 01-22 20:05:19 [llm_engine.py:12] Initializing an LLM engine (v0.6.3)")
    assert (e.source, e.level) == ("vllm", "info")
    e = one("[2023-12-12 17:36:22,024] [INFO] [launch.py:315:main] WORLD INFO DICT")
    assert (e.source, e.level, e.time.year) == ("deepspeed", "info", 2023)


def test_interleaved_tracebacks_are_kept_apart_by_prefix() -> None:
    events = parse_text(
        "\n".join(
            [
                "[rank1]: Traceback (most recent call last):",
                "[rank0]: Traceback (most recent call last):",
                '[rank1]:   File "/home/user/train.py", line 9, in step',
                '[rank0]:   File "/usr/lib/python3.11/site-packages/torch/distributed/c10d.py", line 2, in all_reduce',
                "[rank1]: IndexError: list index out of range",
                "[rank0]: RuntimeError: Connection closed by peer",
            ]
        )
    )
    tbs = {e.rank: e for e in events if e.source == "python"}
    assert tbs[1].params["exc_type"] == "IndexError" and tbs[1].params["user_frame"] == "/home/user/train.py:9 in step"
    assert tbs[0].params["exc_type"] == "RuntimeError" and (tbs[0].line, tbs[0].end_line) == (2, 6)


def test_elastic_summary_entry_becomes_one_event() -> None:
    events = parse_text(
        "\n".join(
            [
                "Root Cause (first observed failure):",
                "[0]:",
                "  time      : 2024-11-21_15:40:01",
                "  host      : node-1",
                "  rank      : 3 (local_rank: 1)",
                "  exitcode  : -9 (pid: 142)",
                "  error_file: <N/A>",
                "  traceback : Signal 9 (SIGKILL) received by PID 142",
                "============================================================",
            ]
        )
    )
    entry = next(e for e in events if e.params.get("root"))
    assert (entry.rank, entry.local_rank, entry.host, entry.params["exitcode"], entry.pid) == (3, 1, "node-1", -9, 142)


def _summary_of(rel: str) -> str:
    """The torchrun failure summary of a real corpus log (from its ``====`` banner to the end)."""
    lines = (CORPUS / rel).read_text(encoding="utf-8").splitlines()
    start = max(i for i, line in enumerate(lines) if "FAILED" in line) - 1
    return "\n".join(lines[start:])


def test_elastic_summary_error_file_traceback_becomes_a_python_event() -> None:
    # torchrun 2.13 with @record: the summary replays each worker's error-file traceback under "traceback :"
    events = parse_text(_summary_of("gen-torchrun-rank-raises/ws2_rank0_keyerror_record/job.log"))
    replays = {e.rank: e for e in events if e.source == "python" and e.params.get("replayed_by") == "elastic"}
    assert set(replays) == {0, 1}
    root = replays[0]
    assert (root.params["exc_type"], root.params["exc_message"]) == ("KeyError", "'label_smoothing_target'")
    assert root.params["user_frame"].endswith("train.py:83 in lookup_label_column")
    assert root.time is not None and root.host == "localhost"
    assert (
        replays[1].params["exc_type"] == "RuntimeError"
        and "Connection closed by peer" in replays[1].params["exc_message"]
    )
    entries = [e for e in events if e.source == "elastic" and "exitcode" in e.params]
    assert {e.rank for e in entries} == {0, 1}  # the entries themselves are still parsed


def test_summary_alone_names_the_workers_exception(tmp_path: Path) -> None:
    # a pasted tail: only torchrun's summary; before the error-file replay was parsed this was a peer_process_died
    from logsleuth import analyze

    tail = tmp_path / "tail.log"
    tail.write_text(_summary_of("gen-torchrun-rank-raises/ws2_rank0_keyerror_record/job.log"), encoding="utf-8")
    only = analyze([str(tail)], model=False)
    assert (only.root_cause, only.rule_id, only.first_failure.rank) == (
        "worker_exception",
        "python-worker-exception",
        0,
    )


def test_pid_prefix_before_rank_prefix() -> None:
    # https://github.com/hiyouga/LLaMA-Factory/issues/7396: "[<pid>] [rankN]:" in front of a c10d glog line
    e = one(
        "[80746] [rank0]:[E321 02:07:08.408271257 ProcessGroupNCCL.cpp:607] [Rank 0] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=1580, OpType=ALLREDUCE, NumelIn=466119168, NumelOut=466119168, "
        "Timeout(ms)=600000) ran for 600060 milliseconds before timing out."
    )
    assert (e.source, e.level, e.pid, e.rank) == ("torch", "error", 80746, 0)
    assert one("[0]: something").pid is None  # an elastic summary index is not a pid


def test_masks() -> None:
    assert (
        mask("Timed out after 1801 seconds waiting for clients. 17/33 clients joined.")
        == "Timed out after <NUM> seconds waiting for clients. <NUM>/<NUM> clients joined."
    )
    assert mask("connect to 10.0.0.11:29500 at /home/user/x.py 0x7f00ab") == "connect to <IP> at <PATH> <HEX>"


def test_mindspore_header_gives_pid_and_time() -> None:
    # run-waveap-c-hosts-yield-host-lost (MindSpore 2.10 on CPU): the scheduler's node timeout, then a worker's error
    text = (
        "[ERROR] DISTRIBUTED(15285,7fc63939e6c0,python):2026-11-30-01:59:33.087.103 [mindspore/ccsrc/cluster/topology/"
        "meta_server_node.cc:548] UpdateTopoState] The node: 1 is timed out. It may exit with exception, please check "
        "this node's log.\n"
        "[WARNING] ME(15286:139820764560256,MainProcess):2026-11-30-01:58:46.991.000 [mindspore/common/_decorator.py:69]"
        " 'FusedSparseAdam' is deprecated from version 2.8.0 and will be removed in a future version.\n"
    )
    scheduler, worker = list(parse_text(text))
    assert (scheduler.level, scheduler.pid, str(scheduler.time)) == ("error", 15285, "2026-11-30 01:59:33.087103")
    assert scheduler.template.startswith("[mindspore/ccsrc/cluster/topology/meta_server_node.cc:")
    assert (worker.level, worker.pid, str(worker.time)) == ("warning", 15286, "2026-11-30 01:58:46.991000")


def test_traceback_quoted_in_a_warning_is_not_raised() -> None:
    # run-waveaq-a-search-fraud-healthy-failed-candidates: scikit-learn's FitFailedWarning quotes the fits' error
    head = "/venv/lib/python3.11/site-packages/sklearn/model_selection/_validation.py:493: FitFailedWarning: \n"
    quoted = (
        "5 fits failed out of a total of 50.\n"
        "5 fits failed with the following error:\n"
        "Traceback (most recent call last):\n"
        '  File "/venv/lib/python3.11/site-packages/sklearn/model_selection/_validation.py", line 855, in '
        "_fit_and_score\n"
        "    estimator.fit(X_train, y_train, **fit_params)\n"
        "ValueError: Solver lbfgs supports only 'l2' or None penalties, got l1 penalty.\n"
        "\n"
        "  warnings.warn(some_fits_failed_message, FitFailedWarning)\n"
    )
    tb = next(e for e in parse_text(head + quoted) if e.params.get("exc_type"))
    assert (tb.level, tb.params["in_warning"]) == ("warning", True)
    assert tb.text.startswith(head.strip())
    # a script's uncaught exception right after a one-line warning that printed no source line is still raised
    uncaught = (
        "Traceback (most recent call last):\n"
        '  File "/job/train.py", line 9, in <module>\n'
        "    main()\n"
        "ValueError: bad config\n"
    )
    tb = next(
        e
        for e in parse_text(head.replace("FitFailedWarning: ", "UserWarning: x") + uncaught)
        if e.params.get("exc_type")
    )
    assert (tb.level, tb.params["in_warning"]) == ("error", False)
    assert tb.text.startswith("Traceback")
