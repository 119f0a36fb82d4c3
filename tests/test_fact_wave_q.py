"""Facts added after wave Q (heldout19) was measured blind (24/32 failures, 1/9 healthy flagged): a trainer's own rank
tag in its message ("[rank 0]", "[rank: 1]", "[rank 2/3]", "| rank 0/3 |"), the SIGTERM a rank announces in other
words, the time slurmstepd states for a cancel (the job's end), Ray's pending demands explaining a store timeout, ESPnet's
non-finite grad-norm checks, and a cloud's termination notice. Logs: real runs of corpus/generators/waveq_a/ and
waveq_b/ and thread excerpts (corpus/manifest.d/wave-q-*.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth import pipeline
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze
from logsleuth.rules import load_rules
from logsleuth.shutdown_hang import job_end

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # both ranks: "[rank0] received signal SIGTERM: will checkpoint after this step and exit", nothing failed
        ("run-waveq-a-deepspeed-ddpm-node-drain-sigterm/job.log", "job_preempted"),
        # "[rank 0] SIGTERM received: saving a checkpoint ...", then mp.spawn's "terminated with exit code 143"
        ("run-waveq-b-hf-trainer-tinygpt-dpo-spot-sigterm/job.log", "job_preempted"),
        # rank 0 blocked opening a FIFO; output stopped 77 s before "*** JOB 3 ON vm CANCELLED AT 2026-11-28T13:16:21"
        ("run-waveq-a-slurm-ddpm-preview-fifo-no-viewer/job.log", "silent_hang"),
        # a third actor never got a CPU: the two others' store wait timed out; `ray status` shows the pending demand
        ("run-waveq-b-rayactors-tinygpt-dpo-three-ranks-two-cpus/job.log", "ray_scheduling_stall"),
        # "WARNING: The grad norm is nan. Skipping updating the model." ... "The gradients at all steps are invalid"
        ("gh-espnet-espnet-3630/asr_train.log", "training_divergence"),
        # Ray Train v2: "[FailurePolicy] RETRY" ... "Error count: 1 (max allowed: 1)", the worker group restarted
        # from the step-60 checkpoint and went on to step 180 (Ray's "(RayTrainWorker pid=N)" lines, no rank read)
        ("run-waveq-b-raytrain-tinygpt-dpo-worker-lost-retried/job.log", "no_failure"),
        # Taskcluster's worker-runner: "GCP Metadata Service says termination is imminent"
        ("gh-mozilla-translations-964/worker.log", "job_preempted"),
    ],
)
def test_wave_q_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_a_trainers_own_rank_tag_names_the_rank() -> None:
    lines = {
        # corpus/logs/run-waveh-mpirun-stale-lock-hang-timeout/job.log
        "2026-11-28 03:45:45,428 [rank 2/3] INFO train: epoch 1 step 135 loss 0.0321 rss 317 MiB 0.06 s/step": 2,
        # Lightning's rank_prefixed_message: corpus/logs/run-wavep-b-lightning-ppo-cartpole-maintenance-sigterm
        "[rank: 1] Received SIGTERM: 15": 1,
        # corpus/logs/run-wavel-a-mpirun-ctr-rank0-hot-pair-index/job.log
        "2026-11-28 07:54:53 | rank 0/3 | caught SIGTERM at step 0, saving ckpt/last.pt before exit": 0,
        # a script whose processes are workers: corpus/logs/run-wavean-a-shell-load-early-stop/job.log
        "[worker 0] training done: 18 trees, best_iteration=18 (0.4s)": 0,
    }
    for text, rank in lines.items():
        assert parse_text(text + "\n")[0].rank == rank, text
    # c10d's capitalised "[Rank N]" is a process group's rank, not read as the global one
    watchdog = "[Rank 3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE)\n"
    assert parse_text(watchdog)[0].rank is None
    # nor behind Ray's actor prefix: each Ray Tune trial's worker is "[rank 0]" (two trials of
    # corpus/logs/run-wavep-b-raytune-ppo-cartpole-sweep-spot-sigterm/job.log, colour codes left out)
    trials = "(train_loop pid=25452) [rank 0] iter 12: 9 episodes, return 47.8, loss 27.8527\n"
    assert parse_text(trials)[0].rank is None
    # a "worker" mid-sentence is not a tag
    assert parse_text("[INFO] worker 1 started\n")[0].rank is None


def test_the_job_ends_when_slurm_says_it_cancelled_it() -> None:
    log = CORPUS / "run-waveq-a-slurm-ddpm-preview-fifo-no-viewer/job.log"
    ev = pipeline.collect([str(log)], load_rules())
    end = job_end(ev)
    assert ev.end_time is not None and end is not None
    assert end.isoformat() == "2026-11-28T13:16:21" and end > ev.end_time
