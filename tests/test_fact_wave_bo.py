"""Wave BO (``heldout70``: Ray Train V2 and V1 on a multi-node Ray cluster across network namespaces, the Hugging Face
Trainer under multi-node torchrun, threads).

- A loss that ends 10,000-fold above its first value in its last two printed losses is a divergence, where Ray's log
  deduplication left only a few loss lines.
- Ray Tune restoring a failed trial from its checkpoint is a retry, and Ray Train V1's "Training completed after N
  iterations" is the whole run's success; its per-iteration "Training finished iteration N" is no finish.
- Ray Tune's "Training has not started in the last 60 seconds ... not having enough resources" is a scheduling stall,
  the scheduler's later SIGTERM its symptom; two Ray components on one port is ``port_in_use``."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import Fact, RunFinished, WorkRetried
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(line: str) -> list[Fact]:
    return [f for ev in parse_text(line) for f in facts_of(ev)]


def test_a_loss_left_10000_fold_up_in_a_deduplicated_ray_log_is_a_divergence() -> None:
    # Adam's learning rate x1e7 at step 45: "loss 0.6757" twice, then "loss 4162152978143320187052801130496.0000" twice
    # (the other lines folded into "[repeated 35x across cluster]"), and the run exited 0
    diag = analyze([str(CORPUS / "run-wavebo-d-lr-blowup/job.log")], model=False)
    assert diag.root_cause == "training_divergence"


def test_one_high_loss_at_the_end_is_not_yet_a_divergence(tmp_path: Path) -> None:
    # the same reading needs two losses in a row that high at the end: one spike printed last may be a bad batch
    log = tmp_path / "job.log"
    log.write_text("".join(f"epoch 0 step {s} loss {v}\n" for s, v in ((10, 0.69), (20, 0.68), (30, 0.67), (40, 9e5))))
    assert analyze([str(log)], model=False).root_cause == "no_failure"


@pytest.mark.parametrize(
    ("line", "by"),
    [
        ("Training completed after 4 iterations at 2026-12-03 09:56:59. Total running time: 39s", "ray_tune"),
        ("Training completed. Do not forget to share your model on huggingface.co/models =)", "transformers"),
    ],
)
def test_who_said_the_run_finished(line: str, by: str) -> None:
    assert [f.by for f in _facts(line) if isinstance(f, RunFinished)] == [by]


def test_a_ray_train_iteration_report_is_no_finish() -> None:
    assert not [
        f
        for f in _facts("Training finished iteration 2 at 2026-12-03 09:56:57. Total running time: 36s")
        if isinstance(f, RunFinished)
    ]


def test_a_trial_restored_from_its_checkpoint_is_a_retry() -> None:
    line = (
        "(TorchTrainer pid=22968) Restored on 10.72.0.11 from checkpoint: Checkpoint(filesystem=local, "
        "path=/workspace/results/ctr-two-tower/TorchTrainer_ca5d2_00000_0_2026-12-03_09-56-20/checkpoint_000000)"
    )
    assert [f.by for f in _facts(line) if isinstance(f, WorkRetried)] == ["ray_tune_restore"]


def test_a_ray_train_v1_trial_that_failed_once_and_completed_is_healthy() -> None:
    # the trial errored (ConnectionError), Tune restored it from its checkpoint, it completed and the job exited 0
    diag = analyze([str(CORPUS / "run-wavebo-f-healthy-retry/job.log")], model=False)
    assert diag.root_cause == "no_failure"


def test_a_trial_that_never_started_is_a_scheduling_stall_not_the_sigterm() -> None:
    # 4 workers x 1 CPU plus the V1 trainer's own CPU on a 4-CPU cluster; the scheduler's SIGTERM ended the wait
    diag = analyze([str(CORPUS / "run-wavebo-f-trainer-cpu-short/job.log")], model=False)
    assert diag.root_cause == "ray_scheduling_stall"
