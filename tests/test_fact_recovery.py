"""General facts added after wave C (issue 12): numbers that recover are not divergence, fairseq's and
``clip_grad_norm_``'s overflow wording, NCCL's libibverbs fallback, /dev/shm semaphores, DataLoader worker crashes.

The whole logs used here are wave C's (``corpus/manifest.d/wave-c-*.csv``: real runs here and public threads)."""
from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.engine import load_rules

LOGS = Path(__file__).resolve().parent.parent / "corpus" / "logs"
DS_SKIP = LOGS / "run-wavec-deepspeed-fp16-overflow-skips" / "job.log"
MEGATRON_HEALTHY = LOGS / "gh-epfLLM-Megatron-LLM-11" / "pretrain.log"


def facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


def test_fp16_overflow_step_the_loss_recovers_from_is_not_divergence(tmp_path: Path) -> None:
    """A real DeepSpeed fp16 run here: step 12's loss is inf, the dynamic loss scaler halves the scale and skips the
    step, the loss is finite again from step 13 on: the scaler working, not a diverged run (with or without the
    model). Cut right after the inf lines, the same log has not recovered: divergence."""
    assert collect([str(DS_SKIP)], load_rules()).stats["numbers_recovered"]
    assert analyze([str(DS_SKIP)], model=False).root_cause == "no_failure"
    assert analyze([str(DS_SKIP)]).root_cause == "no_failure"
    cut = tmp_path / "job.log"
    lines = DS_SKIP.read_text().splitlines(keepends=True)
    last_inf = max(i for i, ln in enumerate(lines) if ln.rstrip().endswith("loss inf"))
    cut.write_text("".join(lines[: last_inf + 1]))
    assert not collect([str(cut)], load_rules()).stats["numbers_recovered"]
    assert analyze([str(cut)], model=False).root_cause == "training_divergence"


def test_megatron_iterations_with_finite_loss_are_not_divergence() -> None:
    """Megatron's iteration line prints ``loss scale: 1.0`` in bf16/fp32 runs and ``number of nan iterations: 0``:
    a finite ``lm loss`` on the last line is a healthy run, whatever the model guesses (epfLLM/Megatron-LLM#11)."""
    assert collect([str(MEGATRON_HEALTHY)], load_rules()).stats["numbers_recovered"]
    assert analyze([str(MEGATRON_HEALTHY)]).root_cause == "no_failure"


def test_a_loss_that_stays_nan_or_a_scale_at_its_floor_is_not_recovered(tmp_path: Path) -> None:
    log = tmp_path / "job.log"
    # HF Trainer lines (no step counter: not loss lines) and a Megatron line whose loss is nan
    log.write_text(" iteration      184/  250000 | lm loss: 2.408367E+00 | loss scale: 1.0 |\n"
                   " iteration      185/  250000 | lm loss: nan | loss scale: 1.0 |\n")
    assert not collect([str(log)], load_rules()).stats["numbers_recovered"]
    log.write_text("[2024-03-01 10:00:00,000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                   "Skipping step. Attempted loss scale: 2, reducing to 1\n"
                   "step 40 loss 2.31\n"
                   "Exception: Current loss scale already at minimum - cannot decrease scale anymore. Exiting run.\n")
    assert not collect([str(log)], load_rules()).stats["numbers_recovered"]
    assert analyze([str(log)], model=False).root_cause == "training_divergence"


@pytest.mark.parametrize("line, what, scale", [
    # fairseq's DynamicLossScaler (fairseq/optim/fp16_optimizer.py), facebookresearch/fairseq#512
    ("| WARNING: overflow detected, setting loss scale to: 0.0001220703125", "overflow_skip", 0.0001220703125),
    # torch.nn.utils.clip_grad_norm_(error_if_nonfinite=True), a run here (wave C)
    ("[rank0]: RuntimeError: The total norm of order 2.0 for gradients from `parameters` is non-finite, so it cannot "
     "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
     "`error_if_nonfinite=False`", "nan_grad", None),
])
def test_more_overflow_and_nonfinite_wordings_are_numeric_facts(line: str, what: str, scale: float | None) -> None:
    found = [(f.what, f.scale) for f in facts(line) if f.kind == "numeric"]
    assert (what, scale) in found


