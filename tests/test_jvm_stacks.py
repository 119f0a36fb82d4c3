"""JVM stack traces (``parse/jvm.py``) are one event with the level of the record they were logged under: Spark's
driver logs a handled ``FileNotFoundException`` under a WARN line, which is not the job's failure; an uncaught one is
an error. Lines are from the real Spark runs of ``corpus/generators/waveao_a``."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
SPARK = CORPUS / "run-waveao-a-cluster-lr-healthy" / "job.log"


def _lines(path: Path, start: int, end: int) -> str:
    return "\n".join(path.read_text(encoding="utf-8").splitlines()[start - 1 : end]) + "\n"


def test_a_stack_logged_under_warn_is_one_warning_event() -> None:
    # line 138: "WARN FileStreamSink: Assume no metadata directory. Error while looking for metadata directory in
    # the path: data/scada/*.csv.", then the FileNotFoundException's stack
    events = parse_text(_lines(SPARK, 138, 175))
    stack = next(e for e in events if e.source == "jvm")
    assert stack.level == "warning"
    assert stack.params["exc_type"] == "java.io.FileNotFoundException"
    assert stack.end_line - stack.line > 10  # the frames belong to it
    assert not any(e.text.lstrip().startswith("at org.apache") for e in events)


def test_a_python_exception_line_alone_keeps_its_reading() -> None:
    events = parse_text("step 10 loss 0.3\ntorch.OutOfMemoryError: CUDA out of memory.\nnext\n")
    assert [(e.source, e.level) for e in events][1] == ("python", "error")


def test_the_innermost_cause_is_the_exception() -> None:
    # a standalone Spark driver's stack: corpus/logs/run-waveao-a-cluster-lr-normal-behaviour/job.log
    log = CORPUS / "run-waveao-a-cluster-lr-normal-behaviour" / "job.log"
    events = parse_text(log.read_text(encoding="utf-8"))
    chained = [e for e in events if e.source == "jvm" and len(e.params.get("jvm_causes", [])) > 1]
    assert chained
    assert all(e.params["exc_type"] == e.params["jvm_causes"][-1] for e in chained)


@pytest.mark.parametrize(
    "run", ["cluster-lr-healthy", "cluster-gbt-healthy-port-taken", "ddp-healthy", "standalone-lr-healthy-late-workers"]
)
def test_healthy_spark_runs_are_healthy(run: str) -> None:
    assert analyze([str(CORPUS / f"run-waveao-a-{run}" / "job.log")], model=False).root_cause == "no_failure"


def test_a_spark_task_lost_and_run_again_is_a_retry() -> None:
    # an executor killed from outside (exit 137) mid-fit: Spark's scheduler logs each lost attempt at WARN and runs it
    # again, and the fit finishes (corpus/generators/waveao_a)
    d = analyze([str(CORPUS / "run-waveao-a-cluster-mlp-healthy-executor-lost" / "job.log")], model=False)
    assert d.root_cause == "no_failure"
    assert d.rule_id == "retried-after-failure"
