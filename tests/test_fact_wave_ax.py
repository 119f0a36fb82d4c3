"""Wave AX (``heldout53``: real Snakemake, ZenML and Flyte runs, and thread excerpts), measured blind before any change
for it: what was changed for its misses. Each is a fact in a tool's own words: rich's boxed traceback (pyflyte's,
Typer's), ``subprocess.TimeoutExpired`` (a step's time limit on the command it ran), a worker that ignored its
launcher's SIGTERM for the whole grace period (stuck), Snakemake's "N of N steps (100%) done" and its SIGTERM handler,
Click's refusal of a command line, and TensorRT-LLM's missing GPU peer access before a failed run. Also the reader's
gate: of NCCL's P2P channel lines only each process's first per transport is parsed."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, RunFinished, SignalFact
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, line_gate
from logsleuth.rules import load_rules
from logsleuth.rules.linegate import GateView, _tap_p2p_channels

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # Snakemake's rule `retries:` ran the train job again after a port clash, and the workflow reached "5 of 5
        # steps (100%) done" (corpus/generators/waveax_a)
        ("run-waveax-a-smk-burst-healthy-port-retry/job.log", "no_failure"),
        ("run-waveax-a-smk-burst-notebook-port/job.log", "port_in_use"),
        # ZenML's StepRetryConfig ran train_model again after the clash; "Pipeline run has finished in ..." followed
        ("run-waveax-b-zen-gearbox-healthy-port-retry/job.log", "no_failure"),
        ("run-waveax-b-zen-gearbox-notebook-port-retried/job.log", "port_in_use"),
        # SIGTERM to Snakemake: its handler waits for the running job, then the workflow ends unfinished
        ("run-waveax-a-smk-burst-preempted/job.log", "job_preempted"),
        # a SIGSTOPped rank under a `timeout 60` wrapper: torchrun's SIGTERM could not stop it ("Unable to shutdown
        # process ... via 15, forcefully exiting via 9")
        ("run-waveax-a-smk-burst-stopped-rank/job.log", "silent_hang"),
        ("run-waveaw-b-dvc-ili-stopped-rank/job.log", "silent_hang"),
        # ... and the same wrapper's limit with every rank training (they exit on SIGTERM at once)
        ("run-waveax-c-flyte-milk-cron-limit/job.log", "job_preempted"),
        # Snakemake's own report of a KeyError in the Snakefile (a misspelt config key)
        ("run-waveax-a-smk-burst-config-key-typo/job.log", "worker_exception"),
        # pyflyte's rich-click error box for `--epochs 5O` (corpus/generators/waveax_c)
        ("run-waveax-c-flyte-milk-epochs-typo/job.log", "worker_exception"),
        # NVIDIA/TensorRT-LLM#1034: no peer access between the GPUs, then the tensor-parallel run failed
        ("gh-NVIDIA-TensorRT-LLM-1034/mpt_run_custom_allreduce_no_p2p.log", "nccl_p2p_failure"),
    ],
)
def test_wave_ax_logs_by_facts_and_rules(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


# rich 13's traceback of an uncaught exception, as pyflyte printed it in wave AX's Flyte run (frames shortened)
_RICH = """\
╭─────────────────────────────── Traceback (most recent call last) ────────────────────────────────╮
│ /workspace/run/workflows.py:119 in train                                                         │
│                                                                                                  │
│   116 │   │   cmd.append("--resume")                                                             │
│ ❱ 119 │   subprocess.run(cmd, check=True, timeout=launch_timeout_s)                              │
│                                                                                                  │
│ /root/.pyenv/versions/3.11.7/lib/python3.11/subprocess.py:2038 in _wait                          │
│                                                                                                  │
│ ❱ 2038 │   │   │   │   │   │   raise TimeoutExpired(self.args, timeout)                          │
╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
TimeoutExpired: Command '['torchrun', 'train.py']' timed out after 59.99995182999987 seconds
"""


def test_rich_traceback_is_one_exception_with_its_frames() -> None:
    (ev,) = [e for e in parse_text(_RICH) if e.source == "python"]
    assert ev.params["exc_type"] == "TimeoutExpired"
    assert [f["func"] for f in ev.params["frames"]] == ["train", "_wait"]
    assert ev.params["user_frame"] == "/workspace/run/workflows.py:119 in train"
    (exc,) = [f for f in facts_of(ev) if isinstance(f, ExceptionFact)]
    assert exc.type == "TimeoutExpired"


def test_snakemake_exception_report_is_one_exception() -> None:
    text = "KeyError in file \"/workspace/run/Snakefile\", line 50:\n'micro_batch'\n"
    (ev,) = [e for e in parse_text(text) if e.source == "python"]
    assert (ev.params["exc_type"], ev.params["exc_message"]) == ("KeyError", "'micro_batch'")
    old = "NameError in line 12 of /workspace/Snakefile:\nname 'cfg' is not defined\n"
    assert [e.params["exc_type"] for e in parse_text(old) if e.source == "python"] == ["NameError"]


def test_subprocess_timeout_is_a_time_limit(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    log.write_text("[rank0] epoch 1 step 10 loss 0.91\n" + _RICH)
    diag = analyze([str(log)], model=False)
    assert (diag.root_cause, diag.rule_id) == ("job_preempted", "subprocess-timeout-expired")


def test_unheeded_sigterm_without_an_outside_signal_changes_nothing(tmp_path: Path) -> None:
    # torch.multiprocessing.spawn stopping the others after one process raised: the escalation is a symptom there
    log = tmp_path / "job.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "/workspace/train.py", line 12, in <module>\n'
        "    main()\n"
        "ValueError: unknown optimizer 'adamW'\n"
        "W1130 23:30:01.000000 100 torch/multiprocessing/spawn.py:160] Terminating process 101 via signal SIGTERM\n"
        "W1130 23:30:31.000000 100 torch/distributed/elastic/multiprocessing/api.py:1047] Unable to shutdown process "
        "101 via 15, forcefully exiting via 9\n"
    )
    assert analyze([str(log)], model=False).root_cause == "worker_exception"


@pytest.mark.parametrize(
    ("line", "finished"),
    [
        ("5 of 5 steps (100%) done", True),
        ("12 of 12 steps (100%) done", True),
        ("3 of 5 steps (60%) done", False),
        ("5 of 6 steps (100%) done", False),
    ],
)
def test_snakemake_whole_run_success(line: str, finished: bool) -> None:
    assert [f.by for f in _facts(line) if isinstance(f, RunFinished)] == (["snakemake"] if finished else [])


def test_zenml_whole_run_success() -> None:
    assert [f.by for f in _facts("Pipeline run has finished in `50.711s`.") if isinstance(f, RunFinished)] == ["zenml"]
    failed = "RuntimeError: Pipeline run has failed due to failure in step(s): train_model"
    assert not [f for f in _facts(failed) if isinstance(f, RunFinished)]


def test_snakemake_sigterm_handler_is_a_signal_from_outside() -> None:
    line = "Will exit after finishing currently running jobs (scheduler)."
    assert [(f.signal, f.sender) for f in _facts(line) if isinstance(f, SignalFact)] == [("SIGTERM", "unknown")]
    # a failed job's own shutdown says the same words without "(scheduler)": no signal
    assert not [f for f in _facts("Will exit after finishing currently running jobs.") if isinstance(f, SignalFact)]


_CHANNELS = (
    "node-1:4168:5271 [1] NCCL INFO Channel {i:02d}/0 : 1[1] -> 0[0] via P2P/CUMEM\n"
    "(LLMRayActor pid=839) node-2:839:850 [0] NCCL INFO Channel {i:02d}/0 : 0[0] -> 1[1] via P2P/IPC\n"
)


def test_gate_parses_each_processes_first_p2p_channel_line() -> None:
    rules = load_rules()
    gate = line_gate(rules)
    assert gate is not None
    block = "".join(_CHANNELS.format(i=i) for i in range(24)).encode()
    view = GateView(context_hits=set(range(len(rules.context_patterns))), versions={})
    if gate.check_block is not None:  # None where the rule set was built without Hyperscan (the literals decide)
        # no rule pattern keeps a channel line (``nccl-hang-in-p2p-setup`` counts only its file's last lines, which
        # are parsed anyway) once the job has seen the context patterns that name NCCL lines
        ends, _foreign = gate.check_block(block, view)
        assert ends == []
    # the tap keeps each process's first line per transport, and then none
    kept = _tap_p2p_channels(block, view)
    assert [block[:e].count(b"\n") for e in kept] == [0, 1]
    assert _tap_p2p_channels(block, view) == []
    # without a view of the job (a caller with no state), every channel line is kept
    assert len(_tap_p2p_channels(block, ())) == 48
