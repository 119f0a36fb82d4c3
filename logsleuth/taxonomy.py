"""Root-cause ids (the public contract; from the project's taxonomy.md). Never rename one: users filter on them."""

from __future__ import annotations

NOT_A_CAUSE = {
    "no_failure": "The log shows a run that did not fail",
    "unknown": "It failed, but no rule or model is confident",
}

ROOT_CAUSES: dict[str, str] = {
    "rendezvous_timeout": "Not every worker reached the store/rendezvous in time",
    "ray_scheduling_stall": "Ray could not place actors or placement groups",
    "port_in_use": "The master/store port is already taken",
    "batch_size_mismatch": "train_batch_size != micro_batch_per_gpu * gradient_acc_steps * world_size",
    "duplicate_gpu": "Two ranks on one GPU",
    "nccl_network_config": "NCCL cannot form connections (interface, routing, firewall)",
    "ib_transport_error": "InfiniBand/RoCE transport fault",
    "nccl_p2p_failure": "GPU peer-to-peer/IPC broken",
    "shm_exhausted": "Shared memory (/dev/shm) too small",
    "nccl_cumem_mismatch": "Trainer and vLLM disagree on NCCL_CUMEM_ENABLE in the weight-sync group",
    "collective_timeout": "A collective never completed (watchdog timeout, stuck or desynchronised ranks)",
    "collective_mismatch": "Ranks issued different collectives or shapes",
    "silent_hang": "The job stopped making progress with no watchdog or error; one rank's output stopped first",
    "peer_process_died": "This rank lost its connection because another rank died first",
    "cuda_oom": "CUDA out of memory",
    "host_oom_killed": "Killed by the kernel OOM killer or Ray's memory monitor (SIGKILL)",
    "nccl_cuda_error": "A CUDA fault surfaced through NCCL",
    "gpu_hardware_fault": "The GPU or its link failed (Xid, ECC, PCIe, fallen off the bus)",
    "native_crash": "A process died in native code (SIGSEGV/SIGABRT/SIGBUS/SIGILL)",
    "disk_full": "A filesystem ran out of space or quota",
    "training_divergence": "The run diverged (NaN/Inf loss, loss scale collapsed)",
    "worker_exception": "The training code raised on one rank",
    "library_version_mismatch": "Incompatible NCCL/CUDA/driver/torch/vLLM/TRL versions",
    "job_preempted": "SIGTERM from the scheduler or a time limit",
    "terminal_hangup": "The launching terminal closed (SIGHUP)",
}

ALL_IDS = {**ROOT_CAUSES, **NOT_A_CAUSE}


def title(root_cause: str) -> str:
    """One-line description of a taxonomy id (the id itself when unknown)."""
    return ALL_IDS.get(root_cause, root_cause)
