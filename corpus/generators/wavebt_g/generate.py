"""Generate wave BT (g)'s real runs (sealed batch ``heldout75``, ecosystem ``spark``): task ``demand-fcst-v4``, a
small GRU forecasting next-day store sales from 28-day windows (``project/train_demand.py``), trained with PyTorch DDP
(gloo, CPU) inside Spark barrier tasks by ``pyspark.ml.torch.distributor.TorchDistributor(num_processes=N,
local_mode=False, use_gpu=False).run(train_fn, ...)`` on a Spark standalone cluster: a master on ``spark-node-01`` and
one worker (1 core) per host, started with ``spark-class org.apache.spark.deploy.master.Master`` /
``...deploy.worker.Worker``, each in its host's network namespace (``btgnode0..2``, 10.81.0.11-13 on one bridge, from
``../netns_hosts.sh``) and UTS namespace (host name ``spark-node-01/02/03``); ``spark-submit`` runs the driver on
spark-node-01. ``project/launch.sh`` brings the cluster up, submits, then appends every executor's
``work/<host>/app-*/<id>/stderr`` to the console and stops the cluster; the job shell prints ``job exited with N``.
The training processes' output reaches the driver console through TorchDistributor's log streaming.

Uses the shared harness (``../harness.py``) with two additions: the job's processes are those whose working
directory is the job dir *or below it* (the executors and their Python/torch processes run in the workers' work
dirs), a rank is the torch training process (the one with ``LOCAL_RANK`` in its environment), and the "launcher"
that ``runner:``/``scheduler:`` signals is the ``spark-submit`` JVM (``SparkSubmit``).

Needs root (netns, tmpfs), Java 17 and the venv ``/tmp/venv-bt-g`` (``--system-site-packages`` over torch
2.13.0+cpu; ``pip install pyspark`` -> pyspark 4.3.0, py4j 0.10.9.9). Ports: Spark master 29810 (web UI 29819), workers
29811 (web UI 29818), driver 29820, block manager 29821; TorchDistributor picks its torch master port itself.

    python3 corpus/generators/wavebt_g/generate.py --list
    python3 corpus/generators/wavebt_g/generate.py --scenario NAME
"""
from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402


def _job_procs(job: Path) -> list[psutil.Process]:
    found = []
    for v in psutil.process_iter():
        with contextlib.suppress(psutil.Error):
            cwd = v.cwd()
            if v.pid != os.getpid() and (cwd == str(job) or cwd.startswith(str(job) + "/")):
                found.append(v)
    return found


harness.job_procs = _job_procs


def _rank_of(p: psutil.Process) -> int | None:
    e = p.environ()
    if "LOCAL_RANK" in e and e.get("RANK", "").isdigit():
        return int(e["RANK"])
    return None


def _is_submit(p: psutil.Process) -> bool:
    return "org.apache.spark.deploy.SparkSubmit" in " ".join(p.cmdline())


WAVE = Wave(tag="wavebt-g", here=HERE, split="heldout75", ecosystem="spark", bin=Path("/tmp/venv-bt-g/bin"),
            fragment="wave-bt-runs-g.csv", project=HERE / "project", rank_of=_rank_of, is_runner=_is_submit,
            runner_recursive=True)
NETNS = f"{HERE.parent / 'netns_hosts.sh'} btg 10.81.0 spark-node-01,spark-node-02,spark-node-03"


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_data.py {hook}" + (f" && {extra}" if extra else "")


def job(args: str = "", n: int = 2, conf: str = "", env: dict | None = None, late: int = 0, only: str = "") -> str:
    pre = " ".join(f"WORKER_ENV_{k}='{v}'" for k, v in (env or {}).items())
    opts = f"-n {n}" + (f" -l {late}" if late else "") + (f" -o '{only}'" if only else "")
    return (f"{pre} bash launch.sh {opts} -- {conf} train_demand.py --num-processes {n} {args}"
            '; echo "job exited with $?"')


DONE = r"training complete[\s\S]*job exited with 0"
LONG = "--epochs 12"
AT = r"step  1[05]0 \|"
SCENARIOS = [
    Scenario("region-keyerror", "worker_exception", job(LONG), r"KeyError", prep=prep(hook="keyerr"), timeout=300,
             hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(LONG), r"job exited with", prep=prep(),
             trigger=((AT, "rank1:KILL"),), timeout=300, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(LONG), r"job exited with", prep=prep(hook="segv"), timeout=300,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job("--optim sgd --lr 5"), r"FloatingPointError|loss is", prep=prep(),
             timeout=300, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(LONG), r"No space left|job exited with", prep=prep(),
             tmpfs=(("checkpoints", "96k"),), timeout=300, hang_ok=True),
    Scenario("driver-port-taken", "port_in_use", job(LONG, conf="--conf spark.port.maxRetries=0"),
             r"Address already in use|BindException", prep=prep(),
             stale="ip netns exec btgnode0 {py} -m http.server --bind 10.81.0.11 29820", stale_ready=r"Serving HTTP",
             timeout=200, hang_ok=True),
    Scenario("node2-missing", "rendezvous_timeout",
             job(LONG, only="0", conf="--conf spark.scheduler.barrier.maxConcurrentTasksCheck.interval=5s "
                                      "--conf spark.scheduler.barrier.maxConcurrentTasksCheck.maxFailures=8"),
             r"job exited with", prep=prep(), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (110, "scheduler:15")), timeout=300, hang_ok=True),
    Scenario("preempt", "job_preempted", job(LONG), AT, prep=prep(), trigger=((AT, "scheduler:15"),), timeout=300,
             hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(LONG), AT, prep=prep(), trigger=((AT, "runner:HUP"),),
             timeout=300, hang_ok=True),
    Scenario("metric-shape", "collective_mismatch", job(LONG, env={0: "TORCH_DISTRIBUTED_DEBUG=DETAIL",
                                                                   1: "TORCH_DISTRIBUTED_DEBUG=DETAIL"}),
             r"job exited with", prep=prep(hook="shape"), timeout=300, hang_ok=True),
    Scenario("ifname-node2", "nccl_network_config", job(LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"job exited with",
             prep=prep(), timeout=300, hang_ok=True),
    Scenario("healthy-2nodes", "no_failure", job(), DONE, prep=prep(), timeout=400),
    Scenario("healthy-3nodes", "no_failure", job(n=3), DONE, prep=prep(3), timeout=400),
    Scenario("healthy-resume", "no_failure", job("--epochs 4 --resume"), r"resumed from[\s\S]*" + DONE,
             prep=prep(extra="bash launch.sh -n 2 -- train_demand.py --num-processes 2 --epochs 2 >/dev/null 2>&1"),
             timeout=400),
    Scenario("healthy-warnings", "no_failure", job(env={0: "PYTHONWARNINGS=default", 1: "PYTHONWARNINGS=default"},
                                                   conf="--conf spark.executor.memory=512m"), DONE,
             prep=prep(), timeout=400),
    Scenario("healthy-late-node", "no_failure", job(late=25), DONE, prep=prep(), timeout=400),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
