"""Generate wave BL (b)'s real runs (sealed batch ``heldout67``, ecosystem ``dask``): a churn model trained with
gradient boosting on a local Dask cluster started the way users start one on a node (CPU only; dask/distributed
2026.8.0, xgboost 3.2.0, lightgbm 4.7.0):

    nice -n 5 dask scheduler --host 127.0.0.1 --port 29850 --dashboard-address 127.0.0.1:29851 &
    sleep 3
    nice -n 5 dask worker tcp://127.0.0.1:29850 --name wI --nworkers 1 --nthreads 1 --memory-limit M
        --worker-port 2987I --nanny-port 2988I --dashboard-address 127.0.0.1:2989I &       (one per worker)
    nice -n 5 python train.py --scheduler tcp://127.0.0.1:29850 [options]; rc=$?; kill $(jobs -p); wait; (exit $rc)

all in one bash, one console. Every scenario empties the neutral job directory ``/tmp/wavebl-b-job/run``, copies
``project/`` in, runs ``prep_data.py`` (synthetic parquet partitions, builds ``libplanhash.so``; not logged), runs
the launch line and appends the shell's ``job exited with N``. Uses the shared harness (``../harness.py``).

    python3 corpus/generators/wavebl_b/generate.py --list
    python3 corpus/generators/wavebl_b/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bl-b`` (``--system-site-packages``;
``pip install "dask[distributed]" xgboost lightgbm``).
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _rank(p):
    """Rank N = the Dask worker process (the nanny's spawned child) of ``dask worker ... --name wN``."""
    cmd = " ".join(p.cmdline())
    if "spawn_main" not in cmd:
        return None
    m = re.search(r"--name w(\d+)\b", " ".join(p.parent().cmdline()))
    return int(m.group(1)) if m else None


WAVE = Wave(tag="wavebl-b", here=HERE, split="heldout67", ecosystem="dask", bin=Path("/tmp/venv-bl-b/bin"),
            fragment="wave-bl-runs-b.csv", project=HERE / "project", rank_of=_rank)
PREP = "{py} prep_data.py"
SCHED = "tcp://127.0.0.1:29850"


def worker(i: int, mem: str = "1GiB", sched: str = SCHED) -> str:
    return (f"nice -n 5 dask worker {sched} --name w{i} --nworkers 1 --nthreads 1 --memory-limit {mem} "
            f"--worker-port 2987{i} --nanny-port 2988{i} --dashboard-address 127.0.0.1:2989{i} & ")


def job(extra: str = "", n: int = 2, mem: str = "1GiB", workers: str = "") -> str:
    ws = workers or "".join(worker(i, mem) for i in range(n))
    return ("nice -n 5 dask scheduler --host 127.0.0.1 --port 29850 --dashboard-address 127.0.0.1:29851 & sleep 3; "
            + ws + f"nice -n 5 python train.py --scheduler {SCHED}" + (" " + extra if extra else "")
            + "; rc=$?; kill $(jobs -p); wait; (exit $rc)" + EXIT)


LONG = "--rounds 600 --verbose-eval 20"
EARLIER = " && (" + job("--rounds 100").split(EXIT)[0] + ") > /dev/null 2>&1"

SCENARIOS = [
    Scenario("healthy-3w", "no_failure", job("--n-workers 3 --rounds 150 --verbose-eval 10", n=3),
             r"model saved to[\s\S]*job exited with 0", prep=PREP, timeout=150),
    Scenario("healthy-resume", "no_failure", job("--resume --rounds 100 --verbose-eval 10"),
             r"resuming from[\s\S]*model saved to[\s\S]*job exited with 0", prep=PREP + EARLIER, timeout=150),
    Scenario("healthy-lgb", "no_failure", job("--engine lightgbm --rounds 120 --verbose-eval 10"),
             r"model saved to[\s\S]*job exited with 0", prep=PREP, timeout=150),
    Scenario("healthy-worker-restart", "no_failure", job("--rounds 150 --verbose-eval 10"),
             r"model saved to[\s\S]*job exited with 0", prep=PREP, timeout=170,
             trigger=((r"churn: read data/customers", "rank1:KILL"),)),
    Scenario("healthy-tight-memory", "no_failure", job("--rounds 150 --verbose-eval 10", mem="400MB"),
             r"model saved to[\s\S]*job exited with 0", prep=PREP + " --wide 40", timeout=170),
    Scenario("worker-kill-training", "host_oom_killed", job(LONG), r"\] \[100\]\t", prep=PREP, timeout=100,
             trigger=((r"\] \[100\]\t", "rank1:KILL"),), hang_ok=True),
    Scenario("plan-null-segv", "native_crash", job("--rounds 150"), r"KilledWorker|signal 11|SIGSEGV",
             prep=PREP + " --null-plan-in 17", timeout=110, hang_ok=True),
    Scenario("new-region", "worker_exception", job("--rounds 150"), r"KeyError", prep=PREP + " --new-region-in 9",
             timeout=110, hang_ok=True),
    Scenario("score-lr", "training_divergence", job("--config configs/churn-score.json --rounds 150 --verbose-eval 10"),
             r"nan", prep=PREP, timeout=110, hang_ok=True),
    Scenario("model-tmpfs", "disk_full", job("--rounds 200 --verbose-eval 10"), r"[Ss]pace|rror", prep=PREP,
             tmpfs=(("models", "400k"),), timeout=110, hang_ok=True),
    Scenario("worker-stopped", "silent_hang", job("--rounds 3000 --verbose-eval 20"), r"\] \[100\]\t", prep=PREP,
             trigger=((r"\] \[100\]\t", "rank1:STOP"), (110, "scheduler:20")), timeout=160, hang_ok=True),
    Scenario("preempt", "job_preempted", job("--rounds 3000 --verbose-eval 20"), r"\] \[200\]\t", prep=PREP,
             trigger=((r"\] \[200\]\t", "scheduler:20"),), timeout=160, hang_ok=True),
    Scenario("hup", "terminal_hangup", job("--rounds 3000 --verbose-eval 20"), r"\] \[200\]\t", prep=PREP,
             trigger=((r"\] \[200\]\t", "runner:HUP"),), timeout=160),
    Scenario("third-worker-missing", "rendezvous_timeout",
             job("--n-workers 3 --wait-timeout 30 --rounds 150",
                 workers=worker(0) + worker(1) + worker(2, sched="tcp://127.0.0.1:29859")),
             r"[Tt]imeout|[Tt]imed out", prep=PREP, timeout=110, hang_ok=True),
    Scenario("scheduler-port-taken", "port_in_use", job("--rounds 150"), r"[Aa]ddress already in use",
             prep=PREP, timeout=110, hang_ok=True, stale="{py} -m http.server --bind 127.0.0.1 29850", stale_ready=r"Serving HTTP"),
    Scenario("lgb-port-taken", "port_in_use", job("--engine lightgbm --rounds 120"), r"[Aa]ddress already in use|[Bb]ind",
             prep=PREP, timeout=110, hang_ok=True, stale="{py} -m http.server --bind 127.0.0.1 29860", stale_ready=r"Serving HTTP"),
    Scenario("cgroup-oom", "host_oom_killed", job("--rounds 150 --verbose-eval 10"), r"signal 9|Killed",
             prep=PREP + " --wide 400", memory=900_000_000, timeout=110, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
