"""Wave BH (``heldout63``: real runs of ``torch.compile`` DDP, DDP over torchdata's ``StatefulDataLoader``, a
torchvision-reference-style classifier and Ray Data / Ray Train on a local Ray cluster, plus issue threads), measured
blind before any change for it: what was changed for its misses.

- torchvision's reference scripts (``MetricLogger.log_every``: "Epoch: [1]  [ 2/15]  eta: ... loss: ...") and
  pytorch/examples' ImageNet ``ProgressMeter`` ("Epoch: [0][  11/5005]   Time ... Loss ...") print progress lines
  (``progress.progress_counter``): a job going on after a caught exception, and the epochs it had run, are seen.
- A caught exception printed again and again (a loader skipping each unreadable image it meets, every epoch) is one
  failure the job went on from, when the job went on after the last of them too (``recovered._caught_again``).
- A rank's counter printed twice in a row ("eval step 20 | val_loss ..." after "step 20/60 | loss ...") is no restart.
- A job whose ranks print no progress of their own but whose rank-0 loop prints it without a rank: that stream shows
  the job went on after a traceback a rank's warning introduced.
- Ray retried a failed Ray Data task and Ray Data then said the dataset's execution finished: the job recovered
  (``recovered.dataset_finished_after_retry``).
- Open MPI's crash handler's first line alone ("[host:pid] *** Process received signal ***") is a process that took
  a fatal signal (``fatal-signal-handler-banner``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer.kinds import ProcessExit
from logsleuth.pipeline import analyze, collect
from logsleuth.progress import progress_counter
from logsleuth.rules import load_rules

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause", "rule"),
    [
        # PIL's UnidentifiedImageError caught and logged under "WARNING defects [rank 0]: skipping unreadable image",
        # 9 times over 6 epochs, and the run trained to its end (wavebh_c)
        ("run-wavebh-c-img-healthy-skip-truncated/job.log", "no_failure", "went-on-after-exception"),
        # a KeyError for a checkpoint saved without EMA weights, caught and logged at ERROR; the run resumed (wavebh_c)
        ("run-wavebh-c-img-healthy-resume/job.log", "no_failure", "went-on-after-exception"),
        # dynamo's "WON'T CONVERT ... due to: Traceback" for a C++ compiler that is not there: the frames ran eagerly
        # and rank 0 trained 60 steps, printing "eval step 20" after "step 20/60" (wavebh_a)
        ("run-wavebh-a-gpt-healthy-cxx/job.log", "no_failure", "went-on-after-exception"),
        # a decoded-image cache both ranks memory-map, truncated in epoch 2: SIGBUS after a whole epoch (wavebh_c)
        ("run-wavebh-c-img-decoded-cache-rebuilt/job.log", "native_crash", "sigbus-after-a-whole-epoch"),
        # NCCL 2.26.2 under Open MPI: the log ends at the crash handler's banner (NVIDIA/nccl#1669)
        ("gh-NVIDIA-nccl-1669/ras_query_during_init_crash.log", "native_crash", "fatal-signal-handler-banner"),
        # the same handler's whole report names the signal, which decides (horovod/horovod#585)
        ("gh-horovod-horovod-585/train.log", "native_crash", "process-crashed-by-signal"),
        # a Ray Data task raising ConnectionError while its input was written late, retried by Ray 4 times, then
        # "Dataset ... execution finished in 13.22 seconds" and the scores written (wavebh_d)
        ("run-wavebh-d-returns-score-healthy-fx-late/job.log", "no_failure", "dataset-finished-after-retry"),
        # a UDF whose native library segfaults on a null field: Ray retries the task 8 times and the dataset never
        # finishes (wavebh_d)
        ("run-wavebh-d-returns-marketplace-feed/job.log", "native_crash", "process-crashed-by-signal"),
        # the same unreadable images without the skip option: rank 0's loader worker raised and the job ended
        ("run-wavebh-c-img-truncated-upload/job.log", "worker_exception", "python-worker-exception"),
        # a malformed row raising KeyError under torchrun --max-restarts 1: it fails again after the restart
        ("run-wavebh-a-gpt-prompt-row/job.log", "worker_exception", "python-worker-exception"),
    ],
)
def test_wave_bh_logs_by_facts(log: str, cause: str, rule: str) -> None:
    diag = analyze([str(CORPUS / log)], model=False)
    assert (diag.root_cause, diag.rule_id) == (cause, rule)


@pytest.mark.parametrize(
    ("line", "counter"),
    [
        # torchvision references/classification (wavebh_c)
        (
            "Epoch: [1]  [ 2/15]  eta: 0:00:05  lr: 0.046650635094610975  img/s: 117.16505695110794  loss: 0.0097 "
            "(0.0953)  acc1: 100.0000 (92.7083)  acc2: 100.0000 (100.0000)  time: 0.4274  data: 0.1474",
            (1, 2, -1),
        ),
        # pytorch/examples imagenet/main.py (pytorch/pytorch#79299)
        (
            "Epoch: [0][  11/5005]   Time  0.303 ( 0.854)    Data  0.000 ( 0.400)    Loss 8.3196e+00 (7.8798e+00)    "
            "Acc@1   0.00 (  0.07)   Acc@5   0.00 (  0.28)",
            (0, 11, -1),
        ),
        # the evaluation loop's own counter ("Test:") is not training progress
        ("Test: EMA  [0/3]  eta: 0:00:00  loss: 0.1165 (0.1165)  acc1: 100.0000 (100.0000)", None),
    ],
)
def test_reference_script_progress_lines(line: str, counter: tuple[int, int, int] | None) -> None:
    assert progress_counter(line) == counter


def test_crash_handler_banner_is_a_fatal_signal_of_unknown_number() -> None:
    evidence = collect([str(CORPUS / "gh-NVIDIA-nccl-1669/ras_query_during_init_crash.log")], load_rules())
    exits = [f for f in evidence.facts if isinstance(f, ProcessExit)]
    assert [(f.reporter, f.signal, f.node, f.proc) for f in exits] == [("opal", None, "rtptest1621", 405884)]
