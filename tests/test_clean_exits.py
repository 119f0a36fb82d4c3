"""A launcher's report that a process exited with status 0 is a ``ProcessExit`` with code 0 (``extract._GENERIC_EXIT``),
and when every process it started exited so, an answer read from a printed exception does not stand
(``recovered.all_exited_cleanly``): the job's own status says it did its work. Logs from the real Hivemind runs of
``corpus/generators/waveao_b``."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_a_clean_exit_report_is_a_process_exit_with_code_zero() -> None:
    (ev,) = parse_text("launch.sh: peer 0 exited with status 0\n")
    (f,) = [f for f in facts_of(ev) if isinstance(f, ProcessExit)]
    assert (f.code, f.signal, f.task, f.reporter) == (0, None, 0, "launcher")


@pytest.mark.parametrize("run", ["shell-ss-healthy", "shell-ss-healthy-late-joiner", "dht-ss-healthy-local-updates"])
def test_shutdown_tracebacks_with_every_peer_exiting_zero_are_healthy(run: str) -> None:
    # Hivemind's DHT process prints "[Errno 2] No such file or directory" from its closed pipe at shutdown
    d = analyze([str(CORPUS / f"run-waveao-b-{run}" / "job.log")], model=False)
    assert d.root_cause == "no_failure"
    assert d.rule_id == "all-exited-cleanly"


def test_a_worker_that_exited_non_zero_keeps_the_failure() -> None:
    # LightGBM (corpus/generators/wavean_a): worker 0 exited with status 0, worker 1 with status 1
    d = analyze([str(CORPUS / "run-wavean-a-shell-load-early-stop" / "job.log")], model=False)
    assert d.verdict == "failure"


def test_a_sigkill_after_the_users_interrupt_is_the_users() -> None:
    # MLX (corpus/generators/waveao_c): rank 0 waits on an "overwrite? [y/N]" prompt, the user presses Ctrl-C
    # (mlx.launch's KeyboardInterrupt), then kills the launcher: bash's "Killed" is the user's kill -9
    d = analyze([str(CORPUS / "run-waveao-c-ring-strokes-rerun-same-dir" / "job.log")], model=False)
    assert d.root_cause == "silent_hang"
    assert any(s.root_cause == "host_oom_killed" for s in d.symptoms)
