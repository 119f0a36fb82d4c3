"""Facts added after wave H (heldout10) was measured blind: each reads how a library, launcher or scheduler prints a
fact in general, never a fixture's path. Lines are copied from the public threads named beside them and from the
corpus's real runs (corpus/generators/waveh/generate.py); the corpus keeps those logs whole."""

from __future__ import annotations

from pathlib import Path

from logsleuth.factlayer import facts_of
from logsleuth.factlayer.kinds import CudaError, ExceptionFact, ProcessExit, RunFinished, SchedulerVerdict
from logsleuth.parse import parse_text
from logsleuth.pipeline import analyze

CORPUS = Path(__file__).resolve().parent.parent / "corpus" / "logs"


def _diagnose(tmp_path: Path, text: str, model: bool = False) -> str:
    log = tmp_path / "job.log"
    log.write_text(text)
    return analyze([str(log)], model=model).root_cause


def _facts(text: str) -> list:
    return [f for ev in parse_text(text) for f in facts_of(ev)]


# --- CUDA errors ------------------------------------------------------------------------------------------------------
# verl-project/verl#302: vLLM's cuMem allocator (csrc/cumem_allocator.cpp) waking the engine up, "CUDA Error: ..." in
# any case, as the reporter typed it
VLLM_CUMEM_OOM = "cuda error: out of memory at /workspace/csrc/cumem_allocator.cpp:62\n"
# pytorch/pytorch#152077: NCCL 2.14.3+cuda11.8 on an sm_120 GPU has no kernels for it
NCCL_SYMBOL = (
    "RuntimeError: NCCL Error 1: unhandled cuda error\n"
    "node-1:50555:50555 [0] NCCL WARN Cuda failure 'named symbol not found'\n"
    "node-1:50555:50555 [0] NCCL INFO cudaDriverVersion 12080\n"
    "NCCL version 2.14.3+cuda11.8\n"
)


def test_cuda_error_in_any_case_is_read() -> None:
    (err,) = [f for f in _facts(VLLM_CUMEM_OOM) if isinstance(f, CudaError)]
    assert (err.name, err.family) == ("cudaErrorMemoryAllocation", "gpu_memory")


def test_vllm_cumem_allocator_out_of_memory_is_cuda_oom(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, VLLM_CUMEM_OOM) == "cuda_oom"


def test_a_kernel_missing_for_the_gpu_is_a_version_mismatch_not_a_generic_nccl_cuda_error(tmp_path: Path) -> None:
    errs = [f for f in _facts(NCCL_SYMBOL) if isinstance(f, CudaError)]
    assert [(e.name, e.code, e.family) for e in errs] == [("cudaErrorSymbolNotFound", 500, "version")]
    assert _diagnose(tmp_path, NCCL_SYMBOL) == "library_version_mismatch"


# --- exception families -----------------------------------------------------------------------------------------------
def test_a_backend_without_the_collective_is_the_environment(tmp_path: Path) -> None:
    # pytorch/pytorch#17848: a nightly whose ProcessGroupNCCL had no barrier (fixed in torch 1.0.1)
    text = (
        "Traceback (most recent call last):\n"
        '  File "comm.py", line 45, in synchronize\n'
        "    dist.barrier()\n"
        "RuntimeError: ProcessGroupNCCL does not support barrier\n"
    )
    (exc,) = [f for f in _facts(text) if isinstance(f, ExceptionFact)]
    assert exc.family == "environment"
    assert _diagnose(tmp_path, text) == "library_version_mismatch"


def test_nemo_rl_virtual_cluster_short_of_gpus_is_a_placement_failure(tmp_path: Path) -> None:
    # NVIDIA-NeMo/RL#89 (nemo_rl/distributed/virtual_cluster.py _init_placement_groups)
    text = "ValueError: Not enough GPUs available. Requested 16 GPUs, but only 8 are available in the cluster.\n"
    assert [f.family for f in _facts(text) if isinstance(f, ExceptionFact)] == ["placement"]
    assert _diagnose(tmp_path, text) == "ray_scheduling_stall"


