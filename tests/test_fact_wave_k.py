"""Facts added after wave K (heldout13) was measured blind (30/34, 0/10 healthy flagged): launchers that stop the
remaining processes after a failure (Open MPI's abort banner, srun's ``_step_signal``), a bracketed time glued to a
rank tag, and a process's own handler reporting SIGTERM. The logs are real runs of corpus/generators/wavek_a/ and
wavek_b/ (corpus/manifest.d/wave-k-runs-*.csv)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # mpirun aborted the job after rank 1's SIGKILL: the others' "received SIGTERM" are mpirun's
        ("run-wavek-a-mpirun-kws-embedding-bank-gather-cgroup-oom", "host_oom_killed"),
        # srun terminated the step after task 1's segfault: the step's cancel and task 0's SIGTERM are srun's
        ("run-wavek-a-slurm-kws-zlib-shard-ctypes-overflow", "native_crash"),
        # "[time][rank0] epoch 1 step 50/600 ...": per-rank progress read, so the stall before scancel is a hang
        ("run-wavek-a-slurm-kws-augment-fifo-stuck-scancel", "silent_hang"),
        # the Ray driver's abseil handler: SIGTERM from outside while training progressed
        ("run-wavek-b-raytrain-reviews-driver-evicted-sigterm", "job_preempted"),
    ],
)
def test_wave_k_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


@pytest.mark.parametrize(
    "text",
    [
        # help-orterun.txt "normal-termination-but", as Open MPI 4 prints it
        "Primary job  terminated normally, but 1 process returned\na non-zero exit code. Per user-direction, the job "
        "has been aborted.",
        "srun: launch/slurm: _step_signal: Terminating StepId=2.0",
    ],
)
def test_launcher_stops_the_rest(text: str) -> None:
    got = [f for ev in parse_text(text + "\n") for f in facts_of(ev) if isinstance(f, SignalFact)]
    assert got and all(f.sender == "launcher" for f in got)


def test_bracketed_time_glued_to_a_rank_tag() -> None:
    (ev,) = parse_text("[2026-11-28 07:27:07][rank0] epoch 1 step 10/600 loss 2.4927 acc 0.000 lr 1.10e-03\n")
    assert ev.rank == 0 and ev.time is not None and ev.template.startswith("epoch")
