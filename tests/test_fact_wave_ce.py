"""Wave CE (real multi-node torchrun/gloo runs of PyTorch Metric Learning 2.9.0 and TorchGeo 0.8.1): one general fact
from its blind misses.

A stop from outside (the scheduler's SIGTERM to the launchers) printed after torchelastic reported a worker's failure
neither explains that failure nor is the chained cause of the exception printed before it
(``diagnose.diagnose``'s ``died_at``): in TorchGeo's runs one node's ranks raised at start-up (Lightning's devices x
num_nodes check; an old kornia on that node's PYTHONPATH), its agent reported exit code 1, and the other node's ranks
waited in DDP's set-up until the scheduler's SIGTERM, which was read ``job_preempted``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize("run", ["run-wavece-y-devices-node-b", "run-wavece-y-old-kornia-node-b"])
def test_a_scheduler_stop_after_a_reported_failure_does_not_explain_it(run: str) -> None:
    d = analyze([str(LOGS / run / "job.log")], model=False)
    assert d.root_cause != "job_preempted"
    assert d.first_failure is not None and "Error" in d.first_failure.text
    assert any(s.root_cause == "job_preempted" for s in d.symptoms)  # kept, as what followed


def test_lightnings_device_check_on_one_node_is_that_nodes_exception() -> None:
    d = analyze([str(LOGS / "run-wavece-y-devices-node-b" / "job.log")], model=False)
    assert d.root_cause == "worker_exception"


@pytest.mark.parametrize("run", ["run-wavece-y-preempt", "run-wavece-x-preempt"])
def test_a_stop_before_any_failure_is_still_a_preemption(run: str) -> None:
    assert analyze([str(LOGS / run / "job.log")], model=False).root_cause == "job_preempted"
