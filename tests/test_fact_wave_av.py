"""Wave AV (``heldout51``: real Apache Airflow 3 and MLflow Projects runs, and thread excerpts), measured blind before
any change for it: what was changed for its misses. Each is a fact in a library's own words (Airflow's DAG run marked
successful and its task's execution_timeout, argparse refusing the command line, SQLite's SQLITE_FULL, the NVIDIA
kernel module failing to initialise a GPU, Ray's file-system monitor over its capacity threshold, ProcessGroupNCCL
waiting for rank 0's unique id in the store) or a line shape the parser did not read (structlog's console format, a
net plugin's ``function:line NCCL WARN``, IPython's traceback header, a NaN loss in a key/value table, gloo's loopback
warning wrapped by a paste)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, GpuHardware, NcclWarning, NumericHealth, RunFinished
from logsleuth.parse import parse_text
from logsleuth.parse.prefix import strip
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # Airflow 3.3 (corpus/generators/waveav_b): a torchrun task retried after a port clash, then the DAG run was
        # marked successful; the same DAG whose DataLoader could not create its semaphores in a 32 KB /dev/shm (the
        # traceback's lines are structlog records of their own); a rank stopped, then execution_timeout
        ("run-waveav-b-airflow-dga-healthy-port-retry/job.log", "no_failure"),
        ("run-waveav-b-airflow-dga-container-shm/job.log", "shm_exhausted"),
        ("run-waveav-b-airflow-dga-stopped-rank/job.log", "silent_hang"),
        # ... and the same DAG failing for good: no run marked successful
        ("run-waveav-b-airflow-dga-notebook-port/job.log", "port_in_use"),
        # MLflow 3.17 Projects (corpus/generators/waveav_a): `-P epochs=3x` refused by train.py's argparse on both
        # ranks; the sqlite tracking store on a full 64 KB volume
        ("run-waveav-a-mlflow-eta-epochs-typo/job.log", "worker_exception"),
        ("run-waveav-a-mlflow-eta-store-volume/job.log", "disk_full"),
        # microsoft/pai#4344: "NVRM: RmInitAdapter failed!" for one of the node's GPUs
        ("gh-microsoft-pai-4344/node_gpu_missing_nvrm_rminitadapter.log", "gpu_hardware_fault"),
        # PRIME-RL/TTRL#10: the raylet's file-system monitor, then the job's entrypoint failed
        ("gh-PRIME-RL-TTRL-10/ray_job_storage_full.log", "disk_full"),
        # SpongebBob/Finetune-ChatGLM2-6B#13: rank 7 waiting for rank 0's ncclUniqueId in the store (lines joined)
        ("gh-SpongebBob-Finetune-ChatGLM2-6B-13/tokenize_store_socket_timeout.log", "rendezvous_timeout"),
        # aws-samples/aws-do-eks#50: gloo's loopback fallback warning wrapped after "loopback"
        ("gh-aws-samples-aws-do-eks-50/vllm_pp2_gloo_loopback.log", "nccl_network_config"),
        # openai/guided-diffusion#50: the OpenAI logger's table with "| loss | nan |"
        ("gh-openai-guided-diffusion-50/imagenet128_fp16_nan_loss_scale.log", "training_divergence"),
    ],
)
def test_wave_av_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_structlog_console_lines_read_as_their_message() -> None:
    # run-waveav-b-airflow-dga-container-shm, line 99
    line = (
        "2026-11-30T19:53:48.087407Z [info     ] [rank0]: OSError: [Errno 28] No space left on device "
        "[airflow.task.hooks.airflow.providers.standard.hooks.subprocess.SubprocessHook] loc=subprocess.py:106"
    )
    pre, body = strip(line)
    assert (pre.level, pre.rank, body) == ("info", 0, "OSError: [Errno 28] No space left on device")
    # the level in the brackets raises a line the recognisers read as info; it never lowers one
    (ev,) = parse_text(
        "2026-11-30T19:55:31.268553Z [error    ] Process timed out              [task] loc=timeout.py:38 pid=20094\n"
    )
    assert ev.level == "error" and ev.template.startswith("Process timed out")
    # a message with brackets of its own keeps them when no logger name ends the line
    assert strip("[info     ] loaded [rank0] shard 3")[1] == "loaded [rank0] shard 3"


def test_airflow_marks_the_whole_run() -> None:
    ok = (
        "2026-11-30T20:01:07.933675Z [info     ] Marking run <DagRun dga_fault_training @ 2026-11-30 00:00:00+00:00: "
        "manual__2026-11-30T20:00:40.851973+00:00, state:running, queued_at: None. run_type: manual> successful "
        "[airflow.models.dagrun.DagRun] loc=dagrun.py:1249"
    )
    assert [f.by for f in _facts(ok) if isinstance(f, RunFinished)] == ["airflow"]
    failed = ok.replace("> successful", "> failed").replace("[info     ]", "[error    ]")
    assert not [f for f in _facts(failed) if isinstance(f, RunFinished)]


def test_a_net_plugins_function_named_warn_is_a_nccl_warning() -> None:
    # aws/aws-ofi-nccl#584 as pasted (no host prefix), and the same line with NCCL's prefix
    bare = "register_mr_buffers:544 NCCL WARN NET/OFI Unable to register memory (type = 2) for device 0. RC: -22"
    for line in (bare, "node-1:12:13 [0] " + bare):
        (ev,) = parse_text(line)
        assert ev.source == "nccl" and ev.level == "warning"
        assert [f.subsystem for f in facts_of(ev) if isinstance(f, NcclWarning)] == ["ib"]


def test_ipython_traceback_header_names_the_exception() -> None:
    text = (
        "ValueError                                Traceback (most recent call last)\n"
        "<ipython-input-2-3f68a533b944> in <module>\n"
        "----> 1 ray.init()\n"
    )
    assert [f.type for f in _facts(text) if isinstance(f, ExceptionFact)] == ["ValueError"]
    # with the message line the paste kept, the message is the exception's
    (exc,) = [f for f in _facts(text + "\nValueError: object store too large\n") if isinstance(f, ExceptionFact)]
    assert exc.message == "object store too large"


def test_nvrm_rm_init_adapter_failed_is_hardware() -> None:
    line = "[   38.773115] NVRM: RmInitAdapter failed! (0x26:0xffff:1127)"
    assert [(f.what, f.hardware) for f in _facts(line) if isinstance(f, GpuHardware)] == [("rm_init_failed", True)]


@pytest.mark.parametrize(
    ("line", "nan"),
    [
        ("| loss          | nan       |", True),
        ("| loss_q0       | nan       |", True),
        ("| lg_loss_scale | -1.62e+04 |", False),
        ("| loss          | 0.0123    |", False),
    ],
)
def test_a_nan_loss_in_a_table_row(line: str, nan: bool) -> None:
    assert bool([f for f in _facts(line) if isinstance(f, NumericHealth)]) is nan


def test_sqlite_full_is_disk_full() -> None:
    (exc,) = [f for f in _facts("sqlite3.OperationalError: database or disk is full") if isinstance(f, ExceptionFact)]
    assert exc.family == "disk_full"
