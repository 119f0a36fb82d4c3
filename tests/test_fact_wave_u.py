"""Facts added after wave U (heldout23) was measured blind (34/41 failures, 1/10 healthy flagged): torchrun restarting
its workers after a failure at start-up (no progress before it), an exception a loop was still handling when the user
pressed Ctrl-C, an installed library refusing an API that moved, and NCCL's NVLS bind failure that names the node's
Fabric Manager. Logs: real runs of corpus/generators/waveu_a/ and waveu_b/, and public threads (manifest notes)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import api_mismatch
from logsleuth.factlayer.kinds import ExceptionFact
from logsleuth.factlayer.reason import handled_when_interrupted
from logsleuth.pipeline import analyze, collect
from logsleuth.recovered import _elastic_restarted
from logsleuth.rules.engine import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
RESTART = "run-waveu-a-torchrun-w2v-healthy-restart-after-corpus-sync/job.log"
LOCK = "run-waveu-a-torchrun-w2v-stale-vocab-lock/job.log"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # both ranks raise FileNotFoundError at start-up, torchrun reports "failed (exitcode: 1)" and, with
        # --max-restarts 1, starts them again (no failure summary); 6 epochs follow and the job exits 0
        (RESTART, "no_failure"),
        # rank 0 polls for a stale lock file (FileExistsError caught, time.sleep) for 75 s until the user's Ctrl-C
        (LOCK, "silent_hang"),
        # a Ray 2.6 AIR script on Ray 2.60: "ValueError: Invalid `ScalingConfig` type: <class
        # 'ray.air.config.ScalingConfig'>. Use `ray.train.ScalingConfig` instead." from ray/train
        ("run-waveu-b-raytrain-triplet-reid-ray-air-session-api/job.log", "library_version_mismatch"),
        # pytorch/pytorch#177472: NCCL 2.29.3 "Failed to bind NVLink SHARP (NVLS) Multicast memory ... Fabric Manager
        # or NVSwitches" on H100 CI runners whose fabric needed a restart
        ("gh-pytorch-pytorch-177472/nvls_bind.log", "gpu_hardware_fault"),
    ],
)
def test_wave_u_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_torchrun_restarted_only_without_its_failure_summary() -> None:
    rules = load_rules()
    assert _elastic_restarted(collect([str(CORPUS / RESTART)], rules))
    # a real torchrun failure: the agent printed "Root Cause (first observed failure)" and raised ChildFailedError
    failed = CORPUS / "gen-torchrun-rank-raises/ws4_rank2_indexerror_tee/job.log"
    assert "Root Cause (first observed failure)" in failed.read_text()
    assert not _elastic_restarted(collect([str(failed)], rules))


def test_the_exception_being_handled_at_the_interrupt_is_not_a_failure() -> None:
    facts = collect([str(CORPUS / LOCK)], load_rules()).facts
    excs = [f for f in facts if isinstance(f, ExceptionFact)]
    handled = handled_when_interrupted(facts)
    (caught,) = [f for f in excs if id(f.event) in handled]
    assert caught.type == "FileExistsError"
    interrupt = next(f for f in excs if f.type == "KeyboardInterrupt" and f.caused_by == "FileExistsError")
    assert interrupt.chained == "context"


def test_an_exception_raised_from_another_is_chained_as_its_cause() -> None:
    # a real Ray Data run: "The above exception was the direct cause of the following exception:"
    facts = collect([str(CORPUS / "run-waves-b-raydata-kge-dump-label-with-tab/job.log")], load_rules()).facts
    chained = [f for f in facts if isinstance(f, ExceptionFact) and f.caused_by]
    assert chained and all(f.chained in ("cause", "context") for f in chained)
    assert any(f.chained == "cause" for f in chained)
    assert not handled_when_interrupted(facts)


def test_a_moved_api_counts_only_when_an_installed_library_says_so() -> None:
    msg = "Invalid `ScalingConfig` type: <class 'ray.air.config.ScalingConfig'>. Use `ray.train.ScalingConfig` instead."
    lib = "/venv/lib/python3.11/site-packages/ray/train/v2/api/data_parallel_trainer.py:126 in __init__"
    assert api_mismatch("ValueError", msg, lib, False)
    assert not api_mismatch("ValueError", msg, "/workspace/train.py:40 in main", True)
