"""A launch that failed before any worker existed, then a run that trained to its end, is a retried launch.

The store could not bind its port (EADDRINUSE) or the rendezvous never completed: no worker ran, so training printed
after that failure is a later launch's (a shell loop around the launcher). A worker's error before the first step
says nothing of the kind: in a Hydra sweep one job's config error comes first and another job trains to its end.
A script's "finished 3 epochs, ..." is its training loop's last word, as "Training finished." is.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import RunFinished
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("line", "finished"),
    [
        ("finished 3 epochs, val MAE 9.76 loaves", True),
        ("[rank0] finished 2 epochs", True),
        ("Finished 200 steps", True),
        ("Training finished.", True),
        # a count of a larger whole is progress, not the end
        ("finished 3 of 5 epochs", False),
        ("epoch 3 finished 3 epochs of 5", False),
    ],
)
def test_a_scripts_count_of_what_it_finished_is_its_last_word(line: str, finished: bool) -> None:
    facts = [f for ev in parse_text(line) for f in facts_of(ev) if isinstance(f, RunFinished)]
    assert bool(facts) is finished
    assert all(f.by == "script" for f in facts)


def _head(job: str, tmp_path: Path, keep: int) -> str:
    lines = (CORPUS / job / "job.log").read_text(encoding="utf-8").splitlines(keepends=True)
    out = tmp_path / "job.log"
    out.write_text("".join(lines[:keep]), encoding="utf-8")
    return str(out)


def test_a_launch_retried_after_a_port_clash_that_trained_to_its_end_is_healthy(tmp_path: Path) -> None:
    # wave AY: `fabric run`'s torchrun could not bind the port a stale http.server held; the developer's loop ran it
    # again 8 s later, and that launch trained three epochs
    job = "run-waveay-b-fabric-bread-healthy-port-retry"
    diag = analyze([str(CORPUS / job / "job.log")], model=False)
    assert diag.root_cause == "no_failure"
    assert "port_in_use" in {s.root_cause for s in diag.symptoms}
    # the same log cut before the retry trained: the clash is all there is
    lines = (CORPUS / job / "job.log").read_text(encoding="utf-8").splitlines()
    failed = next(i for i, s in enumerate(lines) if "EADDRINUSE" in s)
    assert analyze([_head(job, tmp_path, failed + 1)], model=False).root_cause == "port_in_use"


def test_a_sweep_jobs_error_before_another_job_trained_is_still_the_failure() -> None:
    # wave AR: a Hydra submitit sweep; the adamw job's config error is printed before the adam job's training
    job = "run-wavear-b-hydra-kws-adamw"
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == "worker_exception"
