"""``NumericTail.add`` takes the progress counter ``ProgressTracker.add`` already parsed (one parse per loss line) and
ends in the same state as parsing the line itself, on real runs' logs (corpus generators/fresh: torchrun/DeepSpeed/
Accelerate runs here whose loss went NaN/Inf)."""
from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth import progress
from logsleuth.factlayer.reason import FactStream
from logsleuth.numeric_tail import NumericTail
from logsleuth.parse import parse
from logsleuth.progress import NOT_COUNTED, ProgressTracker
from logsleuth.read import iter_lines

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize("name", [
    "fresh-torchrun-nan-unchecked", "fresh-torchrun-inf-batch", "fresh-deepspeed-nan", "fresh-accelerate-nan",
])
def test_shared_counter_gives_the_same_tail_with_one_parse_per_line(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(LOGS / name / "job.log")
    events = list(parse(iter_lines(path), path))
    stream = FactStream()
    facts = [stream.facts(ev, {}) for ev in events]

    alone = NumericTail()
    for ev, fs in zip(events, facts):
        alone.add(ev, fs)

    calls: list[str] = []
    real = progress.progress_counter

    def counting(text: str, shape: bytes | None = None):
        calls.append(text)
        return real(text, shape)

    monkeypatch.setattr(progress, "progress_counter", counting)
    monkeypatch.setattr("logsleuth.numeric_tail.progress_counter", counting)
    tracker, shared = ProgressTracker(), NumericTail()
    parsed_loss_lines = 0
    for ev, fs in zip(events, facts):
        calls.clear()
        counter = tracker.add(ev) if ev.rank is not None else NOT_COUNTED
        shared.add(ev, fs, counter)
        whole = calls.count(ev.text)
        assert whole <= 1, ev.text  # the event's whole text parsed at most once for both
        parsed_loss_lines += whole and "loss" in ev.text.lower()

    assert parsed_loss_lines > 0
    assert alone.last_loss and (shared.last_loss, shared.last_bad, shared.floor) == (
        alone.last_loss, alone.last_bad, alone.floor)
    assert shared.recovered() == alone.recovered()
