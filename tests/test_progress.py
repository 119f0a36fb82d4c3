"""Per-rank progress (logsleuth/progress.py): which lines are progress, and which rank went silent first."""
from __future__ import annotations

from datetime import datetime

from logsleuth.progress import ProgressTracker, progress_counter, silent_first, typical_step_seconds
from logsleuth.types import Event

# lines as the corpus generators' real runs printed them
TORCHRUN_STEP = "2026-11-21 16:04:03,689 [rank0] INFO train: step 2 loss 8.1598 lr 0.050 elapsed 0.26s"
TRAINER_STEP = ("[2026-11-21 17:42:18,226][trainer][INFO][rank0] - epoch 0 | step 30/120 | loss 4.2953 | lr 2.806e-04 "
                "| grad_norm 1.685 | 19193 tok/s | 106.7 ms/step")
RAY_STEP = ("2026-11-21 16:06:08,921 INFO [rlhf.trainer] train step 2: {'step': 2, 'loss': -0.0293, "
            "'grad_norm': 0.3372, 'reward_mean': 0.474}")
MICRO_STEP = "2026-11-24 23:03:58,431 [rank0] INFO train: step 2 micro 1/2 loss 5.5460"
ANNOUNCE = "2026-11-21 16:04:03,744 [rank1] INFO train: step 3: refreshing dataset shard index"


def test_progress_lines_and_their_counters() -> None:
    assert progress_counter(TORCHRUN_STEP) == (-1, 2, -1)
    assert progress_counter(TRAINER_STEP) == (0, 30, -1)
    assert progress_counter(RAY_STEP) == (-1, 2, -1)
    assert progress_counter(MICRO_STEP) == (-1, 2, 1)
    # a step announced without a metric is not a completed step
    assert progress_counter(ANNOUNCE) is None
    assert progress_counter("[rank0]: RuntimeError: step 3 failed\n  more") is None


def _ev(rank: int, text: str, t: float, level: str = "info") -> Event:
    return Event(line=int(t * 10), end_line=int(t * 10), path="job.log", text=text, rank=rank, level=level,
                 time=datetime(2026, 11, 24, 23, 0, 0).replace(second=int(t) % 60, microsecond=int((t % 1) * 1e6)))


def _tracker(lines: list[tuple[int, str, float]]) -> ProgressTracker:
    tr = ProgressTracker()
    for rank, text, t in lines:
        tr.add(_ev(rank, text, t))
    return tr


def test_a_minority_behind_is_silent_first() -> None:
    lines = []
    for step in range(4):
        for rank in range(3):
            if rank == 2 and step == 3:
                continue  # rank 2 never completes step 3
            lines.append((rank, f"[rank{rank}] INFO train: step {step} loss 1.0 elapsed {step}.0s", step * 1.0))
    tr = _tracker(lines)
    sf = silent_first(tr.ranks)
    assert sf is not None and sf.ranks == (2,) and sf.reason == "behind"
    assert "step 2" in sf.detail and "step 3" in sf.detail
    assert typical_step_seconds(tr.ranks) == 1.0


def test_micro_steps_break_ties_within_a_step() -> None:
    tr = _tracker([(r, f"step 5 micro {m}/3 loss 2.0", m * 0.1) for r in range(4) for m in range(1, 4)
                   if not (r == 1 and m > 1)])
    sf = silent_first(tr.ranks)
    assert sf is not None and sf.ranks == (1,)


def test_no_answer_when_ranks_agree_or_a_majority_is_behind() -> None:
    same = _tracker([(r, "step 4 loss 1.0", 1.0) for r in range(3)])
    assert silent_first(same.ranks) is None
    half = _tracker([(0, "step 4 loss 1.0", 1.0), (1, "step 3 loss 1.0", 1.0), (2, "step 3 loss 1.0", 1.0)])
    assert silent_first(half.ranks) is None  # two of three behind: which one stalled is not told by the logs
    one = _tracker([(0, "step 4 loss 1.0", 1.0)])
    assert silent_first(one.ranks) is None


def test_quiet_rank_named_by_last_line_time() -> None:
    tr = _tracker([(0, "step 4 loss 1.0", 1.0), (1, "step 4 loss 1.0", 1.0), (2, "step 4 loss 1.0", 1.0),
                   (0, "RuntimeError: Timed out waiting 10000ms for recv", 45.0, ),
                   (1, "RuntimeError: Timed out waiting 10000ms for recv", 46.0)])
    sf = silent_first(tr.ranks)
    assert sf is not None and sf.ranks == (2,) and sf.reason == "quiet"
