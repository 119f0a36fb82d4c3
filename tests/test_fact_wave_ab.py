"""Wave AB (``heldout31``), measured blind (34/43 failures, 1/10 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # clinplayer/Point2Skeleton#6: zsh's job report with its pid, and PyCharm's "interrupted by signal 11: SIGSEGV"
        ("gh-clinplayer-Point2Skeleton-6/train.log", "native_crash"),
        # ollama/ollama#5401: Go's "signal: segmentation fault (core dumped)"
        ("gh-ollama-ollama-5401/ollama_run.log", "native_crash"),
        # ollama/ollama#2540: Windows' WSAEADDRINUSE text
        ("gh-ollama-ollama-2540/ollama_serve.log", "port_in_use"),
        # ollama/ollama#6604: "your nvidia driver is too old or missing"
        ("gh-ollama-ollama-6604/server.log", "library_version_mismatch"),
        # jax-ml/jax#17638: JAX's jax/jaxlib pairing check
        ("gh-jax-ml-jax-17638/import.log", "library_version_mismatch"),
        # google-deepmind/alphafold#355: the BFC allocator gives up, then XLA's RESOURCE_EXHAUSTED
        ("gh-google-deepmind-alphafold-355/run.log", "cuda_oom"),
        # kubeflow/pipelines#6880: torch's SIGBUS sentence without the worker's pid
        ("gh-kubeflow-pipelines-6880/containerop.log", "shm_exhausted"),
        # a real Ray Tune run whose trials start actors the trial's placement group has no room for
        ("run-waveab-b-raytune-pinn-burgers-trials-with-rank-actors/job.log", "ray_scheduling_stall"),
        # a real torchrun run: rank 1 SIGKILLed, torchrun restarted the group, the loop (printing no rank) resumed
        # from its checkpoint and finished
        ("run-waveab-b-torchrun-pinn-burgers-healthy-worker-restart/job.log", "no_failure"),
    ],
)
def test_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def test_two_processes_rank_less_progress_is_no_restart() -> None:
    # a real Ray Tune sweep: two trials print "[rank 0] iter N" under their own pids; the one behind is no restart of
    # the one ahead, so the SIGTERM that stopped the sweep stays the cause
    log = CORPUS / "run-wavep-b-raytune-ppo-cartpole-sweep-spot-sigterm/job.log"
    assert analyze([str(log)], model=False).root_cause == "job_preempted"


def test_a_runner_saying_a_job_failed_is_not_a_healthy_log() -> None:
    # espnet/espnet#2798: Kaldi's run.pl names only the log file that holds the cause; the cause is not in this log
    diag = analyze([str(CORPUS / "gh-espnet-espnet-2798/run.log")], model=False)
    assert diag.root_cause == "unknown"
    assert diag.first_failure is not None and "run.pl: job failed" in diag.first_failure.text


def _exits(text: str) -> list[tuple[int | None, str | None, str]]:
    return [
        (f.code, f.signal, f.reporter) for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, ProcessExit)
    ]


@pytest.mark.parametrize(
    ("line", "exit"),
    [
        # zsh with job control (Src/jobs.c printjob): job number, pid, the padded word, the command
        ("[1]  + 14957 segmentation fault (core dumped)  python train.py", (None, "SIGSEGV", "shell")),
        ("14957 segmentation fault (core dumped)  python train.py --data_root x", (None, "SIGSEGV", "shell")),
        ("[2]    3116 killed     python train.py", (None, "SIGKILL", "shell")),
        # Go's os.ProcessState.String inside a Go program's message
        ("Error: llama runner process has terminated: signal: killed", (None, "SIGKILL", "go")),
        ("exec: signal: bus error (core dumped)", (None, "SIGBUS", "go")),
        # a JetBrains run console
        ("Process finished with exit code 134 (interrupted by signal 6: SIGABRT)", (134, "SIGABRT", "ide")),
        ("Process finished with exit code 1", (1, None, "ide")),
        # Kaldi's runners: no code, the cause is in the named file
        ("run.pl: 2 / 8 failed, log is in exp/tri3/log/align.*.log", (None, None, "kaldi")),
    ],
)
def test_other_tools_reports_of_a_childs_death(line: str, exit: tuple[int | None, str | None, str]) -> None:
    assert _exits(line + "\n") == [exit]


@pytest.mark.parametrize(
    "line",
    [
        "received signal: terminated-ish",  # not Go's word: the word must end there
        "step 12  killed processes: 0",  # no pid before the word
        "retry.pl: job failed; renaming log file to exp/x.log.bak and rerunning",  # a retry, not the final word
    ],
)
def test_lines_that_are_no_death_report(line: str) -> None:
    assert _exits(line + "\n") == []


def test_the_ides_clean_end_is_a_clean_exit() -> None:
    # a clean exit is a fact too (``recovered.all_exited_cleanly``), never a death
    assert _exits("Process finished with exit code 0\n") == [(0, None, "ide")]


@pytest.mark.parametrize(
    ("message", "family"),
    [
        ("RuntimeError: No trial resources are available for launching the actor `PINNRank.__init__`.", "placement"),
        (
            "RuntimeError: jaxlib version 0.4.14 is newer than and incompatible with jax version 0.4.6. Please update "
            "your jax and/or jaxlib packages.",
            "environment",
        ),
        ("RuntimeError: jaxlib is version 0.1.69, but this version of jax requires version >= 0.1.74.", "environment"),
    ],
)
def test_message_families(message: str, family: str) -> None:
    excs = [f for ev in parse_text(message + "\n") for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    assert [f.family for f in excs] == [family]
