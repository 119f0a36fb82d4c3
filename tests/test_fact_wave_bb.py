"""Wave BB (``heldout57``: real multi-node torchrun over network namespaces, JAX multi-process and TensorFlow
MultiWorkerMirroredStrategy runs), measured blind before any change for it: what was changed for its misses.

XLA's coordination service (JAX, TensorFlow) reports a task whose heartbeats stopped the same way whether it died or
only stopped answering; a death closes its connections and its launcher reports its end, a stopped task leaves
neither. TensorFlow's ``UnavailableError`` reports another task, never the training code's own bug. Every process
exiting 0 contradicts a lost peer as well as a printed exception; a stop signal that the ranks trained on past, every
process exiting 0, ended nothing. gRPC's own bind failure is a port held by another process."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # a JAX process and a TensorFlow worker SIGSTOPped: the coordination service's "stopped sending heartbeats"
        # and nothing reset or reported ended (corpus/generators/wavebb_b, wavebb_c)
        ("run-wavebb-b-jax-bikes-stopped-proc/job.log", "collective_timeout"),
        ("run-wavebb-c-tf-footfall-worker-stopped/job.log", "collective_timeout"),
        # ... while a process killed by SIGKILL resets its peers' connections and the shell reports "Killed"
        ("run-wavebb-b-jax-bikes-proc-sigkill/job.log", "host_oom_killed"),
        # a TensorFlow worker killed by SIGKILL: the chief's "UnavailableError: ... Connection reset by peer"
        # traceback is printed before the shell's "Killed" for the worker (launch.sh waits for worker 0 first)
        ("run-wavebb-c-tf-footfall-worker-sigkill/job.log", "host_oom_killed"),
        # worker 1 finished first; the chief logged its lost heartbeats, then finished too; both exited 0
        ("run-wavebb-c-tf-footfall-healthy-late-worker/job.log", "no_failure"),
        # under `timeout 30`: TensorFlow's "SIGTERM caught", then all 12 epochs and both workers exited 0
        ("run-wavebb-c-tf-footfall-ci-budget/job.log", "no_failure"),
        # JAX's coordination service's port held by another server: gRPC's "Failed to add port to server"
        ("run-wavebb-b-jax-bikes-notebook-port/job.log", "port_in_use"),
        # workers built different feature sets: "Shape mismatch in the collective instance 103 ..."
        ("run-wavebb-c-tf-footfall-new-store/job.log", "collective_mismatch"),
        # Keras 3 loaded under a Keras 2 script: ModelCheckpoint's "must end in `.weights.h5`"
        ("run-wavebb-c-tf-footfall-keras3-env/job.log", "library_version_mismatch"),
    ],
)
def test_wave_bb_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _without(log: str, drop: str, tmp_path: Path) -> str:
    """The real log ``log`` with every line containing ``drop`` removed, written under ``tmp_path``."""
    lines = (CORPUS / log).read_text().splitlines(keepends=True)
    out = tmp_path / "job.log"
    out.write_text("".join(line for line in lines if drop not in line))
    return str(out)


def test_a_caught_signal_the_job_did_not_outlive_is_still_a_preemption(tmp_path: Path) -> None:
    # the same run with its exit reports gone: nothing says the processes ended well after the SIGTERM
    log = _without("run-wavebb-c-tf-footfall-ci-budget/job.log", "exited with code", tmp_path)
    assert analyze([log], model=False).root_cause == "job_preempted"


def test_a_lost_peer_is_not_healthy_without_every_exit(tmp_path: Path) -> None:
    # the healthy run without its exit reports: only the chief's lost heartbeats remain
    log = _without("run-wavebb-c-tf-footfall-healthy-late-worker/job.log", "exited with code", tmp_path)
    assert analyze([log], model=False).root_cause != "no_failure"
