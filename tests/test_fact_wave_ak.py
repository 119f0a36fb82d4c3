"""Wave AK (``heldout40``), measured blind (51/54 failures, 0/16 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ProcessExit, SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def _answer(rel: str) -> tuple[str, str | None]:
    d = analyze([str(CORPUS / rel)], model=False)
    return d.root_cause, d.rule_id


def test_fish_shells_job_summary_is_a_process_exit_by_its_signal() -> None:
    # Lightricks/ComfyUI-LTXVideo#254 (host RAM, by the reporter)
    (x,) = [f for f in _facts("fish: Job 1, 'python main.py' terminated by signal SIGKILL (Forced quit)")
            if isinstance(f, ProcessExit)]
    assert (x.reporter, x.signal) == ("shell", "SIGKILL")
    # one process of a pipeline: fish names its pid (share/functions/fish_job_summary.fish)
    line = ("fish: Process 4021, 'python' from job 1, 'python train.py | tee log' terminated by signal SIGSEGV "
            "(Address boundary error)")
    (x,) = [f for f in _facts(line) if isinstance(f, ProcessExit)]
    assert (x.signal, x.fields()["pid"]) == ("SIGSEGV", 4021)
    # a job that ended on its own is not an exit by a signal
    assert not [f for f in _facts("fish: Job 1, 'python main.py &' has ended") if isinstance(f, ProcessExit)]
    assert _answer("gh-Lightricks-ComfyUI-LTXVideo-254/comfyui.log")[0] == "host_oom_killed"


def test_a_ranks_handler_printing_signal_15_is_sigterm_from_outside() -> None:
    # a real run here (corpus/generators/waveak_c): SIGTERM to mpirun, each rank's handler prints its signum
    (s,) = [f for f in _facts("[rank 1] received signal 15, stopping after this step") if isinstance(f, SignalFact)]
    assert (s.signal, s.sender) == ("SIGTERM", "unknown")
    for other in ("[rank 0] received signal 150 packets", "[rank 0] received signal 15.5 dB", "received signal 15"):
        assert not [f for f in _facts(other) if isinstance(f, SignalFact)], other
    assert _answer("run-waveak-c-mpirun-convlstm-scheduler-preemption/job.log") == (
        "job_preempted",
        "rank-received-sigterm",
    )


def test_enospc_naming_no_file_in_a_job_that_writes_under_dev_shm_is_shared_memory(tmp_path: Path) -> None:
    # a real run here (corpus/generators/waveak_b): np.save into a render cache under a 64 MB /dev/shm
    assert _answer("run-waveak-b-mpspawn-tasnet-render-cache-container/job.log") == (
        "shm_exhausted",
        "enospc-job-writes-under-dev-shm",
    )
    # the set-up line 50,000 lines before the failure still counts (a context line the reader's gate keeps)
    noise = "".join(f"[rank0] step {i} loss 0.{i % 97:02d}\n" for i in range(50000))
    error = 'Traceback (most recent call last):\n  File "/home/user/train.py", line 9, in step\n' + (
        "OSError: [Errno 28] No space left on device\n"
    )
    p = tmp_path / "job.log"
    p.write_text("args: train --cache-dir /dev/shm/cache\n" + noise + error)
    d = analyze([str(p)], model=False)
    assert (d.root_cause, d.rule_id) == ("shm_exhausted", "enospc-job-writes-under-dev-shm")
    # the same failure in a job that never said it writes under /dev/shm stays a full disk
    p.write_text("args: train --cache-dir /data/cache\n" + noise + error)
    assert analyze([str(p)], model=False).root_cause == "disk_full"
