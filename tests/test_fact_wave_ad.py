"""Wave AD (``heldout33``), measured blind (32/34 failures, 0/9 healthy flagged): the fact added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_a_node_drain_seen_only_in_the_ranks_own_handlers() -> None:
    # a real DeepSpeed run: "rank 0: received SIGTERM, will checkpoint and exit after this step" from both ranks in
    # one second, then the launcher killing its subprocesses; no failure before
    log = CORPUS / "run-wavead-a-deepspeed-denoiser-node-drain/job.log"
    assert analyze([str(log)], model=False).root_cause == "job_preempted"


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("04:01:50 rank 0: received SIGTERM, will checkpoint and exit after this step", True),
        ("[rank1] train: received SIGTERM at step 659", True),
        # Ray's raylet at a normal shutdown names no rank
        (
            "[2026-11-21 16:05:43,468 I 72 72] (raylet) main.cc:1174: received SIGTERM. Existing local drain request = None",
            False,
        ),
        ("the frank 3: received SIGTERM", False),
    ],
)
def test_a_ranks_own_sigterm_line(line: str, found: bool) -> None:
    got = [f for ev in parse_text(line + "\n") for f in facts_of(ev) if isinstance(f, SignalFact)]
    assert bool(got) is found
