"""Facts and rules added after wave F (heldout8) was measured blind (training-side misses): each reads a library's
own message, in the wordings that library prints, never a fixture's path. Lines are copied from the public threads
named beside them (the corpus keeps those logs too)."""

from __future__ import annotations

from pathlib import Path

import pytest

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import CudaError, NumericHealth, ProcessExit
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze, collect
from logsleuth.rules.engine import load_rules


def _facts(text: str, kind: type) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev) if isinstance(f, kind)]


def _diagnose(tmp_path: Path, text: str) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=False).root_cause


# --- NaN in a named loss component (detectron2 / mmdetection per-head losses) ---------------------------------------
_D2_EVENTS = (
    "[11/01 20:14:43 d2.utils.events]: eta: 5:43:31  iter: 499  total_loss: 1.733  loss_cls: 1.224  "
    "loss_box_reg: 0.488  time: 0.2298  data_time: 0.0032  lr: 0.004995  max_mem: 3782M\n"
)
# detectron2's anomaly check (engine/train_loop.py) prints the loss dict of tensors (facebookresearch/detectron2#214)
_D2_NAN = (
    "loss_dict = {'loss_cls': tensor(nan, device='cuda:0', grad_fn=<DivBackward0>), 'loss_box_reg': "
    "tensor(1310.0702, device='cuda:0', grad_fn=<DivBackward0>)}\n"
)


def test_nan_in_a_loss_component_is_nan_loss() -> None:
    (f,) = _facts(_D2_NAN, NumericHealth)
    assert f.what == "nan_loss"


def test_nan_loss_component_then_segfault_is_divergence(tmp_path: Path) -> None:
    """The SIGSEGV at exit (139) comes after the NaN: the divergence is the cause, the crash collateral."""
    text = _D2_EVENTS + _D2_NAN + "\nProcess finished with exit code 139 (interrupted by signal 11: SIGSEGV)\n"
    assert _diagnose(tmp_path, text) == "training_divergence"


@pytest.mark.parametrize(
    "line",
    [
        _D2_EVENTS.strip(),
        # fp16's scaler is no loss: an inf loss_scale metric is not a NaN loss
        "2020-03-23 11:38:13 | INFO | train | epoch 002 | loss 9.803 | nll_loss 8.89 | loss_scale 128 | wall 9786",
    ],
)
def test_finite_loss_components_are_no_fact(line: str) -> None:
    assert _facts(line, NumericHealth) == []


# --- fairseq's all_gather_list out of step ------------------------------------------------------------------------
def test_fairseq_all_gather_list_out_of_sync_is_collective_mismatch(tmp_path: Path) -> None:
    """facebookresearch/fairseq#1088; the same words in fairseq/distributed_utils.py and fairseq/distributed/utils.py."""
    text = (
        'File "~/fairseq/fairseq/distributed_utils.py", line 178, in all_gather_list\n'
        "'Unable to unpickle data from other workers. all_gather_list requires all '\n"
        "Exception: Unable to unpickle data from other workers. all_gather_list requires all workers to enter the "
        "function together, so this error usually indicates that the workers have fallen out of sync somehow. Workers "
        "can fall out of sync if one of them runs out of memory, or if there are other conditions in your training "
        "script that can cause one worker to finish an epoch while other workers are still iterating over their "
        "portions of the data.\n"
    )
    assert _diagnose(tmp_path, text) == "collective_mismatch"


# --- CUDA device-side assertions --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "line",
    [
        # with the kernel's function name (huggingface/transformers#21716)
        "../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
        "[27,0,0] Assertion `t >= 0 && t < n_classes` failed.",
        # older THC kernels, no function name (NVIDIA/flowtron#52)
        "C:/cb/pytorch_1000000000000/work/aten/src/THC/THCTensorIndex.cu:218: block: [0,0,0], thread: [106,0,0] "
        "Assertion `srcIndex < srcSelectDimSize` failed.",
        # the runtime's own string for the same error (cudaErrorAssert)
        "RuntimeError: CUDA error: device-side assert triggered",
    ],
)
def test_device_side_assert_is_cuda_error_assert(line: str) -> None:
    (f,) = _facts(line, CudaError)
    assert f.name == "cudaErrorAssert" and f.code == 710


@pytest.mark.parametrize(
    "line",
    [
        # torch's hint after every CUDA error, and a host-side C assert
        "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
        "python: train.cpp:12: int main(): Assertion `n > 0' failed.",
    ],
)
def test_no_device_assert_fact_without_block_and_thread(line: str) -> None:
    assert _facts(line, CudaError) == []


def test_device_side_assert_before_clipped_traceback_is_nccl_cuda_error(tmp_path: Path) -> None:
    """huggingface/transformers#21716: the asserts, then a Trainer traceback the paste cuts before its last line."""
    text = (
        "../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
        "[30,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
        "../aten/src/ATen/native/cuda/Loss.cu:242: nll_loss_forward_reduce_cuda_kernel_2d: block: [0,0,0], thread: "
        "[31,0,0] Assertion `t >= 0 && t < n_classes` failed.\n"
        "Traceback (most recent call last):\n"
        '  File "run_mlm.py", line 594, in main\n'
        "    train_result = trainer.train(resume_from_checkpoint=checkpoint)\n"
        '  File "/transformers/src/transformers/trainer.py", line 2588, in training_step\n'
        "    loss = self.compute_loss(model, inputs)\n"
    )
    assert _diagnose(tmp_path, text) == "nccl_cuda_error"


# --- a CUDA OOM that a framework caught and re-printed ------------------------------------------------------------
_FAIRSEQ_OOM = (
    "| WARNING: ran out of memory with exception: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.93 GiB "
    "total capacity; 7.20 GiB already allocated; 17.56 MiB free; 46.25 MiB cached);\n"
    " Skipping batch\n"
)


