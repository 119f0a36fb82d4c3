"""Generate wave BO (f)'s real runs (sealed batch ``heldout70``, ecosystem ``ray``): wave BO (d)'s job and workload
(``../wavebo_d/generate.py``'s ``ray_wave``, ``prep`` and ``job``; ``../wavebo_d/project``) under Ray Train's **V1** API (``RAY_TRAIN_V2_ENABLED=0``: the
trainer runs as a Tune trial, with Tune's status tables and trial errors), which Ray 2.60 still ships. From d: a two-tower click-through
recommender (``project/train.py``) trained with Ray Train 2.60's ``TorchTrainer`` (DDP over gloo, checkpoints to
shared storage every epoch) on a **multi-node Ray cluster**: ``project/cluster.sh`` starts the Ray head on host
``gpu-a17`` (network namespace ``bonode0``, 10.72.0.11), worker nodes on ``gpu-a18``/``gpu-a19`` (10.72.0.12-13; each
in its own UTS and mount namespace with a private ``/tmp/ray``, its ``ray start --block`` output to ``logs/``, as a
Slurm ``srun --output`` would), waits for them to join and runs the driver. The job log is the head node's console:
``ray start --head`` and the driver (with the workers' ``(RayTrainWorker pid=..., ip=...)`` lines), then the job
shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and Ray 2.60 + torch 2.13.0+cpu in
the system Python (``/root/.pyenv/versions/3.11.7/bin``). Token authentication on (``RAY_AUTH_MODE=token``, a token
generated in the job's shared home before the run).

    python3 corpus/generators/wavebo_f/generate.py --list
    python3 corpus/generators/wavebo_f/generate.py --scenario NAME
"""
from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario  # noqa: E402

_spec = importlib.util.spec_from_file_location("wavebo_d_generate", HERE.parent / "wavebo_d" / "generate.py")
d = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(d)
prep, job = d.prep, d.job
WAVE = d.ray_wave("wavebo-f", HERE, "wave-bo-runs-f.csv", RAY_TRAIN_V2_ENABLED="0")
DONE = d.DONE
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job("--cpus-per-worker 0.5 --epochs 3"), DONE, prep=prep(), timeout=240),
    Scenario("healthy-retry", "no_failure", job("--cpus-per-worker 0.5 --epochs 4 --max-failures 2"), r"resumed from[\s\S]*" + DONE,
             prep=prep(hook="once"), timeout=300),
    Scenario("rank-sigkill", "host_oom_killed", job("--cpus-per-worker 0.5 --epochs 6 --step-delay 0.05"), r"exited with", prep=prep(),
             trigger=((r"step 100 loss", "rank2:KILL"),), timeout=240, hang_ok=True),
    Scenario("rank-segv", "native_crash", job("--cpus-per-worker 0.5 --epochs 4"), r"exited with", prep=prep(hook="segv"), timeout=240,
             hang_ok=True),
    Scenario("rank-keyerror", "worker_exception", job("--cpus-per-worker 0.5 --epochs 4"), r"KeyError", prep=prep(hook="keyerr"),
             timeout=240, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job("--cpus-per-worker 0.5 --epochs 3 --pad 100000"), r"exited with", prep=prep(),
             tmpfs=(("results", "300k"),), timeout=240, hang_ok=True),
    Scenario("ifname-missing", "nccl_network_config", job("--cpus-per-worker 0.5 --epochs 3", env="GLOO_SOCKET_IFNAME=ib0"),
             r"exited with", prep=prep(), timeout=240, hang_ok=True),
    # 4 workers x 1 CPU on 4 CPUs: under V1 the trainer itself is a Tune trial actor that needs a CPU too
    Scenario("trainer-cpu-short", "ray_scheduling_stall", job("--epochs 3"), r"exited with", prep=prep(), timeout=150,
             hang_ok=True),
    Scenario("preempt", "job_preempted", job("--cpus-per-worker 0.5 --epochs 8 --step-delay 0.05"), r"step 100 loss", prep=prep(),
             trigger=((r"step 100 loss", "scheduler:15"),), timeout=240, hang_ok=True),
    Scenario("rank-stopped", "collective_timeout", job("--cpus-per-worker 0.5 --epochs 8 --step-delay 0.05 --timeout-s 30"),
             r"exited with", prep=prep(), trigger=((r"step 100 loss", "rank1:STOP"),), timeout=240, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