# --- an NCCL WARN that only a known NCCL bug prints ------------------------------------------------------------------
# NVIDIA-NeMo/Run#266, explained in NVIDIA/nccl#1748 (NCCL 2.25/2.26 NIC fusion, fixed in 2.27)
NIC_FUSION_WARN = (
    "graph/search.cc:1135 NCCL WARN Could not find a path for pattern 1, falling back to simple order\n"
    "graph/topo.h:230 NCCL WARN Could not find NET with id 0\n"
)
NCCL_INTERNAL = (
    "torch.distributed.DistBackendError: NCCL error in: /opt/pytorch/pytorch/torch/csrc/distributed/c10d/"
    "ProcessGroupNCCL.cpp:3376, internal error - please report this issue to the NCCL developers, NCCL version 2.25.1\n"
)


def test_nccl_nic_fusion_warn_states_the_version_problem(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, NIC_FUSION_WARN + NCCL_INTERNAL) == "library_version_mismatch"
    # NVIDIA-NeMo/Speech#13996 pasted the WARN alone, with no version line and no error after it
    assert _diagnose(tmp_path, NIC_FUSION_WARN.split("\n", 1)[1]) == "library_version_mismatch"


def test_the_same_internal_error_without_the_warn_is_not_a_version_problem(tmp_path: Path) -> None:
    assert _diagnose(tmp_path, NCCL_INTERNAL) != "library_version_mismatch"


# --- crashes, networks, schedulers --------------------------------------------------------------------------------
def test_gdb_on_a_core_file_names_the_signal(tmp_path: Path) -> None:
    # open-mmlab/mmpretrain#603 (gdb corelow.c: "Program terminated with signal %s, %s.")
    text = (
        "Program terminated with signal SIGSEGV, Segmentation fault.\n"
        "#0  0x00007f92fef2548f in at::cuda::getCurrentCUDABlasHandle() ()\n"
        "   from /workspace/venv/lib/python3.8/site-packages/torch/lib/libtorch_cuda_cu.so\n"
    )
    assert [(f.signal, f.reporter) for f in _facts(text) if isinstance(f, ProcessExit)] == [("SIGSEGV", "gdb")]
    assert _diagnose(tmp_path, text) == "native_crash"


def test_gloo_full_mesh_failure_is_the_network_unless_a_crash_came_first(tmp_path: Path) -> None:
    # vllm-project/vllm#13121: fixed by GLOO_SOCKET_IFNAME
    line = (
        "(RayWorkerWrapper pid=1061) ERROR 02-12 02:14:01 worker_base.py:574] RuntimeError: Gloo connectFullMesh "
        "failed with [../third_party/gloo/gloo/transport/tcp/pair.cc:144] no error\n"
    )
    assert _diagnose(tmp_path, line) == "nccl_network_config"
    # a real torchrun restart after a rank's SIGSEGV: the new attempt's gloo mesh fails because the job is broken
    restart = CORPUS / "run-waveg-torchrun-restarts-ctypes-null-stats-segv" / "job.log"
    assert analyze([str(restart)], model=False).root_cause == "native_crash"


def test_slurm_memory_enforcement_is_host_memory(tmp_path: Path) -> None:
    # run-waveh-slurm-srun-feature-cache-mem-limit: Slurm's jobacct_gather OverMemoryKill, then the reason-less cancel
    text = (
        "0: 2026-11-28 04:08:21,988 [rank 0/2] INFO train: epoch 0 step 120 loss 0.0332 rss 1052 MiB 0.08 s/step\n"
        "0: slurmstepd-vm: error: StepId=17.0 exceeded memory limit (1978634240 > 1887436800), being killed\n"
        "srun: Exceeded job memory limit\n"
        "srun: Job step aborted: Waiting up to 12 seconds for job step to finish.\n"
        "0: slurmstepd-vm: error: *** STEP 17.0 ON vm CANCELLED AT 2026-11-28T04:08:22 ***\n"
        "srun: error: vm: tasks 0-1: Killed\n"
    )
    verdicts = [f.verdict for f in _facts(text) if isinstance(f, SchedulerVerdict)]
    assert verdicts[:2] == ["oom_killed", "oom_killed"] and "cancelled" in verdicts
    assert _diagnose(tmp_path, text) == "host_oom_killed"