def test_fairseq_scale_driven_below_one_is_divergence() -> None:
    log = LOGS / "gh-facebookresearch-fairseq-512" / "train.log"
    assert analyze([str(log)], model=False).root_cause == "training_divergence"


def test_nccl_libibverbs_fallback_warning_is_not_a_failure(tmp_path: Path) -> None:
    """NCCL's ``misc/ibvwrap.cc`` WARNs when libibverbs cannot be opened and then uses its socket transport: not an
    unexplained warning (horovod/horovod#243). An IB verbs call that fails is still one."""
    log = tmp_path / "job.log"
    log.write_text("a1b2c3d4e5f6:350:457 [0] misc/ibvwrap.cu:60 WARN Failed to open libibverbs.so[.1]\n"
                   "a1b2c3d4e5f6:350:457 [0] INFO Using internal Network Socket\n")
    ev = collect([str(log)], load_rules())
    assert ev.unexplained == ()
    assert analyze([str(log)], model=False).root_cause == "no_failure"
    log.write_text("node1:1:2 [0] misc/ibvwrap.cc:281 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot "
                   "allocate memory\n")
    assert analyze([str(log)], model=False).root_cause != "no_failure"


def test_dataloader_worker_segfault_is_a_native_crash_not_host_memory() -> None:
    """A real Lightning run here: a DataLoader worker segfaults; torch's worker handler prints it before the main
    process's 'DataLoader worker (pid(s) N) exited unexpectedly' (which alone reads as the OOM killer)."""
    (f,) = [f for f in facts("ERROR: Unexpected segmentation fault encountered in worker.") if isinstance(f, ProcessExit)]
    assert (f.reporter, f.signal) == ("dataloader_worker", "SIGSEGV")
    log = LOGS / "run-wavec-lightning-loader-worker-segv" / "job.log"
    assert analyze([str(log)], model=False).root_cause == "native_crash"


def test_no_space_creating_a_semaphore_is_shared_memory() -> None:
    """``_multiprocessing.SemLock`` creates its semaphore in /dev/shm (sem_overview(7)): ENOSPC there is /dev/shm
    full, not a disk (NVIDIA/Megatron-LM#878)."""
    log = LOGS / "gh-NVIDIA-Megatron-LM-878" / "pretrain.log"
    assert analyze([str(log)], model=False).root_cause == "shm_exhausted"


def test_deepspeed_launcher_sent_sigterm_is_ended_from_outside() -> None:
    """A real run here under ``timeout -s TERM``: DeepSpeed's launcher (launch.py ``sigkill_handler``) kills its
    subprocesses and says "Main process received SIGTERM, exiting"; training progressed to the end: not a hang."""
    log = LOGS / "run-wavec-deepspeed-timeout-term" / "job.log"
    assert analyze([str(log)], model=False).root_cause == "job_preempted"


def test_clock_and_rank_tag_lines_give_per_rank_progress_even_when_glued() -> None:
    """``HH:MM:SS [rankN] step S loss L`` lines (python logging with a clock-only datefmt) name their rank; two ranks'
    lines glued on one terminal line count for both ranks. A real Lightning run here: rank 1 stops printing at
    step 44 (stuck reading), rank 0 reaches step 45 and waits: silent_hang naming rank 1. A healthy DeepSpeed run
    whose last lines are glued has no rank behind."""
    from logsleuth.progress import silent_first

    stuck = LOGS / "run-wavec-lightning-rank-stops-printing" / "job.log"
    ev = collect([str(stuck)], load_rules())
    assert {r: p.counter[1] for r, p in ev.progress.items()} == {0: 45, 1: 44}
    d = analyze([str(stuck)], model=False)
    assert d.root_cause == "silent_hang" and d.culprit.get("ranks") == [1]
    healthy = collect([str(DS_SKIP)], load_rules())
    assert {p.counter[1] for p in healthy.progress.values()} == {39}
    assert silent_first(dict(healthy.progress)) is None


