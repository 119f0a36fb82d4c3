"""Ray's failure reports, read as the facts Ray's source says they state (issue 12: diagnose from facts).

Logs under ``tests/data/ray260-*`` are real output of Ray 2.60 on this machine: small drivers run as
``python driver.py 2>&1`` against an in-process local cluster (``ray.init(num_cpus=2)``, own PID namespace and
RAY_TMPDIR); ``ray260-memory-monitor-raylet.out`` is the matching excerpt of that run's ``raylet.out``. Lines from
other versions come from the public threads named beside them. Templates: ``python/ray/exceptions.py``,
``python/ray/_private/worker.py`` (SIGTERM handler), ``python/ray/_raylet.pyx`` (exit details),
``src/ray/raylet/node_manager.cc`` (memory-monitor kills and their periodic summary).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze
from logsleuth.types import Event

DATA = Path(__file__).parent / "data"


def _ev(text: str, source: str = "other") -> Event:
    return Event(line=1, end_line=1, path="job.log", text=text, source=source)


def _cause(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


# --- a worker ended by SIGTERM ---------------------------------------------------------------------------------

SIGTERM_DETAIL = (
    "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
    "Worker exits unexpectedly. Worker exits with an exit code 1. The process receives a SIGTERM."
)


def test_ray_exit_detail_names_sigterm() -> None:
    exits = [f for f in facts_of(_ev(SIGTERM_DETAIL)) if isinstance(f, ProcessExit)]
    assert [(e.reporter, e.signal, e.signum, e.detail) for e in exits] == [("ray", "SIGTERM", 15, "SYSTEM_ERROR")]


def test_connection_error_exit_names_no_signal() -> None:
    # Ray's list of possible causes after the detail is boilerplate, not this worker's signal
    line = (
        "The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR Worker exit detail: "
        "Worker unexpectedly exits with a connection error code 2. End of file. Some common causes include: (1) the "
        "process was killed by the OOM killer due to high memory usage, (2) ray stop --force was called, or (3) the "
        "worker crashed unexpectedly due to SIGSEGV or another unexpected error."
    )
    assert [f.signal for f in facts_of(_ev(line)) if isinstance(f, ProcessExit)] == [None]


def test_actor_ended_by_sigterm_is_ended_from_outside() -> None:
    # was no_failure: the driver's ActorDiedError is a death report (a symptom), and nothing read the SIGTERM
    d = analyze([str(DATA / "ray260-actor-sigterm.log")], model=False)
    assert d.root_cause == "job_preempted"


def test_raylet_sigterm_report_alone_is_not_a_failure(tmp_path: Path) -> None:
    # Ray also SIGTERMs workers while it shuts a job down; the raylet's report alone decides nothing
    raylet = (DATA / "ray260-actor-sigterm.log").read_text().split("Traceback", 1)[0]
    assert "The process receives a SIGTERM" in raylet
    assert _cause(tmp_path, raylet + "training finished\n") != "job_preempted"


def test_worker_error_before_sigterm_wins(tmp_path: Path) -> None:
    # the worker's own exception comes first: Ray's later report of a death is collateral
    crash = (DATA / "ray260-train-worker-memoryerror.log").read_text()
    assert _cause(tmp_path, crash + SIGTERM_DETAIL + "\n") == "host_oom_killed"


# --- Ray's memory monitor --------------------------------------------------------------------------------------


def test_memory_monitor_kill_ray_2_60_driver() -> None:
    d = analyze([str(DATA / "ray260-memory-monitor-task.log")], model=False)
    assert (d.root_cause, d.rule_id) == ("host_oom_killed", "ray-memory-monitor-kill")


def test_memory_monitor_kill_ray_2_60_raylet_only(tmp_path: Path) -> None:
    # raylet.out without the driver's OutOfMemoryError: "Killing 1 worker(s), kill details: Memory on the node ...",
    # "OOM kill reason: ...", "Ray killed 1 worker(s) based on the killing policy"
    text = (DATA / "ray260-memory-monitor-raylet.out").read_text()
    assert "ray.exceptions" not in text
    d = analyze([str(DATA / "ray260-memory-monitor-raylet.out")], model=False)
    assert (d.root_cause, d.rule_id) == ("host_oom_killed", "ray-memory-monitor-kill")


def test_memory_pressure_summary_counts_only_kills(tmp_path: Path) -> None:
    # node_manager.cc prints "%d Workers (tasks / actors) killed due to memory pressure (OOM), %d Workers crashed due
    # to other reasons"; its first count is NodeManager::DestroyWorker's NODE_OUT_OF_MEMORY kills. Not a real log
    # line: the format filled with 0 memory kills (the counts are what this test is about).
    zero = (
        "(raylet) node_manager.cc:3084: 0 Workers (tasks / actors) killed due to memory pressure (OOM), 2 Workers "
        "crashed due to other reasons at node (ID: 5c1e0a7d, IP: 10.0.0.12) over the last time period.\n"
    )
    assert _cause(tmp_path, zero) != "host_oom_killed"
    # the same summary from a real memory-monitor kill (flwrlabs/flower#2157, IP rewritten)
    real = (
        "(raylet) [2023-07-23 15:21:29,851 E 9751 9751] (raylet) node_manager.cc:3084: 4 Workers (tasks / actors) "
        "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: "
        "b287aac2de42bef55d13e884c4bdb6cffb2d81d1dc96aa08c4633a43, IP: 10.0.0.12) over the last time period. To see "
        "more information about the Workers killed on this node, use `ray logs raylet.out -ip 10.0.0.12`\n"
    )
    assert _cause(tmp_path, real) == "host_oom_killed"


# --- Ray's exception types -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "family"),
    [
        # Ray 1.x memory monitor (ray-project/ray#3323, host name rewritten)
        (
            "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node node-1 is used "
            "(11.8 / 12.3 GB). The top 5 memory consumers are:",
            "host_memory",
        ),
        # python/ray/exceptions.py ObjectStoreFullError / OutOfDiskError (their __str__ suffixes)
        (
            "ray.exceptions.ObjectStoreFullError: The local object store is full of objects that are still in scope "
            "and cannot be evicted. Tip: Use the `ray memory` command to list active objects in the cluster.",
            "host_memory",
        ),
        ("ray.exceptions.OutOfDiskError: Failed to create object", "disk_full"),
        ("ray.exceptions.RuntimeEnvSetupError: Failed to set up runtime environment.", "environment"),
        # death and wait reports say nothing of a cause
        ("ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task.", ""),
        ("ray.exceptions.GetTimeoutError: Get timed out: some object(s) not ready.", ""),
    ],
)
def test_ray_exception_families(line: str, family: str) -> None:
    excs = [f for f in facts_of(_ev(line, "python")) if isinstance(f, ExceptionFact)]
    assert [e.family for e in excs] == [family]


def test_runtime_env_setup_failure_is_the_environment() -> None:
    # was worker_exception (the ValueError inside the set-up's traceback); Ray raised RuntimeEnvSetupError first
    d = analyze([str(DATA / "ray260-runtime-env-setup-failed.log")], model=False)
    assert d.root_cause == "library_version_mismatch"


def test_train_worker_memoryerror_is_host_memory() -> None:
    # Ray Train v2: the worker's MemoryError, then the controller's WorkerGroupError wrapping it
    d = analyze([str(DATA / "ray260-train-worker-memoryerror.log")], model=False)
    assert d.root_cause == "host_oom_killed"


def test_train_controller_resource_request_warning_is_healthy() -> None:
    # a healthy Ray Train v2 run on this busy 2-CPU node: the controller's resource request timed out once and Ray
    # logged it at WARNING with its GetTimeoutError traceback ("... it's safe to ignore this error"), then trained
    d = analyze([str(DATA / "ray260-train-healthy-resource-request-warning.log")], model=False)
    assert "GetTimeoutError" in (DATA / "ray260-train-healthy-resource-request-warning.log").read_text()
    assert d.root_cause == "no_failure"


def test_ray_system_error_of_a_missing_module_is_the_environment(tmp_path: Path) -> None:
    # ray-project/ray#27015: an actor's argument could not be unpickled on the worker (its module is not there)
    text = (
        "ERROR worker.py:431 -- Exception raised in creation task: The actor died because of an error raised in its "
        "creation task, ray::SACLearnerWithCost.__init__() (pid=4301, ip=10.0.0.14)\n"
        "(TemporaryActor pid=4301)   At least one of the input arguments for this task could not be computed:\n"
        "(TemporaryActor pid=4301) ray.exceptions.RaySystemError: System error: No module named 'policy'\n"
    )
    excs = [f for e in parse_text(text) for f in facts_of(e) if isinstance(f, ExceptionFact)]
    assert [(e.type, e.family) for e in excs] == [("ray.exceptions.RaySystemError", "environment")]
    assert _cause(tmp_path, text) == "library_version_mismatch"