def test_reprinted_cuda_oom_then_dead_workers_is_cuda_oom(tmp_path: Path) -> None:
    """facebookresearch/fairseq#869: fairseq skips the batch, then torch.multiprocessing.spawn reports a dead worker."""
    text = _FAIRSEQ_OOM + (
        "Traceback (most recent call last):\n"
        '  File "/miniconda3/envs/py36/lib/python3.6/site-packages/torch/multiprocessing/spawn.py", line 114, in join\n'
        "    raise Exception(msg)\n"
        "Exception:\n"
        "\n"
        "-- Process 3 terminated with the following error:\n"
    )
    assert _diagnose(tmp_path, text) == "cuda_oom"


@pytest.mark.parametrize("end", ["| done training in 3620.4 seconds\n", "Process finished with exit code 0\n"])
def test_reprinted_cuda_oom_the_run_survived_is_no_failure(tmp_path: Path, end: str) -> None:
    text = _FAIRSEQ_OOM + (
        "| epoch 001 | loss 6.112 | nll_loss 4.503 | ppl 22.67 | wps 9480 | ups 2 | wpb 4170.417 | bsz 138.125\n" + end
    )
    assert _diagnose(tmp_path, text) == "no_failure"


# --- Lightning: the log stops inside init_process_group ----------------------------------------------------------
_LIGHTNING_START = (
    "GPU available: True, used: True\nTPU available: False, using: 0 TPU cores\nIPU available: False, using: 0 IPUs\n"
)


def test_lightning_log_ending_at_ddp_init_is_rendezvous_timeout(tmp_path: Path) -> None:
    """Lightning-AI/pytorch-lightning#8707: 4 of 8 members started (python run without srun), then nothing."""
    text = _LIGHTNING_START + (
        "initializing ddp: GLOBAL_RANK: 1, MEMBER: 2/8\n"
        "initializing ddp: GLOBAL_RANK: 2, MEMBER: 3/8\n"
        "initializing ddp: GLOBAL_RANK: 0, MEMBER: 1/8\n"
        "initializing ddp: GLOBAL_RANK: 3, MEMBER: 4/8\n"
    )
    assert _diagnose(tmp_path, text) == "rendezvous_timeout"


def test_lightning_init_that_completed_is_no_failure(tmp_path: Path) -> None:
    """lightning_fabric's _init_dist_connection: rank 0 announces the registered world once init_process_group returns."""
    text = _LIGHTNING_START + (
        "Initializing distributed: GLOBAL_RANK: 0, MEMBER: 1/2\n"
        "----------------------------------------------------------------------------------------------------\n"
        "distributed_backend=gloo\n"
        "All distributed processes registered. Starting with 2 processes\n"
        "----------------------------------------------------------------------------------------------------\n"
    )
    assert _diagnose(tmp_path, text) == "no_failure"


# --- SIGBUS in several processes: their shared memory ran out ---------------------------------------------------
def _torchrun_failure(entries: list[tuple[int, int, int, str]]) -> str:
    """torchrun's ChildFailedError summary (torch/distributed/elastic/multiprocessing/errors), one entry per
    (rank, pid, exitcode, signal), the first entry as the root cause."""
    head = "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \nfinetune.py FAILED\nFailures:\n"
    out = []
    for i, (rank, pid, code, sig) in enumerate(entries):
        label = "Root Cause (first observed failure):\n" if i == 0 else ""
        out.append(
            f"{label}[{rank}]:\n  time      : 2023-04-14_06:35:35\n  host      : container-a\n"
            f"  rank      : {rank} (local_rank: {rank})\n  exitcode  : {code} (pid: {pid})\n  error_file: <N/A>\n"
            f"  traceback : Signal {-code} ({sig}) received by PID {pid}\n"
        )
    return head + "".join(out[1:]) + out[0]


def test_sigbus_counts_distinct_pids(tmp_path: Path) -> None:
    """tloen/alpaca-lora#338: torchrun names rank 0's failure twice (its first line without a pid in older torch)."""
    text = "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -7) local_rank: 0 \n" + (
        _torchrun_failure([(0, 3111, -7, "SIGBUS"), (1, 3112, -7, "SIGBUS")])
    )
    log = tmp_path / "job.log"
    log.write_text(text)
    evidence = collect([str(log)], load_rules())
    counts = [f.same_signal for f in evidence.facts if isinstance(f, ProcessExit) and f.signal == "SIGBUS"]
    assert max(counts) == 2 and counts.count(0) == 1  # the pid-less line is not counted
    assert _diagnose(tmp_path, text) == "shm_exhausted"


def test_one_sigbus_among_terminated_siblings_is_still_the_cause(tmp_path: Path) -> None:
    """A single rank's SIGBUS, its siblings then stopped by torchrun's SIGTERM: the SIGBUS is the cause, read by default
    as /dev/shm (rule sigbus-default-shared-memory, after FlagOpen/FlagEmbedding#635 and dlrover#1046; the run this
    was copied from truncated a memory-mapped file instead, which the rule's fix names as the other reading)."""
    text = (
        "[W1124 23:04:39.000000 10244 torch/distributed/elastic/multiprocessing/api.py:900] Sending process 10320 "
        "closing signal SIGTERM\n"
        "E1124 23:04:39.831000 10244 torch/distributed/elastic/multiprocessing/api.py:1002] failed (exitcode: -7) "
        "local_rank: 0 (pid: 10317) of binary: /usr/bin/python\n"
    ) + _torchrun_failure([(0, 10317, -7, "SIGBUS"), (1, 10320, -15, "SIGTERM")])
    assert _diagnose(tmp_path, text) == "shm_exhausted"
