"""Wave AT (``heldout49``: real Metaflow, Celery and Prefect runs, and 12 thread excerpts), measured blind at 40/57
failures with 4/15 healthy logs flagged: what was changed for its misses. Each is a fact stated in a runner's own words
(a task that died of a segmentation fault, a task's time limit, a failed task run again, a run that finished, a worker
that got SIGHUP, a run the user interrupted), the kernel's (the IOMMU refusing a device's DMA), or a broader reading of
one the product had (a traceback whose lines lost their indentation; a full filesystem that the traceback printed
right after places in /dev/shm)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit, RunFinished, SchedulerVerdict, SignalFact, WorkRetried
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # Metaflow 2.19 (corpus/generators/waveat_a): a @parallel train step's traceback with its frames flush left,
        # a task's segfault in the runtime's words, a full /dev/shm under multiprocessing's SemLock, a @retry that worked
        ("run-waveat-a-mf-bookings-new-hotels/job.log", "worker_exception"),
        ("run-waveat-a-mf-bookings-brand-merge/job.log", "native_crash"),
        ("run-waveat-a-mf-bookings-container-shm/job.log", "shm_exhausted"),
        ("run-waveat-a-mf-bookings-healthy-retry/job.log", "no_failure"),
        ("run-waveat-a-mf-bookings-healthy-report/job.log", "no_failure"),  # @catch caught the report step's error
        # Prefect 3.9 (corpus/generators/waveat_c): the same SemLock failure, quoted first by the flow's ERROR record
        ("run-waveat-c-prefect-yield-container-shm/job.log", "shm_exhausted"),
        # Celery 5.7 (corpus/generators/waveat_b): the pool SIGKILLs the trials that outlived their hard time limit
        ("run-waveat-b-quakes-trial-time-limit/job.log", "job_preempted"),
        # ... and restarts itself on SIGHUP when the session it ran in closes
        ("run-waveat-b-quakes-ssh-closed/job.log", "terminal_hangup"),
        # Metaflow: the user's Ctrl-C after 74 s in which a task blocked on a named pipe printed nothing
        ("run-waveat-a-mf-bookings-stream-export/job.log", "silent_hang"),
        # tensorflow/tensorflow#32654: the IOMMU's write faults for the GPUs during a MirroredStrategy hang
        ("gh-tensorflow-tensorflow-32654/mirrored_4gpu_dmar.log", "nccl_p2p_failure"),
    ],
)
def test_wave_at_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_traceback_with_its_indentation_stripped_is_one_exception() -> None:
    # Metaflow's task console strips each line's leading blanks (run-waveat-a-mf-bookings-new-hotels, lines 38-108, cut)
    tag = "2026-11-30 14:06:56.895 [1796047611730556/train/7 (pid 26615)] "
    lines = [
        "Traceback (most recent call last):",
        'File "/venv/lib/python3.11/site-packages/metaflow/task.py", line 113, in _exec_step_function',
        "step_function()",
        'File "/workspace/flow.py", line 183, in train',
        "loss = lossf(model(x, h, s, dep), y)",
        "^^^^^^^^^^^^^^^^^^^",
        'File "/venv/lib/python3.11/site-packages/torch/nn/functional.py", line 2615, in embedding',
        "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)",
        "IndexError: index out of range in self",
    ]
    events = parse_text("".join(tag + ln + "\n" for ln in lines))
    tbs = [e for e in events if e.params.get("exc_type")]
    assert len(tbs) == 1
    assert tbs[0].params["exc_type"] == "IndexError"
    assert [f["func"] for f in tbs[0].params["frames"]] == ["_exec_step_function", "train", "embedding"]
    assert tbs[0].params["user_frame"] == "/workspace/flow.py:183 in train"


def test_stripped_traceback_with_a_blank_line_in_it() -> None:
    # a blank line inside a stripped traceback (Metaflow prints the task's empty lines too) neither ends nor breaks it
    text = (
        "Traceback (most recent call last):\n"
        'File "/workspace/flow.py", line 183, in train\n'
        "\n"
        "loss = lossf(model(x), y)\n"
        "IndexError: index out of range in self\n"
    )
    (tb,) = [e for e in parse_text(text) if e.params.get("exc_type")]
    assert tb.params["exc_type"] == "IndexError"


def test_indented_traceback_still_reads_as_before() -> None:
    text = (
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 10, in <module>\n'
        "    main()\n"
        "KeyError: 'chosen'\n"
    )
    (tb,) = [e for e in parse_text(text) if e.params.get("exc_type")]
    assert tb.params["exc_type"] == "KeyError" and len(tb.params["frames"]) == 1


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        # metaflow/runtime.py on a task's return code -11 (run-waveat-a-mf-bookings-brand-merge, line 32)
        (
            "2026-11-30 14:07:07.231 [1796047622896532/train/7 (pid 26780)] Task failed with a segmentation fault.",
            "SIGSEGV",
        ),
        ("worker 3 crashed with a bus error", "SIGBUS"),
    ],
)
def test_runner_words_for_a_fatal_signal(line: str, signal: str) -> None:
    (exit_,) = [f for f in _facts(line) if isinstance(f, ProcessExit)]
    assert exit_.signal == signal and exit_.reporter == "runner"


def test_no_crash_read_from_words_that_only_mention_one() -> None:
    assert not [f for f in _facts("checking for segmentation fault handlers: done") if isinstance(f, ProcessExit)]


def test_full_filesystem_quoted_before_its_shm_traceback_is_shm(tmp_path: Path) -> None:
    # Prefect's flow logs the exception's repr, then the child's traceback shows CPython's SemLock (sem_open: /dev/shm)
    # failing (run-waveat-c-prefect-yield-container-shm, lines 14-55, cut): the ERROR record's "No space left on device"
    # alone would read as a full disk
    text = (
        "13:46:01.328 | ERROR   | Flow run 'ingenious-catfish' - Encountered exception during execution: "
        "OSError(28, 'No space left on device')\n"
        "Traceback (most recent call last):\n"
        '  File "/usr/lib/python3.11/multiprocessing/queues.py", line 43, in __init__\n'
        "    self._rlock = ctx.Lock()\n"
        '  File "/usr/lib/python3.11/multiprocessing/synchronize.py", line 57, in __init__\n'
        "    sl = self._semlock = _multiprocessing.SemLock(\n"
        "OSError: [Errno 28] No space left on device\n"
    )
    log = tmp_path / "job.log"
    log.write_text(text)
    assert analyze([str(log)], model=False).root_cause == "shm_exhausted"


def test_celery_time_limit_is_the_schedulers_verdict() -> None:
    # celery/worker/request.py Request.on_timeout (run-waveat-b-quakes-trial-time-limit, line 342)
    line = (
        "[2026-11-30 14:03:12,755: ERROR/MainProcess] Hard time limit (15s) exceeded for "
        "tasks.train_trial[6b497fc5-9902-4526-aaae-c9a5f3225d35]"
    )
    (v,) = [f for f in _facts(line) if isinstance(f, SchedulerVerdict)]
    assert (v.scheduler, v.verdict) == ("celery", "time_limit")


def test_metaflow_retry_and_done() -> None:
    retry = "2026-11-30 14:06:05.971 [1796047564771419/prepare/3 (pid 26205)] Task is starting (retry)."
    assert [f.by for f in _facts(retry) if isinstance(f, WorkRetried)] == ["metaflow_retry"]
    assert [f.by for f in _facts("2026-11-30 14:06:23.682 Done!") if isinstance(f, RunFinished)] == ["metaflow"]
    # a task's own "Done!" inside its output is not the run's
    assert not [f for f in _facts("[rank0] Done! saved 3 files") if isinstance(f, RunFinished)]
    assert not [f for f in _facts("Done!") if isinstance(f, RunFinished)]  # a data script's last word (wave AR)


@pytest.mark.parametrize(
    ("line", "signal"),
    [
        # celery/apps/worker.py install_worker_restart_handler (run-waveat-b-quakes-ssh-closed)
        ("Restarting celery worker (/venv/bin/celery -A tasks worker --concurrency 2 --loglevel INFO)", "SIGHUP"),
        # metaflow/runtime.py on KeyboardInterrupt (run-waveat-a-mf-bookings-stream-export, line 25)
        (
            "2026-11-30 13:53:16.548 Workflow interrupted. Please avoid pressing Ctrl+C again to let the workflow "
            "clean up process finish.",
            "SIGINT",
        ),
        # click's BaseCommand.main after a KeyboardInterrupt (the same log, line 29)
        ("Aborted!", "SIGINT"),
    ],
)
def test_a_process_saying_it_got_a_signal(line: str, signal: str) -> None:
    assert [f.signal for f in _facts(line) if isinstance(f, SignalFact)] == [signal]


def test_abort_words_that_are_not_an_interrupt() -> None:
    # bash's word for SIGABRT is a crash (no "!"), and a sentence is not click's abort
    assert not [f for f in _facts("Aborted (core dumped)") if isinstance(f, SignalFact) and f.signal == "SIGINT"]
    assert not [f for f in _facts("download Aborted! retrying in 5 s") if isinstance(f, SignalFact)]


def test_a_traceback_a_framework_says_it_caught_is_not_raised() -> None:
    # Metaflow's @catch (metaflow/plugins/catch_decorator.py) before the traceback it caught; the step then finishes
    # (run-waveat-a-mf-bookings-healthy-report, lines 94-120, cut)
    tag = "2026-11-30 14:06:01.469 [1796047545086144/report/10 (pid 26100)] "
    text = (
        tag
        + "@catch caught an exception from <flow BookingCancelFlow step report>\n"
        + tag
        + ">  Traceback (most recent call last):\n"
        + tag
        + '>    File "/workspace/flow.py", line 243, in report\n'
        + tag
        + ">      import matplotlib\n"
        + tag
        + ">  ModuleNotFoundError: No module named 'matplotlib'\n"
    )
    (tb,) = [e for e in parse_text(text) if e.params.get("exc_type")]
    assert tb.params["in_warning"] and tb.level == "warning"
    assert not facts_of(tb)
