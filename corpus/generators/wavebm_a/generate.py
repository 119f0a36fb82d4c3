"""Generate wave BM (a)'s real runs (sealed batch ``heldout68``, ecosystem ``jax``): data-parallel training of a small
MLP regressor on synthetic data with JAX 0.10.2 multi-process on CPU (``jax.distributed.initialize`` against a
coordinator on process 0, gradients averaged with ``multihost_utils.process_allgather``, optax Adam, np.savez
checkpoints on process 0), started by a small bash launcher that waits for every process and reports its status:

    nice -n 5 ./launch.sh --nproc N --port PORT -- [train.py options]

Every scenario empties the neutral job directory ``/tmp/wavebm-a-job/run``, copies ``project/`` in, runs
``prep_data.py`` (synthetic shards + index files; not logged), runs the launch and appends ``job exited with N``.
Uses the shared harness (``../harness.py``). Needs root and the venv ``/tmp/venv-bm-a`` (``--system-site-packages``;
``pip install jax optax``). Ports 34000-34999.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebm-a", here=HERE, split="heldout68", ecosystem="jax", bin=Path("/tmp/venv-bm-a/bin"),
            fragment="wave-bm-runs-a.csv", project=HERE / "project")
PREP = "{py} prep_data.py"


def launch(n: int = 2, port: int = 34000, extra: str = "", opts: str = "") -> str:
    return (f"nice -n 5 ./launch.sh {opts + ' ' if opts else ''}--nproc {n} --port {port} -- "
            + extra).rstrip() + EXIT


LONG = "--steps 6000 --log-every 50"
SCENARIOS = [
    Scenario("healthy-resume", "no_failure", launch(2, 34001, "--resume --steps 400 --log-every 20"),
             r"resumed from[\s\S]*training finished[\s\S]*job exited with 0",
             prep=PREP + " && (nice -n 5 ./launch.sh --nproc 2 --port 34002 -- --steps 150) >/dev/null 2>&1"),
    Scenario("healthy-3proc-noresume", "no_failure", launch(3, 34003, "--resume --steps 500 --log-every 25"),
             r"training finished[\s\S]*job exited with 0", prep=PREP),
    Scenario("rank-sigkill", "host_oom_killed", launch(2, 34004, LONG), r"step 300/", prep=PREP,
             trigger=((r"step 300/", "rank1:KILL"),), timeout=120),
    Scenario("cgroup-oom", "host_oom_killed", launch(2, 34005, "--hidden 8192 8192 8192 --steps 200"),
             r"exited with", prep=PREP, memory=1_500_000_000, timeout=150, hang_ok=True),
    Scenario("native-copy-segv", "native_crash", launch(2, 34006, "--native-copy --steps 600 --log-every 20"),
             r"signal 11|Segmentation|SIGSEGV", prep=PREP + " --index-fix 1:9000:1000000000000000"),
    Scenario("index-out-of-range", "worker_exception", launch(2, 34007, "--steps 600 --log-every 20"),
             r"IndexError", prep=PREP + " --index-fix 1:9000:70000", timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", launch(2, 34008, "--lr 1e30 --steps 600 --log-every 10"),
             r"(?i)loss is (nan|inf)", prep=PREP, timeout=120, hang_ok=True),
    Scenario("second-node-missing", "rendezvous_timeout",
             launch(2, 34009, "--init-timeout 30", opts="--nnodes 2 --node-rank 0"),
             r"(?i)deadline|timed out|timeout", prep=PREP, timeout=120, hang_ok=True),
    Scenario("rank-stopped-sched-kill", "silent_hang", launch(2, 34010, LONG), r"step 300/", prep=PREP,
             trigger=((r"step 300/", "rank1:STOP"), (35, "scheduler:15")), hang_ok=True, timeout=120),
    Scenario("preempt", "job_preempted", launch(2, 34011, LONG), r"step 400/", prep=PREP,
             trigger=((r"step 400/", "scheduler:15"),), hang_ok=True, timeout=120),
    Scenario("ckpt-tmpfs", "disk_full", launch(2, 34012, "--steps 600 --log-every 25"), r"No space left|Errno 28",
             prep=PREP, tmpfs=(("checkpoints", "700k"),), timeout=120, hang_ok=True),
    Scenario("coordinator-port-taken", "port_in_use", launch(2, 34020, "--steps 300"),
             r"(?i)address already in use|bind|failed", prep=PREP,
             stale="{py} -m http.server --bind 127.0.0.1 34020", stale_ready=r"Serving HTTP", timeout=90, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
