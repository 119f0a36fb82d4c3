"""Facts added after wave O (heldout17) was measured blind (23/30 failures, 0/10 healthy flagged): gloo's and Horovod's
rendezvous stores timing out, faulthandler's SIGBUS report with no shared memory in the job (a memory-mapped file that
shrank), mp.spawn's only failure being a process whose collective lost its peer (the others had exited cleanly), and a
user's Ctrl-C on a job that had stopped, which a vote on its lines no longer overrules. Logs: real runs of
corpus/generators/waveo_a/ and waveo_b/ and thread excerpts (corpus/manifest.d/wave-o-*.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # horovod/common/gloo/http_store.cc "Wait timeout for key(s): 0" in an uncaught gloo::IoException, then SIGABRT
        ("gh-horovod-horovod-2015/train.log", "rendezvous_timeout"),
        ("gh-ray-project-ray-25866/horovod_user_test.log", "rendezvous_timeout"),
        # "Fatal Python error: Bus error" in a numpy memmap read; nothing in the job names shared memory
        ("run-waveo-a-torchrun-ctr-day-shard-rewritten-under-memmap/job.log", "native_crash"),
        ("run-waveo-b-mpspawn-ftt-claims-mmap-cache-refresh/job.log", "native_crash"),
        # mp.spawn: "-- Process 0 terminated with the following error:" ... "Connection closed by peer", nothing else
        ("run-waveo-b-hf-trainer-ftt-claims-rank0-final-evaluate/job.log", "collective_mismatch"),
    ],
)
def test_wave_o_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_a_users_interrupt_of_a_stalled_job_is_not_overruled_by_the_model() -> None:
    # an actor's nested call on its own handle deadlocked it; the user pressed Ctrl-C after 80 s of silence
    d = analyze([str(CORPUS / "run-waveo-b-rayactor-ftt-claims-stats-self-call/job.log")])
    assert (d.root_cause, d.rule_id) == ("silent_hang", "interrupted-while-waiting")
