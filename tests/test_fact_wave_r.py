"""Facts added after wave R (heldout20) was measured blind (27/37 failures, 0/9 healthy flagged): Ray Train's report
of Ctrl-C, PaddlePaddle's fatal-signal report, its DataLoader's SIGBUS report and its GPU allocator's out-of-memory
message. Logs: real runs of corpus/generators/waver_b/ and thread excerpts (corpus/manifest.d/wave-r-*.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import extract, tables
from logsleuth.factlayer.kinds import ProcessExit, SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # rank 0 went into DDP, rank 1 kept printing "waiting for rank 0 to publish the glyph cache", and after 132 s
        # without a timed line the driver printed Ray Train's "Received SIGINT. Gracefully aborting the training run"
        ("run-waver-b-raytrain-glyph-vae-cache-marker-other-dir/job.log", "silent_hang"),
        # PaddlePaddle's allocator: "Out of memory error on GPU 0. Cannot allocate 6.933594GB memory on GPU 0, ..."
        ("gh-PaddlePaddle-PGL-26/node2vec.log", "cuda_oom"),
        # PaddlePaddle's DataLoader, thrown only for a worker's SIGBUS: "It may be caused by insufficient shared
        # storage space" (the pid and signal word printed out of order by that Paddle version)
        ("gh-PaddlePaddle-Paddle-25211/train.log", "shm_exhausted"),
    ],
)
def test_wave_r_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_ray_trains_ctrl_c_report_is_a_sigint_from_the_terminal() -> None:
    # corpus/logs/run-waver-b-raytrain-glyph-vae-cache-marker-other-dir/job.log
    line = (
        "2026-11-28 15:20:12,189\tINFO data_parallel_trainer.py:300 -- Received SIGINT. Gracefully aborting the "
        "training run — this may take a few seconds. To forcefully abort immediately, you can send a different "
        "signal, such as SIGKILL.\n"
    )
    sig = [f for ev in parse_text(line) for f in extract.facts_of(ev) if isinstance(f, SignalFact)]
    assert [(f.signal, f.sender) for f in sig] == [("SIGINT", "terminal")]


def test_paddles_fatal_signal_report_is_a_process_exit() -> None:
    # corpus/logs/gh-PaddlePaddle-PaddleClas-672/train.log
    line = "FatalError: `Segmentation fault` is detected by the operating system.\n"
    exits = [f for ev in parse_text(line) for f in extract.facts_of(ev) if isinstance(f, ProcessExit)]
    assert [(f.signal, f.reporter) for f in exits] == [("SIGSEGV", "paddle")]
    # every word of Paddle's table (paddle/fluid/platform/init.cc SignalErrorStrings), in its handler's format
    for word, name in tables.PADDLE_SIGNAL_WORDS.items():
        text = f"FatalError: `{word}` is detected by the operating system.\n"
        got = [f.signal for ev in parse_text(text) for f in extract.facts_of(ev) if isinstance(f, ProcessExit)]
        assert got == [name], word


def test_a_paddle_segfault_is_read_as_a_native_crash_not_a_python_exception() -> None:
    # The thread settled GPU memory (its corpus label is cuda_oom), which no line of the excerpt shows; what the log
    # shows is a SIGSEGV (Paddle's handler, glog's "*** SIGSEGV (@0x0) received by PID", the shell's "Segmentation
    # fault (core dumped)"), and Paddle's "FatalError:" is its signal report, not an exception the code raised.
    diag = analyze([str(CORPUS / "gh-PaddlePaddle-PaddleClas-672/train.log")], model=False)
    assert diag.root_cause == "native_crash"
