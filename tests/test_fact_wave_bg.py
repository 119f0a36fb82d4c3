"""Wave BG (``heldout62``: real runs of Lightning DDP under its own launcher and torchrun, DTensor tensor parallelism
with FSDP2 under torchrun, HF Accelerate with the Trainer, torchtune, and DDP with sparse embedding tables, plus issue threads), measured blind
before any change for it: what was changed for its misses.

A SIGBUS after the job had counted a second epoch is read as a memory-mapped file changing under it
(``sigbus-after-a-whole-epoch``); the epochs are now also counted from progress lines that state no epoch total
("epoch 2 step 20/61 train_loss=...", Lightning's ``ModelCheckpoint`` line, mmengine's "Epoch(train) [2][10/30]").
A traceback that ``logger.exception`` printed under a record naming a rank is that rank's, so a caught exception the
ranks all trained on from is read as such (``recovered._logged_by``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.pipeline import analyze, collect
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # Lightning DDP: the memory-mapped training windows truncated during epoch 2, the shell's "Bus error" (wavebg_a)
        ("run-wavebg-a-load-windows-rewritten/job.log", "native_crash"),
        # mmengine under torchrun: a memory-mapped shard rewritten in epoch 2, torchrun's exitcode -7 (wave BD)
        ("run-wavebd-c-leaf-shard-rewritten/job.log", "native_crash"),
        # shared memory too small still fails in the first epoch and stays shared memory
        ("gh-tloen-alpaca-lora-338/torchrun.log", "shm_exhausted"),
        # "[rank0] ERROR ... falling back" and the traceback logger.exception printed under it (its lines name no
        # rank): both ranks then trained 3 epochs, exit 0 (wavebg_e)
        ("run-wavebg-e-songs-healthy-backend-fallback/job.log", "no_failure"),
        # a Hydra sweep's job whose traceback follows a line naming no rank, while the other job's ranks trained on:
        # whose process went on is unknown, and the failed job stays the answer (wave AR)
        ("run-wavear-b-hydra-kws-adamw/job.log", "worker_exception"),
    ],
)
def test_wave_bg_logs_by_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _sigbus_epochs(tmp_path: Path, text: str) -> set[int | None]:
    path = tmp_path / "job.log"
    path.write_text(text)
    evidence = collect([str(path)], load_rules())
    return {f.epochs_before for f in evidence.facts if isinstance(f, ProcessExit) and f.signal == "SIGBUS"}


EXIT = "bash: line 1: 14165 Bus error               python train.py fit --config config.yaml\n"


def test_epochs_count_from_progress_lines_without_a_total(tmp_path: Path) -> None:
    text = (
        "epoch 0 step 60/61 train_loss=0.0121\n"
        "Epoch 0, global step 61: 'val_loss' reached 0.01444 (best 0.01444), saving model to 'ckpt/a.ckpt' as top 2\n"
        "epoch 1 step 20/61 train_loss=0.0052\n" + EXIT
    )
    assert _sigbus_epochs(tmp_path, text) == {2}


def test_epoch_words_without_a_step_and_a_metric_count_nothing(tmp_path: Path) -> None:
    # a config's max_epochs, an announcement and an evaluation loop's own counter are not training progress
    text = (
        "trainer: {'max_epochs': 4, 'lr': 0.1}\n"
        "epoch 1 starting\n"
        "Epoch(val) [2][4/4]    leaf/accuracy: 25.8333  data_time: 0.0144  time: 0.1259\n"
        "epoch 0 step 20/61 train_loss=0.0348\n" + EXIT
    )
    assert _sigbus_epochs(tmp_path, text) == {1}
