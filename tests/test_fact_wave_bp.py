"""Wave BP (``heldout71``: TRL's GRPOTrainer under multi-node ``accelerate launch`` and plain PyTorch FSDP2 under
multi-node torchrun, across network namespaces).

- A job whose progress is a tqdm bar and untimed metric dicts stopped moving when its bars stopped: the bar's elapsed
  time, anchored by the next timed line, says when; a scheduler's SIGTERM long after is the symptom of a hang.
- The Hugging Face explicit log format (``[INFO|trainer.py:4309] 2026-12-03 17:04:49,229 >> ...``) is a timed line.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from logsleuth.bar_clock import BarClock
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def test_the_hugging_face_explicit_format_is_a_timed_line() -> None:
    (ev,) = parse_text(
        "[INFO|trainer.py:4309] 2026-12-03 16:56:22,686 >> Saving model checkpoint to outputs/grpo-arith/checkpoint-20"
    )
    assert ev.time == datetime(2026, 12, 3, 16, 56, 22, 686000)
    assert ev.level == "info"


def test_a_bar_frame_anchored_by_the_next_timed_line_bounds_when_it_moved() -> None:
    # a tqdm frame 20 s into its bar, then a timed line at 17:05:00: the bar started by 17:04:40, so its frame was
    # drawn by 17:05:00 at the latest, at the rate printed (3.44 it/s)
    clock = BarClock()
    for ev in parse_text(
        " 70/600 [00:20<02:32,  3.44it/s]\n"
        "[INFO|trainer.py:4309] 2026-12-03 17:05:00,000 >> Saving model checkpoint to outputs/grpo-arith/checkpoint-70"
    ):
        clock.add(ev)
    moved = clock.last_moved(lambda t: t)
    assert moved is not None
    assert moved.time == datetime(2026, 12, 3, 17, 5, 0)
    assert moved.step_s == pytest.approx(1 / 3.44)


def test_a_bar_frame_no_timed_line_follows_has_no_known_time() -> None:
    clock = BarClock()
    for ev in parse_text(
        "[INFO|trainer.py:2519] 2026-12-03 17:04:49,229 >> ***** Running training *****\n 70/600 [00:20<02:32,  3.44it/s]"
    ):
        clock.add(ev)
    assert clock.last_moved(lambda t: t) is None


@pytest.mark.parametrize(
    "job",
    [
        # TRL GRPO: rank 3 SIGSTOPped at step 10 of 600; the scheduler's SIGTERM 98 s later ended the job
        "run-wavebp-d-rank-stopped",
        # the Hugging Face Trainer under multi-node torchrun, one rank stopped the same way
        "run-wavebo-e-rank-stopped",
        # Ray Train (wave BJ): the world-rank-1 worker SIGSTOPped after its checkpoint reports, then the scheduler
        "run-wavebj-c-ray-rank-stopped",
    ],
)
def test_a_sigterm_long_after_the_bars_stopped_is_a_hang(job: str) -> None:
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == "silent_hang"


@pytest.mark.parametrize(
    ("job", "cause"),
    [
        # the same job, the SIGTERM arriving while the bars still moved: the scheduler's signal is the cause
        ("run-wavebp-d-preempt", "job_preempted"),
        ("run-wavebp-d-terminal-hup", "terminal_hangup"),
    ],
)
def test_a_signal_while_the_bars_move_is_the_cause(job: str, cause: str) -> None:
    assert analyze([str(CORPUS / job / "job.log")], model=False).root_cause == cause


def test_the_reader_parses_only_the_last_bar_frames_of_a_block() -> None:
    # the TRL job's tqdm line (its frames redrawn with \r, folded into one line by the reader) and the lines after:
    # only the line holding the last frame of the block is wanted, and its last frame is what the clock reads
    pytest.importorskip("re2")
    from logsleuth.rules.linegate import _tap_bars

    block = (CORPUS / "run-wavebp-d-rank-stopped/job.log").read_bytes()
    kept = _tap_bars(block)
    assert kept
    lines = {block.count(b"\n", 0, at) + 1 for at in kept}
    last_frame_line = max(i for i, line in enumerate(block.split(b"\n"), 1) if b"/600 [" in line and b"it/s]" in line)
    assert lines == {last_frame_line}
