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


# Where no agent printed its exit (Lightning's SIGTERM handler in every worker, each blocked in gloo on the stopped peer,
# so neither agent's workers died of the signal): wave BW's PyTorch Forecasting and wave CC's PyTorch Tabular runs end
# with the agents' "Received 15 death signal" / "closing signal SIGTERM" lines and nothing after them.
@pytest.mark.parametrize(
    "run", ["run-wavebw-r-rank-stopped", "run-wavecc-y-rank1-stopped", "run-wavecc-y-rank3-stopped-epoch4"]
)
def test_a_log_that_ends_with_the_forwarded_sigterm_had_stuck_workers(run: str) -> None:
    ev = collect([str(LOGS / run / "job.log")], load_rules())
    found = stuck_launcher(ev.facts, ev.tail)
    assert found is not None and "Received 15 death signal" in found.text
    d = analyze([str(LOGS / run / "job.log")], model=False)
    assert d.root_cause == "silent_hang"
    assert "the log ends there" in d.message


def test_a_worker_that_answered_the_sigterm_is_a_preemption(tmp_path: Path) -> None:
    # the same wave's preempted run: every worker's Lightning handler printed "[rank: N] Received SIGTERM: 15"
    ev = collect([str(LOGS / "run-wavecc-y-preempt" / "job.log")], load_rules())
    assert stuck_launcher(ev.facts, ev.tail) is None
    assert analyze([str(LOGS / "run-wavecc-y-preempt" / "job.log")], model=False).root_cause == "job_preempted"
    # an edit of two real logs: the stopped run followed by one worker's answer from the preempted run
    answer = next(
        ln
        for ln in (LOGS / "run-wavecc-y-preempt" / "job.log").read_text().splitlines()
        if ln.startswith("[rank: 0] Received SIGTERM")
    )
    log = tmp_path / "job.log"
    log.write_text((LOGS / "run-wavecc-y-rank1-stopped" / "job.log").read_text() + answer + "\n")
    ev = collect([str(log)], load_rules())
    assert stuck_launcher(ev.facts, ev.tail) is None


def test_a_silent_sighup_is_not_read_as_stuck_workers() -> None:
    # a terminal hang-up ends the job silently too: only SIGTERM's silence says the workers could not act on it
    quiet_hup = LOGS / "run-wavel-a-torchrun-ctr-tee-terminal-closed" / "job.log"
    ev = collect([str(quiet_hup)], load_rules())
    assert stuck_launcher(ev.facts, ev.tail) is None
    assert analyze([str(quiet_hup)], model=False).root_cause == "terminal_hangup"