# --- numbers as HF transformers >= 4.5x prints them (quoted) -------------------------------------------------------
def test_quoted_nan_in_trainer_log_dicts_is_divergence(tmp_path: Path) -> None:
    # run-waveh-hf-torchrun-sgd-lr-nan (logging_nan_inf_filter shows the NaN steps' loss as '0')
    text = (
        "{'loss': '7.297', 'grad_norm': '15.64', 'learning_rate': '1.5', 'epoch': '0.005754'}\n"
        "{'loss': '3.477e+13', 'grad_norm': '2.521e+08', 'learning_rate': '1.5', 'epoch': '0.01726'}\n"
        "{'loss': '0', 'grad_norm': 'nan', 'learning_rate': '1.5', 'epoch': '0.02301'}\n"
        "{'eval_loss': 'nan', 'eval_runtime': '0.5535', 'eval_samples_per_second': '1920', 'epoch': '0.05754'}\n"
    )
    assert _diagnose(tmp_path, text) == "training_divergence"


def test_healthy_trainer_runs_with_quoted_values_stay_healthy() -> None:
    for name in ("run-waveh-hf-torchrun-datasets-healthy", "run-waveh-mpirun-hf-trainer-healthy"):
        assert analyze([str(CORPUS / name / "job.log")]).root_cause == "no_failure", name


# --- finished, then killed from outside: a hang at shutdown -------------------------------------------------------
# NVIDIA-NeMo/Megatron-Bridge#3427 (the Slurm line cut mid-way as the thread stores it) and #1656
MEGATRON_DONE = (
    " [2026-04-20 03:17:07] iteration       50/      50 | consumed samples:        25600 | elapsed time per "
    "iteration (ms): 9969.4 | learning rate: 4.500000E-06 | global batch size:   512 | lm loss: 4.791878E-03 |\n"
    "[after training is done] datetime: 2026-04-20 03:17:08\n"
)


def test_finish_lines_are_facts() -> None:
    lines = (
        "[after training is done] datetime: 2026-04-20 03:17:08\n"
        "`Trainer.fit` stopped: `max_epochs=3` reached.\n"
        "Training completed. Do not forget to share your model on huggingface.co/models =)\n"
    )
    assert [f.by for f in _facts(lines) if isinstance(f, RunFinished)] == ["megatron", "lightning", "transformers"]


def test_megatron_lines_with_a_leading_space_keep_their_time() -> None:
    (ev, _) = parse_text(MEGATRON_DONE)
    assert ev.time is not None and ev.time.minute == 17


# The cancel lines below are #1656's and #3427's with their times moved (and #3427's step id on #1656's line) to put
# the kill at a chosen distance from the finished line: what is tested is the gap rule, not a new log.
def test_finished_then_cancelled_is_a_hang_at_shutdown(tmp_path: Path) -> None:
    cut = MEGATRON_DONE + "[2026-04-20T03:25:23.011] error: *** STEP 1942963.1 ON\n"
    assert _diagnose(tmp_path, cut) == "silent_hang"
    d = analyze([str(tmp_path / "job.log")], model=False)
    assert "8 min later" in d.message and d.first_failure.line == 2
    limit = MEGATRON_DONE + (
        "slurmstepd: error: *** STEP 4226796.2 ON node-a CANCELLED AT 2026-04-20T03:53:02 DUE TO TIME LIMIT ***\n"
    )
    assert _diagnose(tmp_path, limit) == "silent_hang"


def test_a_time_limit_while_still_training_stays_the_time_limit(tmp_path: Path) -> None:
    text = MEGATRON_DONE.split("\n")[0] + "\n" + (
        "slurmstepd: error: *** STEP 4226796.2 ON node-a CANCELLED AT 2026-04-20T03:53:02 DUE TO TIME LIMIT ***\n"
    )
    assert _diagnose(tmp_path, text) == "job_preempted"


def test_a_kill_right_after_the_finish_line_decides_nothing_new(tmp_path: Path) -> None:
    text = MEGATRON_DONE + (
        "slurmstepd: error: *** STEP 4226796.2 ON node-a CANCELLED AT 2026-04-20T03:17:20 DUE TO TIME LIMIT ***\n"
    )
    assert _diagnose(tmp_path, text) == "job_preempted"


# --- the model may not flag a job from NCCL's own INFO lines -----------------------------------------------------
def test_healthy_nccl_init_pastes_stay_healthy_with_the_model() -> None:
    # facebookresearch/detectron2#4730 and horovod/horovod#639: NCCL_DEBUG=INFO start-ups pasted from working jobs
    for name in ("gh-facebookresearch-detectron2-4730/train_net.log", "gh-horovod-horovod-639/mpirun.log"):
        assert analyze([str(CORPUS / name)]).root_cause == "no_failure", name
