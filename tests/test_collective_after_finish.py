"""A collective that times out or loses its peer after a training loop said it finished is a collective some ranks
never issued (``peer_left.collective_after_finish``): read from the finish fact and the order of lines, whatever
library printed them."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    "log",
    [
        # Lightning's "`Trainer.fit` stopped: `max_epochs=N` reached." then NCCL's watchdog on an ALLREDUCE
        "gh-alan-turing-institute-autocast-381/train.log",
        # a real LightGBM run (corpus/generators/wavean_a): worker 0 early-stops and exits 0, worker 1's next
        # collective sees "Connection reset by peer"
        "run-wavean-a-shell-load-early-stop/job.log",
    ],
)
def test_collective_after_the_loop_finished_is_a_mismatch(log: str) -> None:
    d = analyze([str(CORPUS / log)], model=False)
    assert d.root_cause == "collective_mismatch"
    assert d.rule_id == "collective-after-finish"
    assert any(s.root_cause in ("collective_timeout", "peer_process_died") for s in d.symptoms)


def test_a_timeout_with_no_finish_before_it_stays_a_timeout() -> None:
    # PyTorch's own repro of ranks all-reducing different sizes: nothing says a loop finished, so nothing here changes
    d = analyze([str(CORPUS / "gh-pytorch-pytorch-97066/hang.log")], model=False)
    assert d.root_cause == "collective_timeout"
