"""A progress bar draws its frames with ``\\r`` and no newline, so the next line any code prints lands after the
bar's last frame on the same physical line: "...| 57.89% [22/38 00:01<00:00... 0.6609][2026-12-04 13:35:17] [rank0]
step   60 | ... | 57 ms/step". The reader gives the line that was printed, without the frame, so its own time, rank
and level are read (``read.unglue_bar``). The lines are real corpus lines (a fastai run here, and two LLaMA-Factory
threads' pastes, where the ``\\r`` was lost in pasting)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze
from logsleuth.read import clean_line

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
STOPPED = CORPUS / "logs/run-wavebs-e-rank-stopped/job.log"


def _raw(rel: str, number: int) -> bytes:
    return (CORPUS / rel).read_bytes().split(b"\n")[number - 1]


@pytest.mark.parametrize(
    ("rel", "number", "start"),
    [
        # fastprogress (fastai) frames redrawn with \r, then the training script's own dated record
        ("logs/run-wavebs-e-rank-stopped/job.log", 35, "[2026-12-04 13:35:17] [rank0] step   60 |"),
        # a tqdm frame cut short by DeepSpeed's dated record (two writers at once), pasted without the \r
        ("logs/gh-hiyouga-LlamaFactory-251/train.log", 6, "[2023-07-26 15:17:17,349] [INFO] [loss_scaler.py:183"),
        # torchrun's glog-headed warning after a tqdm frame
        ("logs/gh-hiyouga-LlamaFactory-9695/train_qwen3vl_think.log", 13, "W1229 16:43:25.650000 190834 "),
    ],
)
def test_the_line_printed_after_a_bar_frame_is_read_without_the_frame(rel: str, number: int, start: str) -> None:
    raw = _raw(rel, number)
    assert b"%|" in raw or b"% [" in raw  # the physical line does start with a bar frame
    assert clean_line(raw).startswith(start)


@pytest.mark.parametrize(
    "raw",
    [
        # a frame with tqdm's postfix, nothing glued: left whole
        " 50%|\u2588\u2588\u2588\u2588\u2588     | 5/10 [00:01<00:01,  3.21it/s, loss=0.31]".encode(),
        # text after the frame that does not start a line of its own stays with it
        " 50%|\u2588\u2588\u2588\u2588\u2588     | 5/10 [00:01<00:01,  3.21it/s] done".encode(),
        # a table row with a percentage is not a bar
        "| accuracy | 91.2% | \u2713 |".encode(),
    ],
)
def test_a_line_with_no_glued_record_is_left_as_it_was(raw: bytes) -> None:
    assert clean_line(raw) == raw.decode()


def test_a_glued_progress_record_dates_the_stopped_ranks_last_step() -> None:
    # rank 0's dated step records all sit after fastai's bar frames; the job was ended by an outside SIGTERM 97 s
    # after the last of them while its steps took ~55 ms: a stall, not a preemption of a running job
    d = analyze([str(STOPPED)], model=False)
    progress = d.ranks["progress"]["0"]
    assert (progress["step"], progress["time"]) == (60, "2026-12-04T13:35:17")
    assert d.root_cause == "silent_hang"
