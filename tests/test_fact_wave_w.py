"""Facts added after wave W (heldout26) was measured blind (34/35 failures, 1/10 healthy flagged): OpenMMLab's
bracketed progress counters (so a NaN grad_norm the next logged step recovered from is the fp16 scaler working, not a
divergence) and two ranks of one NCCL communicator set up on the same GPU, read from NCCL's Init lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.pipeline import analyze
from logsleuth.progress import progress_counter

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


@pytest.mark.parametrize(
    ("log", "cause"),
    [
        # JiaquanYe/TableMASTER-mmocr#32: "Epoch [1][100/62598] ... grad_norm: nan", then "Epoch [1][200/62598] ...
        # loss: 0.9186, grad_norm: 3.9772" (mixed precision skipping an overflowing step; healthy, said the author)
        ("gh-JiaquanYe-TableMASTER-mmocr-32/train.log", "no_failure"),
        # NVIDIA/TensorRT-LLM#9263: ranks 0 and 1 of commId 0xaa9b... both "cudaDev 0 nvmlDev 0 busId 100000", then
        # "NCCL error ... 'invalid usage'"
        ("gh-NVIDIA-TensorRT-LLM-9263/prefill_worker.log", "duplicate_gpu"),
    ],
)
def test_wave_w_logs_by_rules_and_facts(log: str, cause: str) -> None:
    assert analyze([str(CORPUS / log)], model=False).root_cause == cause


@pytest.mark.parametrize(
    ("line", "counter"),
    [
        # mmcv's TextLoggerHook (the corpus line above)
        ("Epoch [1][100/62598]\tlr: 1.000e-03, eta: 6 days, 15:22:46, loss: 1.9091, grad_norm: nan", (1, 100, -1)),
        # mmengine's LogProcessor format, values chosen
        ("mmengine - INFO - Epoch(train)  [3][ 250/1000]  lr: 1.0000e-02  eta: 0:10:00  loss: 0.5000", (3, 250, -1)),
        (
            "mmengine - INFO - Iter(train) [  100/80000]  lr: 1.0000e-04  eta: 1 day, 2:00:00  loss: 2.1000",
            (-1, 100, -1),
        ),
    ],
)
def test_openmmlab_counters_are_progress(line: str, counter: tuple[int, int, int]) -> None:
    assert progress_counter(line) == counter


# The two Init lines of NVIDIA/TensorRT-LLM#9263 (above); the third variant is not a real log: it changes the second
# line's nranks, as lines from unrelated jobs (or a generator's random fields) would.
_TRT_INIT = (
    "test-trt-prefill-worker-0-0:42:982 [0] NCCL INFO ncclCommInitRank comm 0x7a12257c8780 rank 0 nranks 2 cudaDev 0"
    " nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START\n"
    "test-trt-prefill-worker-0-0:43:43 [0] NCCL INFO ncclCommInitRank comm 0x397e3800 rank 1 nranks {nranks} cudaDev 0"
    " nvmlDev 0 busId 100000 commId 0xaa9becea043c4e6c - Init START\n"
)


@pytest.mark.parametrize(("nranks", "cause"), [("2", "duplicate_gpu"), ("7", "no_failure"), ("1", "no_failure")])
def test_shared_gpu_needs_one_coherent_communicator(tmp_path: Path, nranks: str, cause: str) -> None:
    """Members of one communicator agree on nranks and each rank is below it; Init lines that do not are no account
    of one communicator (the benchmark's NCCL shape, random fields on real templates, read as duplicate_gpu)."""
    log = tmp_path / "job.log"
    log.write_text(_TRT_INIT.format(nranks=nranks))
    assert analyze([str(log)], model=False).root_cause == cause
