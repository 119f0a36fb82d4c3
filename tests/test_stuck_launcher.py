"""A torchrun agent that forwarded the scheduler's signal and never finished (``hang.stuck_launcher``).

Real runs of waves BU, BV and CA: one rank SIGSTOPped mid-training, the scheduler's SIGTERM 80 s later, SIGKILL 15 s
after that. Every agent logs "Received 15 death signal" and sends its workers "closing signal SIGTERM"; the agent
whose worker is stopped waits for it and is killed before it raises ``SignalException``, while the other agent raises
its own. The preempted and hung-up runs of the same waves (nothing stopped) have every agent's exit, some of them
interleaved line by line on one console.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.hang import stuck_launcher
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.engine import load_rules

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    "run",
    [
        "run-waveca-x-rank-stopped",
        "run-waveca-y-rank1-stopped",
        "run-waveca-z-rank1-stopped",
        "run-wavebu-j-rank-stopped",
        "run-wavebv-l-rank1-stopped",
    ],
)
def test_a_stopped_rank_keeps_its_agent_from_exiting(run: str) -> None:
    d = analyze([str(LOGS / run / "job.log")], model=False)
    assert d.root_cause == "silent_hang"
    assert d.first_failure is not None and "death signal" in d.first_failure.text
    assert "never finished shutting down" in d.message


@pytest.mark.parametrize(
    ("run", "cause"),
    [
        ("run-waveca-x-preempt", "job_preempted"),
        ("run-waveca-y-preempt", "job_preempted"),
        ("run-wavebw-o-preempt", "job_preempted"),  # the two agents' tracebacks interleaved into one block
        ("run-wavebu-i-terminal-hup", "terminal_hangup"),
        ("run-wavebu-j-terminal-hup", "terminal_hangup"),  # one agent's "Process N got signal: 1" on a line of its own
    ],
)
def test_every_agent_exited_so_nothing_was_stuck(run: str, cause: str) -> None:
    ev = collect([str(LOGS / run / "job.log")], load_rules())
    assert stuck_launcher(ev.facts, ev.tail) is None
    assert analyze([str(LOGS / run / "job.log")], model=False).root_cause == cause


def test_one_agent_alone_is_no_evidence(tmp_path: Path) -> None:
    # the stopped run with the agent that did exit (pid 21190) taken out, an edit of the real log: with no other agent's
    # exit nothing says the log holds the shutdown's end, so the missing exit may be a cut log
    src = (LOGS / "run-waveca-x-rank-stopped" / "job.log").read_text().splitlines()
    cut = [ln for ln in src if " 21190 " not in ln and "Process 21190" not in ln]
    log = tmp_path / "job.log"
    log.write_text("\n".join(cut) + "\n")
    ev = collect([str(log)], load_rules())
    assert stuck_launcher(ev.facts, ev.tail) is None
