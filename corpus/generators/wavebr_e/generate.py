"""Generate wave BR (e)'s real runs (sealed batch ``heldout73``, ecosystem ``keras``): ``vibration-anomaly``, a small
Keras 3 classifier of pump vibration spectra (``project/train_sensor.py``: an MLP over 48 spectral features, 4 fault
classes) trained **multi-process** on the JAX backend: ``jax.distributed.initialize`` with a coordinator address
(CPU collectives ``gloo``), ``keras.distribution.DataParallel`` over a ``DeviceMesh`` of every process's CPU device,
``model.fit`` with a step logger, ``TerminateOnNaN``, ``BackupAndRestore``, ``ModelCheckpoint`` and ``CSVLogger``;
one process per host. Hosts are Linux network namespaces ``brenode0..2`` (10.77.0.11-13 on one bridge,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``tpu-sim-a``/``b``/``c``. Every node starts
from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-br-e``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install keras "jax[cpu]"`` -> keras 3.15.1, jax/jaxlib
0.10.2); the version-mismatch scenario also needs ``pip install --no-deps --target /tmp/br-e-oldjaxlib
jaxlib==0.8.0``. Ports 29770-29779.

    python3 corpus/generators/wavebr_e/generate.py --list
    python3 corpus/generators/wavebr_e/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebr-e", here=HERE, split="heldout73", ecosystem="keras", bin=Path("/tmp/venv-br-e/bin"),
            fragment="wave-br-runs-e.csv", project=HERE / "project", extra_env={"KERAS_BACKEND": "jax"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bre 10.77.0 tpu-sim-a,tpu-sim-b,tpu-sim-c"
IPS = ("10.77.0.11", "10.77.0.12", "10.77.0.13")
HOSTS = ("tpu-sim-a", "tpu-sim-b", "tpu-sim-c")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_hooks.py {hook}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, coord: str) -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env RANK={i} {env} nice -n 5 {{py}} train_sensor.py "
             f"--coordinator {coord}:{port} --num-processes {n} --process-id {i} {args}")
    return f"ip netns exec brenode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, coord: dict | None = None,
        late: float = 1, only: tuple | None = None) -> str:
    env, coord = env or {}, coord or {}
    return harness.multinode_job(lambda i: node(i, port, n, args, env.get(i, ""), coord.get(i, HOSTS[0])), n, late,
                                 only)


DONE = r"training complete[\s\S]*job exited with 0"
LONG = "--epochs 40"
AT3 = r"Epoch 3: finished saving model"
OLDJAXLIB = "PYTHONPATH=/tmp/br-e-oldjaxlib"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29770), DONE, prep=prep(), timeout=240),
    Scenario("healthy-3nodes", "no_failure", job(29771, n=3), DONE, prep=prep(3), timeout=240),
    Scenario("healthy-resume", "no_failure", job(29772, "--epochs 8"), r"Epoch 4/8[\s\S]*" + DONE,
             prep=prep(hook="interrupt") + f" && ({job(29773, '--epochs 8')}) > /dev/null 2>&1; {{py}} make_hooks.py",
             timeout=240),
    Scenario("healthy-late-node", "no_failure", job(29774, late=25), DONE, prep=prep(), timeout=240),
    Scenario("healthy-wide", "no_failure", job(29775, "--epochs 5 --width 128 --global-batch 128 --log-every 5"),
             DONE, prep=prep(), timeout=240),
    Scenario("healthy-warnings", "no_failure",
             job(29776, env={0: "PYTHONWARNINGS=default", 1: "PYTHONWARNINGS=default"}), DONE, prep=prep(),
             timeout=240),
    Scenario("rank-keyerror", "worker_exception", job(29776, LONG), r"KeyError", prep=prep(hook="keyerr"),
             timeout=200, hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(29777, LONG), r"exited with", prep=prep(),
             trigger=((AT3, "rank1:KILL"),), timeout=200, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(29778, LONG), r"exited with", prep=prep(hook="memhog"),
             memory=1_600_000_000, timeout=200, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29779, LONG), r"exited with", prep=prep(hook="segv"), timeout=200,
             hang_ok=True),
    Scenario("rank-abort", "native_crash", job(29770, LONG), r"exited with", prep=prep(hook="abort"), timeout=200,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29771, "--epochs 20 --lr 1e5"), r"exited with", prep=prep(),
             timeout=200, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29772, LONG + " --width 512"), r"No space left on device",
             prep=prep(), tmpfs=(("checkpoints", "8m"),), timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29773, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec brenode0 {{py}} -m http.server --bind {IPS[0]} 29773", stale_ready=r"Serving HTTP",
             timeout=150, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29774, LONG, only=(0,)), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("wrong-coordinator", "rendezvous_timeout", job(29775, LONG, coord={1: "10.77.0.99"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29776, LONG), r"exited with|Epoch 3", prep=prep(),
             trigger=((AT3, "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29777, LONG), r"exited with|Epoch 3", prep=prep(),
             trigger=((AT3, "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29778, LONG), AT3, prep=prep(),
             trigger=((AT3, "rank1:STOP"), (80, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("width-mismatch", "collective_mismatch", job(29779, LONG), r"exited with", prep=prep(hook="shape"),
             timeout=150, hang_ok=True),
    Scenario("jaxlib-mismatch", "library_version_mismatch", job(29771, LONG, env={1: OLDJAXLIB}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("odd-batch", "batch_size_mismatch",
             job(29772, LONG + " --global-batch 62", env={0: "XLA_FLAGS=--xla_force_host_platform_device_count=2",
                                                         1: "XLA_FLAGS=--xla_force_host_platform_device_count=2"}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
