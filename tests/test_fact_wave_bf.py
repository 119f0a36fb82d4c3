"""Wave BF (``heldout61``: real runs under DeepSpeed's launcher over pdsh, ``torch.distributed.pipelining`` under
torchrun and an OpenRLHF/verl-style PPO loop on Ray, plus three issue threads), measured blind before any change for
it: what was changed for its misses.

A SIGBUS after the job's progress had counted a second epoch is a memory-mapped file that changed under it, not
shared memory too small (which fails in the first epoch); a driver's own "placement group ... not ready" timeout is a
placement group that was never scheduled; the raylet's report of a dead worker followed by the driver's progress and
the job's "training finished" is a worker Ray replaced; pytest's "N passed in Xs" summary is a finished run, and the
vLLM workers it then terminates are its teardown."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import _family, facts_of
from logsleuth.factlayer.kinds import ProcessExit, RunFinished
from logsleuth.parse import parse
from logsleuth.pipeline import analyze, collect
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # the token shard torch.save'd as .npy and memory-mapped, truncated in place in epoch 2 (wavebf_b, wavebf_a)
        ("run-wavebf-b-codegpt-shard-rewritten/job.log", "native_crash"),
        ("run-wavebf-a-tickets-tokens-rewritten/job.log", "native_crash"),
        # the same in a DataLoader worker, whose own message hedges "insufficient shared memory" (wave BE)
        ("run-wavebe-b-promoter-seqs-rewritten/job.log", "native_crash"),
        # shared memory too small fails in the first epoch: it stays shared memory
        ("gh-tloen-alpaca-lora-338/torchrun.log", "shm_exhausted"),
        ("run-waveaj-a-torchrun-har-shared-memory-cache/job.log", "shm_exhausted"),
        # the driver's own wait on pg.ready() ran out (wavebf_c)
        ("run-wavebf-c-tutor-pg-pending/job.log", "ray_scheduling_stall"),
        # the RewardWorker was SIGKILLed, Ray restarted it, the run trained on to "training finished" (wavebf_c)
        ("run-wavebf-c-tutor-healthy-reward-restarted/job.log", "no_failure"),
        # a trainer actor SIGKILLed whose death the driver got (ActorDiedError): not replaced
        ("run-wavebf-c-tutor-trainer-killed/job.log", "host_oom_killed"),
        # pytest's "5 passed", then vLLM's shutdown terminating its workers (exit code -15)
        ("gh-vllm-project-vllm-6234/lora_long_context_tp_master.log", "no_failure"),
    ],
)
def test_wave_bf_logs_by_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_a_signalled_exit_carries_the_epochs_counted_before_it() -> None:
    evidence = collect([str(CORPUS / "run-wavebf-b-codegpt-shard-rewritten/job.log")], load_rules())
    sigbus = [f for f in evidence.facts if isinstance(f, ProcessExit) and f.signal == "SIGBUS"]
    assert sigbus and {f.epochs_before for f in sigbus} == {2}


def test_epochs_need_a_counter_with_its_total(tmp_path: Path) -> None:
    # "epochs: 4" in a config and "epoch 1" with no total count nothing; only the first epoch was counted
    text = (
        "config {'epochs': 4, 'lr': 0.1}\n"
        "epoch 1 starting\n"
        "iter 2: epoch 1/4, loss 4.6141\n"
        "train.py FAILED\n"
        "  exitcode  : -7 (pid: 32375)  (SIGBUS)\n"
        "  traceback : Signal 7 (SIGBUS) received by PID 32375\n"
    )
    path = tmp_path / "job.log"
    path.write_text(text)
    evidence = collect([str(path)], load_rules())
    sigbus = [f for f in evidence.facts if isinstance(f, ProcessExit) and f.signal == "SIGBUS"]
    assert sigbus and {f.epochs_before for f in sigbus} == {1}


@pytest.mark.parametrize(
    ("message", "family"),
    [
        ("placement group for 2 trainers was not ready after 40s; cluster resources: {'CPU': 4.0}", "placement"),
        ("Placement group creation timed out. Make sure your cluster either has enough resources", "placement"),
        ("Timed out waiting 20000ms for recv operation to complete", ""),
        ("Using the existing placement group", ""),
    ],
)
def test_a_placement_group_wait_that_ran_out_is_placement(message: str, family: str) -> None:
    assert _family("TimeoutError", "", message, None) == family


@pytest.mark.parametrize(
    ("line", "finished"),
    [
        ("=============== 5 passed in 525.85s (0:08:45) ===============", True),
        ("===== 12 passed, 3 warnings in 10.02s =====", True),
        ("===== 1 failed, 4 passed in 30.11s =====", False),
        ("===== 4 passed, 1 error in 30.11s =====", False),
        ("tests/test_x.py::test_y PASSED", False),
    ],
)
def test_pytests_summary_with_nothing_failed_is_a_finished_run(line: str, finished: bool) -> None:
    facts = [f for ev in parse(enumerate([line], 1), "job.log") for f in facts_of(ev)]
    assert any(isinstance(f, RunFinished) and f.by == "pytest" for f in facts) is finished
