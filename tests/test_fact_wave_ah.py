"""Wave AH (``heldout37``), measured blind (36/49 failures, 0/9 healthy flagged): the facts added for its misses."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.extract import facts_of
from logsleuth.factlayer.kinds import ExceptionFact, NumericHealth, ProcessExit, SchedulerVerdict
from logsleuth.factlayer.reason import FactStream, sibling_terminations
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


@pytest.mark.parametrize(
    ("line", "scheduler", "verdict"),
    [
        # Torque/PBS's MOM (biocore/qiime#1048)
        ("=>> PBS: job killed: walltime 259217 exceeded limit 259200", "pbs", "time_limit"),
        ("=>> PBS: job killed: mem 2148532kb exceeded limit 2097152kb", "pbs", "oom_killed"),
        # LSF's exit reasons (marbl/canu#444)
        ("TERM_RUNLIMIT: job killed after reaching LSF run time limit.", "lsf", "time_limit"),
        ("TERM_MEMLIMIT: job killed after reaching LSF memory usage limit.", "lsf", "oom_killed"),
        ("TERM_PREEMPT: job killed after preemption.", "lsf", "preempted"),
        ("TERM_OWNER: job killed by owner.", "lsf", "cancelled"),
    ],
)
def test_pbs_and_lsf_say_why_they_killed_the_job(line: str, scheduler: str, verdict: str) -> None:
    (v,) = [f for f in _facts(line) if isinstance(f, SchedulerVerdict)]
    assert (v.scheduler, v.verdict) == (scheduler, verdict)


@pytest.mark.parametrize(
    ("text", "reporter", "signal"),
    [
        # macOS's strsignal words carry the number (nwojke/mcf-tracker#7)
        ("Abort trap: 6", "shell", "SIGABRT"),
        ("Segmentation fault: 11", "shell", "SIGSEGV"),
        # allocators' heap checks print and abort()
        ("src/tcmalloc.cc:283] Attempt to free invalid pointer 0x55a1d0d57740 ", "allocator", "SIGABRT"),
        ("free(): invalid pointer", "allocator", "SIGABRT"),
        ("double free or corruption (out)", "allocator", "SIGABRT"),
        ("munmap_chunk(): invalid pointer", "allocator", "SIGABRT"),
        ("python(11193,0x7fff8b460340) malloc: *** error for object 0x15171953e8: pointer being freed was not allocated",
         "allocator", "SIGABRT"),
    ],
)
def test_a_process_aborted_by_its_allocator_or_reported_by_macos_shells(text: str, reporter: str, signal: str) -> None:
    (e,) = [f for f in _facts(text) if isinstance(f, ProcessExit)]
    assert (e.reporter, e.signal) == (reporter, signal)


def test_words_about_freeing_memory_state_nothing() -> None:
    assert _facts("INFO: freed 2 cached blocks; 0 corrupted samples skipped") == []


def test_mxnets_batch_split_check_is_a_batch_configuration_error() -> None:
    (exc,) = [f for f in _facts(
        "ValueError: data with shape (256, 3, 32, 32) cannot be evenly split into 6 slices along axis 0. Use a batch "
        "size that's multiple of 6 or set even_split=False to allow uneven partitioning of data."
    ) if isinstance(f, ExceptionFact)]  # fmt: skip
    assert exc.family == "batch_config"


# IDSIA/hhmarl_2D#15, without its traceback: the message ends in ":" and the NaN tensor follows on the next lines
_INVALID_VALUES = """ValueError: Expected parameter logits (Tensor of shape (280, 13)) of distribution Categorical(logits: torch.Size([280, 13])) to satisfy the constraint IndependentConstraint(Real(), 1), but found invalid values:
tensor([[nan, nan, nan,  ..., nan, nan, nan],
        [nan, nan, nan,  ..., nan, nan, nan]], grad_fn=<SubBackward0>)
"""  # noqa: E501


def test_an_exception_line_ending_in_a_colon_takes_the_lines_below() -> None:
    facts = _facts(_INVALID_VALUES)
    assert any(isinstance(f, NumericHealth) and f.what == "nan_output" for f in facts)


_DS_STOP = """[2026-11-29 09:43:19,276] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 4522
[2026-11-29 09:43:19,276] [INFO] [launch.py:253:sigkill_handler] Killing subprocess 4523
[09:43:19] rank 1: received SIGTERM, will checkpoint and exit after this step
[2026-11-29 09:43:20,542] [ERROR] [launch.py:259:sigkill_handler] ['python3', '-u', 'seg3d.py', '--local_rank=1'] exits with return code = -9
"""  # noqa: E501


@pytest.mark.parametrize(("failed", "sibling"), [(True, True), (False, False)])
def test_a_ranks_sigterm_after_deepspeed_stops_its_workers_is_the_launchers_when_a_worker_failed(
    failed: bool, sibling: bool
) -> None:
    # DeepSpeed's terminate_process_tree sends SIGTERM first, though its line names no signal (recorded as SIGKILL);
    # without a failed worker, the launcher was stopping the job because it was sent SIGTERM itself (a spot reclaim)
    text = _DS_STOP if failed else _DS_STOP.rsplit("\n", 2)[0]
    stream = FactStream()
    facts = [f for ev in parse_text(text) for f in stream.facts(ev, {})]
    own = [f for f in facts if getattr(f, "sender", "") == "unknown"]
    assert own and (id(own[0].event) in sibling_terminations(facts)) == sibling


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        ("run-waveah-a-deepspeed-seg3d-exact-hd95/job.log", "host_oom_killed"),
        # the same launcher's stop after it was itself sent SIGTERM stays the cause
        ("run-waveaf-a-deepspeed-molprop-spot-reclaim/job.log", "job_preempted"),
        ("gh-biocore-qiime-1048/torque_job.log", "job_preempted"),
        ("gh-marbl-canu-444/mhap.3.out", "job_preempted"),
        ("gh-nwojke-mcf-tracker-7/motchallenge_trainer.log", "native_crash"),
        ("gh-TheLastBen-fast-stable-diffusion-2349/train.log", "native_crash"),
        ("gh-d2l-ai-d2l-zh-354/train_cifar10_6gpu.log", "batch_size_mismatch"),
        ("gh-IDSIA-hhmarl_2D-15/train_hetero.log", "training_divergence"),
    ],
)
def test_wave_ah_logs_whose_fact_is_now_read(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause
