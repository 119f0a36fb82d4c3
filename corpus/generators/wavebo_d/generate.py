"""Generate wave BO (d)'s real runs (sealed batch ``heldout70``, ecosystem ``ray``): a two-tower click-through
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

    python3 corpus/generators/wavebo_d/generate.py --list
    python3 corpus/generators/wavebo_d/generate.py --scenario NAME
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

BIN = Path(sys.executable).parent
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bo 10.72.0 gpu-a17,gpu-a18,gpu-a19"
def pid_rank_of(job: Path):
    """``Wave.rank_of`` for the job dir ``job``: a Ray Train worker writes its pid to ``pids/rank<N>.pid`` (Ray sets
    RANK inside the running process, where /proc/<pid>/environ does not show it)."""

    def rank_of(p: psutil.Process) -> int | None:
        for f in (job / "pids").glob("rank*.pid"):
            with contextlib.suppress(OSError, ValueError):
                if int(f.read_text()) == p.pid:
                    return int(f.stem[4:])
        return None

    return rank_of


def is_runner(p: psutil.Process) -> bool:
    """The driver (``python train.py``), which a scheduler's or a terminal's signal reaches first."""
    with contextlib.suppress(psutil.Error):
        return len(p.cmdline()) > 1 and p.cmdline()[1] == "train.py"
    return False


_job_procs = harness.job_procs


def job_procs(job: Path) -> list[psutil.Process]:
    """The harness's job processes plus the Ray Train workers (their working directory is Ray's, not the job's)."""
    found = _job_procs(job)
    pids = {p.pid for p in found}
    for f in (job / "pids").glob("rank*.pid"):
        with contextlib.suppress(OSError, ValueError, psutil.Error):
            pid = int(f.read_text())
            if pid not in pids:
                found.append(psutil.Process(pid))
    return found


harness.job_procs = job_procs


def ray_wave(tag: str, here: Path, fragment: str, **env: str) -> Wave:
    """This job's ``Wave`` for a generator in ``here`` (wave BO (f) runs the same job under other settings)."""
    return Wave(tag=tag, here=here, split="heldout70", ecosystem="ray", bin=BIN, fragment=fragment,
                project=HERE / "project", rank_of=pid_rank_of(Path(f"/tmp/{tag}-job/run")), is_runner=is_runner,
                runner_recursive=True, extra_env={"RAY_AUTH_MODE": "token", **env})


WAVE = ray_wave("wavebo-d", HERE, "wave-bo-runs-d.csv")


def prep(n: int = 2, hook: str = "") -> str:
    return f"{NETNS} up {n} && mkdir -p /tmp/ray && {{py}} make_data.py {hook} && {{bin}}/ray get-auth-token --generate"


def job(args: str = "", n: int = 2, delay: float = 0, wait: int = 1, env: str = "") -> str:
    inner = (f"hostname gpu-a17 && mount -t tmpfs -o size=2g tmpfs /tmp/ray && cd {{job}} && exec env {env} nice -n 5 "
             f"bash cluster.sh {n} {delay} {wait} -- {args}")
    return f"ip netns exec bonode0 unshare --uts --mount bash -c '{inner}'; echo \"job exited with $?\""


DONE = r"Training finished[\s\S]*job exited with 0"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job("--epochs 3"), DONE, prep=prep(), timeout=240),
    Scenario("healthy-3nodes", "no_failure", job("--epochs 3 --workers 3 --cpus-per-worker 2", n=3), DONE,
             prep=prep(3), timeout=240),
    Scenario("healthy-retry", "no_failure", job("--epochs 4 --max-failures 2"), r"resumed from[\s\S]*" + DONE,
             prep=prep(hook="once"), timeout=300),
    Scenario("healthy-late-node", "no_failure", job("--epochs 3", delay=25, wait=0), DONE, prep=prep(), timeout=300),
    Scenario("rank-sigkill", "host_oom_killed", job("--epochs 6 --step-delay 0.05"), r"exited with", prep=prep(),
             trigger=((r"step 100 loss", "rank3:KILL"),), timeout=240, hang_ok=True),
    Scenario("ray-memory-monitor", "host_oom_killed", job("--epochs 6 --step-delay 0.1",
             env="RAY_memory_usage_threshold=0.4"), r"exited with", prep=prep(hook="mem"), memory=14_000_000_000,
             timeout=240, hang_ok=True),
    Scenario("rank-segv", "native_crash", job("--epochs 4"), r"exited with", prep=prep(hook="segv"), timeout=240,
             hang_ok=True),
    Scenario("rank-keyerror", "worker_exception", job("--epochs 4"), r"KeyError", prep=prep(hook="keyerr"),
             timeout=240, hang_ok=True),
    Scenario("grad-shape", "collective_mismatch", job("--epochs 4 --timeout-s 60"), r"exited with",
             prep=prep(hook="shape"), timeout=240, hang_ok=True),
    Scenario("lr-blowup", "training_divergence", job("--epochs 4"), r"exited with", prep=prep(hook="lr"),
             timeout=240, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job("--epochs 3 --pad 100000"), r"exited with", prep=prep(),
             tmpfs=(("results", "300k"),), timeout=240, hang_ok=True),
    Scenario("ifname-missing", "nccl_network_config", job("--epochs 3", env="GLOO_SOCKET_IFNAME=ib0"),
             r"exited with", prep=prep(), timeout=240, hang_ok=True),
    Scenario("pg-too-big", "ray_scheduling_stall", job("--epochs 3 --workers 3 --cpus-per-worker 2"),
             r"Requesting resources", prep=prep(), timeout=150, hang_ok=True),
    Scenario("node-missing", "ray_scheduling_stall", job("--epochs 3", delay=100000, wait=0),
             r"Requesting resources", prep=prep(), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job("--epochs 8 --step-delay 0.05"), r"step 100 loss", prep=prep(),
             trigger=((r"step 100 loss", "scheduler:15"),), timeout=240, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job("--epochs 8 --step-delay 0.05"), r"step 100 loss", prep=prep(),
             trigger=((r"step 100 loss", "runner:HUP"),), timeout=240, hang_ok=True),
    Scenario("rank-stopped", "collective_timeout", job("--epochs 8 --step-delay 0.05 --timeout-s 30"),
             r"exited with", prep=prep(), trigger=((r"step 100 loss", "rank1:STOP"),), timeout=240, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
