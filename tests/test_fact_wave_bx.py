"""Wave BX (``heldout79``): real multi-node runs of SpeechBrain, Opacus, MosaicML Streaming and timm's train.py,
measured blind before any change for them (docs/history.md, "Fresh batches"). What their misses showed that is general, tested
on their logs and on edits of them that change only the fact in question:

- a running elapsed figure on untimed progress lines ("epoch 0 step 150: loss 0.0687 acc 0.818 (10.4s)") and an
  epoch's printed duration ("[rank1] epoch 1 done: ... in 3.4s") date the last step (``progress._elapsed_clock``,
  ``progress._epoch_clock``), so a rank SIGSTOPped long before the scheduler's SIGTERM reads as a stall;
- an AttributeError on a library's object raised where one installed package called another (HyperPyYAML over a
  newer ruamel.yaml on one node's PYTHONPATH) is two releases that do not go together
  (``factlayer.extract.attribute_between_packages``).
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from logsleuth.factlayer.extract import attribute_between_packages
from logsleuth.pipeline import analyze
from logsleuth.progress import _ELAPSED, _EPOCH_TOOK, ProgressTracker, step_clock
from logsleuth.types import Event

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
RUAMEL = LOGS / "run-wavebx-t-ruamel019-node-b/job.log"
OPACUS_STOPPED = LOGS / "run-wavebx-u-rank1-stopped/job.log"
OPACUS_PREEMPTED = LOGS / "run-wavebx-u-preempt/job.log"
STREAMING_STOPPED = LOGS / "run-wavebx-v-rank1-stopped/job.log"
STREAMING_PREEMPTED = LOGS / "run-wavebx-v-preempt/job.log"


def _edited(tmp_path: Path, src: Path, old: str, new: str) -> Path:
    text = src.read_text(encoding="utf-8")
    assert old in text
    out = tmp_path / "job.log"
    out.write_text(text.replace(old, new), encoding="utf-8")
    return out


def test_an_attribute_missing_between_two_installed_packages_is_a_version_mismatch() -> None:
    # train.py -> hyperpyyaml (venv) -> yaml (system site-packages) -> ruamel.yaml 0.19 (node b's PYTHONPATH):
    # "'Loader' object has no attribute 'max_depth'"
    d = analyze([str(RUAMEL)], model=False)
    assert d.root_cause == "library_version_mismatch"
    assert "max_depth" in d.message


def test_the_same_error_raised_in_the_scripts_own_package_is_the_users_bug(tmp_path: Path) -> None:
    # the ruamel copy moved below the script's own directory: the frames that raise are the job's own code
    edited = _edited(tmp_path, RUAMEL, "/tmp/bx-t-pydeps/", "/tmp/wavebx-t-job/run/")
    d = analyze([str(edited)], model=False)
    assert d.root_cause == "worker_exception"


def test_none_handed_to_a_library_stays_a_worker_exception(tmp_path: Path) -> None:
    edited = _edited(tmp_path, RUAMEL, "'Loader' object has no", "'NoneType' object has no")
    d = analyze([str(edited)], model=False)
    assert d.root_cause == "worker_exception"


def _frames(*files: str) -> list[dict[str, object]]:
    return [{"file": f, "line": 1, "func": "f"} for f in files]


@pytest.mark.parametrize(
    ("files", "between"),
    [
        # the user's own model.foo on a DDP-wrapped module: torch's Module.__getattr__ right under the script
        (("/w/train.py", "/venv/lib/python3.11/site-packages/torch/nn/modules/module.py"), False),
        # one package's own code all the way down: its bug, or the user's arguments
        (
            (
                "/w/train.py",
                "/venv/lib/python3.11/site-packages/pkg/a.py",
                "/venv/lib/python3.11/site-packages/pkg/b.py",
            ),
            False,
        ),
        # a user callback between the packages (a Dataset's __getitem__ under the DataLoader)
        (
            (
                "/w/train.py",
                "/venv/lib/python3.11/site-packages/torch/utils/data/dataloader.py",
                "/w/data.py",
                "/venv/lib/python3.11/site-packages/numpy/core/fromnumeric.py",
            ),
            False,
        ),
        (
            (
                "/w/train.py",
                "/venv/lib/python3.11/site-packages/transformers/trainer.py",
                "/venv/lib/python3.11/site-packages/accelerate/accelerator.py",
            ),
            True,
        ),
    ],
)
def test_which_tracebacks_run_between_packages(files: tuple[str, ...], between: bool) -> None:
    assert attribute_between_packages(_frames(*files), "'Accelerator' object has no attribute 'x'") is between


def test_an_epochs_printed_duration_dates_a_rank_stopped_long_before_the_scheduler() -> None:
    # Opacus: one epoch in 3.4 s, then "epoch 2 step 8" and nothing for ~44 s until the scheduler's SIGTERM
    d = analyze([str(OPACUS_STOPPED)], model=False)
    assert d.root_cause == "silent_hang"
    gap = d.ranks["stall"]["gap_seconds"]
    assert gap is not None and 40 <= gap <= 48


def test_the_same_stop_two_seconds_after_the_printed_epoch_is_no_stall_by_the_clock(tmp_path: Path) -> None:
    edited = _edited(tmp_path, OPACUS_STOPPED, "W1205 03:19:26", "W1205 03:18:44")
    d = analyze([str(edited)], model=False)
    assert not d.ranks["stall"]["stalled"]
    # the clock sees no stall; the stopped rank's torchrun agent, which the edit left as it was, still never finished
    # its shutdown while the other agent did (``hang.stuck_launcher``)
    assert d.root_cause == "silent_hang" and "never finished shutting down" in d.message


def test_a_running_elapsed_figure_dates_a_rank_stopped_long_before_the_scheduler() -> None:
    # MosaicML Streaming: "(10.4s)" at step 150, the SIGTERM 65 s after the ranks' last start-up line
    d = analyze([str(STREAMING_STOPPED)], model=False)
    assert d.root_cause == "silent_hang"
    gap = d.ranks["stall"]["gap_seconds"]
    assert gap is not None and 50 <= gap <= 60


@pytest.mark.parametrize("log", [OPACUS_PREEMPTED, STREAMING_PREEMPTED])
def test_jobs_stopped_while_their_clocks_kept_up_stay_preempted(log: Path) -> None:
    d = analyze([str(log)], model=False)
    assert d.root_cause == "job_preempted"
    assert d.ranks["stall"]["stalled"] is False


def _clock_of(texts: list[str]) -> float:
    tr = ProgressTracker()
    start = datetime(2026, 12, 5, 3, 0, 0)
    for i, text in enumerate(texts, 2):
        tr.add(Event(line=i, end_line=i, path="job.log", text=text), start)  # the last timed line before it
    clock = step_clock([*tr.ranks.values(), *tr.unranked.values()])
    assert clock is not None
    return clock.accounted_s


def test_a_running_figure_counts_once_and_restarts_add_up() -> None:
    # cumulative within an epoch (1.1 ... 3.1), then the loop restarts its count: 3.1 + 2.0
    lines = [f"epoch 0 step {s}: loss 1.0 ({t}s)" for s, t in ((10, 1.1), (20, 1.8), (30, 2.4), (40, 3.1))]
    lines += [f"epoch 1 step {s}: loss 1.0 ({t}s)" for s, t in ((10, 0.7), (20, 1.4), (30, 2.0))]
    assert _clock_of(lines) == pytest.approx(5.1)


def test_a_figure_printed_per_line_is_summed() -> None:
    # each line's own duration (not a running figure): 0.70 + 0.72 + 0.69 + 0.71
    lines = [f"step {s} loss 1.0 ({t}s)" for s, t in ((10, 0.70), (20, 0.72), (30, 0.69), (40, 0.71))]
    assert _clock_of(lines) == pytest.approx(2.82)


@pytest.mark.parametrize(
    ("line", "seconds"),
    [
        ("[rank1] epoch 1 done: mean loss 2.3080, acc 0.116, (epsilon = 1.976, delta = 1e-05) in 3.4s", 3.4),  # wave BX
        ("epoch 1 done in 3.4s: val loss 0.5754 val AUC 0.6773", 3.4),  # wave AS's DLRover job
        ("Epoch 3 took 12.5 s", 12.5),
        ("Epoch 2 finished in 35.2s", 35.2),
        ("epoch 4 loss 0.3 epoch time: 12s", 12.0),
        ("epoch 0 done: mean loss 4.7574 (1.0 s), saved checkpoints/simclr-epoch1.pt", 1.0),  # wave BZ's Lightly job
        ("epoch 2 done (loss 0.41), saved checkpoints/epoch2.pt", None),  # a bracket without a unit: no duration
        ("epoch 3: checkpoint saved in 0.5s", None),  # a save's duration, not the epoch's
        ("{'loss': 0.5, 'epoch': 1.0, 'train_runtime': 12.3}", None),  # HF Trainer's dict: no unit
    ],
)
def test_an_epoch_line_prints_its_duration(line: str, seconds: float | None) -> None:
    m = _EPOCH_TOOK.search(line)
    assert (None if m is None else float(m[2])) == seconds


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("epoch 0 step 150: loss 0.0687 acc 0.818 (10.4s)", True),
        ("step 40 loss 1.2 elapsed: 63.2s", True),
        ("step 40 loss 1.2 elapsed 0:01:03", True),
        ("step 40 loss 1.2 (lr 0.1)", False),
    ],
)
def test_a_progress_line_prints_a_running_figure(line: str, found: bool) -> None:
    assert (_ELAPSED.search(line) is not None) is found