def test_gdb_stopping_on_a_crash_signal_is_a_native_crash() -> None:
    """gdb's "received signal SIGABRT, Aborted." is the process crashing (pytorch/pytorch#125990: CPython's
    Py_FatalError aborts); gdb stopping on SIGINT (Ctrl-C) is not a crash."""
    (f,) = [f for f in facts('Thread 1 "pt_main_thread" received signal SIGABRT, Aborted.') if isinstance(f, ProcessExit)]
    assert (f.reporter, f.signal) == ("gdb", "SIGABRT")
    assert not [f for f in facts("Program received signal SIGINT, Interrupt.") if isinstance(f, ProcessExit)]
    log = LOGS / "gh-pytorch-pytorch-125990" / "debug_python.log"
    assert analyze([str(log)], model=False).root_cause == "native_crash"


def test_ray_train_worker_group_startup_timeout_is_a_scheduling_stall() -> None:
    """Ray Train v2 words the placement group it cannot schedule as WorkerGroupStartupTimeoutError (a real run
    here: 3 workers x 1 CPU on a 2-CPU cluster); v1 said "Placement group creation timed out"."""
    log = LOGS / "run-wavec-raytrain-placement-unschedulable" / "job.log"
    assert analyze([str(log)], model=False).root_cause == "ray_scheduling_stall"


def test_consecutive_overflow_skips_driving_the_scale_low_are_divergence() -> None:
    """Five overflow skips in a row halve DeepSpeed's scale from 64 to 2 at step ~380 (ymcui/Chinese-LLaMA-Alpaca#534,
    the run later exits at the minimum scale): repeated overflow skips. Start-up calibration from 2**32 also skips
    steps in a row but stays far above the floor, and a scale raised between overflows starts a new run."""
    from logsleuth.factlayer.reason import FactStream

    log = LOGS / "gh-ymcui-Chinese-LLaMA-Alpaca-534" / "run_sft.log"
    assert analyze([str(log)], model=False).root_cause == "training_divergence"

    def runs(scales: list[float]) -> list[float]:
        stream, out = FactStream(), []
        for i, (a, b) in enumerate(zip(scales, scales[1:])):
            text = (f"[2024-03-01 10:00:0{i},000] [INFO] [loss_scaler.py:183:update_scale] [deepspeed] OVERFLOW! Rank 0 "
                    f"Skipping step. Attempted loss scale: {a:g}, reducing to {b:g}")
            for ev in parse_text(text):
                out += [f.scale for f in stream.facts(ev, {}) if f.kind == "numeric" and f.what == "overflow_run"]
        return out

    assert runs([64, 32, 16, 8, 4]) == [4]
    assert runs([2.0**32, 2.0**31, 2.0**30, 2.0**29, 2.0**28]) == []
    assert runs([64, 32, 16, 64, 32, 16]) == []


def test_a_loss_column_that_disappears_is_not_a_recovery() -> None:
    """Megatron leaves ``lm loss`` out of its iteration line once the loss is NaN (epfLLM/Megatron-LLM#33, bf16, the
    counters stay 0): the last loss is then unknown, so the facts do not rule divergence out."""
    log = LOGS / "gh-epfLLM-Megatron-LLM-33" / "finetune.log"
    assert not collect([str(log)], load_rules()).stats["numbers_recovered"]


def test_lightning_forwarded_sigterm_is_ended_from_outside() -> None:
    """A real run here under ``timeout -s TERM``: Lightning's SignalConnector prints "[rank: 0] Received SIGTERM: 15"
    (and rank 1's forwarded copy); training was still progressing: job_preempted, not a healthy run."""
    log = LOGS / "run-wavec-lightning-timeout-term" / "job.log"
    assert analyze([str(log)], model=False).root_cause == "job_preempted"


def test_ray_actor_restart_advisory_is_not_an_error() -> None:
    """Ray's core worker prints, at ERROR level, an advisory for every restartable actor with constructor arguments in
    the object store (ray-project/ray#53727); a real healthy Ray Train run here prints it and is healthy."""
    log = LOGS / "run-wavec-raytrain-healthy-checkpoints" / "job.log"
    assert collect([str(log)], load_rules()).unexplained == ()
    assert analyze([str(log)]).root_cause == "no_failure"
