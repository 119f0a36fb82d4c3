"""Wave BK (``heldout66``: real runs of DeepSpeed on CPU under its own launcher, a GRPO loop of Ray actors with
torch.distributed groups, data-parallel training under Open MPI 5's mpirun with mpi4py, and LLaMA-Factory under
torchrun), measured blind before any change for it: what was changed for its misses.

- PRRTE (Open MPI 5's ``prterun``) wraps its "exited on signal" report over two lines (``reason.MpiWrappedExit``).
- ``python -m pkg`` with an interpreter that lacks the package: runpy's "<python>: No module named pkg".
- Open MPI's TCP transport with every port of its range held: "bind() failed: no port available in the range".
- ``importlib.metadata.PackageNotFoundError`` is a missing package, also when it was raised while handling a
  StopIteration (the chained traceback after a catch-all is the process's last word).
- MPI_ERR_TRUNCATE: the ranks passed different counts to one collective.
- ``torch.multinomial`` refusing its probabilities: the policy's outputs went NaN/Inf.
- A Ray driver's own finish line after an actor's logged error: the run got past it.
- Most steps skipped by DeepSpeed's static loss scaler ("Gradients are non-finite, weights were not updated"): the
  run diverged, whatever finite loss it printed (``reason.StaticScalerSkips``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, NumericHealth, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, collect
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause", "rule"),
    [
        # rank 1 SIGKILLed from outside at step 46; prterun's report wrapped after "exited on" (wavebk_c)
        ("run-wavebk-c-rank-sigkill/job.log", "host_oom_killed", "process-killed-sigkill"),
        # mpirun of the venv ran the system python3, which has no mpi4py (wavebk_c)
        ("run-wavebk-c-system-python/job.log", "library_version_mismatch", "exception-environment"),
        # Open MPI's TCP ports limited to 29750-29752, all held (wavebk_c)
        ("run-wavebk-c-tcp-port-range-taken/job.log", "port_in_use", "address-in-use"),
        # rank 1 worked its class count out from its own shard (9, not 10): the weights' Bcast was truncated; its
        # segfault during interpreter shutdown came after (wavebk_c)
        ("run-wavebk-c-auto-classes-mismatch/job.log", "collective_mismatch", "exception-collective-mismatch"),
        # LLaMA-Factory's deepspeed option without deepspeed installed (wavebk_d)
        ("run-wavebk-d-sft-ds-zero2/job.log", "library_version_mismatch", "exception-environment"),
        # GRPO at lr 1e37: the rollout actor's torch.multinomial after one update (wavebk_b)
        ("run-wavebk-b-grpo-high-lr/job.log", "training_divergence", "training-diverged"),
        # a reward function's KeyError on one row, logged and dropped by the rollout actor; the driver trained to
        # "training finished after 30 steps" (wavebk_b)
        ("run-wavebk-b-grpo-skip-bad-rows/job.log", "no_failure", "run-finished-after-failure"),
        # DeepSpeed at lr 30 with its static loss scaler: 75 of 80 steps skipped for non-finite gradients, the loss
        # finite (6.4 to 1.3e4), exit 0 (wavebk_a)
        ("run-wavebk-a-lr-diverge/job.log", "training_divergence", "training-diverged"),
    ],
)
def test_wave_bk_logs_by_facts(log: str, cause: str, rule: str) -> None:
    diag = analyze([str(CORPUS / log)], model=False)
    assert (diag.root_cause, diag.rule_id) == (cause, rule)


def _lines(log: str) -> list[str]:
    return (CORPUS / log).read_text(encoding="utf-8").splitlines()


def test_a_wrapped_open_mpi_exit_report_is_one_process_exit(tmp_path) -> None:
    tail = _lines("run-wavebk-c-rank-sigkill/job.log")[-5:]
    assert tail[1].endswith("exited on") and tail[2] == "signal 9 (Killed)."
    p = tmp_path / "job.log"
    p.write_text("\n".join(tail) + "\n")
    exits = [f for f in collect([str(p)], load_rules()).facts if isinstance(f, ProcessExit)]
    # mpirun's wrapped report is one exit; the job script's own status line after it ("job exited with 137") is the
    # shell's report of the same end (tests/test_fact_wave_bq.py)
    assert [(e.reporter, e.signal, e.task, e.proc) for e in exits] == [
        ("mpirun", "SIGKILL", 1, 5425),
        ("shell", "SIGKILL", None, None),
    ]
    # the head alone, or with an unrelated line after it, is no exit
    p.write_text("\n".join([tail[1], "[rank 0] epoch 1 step 48/168 local_loss 1.1"]) + "\n")
    assert not [f for f in collect([str(p)], load_rules()).facts if isinstance(f, ProcessExit)]


@pytest.mark.parametrize(
    ("line", "module"),
    [
        ("/root/.pyenv/versions/3.11.7/bin/python3: No module named mpi4py", "mpi4py"),
        # the dotted form runpy prints (Lib/runpy.py ``_get_module_details``)
        (
            "/usr/bin/python3: Error while finding module specification for 'mpi4py.run' "
            "(ModuleNotFoundError: No module named 'mpi4py')",
            "mpi4py.run",
        ),
    ],
)
def test_runpy_missing_module_is_an_environment_exception(line: str, module: str) -> None:
    facts = [f for ev in parse_text(line) for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    assert [(f.type, f.family, f.message) for f in facts] == [
        ("ModuleNotFoundError", "environment", f"No module named '{module}'")
    ]


def test_prose_about_a_missing_module_is_no_exception() -> None:
    line = "2026-12-02 12:00:00,000 INFO setup: optional plugin: No module named fancy_logger, continuing"
    assert not [f for ev in parse_text(line) for f in facts_of(ev) if isinstance(f, ExceptionFact)]


@pytest.mark.parametrize(
    "line",
    [
        "RuntimeError: invalid multinomial distribution (encountering probability entry < 0)",
        "RuntimeError: probability tensor contains either `inf`, `nan` or element < 0",
    ],
)
def test_refused_probabilities_are_a_nan_output(line: str) -> None:
    facts = [f for ev in parse_text(line) for f in facts_of(ev) if isinstance(f, NumericHealth)]
    assert [f.what for f in facts] == ["nan_output"]


def test_without_the_drivers_finish_line_the_actors_error_stands(tmp_path) -> None:
    lines = [ln for ln in _lines("run-wavebk-b-grpo-skip-bad-rows/job.log") if "training finished" not in ln]
    p = tmp_path / "job.log"
    p.write_text("\n".join(lines) + "\n")
    assert analyze([str(p)], model=False).root_cause == "worker_exception"


def test_an_actors_own_finish_line_is_not_the_drivers(tmp_path) -> None:
    # the same run with the driver's finish line printed behind an actor's prefix: an actor finishing its own work
    # says nothing of the run
    lines = [
        "(TrainerActor pid=5062) " + ln if "training finished" in ln else ln
        for ln in _lines("run-wavebk-b-grpo-skip-bad-rows/job.log")
    ]
    p = tmp_path / "job.log"
    p.write_text("\n".join(lines) + "\n")
    assert analyze([str(p)], model=False).root_cause == "worker_exception"


def test_a_few_static_scaler_skips_are_no_divergence(tmp_path) -> None:
    # the same run with all but its first three skip lines taken out: 3 of 80 steps skipped is no majority
    lines, kept = [], 0
    for ln in _lines("run-wavebk-a-lr-diverge/job.log"):
        if "weights were not updated" in ln:
            kept += 1
            if kept > 3:
                continue
        lines.append(ln)
    p = tmp_path / "job.log"
    p.write_text("\n".join(lines) + "\n")
    facts = collect([str(p)], load_rules()).facts
    assert not [f for f in facts if isinstance(f, NumericHealth) and f.what == "skipped_majority"]
    assert analyze([str(p)], model=False).root_cause == "no_failure"
