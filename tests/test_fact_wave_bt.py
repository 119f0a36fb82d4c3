"""Wave BT (``heldout75``: timm's ``train.py`` under torchrun on two hosts, and PySpark's TorchDistributor on a
Spark standalone cluster, both across network namespaces).

Spark's executor, once the driver commands it to shut down ("CoarseGrainedExecutorBackend: Driver commanded a
shutdown"), is stopped by its worker with SIGTERM, which Spark's ``SignalUtils`` logs at ERROR ("RECEIVED SIGNAL
TERM") in every healthy run: that line is the executor's teardown (``reason.spark_stops``), not a failure; what the
console prints after it is another executor's output and is still read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import RunFinished, SignalFact
from logsleuth.factlayer.reason import spark_stops
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _job(name: str) -> str:
    return str(CORPUS / name / "job.log")


def test_sparks_executor_stop_is_a_finish_word_and_its_signal_a_fact() -> None:
    text = (
        "26/12/04 14:19:46 INFO CoarseGrainedExecutorBackend: Driver commanded a shutdown\n"
        "26/12/04 14:19:47 ERROR CoarseGrainedExecutorBackend: RECEIVED SIGNAL TERM\n"
    )
    facts = [f for ev in parse_text(text) for f in facts_of(ev)]
    assert [f.by for f in facts if isinstance(f, RunFinished)] == ["spark_executor"]
    assert [(f.signal, f.sender) for f in facts if isinstance(f, SignalFact)] == [("SIGTERM", "unknown")]


@pytest.mark.parametrize("job", ["run-wavebt-g-healthy-2nodes", "run-wavebt-g-healthy-3nodes"])
def test_a_healthy_spark_job_whose_executors_were_stopped_is_healthy(job: str) -> None:
    assert analyze([_job(job)], model=False).root_cause == "no_failure"


@pytest.mark.parametrize(
    ("job", "cause"),
    [
        # the SIGKILLed rank's exit is in the second executor's output, after the first executor's teardown
        ("run-wavebt-g-rank-sigkill", "host_oom_killed"),
        ("run-wavebt-g-preempt", "job_preempted"),
        ("run-wavebt-g-region-keyerror", "worker_exception"),
    ],
)
def test_what_follows_one_executors_teardown_is_still_read(job: str, cause: str) -> None:
    assert analyze([_job(job)], model=False).root_cause == cause


def test_a_sigterm_without_the_drivers_command_is_not_a_teardown() -> None:
    stopped = (
        "26/12/04 14:19:46 INFO CoarseGrainedExecutorBackend: Driver commanded a shutdown\n"
        "26/12/04 14:19:47 ERROR CoarseGrainedExecutorBackend: RECEIVED SIGNAL TERM\n"
    )
    assert len(spark_stops([f for ev in parse_text(stopped) for f in facts_of(ev)])) == 1
    # the same signal with no command before it (a node preempted, an operator's kill), or long after it
    assert not spark_stops([f for ev in parse_text(stopped.split("\n", 1)[1]) for f in facts_of(ev)])
    late = stopped.replace("\n26/12/04 14:19:47", "\nrow\nrow\nrow\nrow\n26/12/04 14:19:47")
    assert not spark_stops([f for ev in parse_text(late) for f in facts_of(ev)])
