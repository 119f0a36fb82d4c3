"""Generate wave BL (c)'s real runs (sealed batch ``heldout67``, ecosystem ``paddlepaddle``): data-parallel training
of a small click/conversion model (hashed categorical slots through a ctypes helper + dense features -> MLP) with
PaddlePaddle 3.3.1 on CPU (gloo), ``paddle.DataParallel``, launched by Paddle's own launcher:

    nice -n 5 python -m paddle.distributed.launch --nproc_per_node N --master 127.0.0.1:PORT train.py [options]

Every scenario empties the neutral job directory ``/tmp/wavebl-c-job/run``, copies ``project/`` in, runs
``prep_data.py`` (synthetic click log + labels, builds ``libfhash.so``; not logged), runs the launch and appends the
shell's ``job exited with N``. The console is what the launcher prints (its own LAUNCH lines plus local rank 0's
output; the other ranks write to ``log/workerlog.N``, which the launcher tails on a failure). Uses the shared
harness (``../harness.py``).

    python3 corpus/generators/wavebl_c/generate.py --list
    python3 corpus/generators/wavebl_c/generate.py --scenario NAME

Needs root (tmpfs, cgroup v1) and the venv ``/tmp/venv-bl-c`` (``--system-site-packages``; ``pip install
paddlepaddle``). Ports 29900-29949.
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import EXIT, Scenario, Wave  # noqa: E402


def _rank(p):
    r = p.environ().get("PADDLE_TRAINER_ID")
    return int(r) if r and r.isdigit() else None


WAVE = Wave(tag="wavebl-c", here=HERE, split="heldout67", ecosystem="paddlepaddle", bin=Path("/tmp/venv-bl-c/bin"),
            fragment="wave-bl-runs-c.csv", project=HERE / "project", rank_of=_rank)
PREP = "{py} prep_data.py"


def launch(n: int = 2, extra: str = "", port: int = 29900, opts: str = "", env: str = "") -> str:
    return (env + f"nice -n 5 python -m paddle.distributed.launch --nproc_per_node {n} --master 127.0.0.1:{port} "
            + (opts + " " if opts else "") + "train.py" + (" " + extra if extra else "") + EXIT)


EARLIER = (" && (nice -n 5 python -m paddle.distributed.launch --nproc_per_node 2 --master 127.0.0.1:29901 "
           "train.py {a}) > /dev/null 2>&1 && rm -rf log")
LONG = "--epochs 20 --log-every 10"

SCENARIOS = [
    Scenario("healthy-metrics-down", "no_failure", launch(2, "--metrics-url http://127.0.0.1:29910/v1/push", 29902),
             r"training finished[\s\S]*job exited with 0", prep=PREP),
    Scenario("healthy-resume", "no_failure", launch(2, "--resume --epochs 5", 29903),
             r"resumed from[\s\S]*training finished[\s\S]*job exited with 0", prep=PREP + EARLIER.format(a="--epochs 2")),
    Scenario("healthy-3ranks-workers", "no_failure", launch(3, "--global-batch-size 96 --num-workers 2", 29904),
             r"training finished[\s\S]*job exited with 0", prep=PREP),
    Scenario("healthy-nan-check-on", "no_failure", launch(2, "--epochs 4", 29918, env="FLAGS_check_nan_inf=1 "),
             r"training finished[\s\S]*job exited with 0", prep=PREP),
    Scenario("loader-workers-small-shm", "shm_exhausted",
             "unshare -m bash -c 'mount -t tmpfs -o size=256k tmpfs /dev/shm && "
             + launch(3, "--global-batch-size 96 --num-workers 2", 29917).split(EXIT)[0] + "'" + EXIT,
             r"Container failed", prep=PREP, timeout=90),
    Scenario("rank-sigkill", "host_oom_killed", launch(2, LONG, 29905), r"step 300/", prep=PREP,
             trigger=((r"step 300/", "rank1:KILL"),), timeout=120),
    Scenario("cgroup-oom", "host_oom_killed", launch(2, "--hidden 6144 6144 6144", 29906), r"Exit code|exited with",
             prep=PREP, memory=1_500_000_000, timeout=120),
    Scenario("hash-offset-segv", "native_crash", launch(2, "--epochs 3", 29907), r"SIGSEGV|Segmentation|signal 11",
             prep=PREP + " --writer-bug-at 1701"),
    Scenario("large-vocab-assert", "native_crash", launch(2, "--config configs/large_vocab.json", 29908),
             r"Assertion|SIGABRT|Aborted", prep=PREP),
    Scenario("bad-label", "worker_exception", launch(2, "--epochs 3", 29909), r"Error", prep=PREP + " --label-fix 2001:7"),
    Scenario("ckpt-tmpfs", "disk_full", launch(2, "--epochs 3", 29911), r"No space left|Errno 28", prep=PREP,
             tmpfs=(("checkpoints", "3000k"),)),
    Scenario("huge-lr-nancheck", "training_divergence", launch(2, "--lr 1e20", 29912, env="FLAGS_check_nan_inf=1 "),
             r"(?i)nan|inf", prep=PREP),
    Scenario("rank-stopped", "collective_timeout", launch(2, "--epochs 40 --log-every 10", 29913), r"step 200/", prep=PREP,
             trigger=((r"step 200/", "rank1:STOP"), (60, "scheduler:15")), hang_ok=True, timeout=120),
    Scenario("rank-stopped-sched-kill", "silent_hang", launch(2, "--epochs 40 --log-every 10", 29919), r"step 200/",
             prep=PREP, trigger=((r"step 200/", "rank1:STOP"), (30, "scheduler:15")), hang_ok=True, timeout=120),
    Scenario("preempt", "job_preempted", launch(2, "--epochs 40 --log-every 10", 29914), r"step 300/", prep=PREP,
             trigger=((r"step 300/", "scheduler:15"),), hang_ok=True, timeout=120),
    Scenario("terminal-hup", "terminal_hangup", launch(2, "--epochs 40 --log-every 10", 29915), r"step 250/",
             prep=PREP, trigger=((r"step 250/", "runner:HUP"),), timeout=120),
    Scenario("batch-3ranks", "batch_size_mismatch", launch(3, "", 29916), r"not divisible", prep=PREP),
    Scenario("start-port-taken", "port_in_use",
             "nice -n 5 python -m paddle.distributed.launch --ips 127.0.0.1 --start_port 29930 --nproc_per_node 2 "
             "train.py" + EXIT, r"Container failed", prep=PREP,
             stale="{py} -m http.server --bind 127.0.0.1 29930", stale_ready=r"Serving HTTP", timeout=90),
    Scenario("second-node-missing", "rendezvous_timeout",
             "nice -n 5 python -m paddle.distributed.launch --nnodes 2 --nproc_per_node 2 --master 127.0.0.1:29925 "
             "train.py" + EXIT, r"LAUNCH", prep=PREP, timeout=90, hang_ok=True),
    Scenario("auto-classes-mismatch", "collective_mismatch", launch(2, "--config configs/auto.json", 29926),
             r"num_classes inferred", prep=PREP + " --label-fix 2999:3", timeout=90, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
