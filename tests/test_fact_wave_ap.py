"""Wave AP (``heldout45``: real Dask distributed, Stable-Baselines3 and MindSpore runs, and 5 thread excerpts), measured
blind at 27/49 failures with 4/14 healthy logs flagged: what was changed for its misses. Each is a fact in the
framework's or the shell's own words (a launcher's exit report, a retry, a client leaving its cluster, a failed CHECK)
or an order between facts (a SIGTERM after a process failed, an exception after the user's interrupt, what a file
prints once its processes are being stopped)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit, RunFinished, SignalFact, WorkRetried
from logsleuth.factlayer.reason import interrupted_from, stopped_after_failure, teardown_from, unwinding
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # Dask distributed 2026.8 (corpus/generators/waveap_a): `dask scheduler`/`dask worker` stopped by the launch
        # script once the client failed - their "Received signal SIGTERM (15)" is that clean-up
        ("run-waveap-a-shell-stockout-promo-planner/job.log", "worker_exception"),
        ("run-waveap-a-shell-stockout-new-listing/job.log", "native_crash"),  # nannies: "killed by signal 11"
        ("run-waveap-a-hosts-stockout-old-runbook", "rendezvous_timeout"),  # "Only 1/2 workers arrived after 90.0"
        ("run-waveap-a-local-stockout-node-reclaimed/job.log", "job_preempted"),  # bash: "Terminated"
        ("run-waveap-a-local-stockout-store-backtest/job.log", "silent_hang"),  # AllExit after the user's Ctrl-C
        # Stable-Baselines3 (corpus/generators/waveap_b): a script running seeds reports their exits
        ("run-waveap-b-seeds-pick-time-limit/job.log", "job_preempted"),  # "seed 1 finished with exit code 143"
        # MindSpore 2.10 on CPU (corpus/generators/waveap_c)
        ("run-waveap-c-msrun-yield-drone-grid/job.log", "host_oom_killed"),  # msrun: "Error code: -9."
        ("run-waveap-c-msrun-yield-time-limit/job.log", "job_preempted"),  # bash: "Terminated"
        ("run-waveap-c-msrun-yield-small-shm/job.log", "shm_exhausted"),  # "Insufficient shared memory available"
        ("run-waveap-c-msrun-yield-third-host/job.log", "rendezvous_timeout"),  # cluster never complete
        ("run-waveap-c-logs-yield-new-sensor/job.log", "collective_mismatch"),  # ring all-reduce chunk sizes differ
        ("run-waveap-c-env-yield-weather-service/job.log", "collective_timeout"),  # ring wait receiving failed
        # a lost host, told by the survivors (after the batch's first fixes): MindSpore's RPC client reaching EOF on the
        # peer before its ring wait failed, and the worker's exit by SIGTERM after the scheduler's own failure; dask's
        # actor proxy that cannot reach the worker holding the actor
        ("run-waveap-c-hosts-yield-host-lost/job.log", "peer_process_died"),
        ("run-waveap-a-hosts-stockout-host-lost/job.log", "peer_process_died"),
        # the worker's registration error chained to the bind failure printed below it: the traceback prints no pid,
        # the MindSpore line does (its header), and an unknown pid is not another process
        ("run-waveap-c-msrun-yield-second-experiment/job.log", "port_in_use"),
        ("run-waveap-c-msrun-yield-data-refresh/job.log", "native_crash"),  # SIGBUS with the data memory-mapped
        ("run-waveap-c-msrun-yield-weather-service/job.log", "silent_hang"),  # "msrun process received SIGINT"
    ],
)
def test_wave_ap_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


@pytest.mark.parametrize(
    "log",
    [
        # the scheduler says the client closed its connection before the launch script stopped the cluster
        "run-waveap-a-shell-stockout-healthy/job.log",
        "run-waveap-a-hosts-stockout-healthy-late-worker/job.log",
        # a worker SIGKILLed mid-epoch: its nanny restarted it, the scheduler recomputed its results, the driver went on
        "run-waveap-a-shell-stockout-healthy-worker-killed/job.log",
    ],
)
def test_dask_runs_stopped_after_their_client_left_are_healthy(log: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == "no_failure"


def _analyze_text(tmp_path: Path, text: str):  # noqa: ANN202 - a Diagnosis
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False)


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_bash_reports_terminated_and_hangup_as_signals(tmp_path: Path) -> None:
    assert [(f.signal, f.reporter) for f in _facts("Terminated\n") if isinstance(f, ProcessExit)] == [
        ("SIGTERM", "shell")
    ]
    line = "./launch.sh: line 9: 31077 Hangup                  python train.py --epochs 60\n"
    assert [f.signal for f in _facts(line) if isinstance(f, ProcessExit)] == ["SIGHUP"]
    assert _analyze_text(tmp_path, line).root_cause == "terminal_hangup"


def test_msrun_reports_a_negative_code_as_the_signal() -> None:
    line = (
        "[ERROR] ME(26484:140352403491712,MainProcess):2026-11-30-01:36:19.632.000 [mindspore/parallel/cluster/"
        "process_entity/_api.py:365] Worker process 26582 exit with exception. Error code: -9.\n"
    )
    (f,) = [f for f in _facts(line) if isinstance(f, ProcessExit)]
    assert (f.code, f.signal, f.reporter, f.proc) == (-9, "SIGKILL", "msrun", 26582)


def test_a_seed_that_finished_with_a_code_is_a_process_exit() -> None:
    (f,) = [f for f in _facts("run_seeds: seed 2 finished with exit code 143\n") if isinstance(f, ProcessExit)]
    assert (f.code, f.signal) == (143, "SIGTERM")
    (f,) = [f for f in _facts("run_seeds: seed 1 finished with exit code 0\n") if isinstance(f, ProcessExit)]
    assert (f.code, f.signal) == (0, None)


def test_dask_retries_and_client_departure_are_facts() -> None:
    text = (
        "2026-11-30 01:46:44,080 - distributed.nanny - WARNING - Restarting worker\n"
        "2026-11-30 01:46:49,434 - distributed.scheduler - INFO - Close client connection: "
        "Client-e2282ba7-ec5f-11f1-8cd4-02fc00000001\n"
    )
    facts = _facts(text)
    assert [f.by for f in facts if isinstance(f, WorkRetried)] == ["dask_worker"]
    assert [f.by for f in facts if isinstance(f, RunFinished)] == ["dask_client"]


def test_a_failed_check_is_an_error_line() -> None:
    # stepfun-ai/StepMesh#11: ps-lite's CHECK that its bind succeeded; no errno, so no cause is named, but not healthy
    (ev,) = parse_text(
        "[09:28:39] scheduler /root/StepMesh/include/dmlc/logging.h:301: [09:28:39] /root/StepMesh/src/van.cc:601: "
        "Check failed: (my_node_.port) != (-1) bind failed\n"
    )
    assert ev.level == "error"
    d = analyze([str(CORPUS / "gh-stepfun-ai-StepMesh-11" / "run_single_gpu.log")], model=False)
    assert d.verdict == "unknown"


def test_a_sigterm_after_a_process_failed_is_its_clean_up_not_a_preemption(tmp_path: Path) -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/job/train.py", line 390, in <module>\n'
        "    main()\n"
        "KeyError: 'bogo'\n"
        "launch.sh: training client exited with 1, stopping the cluster\n"
        "2026-11-30 01:44:50,689 - distributed._signals - INFO - Received signal SIGTERM (15)\n"
    )
    events = parse_text(text)
    facts = [f for ev in events for f in facts_of(ev)]
    (sig,) = [f for f in facts if isinstance(f, SignalFact)]
    assert id(sig.event) in stopped_after_failure(facts)
    # a SIGTERM with nothing failed before it stays the job's cause
    alone = [f for ev in parse_text(text.split("launch.sh")[1].split("\n", 1)[1]) for f in facts_of(ev)]
    assert not stopped_after_failure(alone)
    assert _analyze_text(tmp_path, text).root_cause == "worker_exception"


def test_a_caught_exception_does_not_make_a_later_sigterm_a_clean_up() -> None:
    # a traceback that starts below the script's top frame was caught (logged and carried on): not a failed end
    text = (
        "Traceback (most recent call last):\n"
        '  File "/job/plots.py", line 12, in save_plot\n'
        "    import matplotlib\n"
        "ModuleNotFoundError: No module named 'matplotlib'\n"
        "[rank 0] received SIGTERM, will checkpoint and exit after this step\n"
    )
    facts = [f for ev in parse_text(text) for f in facts_of(ev)]
    assert any(isinstance(f, ExceptionFact) for f in facts)
    assert not stopped_after_failure(facts)


def test_what_a_file_prints_after_its_teardown_signal_is_teardown(tmp_path: Path) -> None:
    text = (
        "[driver] epoch 4 step 20/20 loss 0.4370\n"
        "2026-11-30 01:44:11,986 - distributed.scheduler - INFO - Close client connection: Client-86f0ba74-ec5f-11f1\n"
        "2026-11-30 01:44:12,464 - distributed._signals - INFO - Received signal SIGTERM (15)\n"
        "2026-11-30 01:44:20,502 - distributed.nanny - INFO - Worker process 2290 was killed by signal 9\n"
    )
    facts = [f for ev in parse_text(text) for f in facts_of(ev)]
    assert teardown_from(facts) == {"-": 3}
    assert _analyze_text(tmp_path, text).root_cause == "no_failure"


def test_exceptions_after_the_users_interrupt_are_its_unwinding() -> None:
    facts = [
        f
        for ev in parse_text(
            "Traceback (most recent call last):\n"
            '  File "/job/train.py", line 9, in <module>\n'
            "    main()\n"
            "KeyboardInterrupt\n"
            "Traceback (most recent call last):\n"
            '  File "/venv/distributed/client.py", line 2376, in wait\n'
            "    raise AllExit()\n"
            "asyncio.exceptions.CancelledError\n"
        )
        for f in facts_of(ev)
    ]
    assert interrupted_from(facts) == {"-": 1}
    assert [unwinding(f.event) for f in facts if isinstance(f, ExceptionFact)] == [True, True]
    # what the job was stuck on, reported as it aborts, is not unwinding (Ray Train's start-up timeout)
    (ev,) = parse_text("ray.train.v2._internal.exceptions.WorkerGroupStartupTimeoutError: timed out after 60.0 s\n")
    assert not unwinding(ev)
    # an error before the interrupt: the interrupt ended a failed job, and what follows is read as usual
    failed = [f for ev in parse_text("RuntimeError: boom\nKeyboardInterrupt\n") for f in facts_of(ev)]
    assert interrupted_from(failed) == {}


def test_sigterm_exit_after_a_failed_end_is_the_clean_up() -> None:
    # run-waveap-c-hosts-yield-host-lost: the launch script reports the scheduler's failed exit, then the worker's
    # exit by SIGTERM (MindSpore's exception callback: "Kill this process with SIGTERM.")
    events = list(parse_text("process 15285 exited with status 1\nprocess 15286 exited with status 143\n"))
    facts = [f for e in events for f in facts_of(e)]
    assert [(type(f).__name__, getattr(f, "signal", None)) for f in facts] == [
        ("ProcessExit", None), ("ProcessExit", "SIGTERM")]
    assert stopped_after_failure(facts) == {id(events[1])}
    # alone, the SIGTERM exit is not clean-up
    alone = list(parse_text("process 15286 exited with status 143\n"))
    assert stopped_after_failure([f for e in alone for f in facts_of(e)]) == frozenset()
