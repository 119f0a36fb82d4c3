"""Generate wave BL (a)'s real runs (sealed batch ``heldout67``, ecosystem ``mpi``): data-parallel training of a small
GRU forecaster (synthetic sensor series, next-value regression) on CPU, launched by MPICH's Hydra ``mpiexec`` (PyPI
wheel ``mpich`` 5.0.2, mpi4py 4.1.2, torch 2.13.0+cpu). Ranks come from MPICH's environment (PMI_RANK / PMI_SIZE);
gradients are averaged either with one mpi4py ``Allreduce`` per step or with torch.distributed over gloo
(MASTER_ADDR / MASTER_PORT chosen by rank 0 and broadcast with mpi4py):

    nice -n 5 mpiexec -n N python train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebl-a-job/run``, copies ``project/`` in, runs
``prep_data.py`` (synthetic series + window index, builds ``libwinops.so``; not logged), runs the launch and appends
the shell's ``job exited with N``. Uses the shared harness (``../harness.py``).

    python3 corpus/generators/wavebl_a/generate.py --list
    python3 corpus/generators/wavebl_a/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bl-a`` (``--system-site-packages``; ``pip install mpich
mpi4py`` and the local torch 2.13.0+cpu wheel).
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _rank(p):
    r = p.environ().get("PMI_RANK")
    return int(r) if r and r.isdigit() else None


WAVE = Wave(tag="wavebl-a", here=HERE, split="heldout67", ecosystem="mpi", bin=Path("/tmp/venv-bl-a/bin"),
            fragment="wave-bl-runs-a.csv", project=HERE / "project", rank_of=_rank)
PREP = "{py} prep_data.py"


def mpi(n: int = 2, extra: str = "", py: str = "python") -> str:
    return f"nice -n 5 mpiexec -n {n} {py} train.py" + (" " + extra if extra else "") + EXIT


EARLIER = " && (nice -n 5 mpiexec -n 2 python train.py {a}) > /dev/null 2>&1"
LONG = "--epochs 12 --log-every 2"

SCENARIOS = [
    Scenario("healthy-gloo-3ranks-stats", "no_failure",
             mpi(3, "--grad-sync gloo --master-port 29803 --global-batch-size 66 --stats-file stats/run.jsonl"),
             r"done: .*\n[\s\S]*job exited with 0", prep=PREP),
    Scenario("healthy-resume", "no_failure", mpi(2, "--resume --epochs 4"),
             r"resumed from[\s\S]*done: [\s\S]*job exited with 0", prep=PREP + EARLIER.format(a="--epochs 2")),
    Scenario("healthy-4ranks-dropout-warn", "no_failure",
             mpi(4, "--grad-sync gloo --master-port 29806 --dropout 0.1 --epochs 2"),
             r"UserWarning[\s\S]*done: [\s\S]*job exited with 0", prep=PREP),
    Scenario("healthy-fresh-resume-abortflag", "no_failure", mpi(3, "--resume --abort-on-error --global-batch-size 60"),
             r"starting fresh[\s\S]*done: [\s\S]*job exited with 0", prep=PREP),
    Scenario("rank-sigkill", "host_oom_killed", mpi(2, LONG), r"KILLED|signal 9|Killed", prep=PREP,
             trigger=((r"step 60/", "rank1:KILL"),)),
    Scenario("cgroup-oom", "host_oom_killed", mpi(2, "--hidden-size 3072 --layers 2"), r"KILLED|signal 9|Killed",
             prep=PREP, memory=1_400_000_000),
    Scenario("index-segv", "native_crash", mpi(2, "--grad-sync gloo --master-port 29809"), r"SEGV|signal 11|Segmentation",
             prep=PREP + " --index-fix 1123:1099511627776"),
    Scenario("long-window-assert", "native_crash", mpi(2, "--config configs/long.json"), r"Assertion|signal 6|ABRT",
             prep=PREP + " --window 320"),
    Scenario("bad-station-abort", "worker_exception", mpi(2, "--abort-on-error --epochs 4"), r"IndexError",
             prep=PREP + " --station-fix 1701:19"),
    Scenario("bad-station-gloo", "worker_exception", mpi(2, "--grad-sync gloo --master-port 29812 --epochs 4"),
             r"IndexError", prep=PREP + " --station-fix 2402:16"),
    Scenario("ckpt-tmpfs-abort", "disk_full", mpi(2, "--hidden-size 96 --abort-on-error"), r"No space left", prep=PREP,
             tmpfs=(("checkpoints", "400k"),)),
    Scenario("ckpt-tmpfs-gloo", "disk_full", mpi(2, "--grad-sync gloo --master-port 29824 --hidden-size 128"),
             r"No space left", prep=PREP, tmpfs=(("checkpoints", "900k"),), timeout=70),
    Scenario("huge-lr", "training_divergence", mpi(2, "--lr 1e20"), r"FloatingPointError|nan|inf", prep=PREP),
    Scenario("rank-stopped", "silent_hang", mpi(2, LONG), r"step 50/", prep=PREP,
             trigger=((r"step 50/", "rank1:STOP"), (45, "scheduler:15")), hang_ok=True),
    Scenario("preempt", "job_preempted", mpi(2, "--grad-sync gloo --master-port 29815 " + LONG), r"step 70/",
             prep=PREP, trigger=((r"step 70/", "scheduler:15"),), hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", mpi(2, LONG), r"step 56/", prep=PREP,
             trigger=((r"step 56/", "runner:HUP"),), hang_ok=True),
    Scenario("batch-3ranks", "batch_size_mismatch", mpi(3), r"divisible", prep=PREP),
    Scenario("gloo-port-taken", "port_in_use", mpi(2, "--grad-sync gloo --master-port 29820"), r"EADDRINUSE",
             prep=PREP, stale="{py} -m http.server --bind 127.0.0.1 29820", stale_ready=r"Serving HTTP", timeout=45,
             hang_ok=True),
    Scenario("pyenv-python", "library_version_mismatch", "nice -n 5 {bin}/mpiexec -n 2 python3 train.py" + EXIT,
             r"No module named", prep=PREP, no_venv=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
