"""Generate wave BT (f)'s real runs (sealed batch ``heldout75``, ecosystem ``timm``): "leafspot-v2", a leaf-disease
image classifier (timm 1.0.28's ``test_resnet``, 373k parameters, 64x64 px, 4 classes, a generated ImageFolder set,
``project/make_data.py``) trained with timm's own ``train.py`` (v1.0.28, ``project/train.py``: CheckpointSaver,
cosine scheduler, ``Train: {epoch} [{batch}/{n} ({pct}%)]  Loss: ...`` every 5 updates) under multi-node
``python -m torch.distributed.run --nnodes N --node-rank K --master-addr 10.80.0.11`` (``--device cpu``, gloo) on two
or three hosts: Linux network namespaces ``btfnode0..2`` (10.80.0.11-13 on one bridge, ``../netns_hosts.sh``), each
node in its own UTS namespace with hostname ``img-node-01``/``02``/``03``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bt-f``
(see README.md). The version-mismatch run also needs ``pip install --no-deps --target /tmp/bt-f-tv-cuda
torchvision==0.28.0`` (the unpatched CUDA wheel). Ports 29800-29809.

    python3 corpus/generators/wavebt_f/generate.py --list
    python3 corpus/generators/wavebt_f/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebt-f", here=HERE, split="heldout75", ecosystem="timm", bin=Path("/tmp/venv-bt-f/bin"),
            fragment="wave-bt-runs-f.csv", project=HERE / "project",
            upstream=("train.py",))
NETNS = f"{HERE.parent / 'netns_hosts.sh'} btf 10.80.0 img-node-01,img-node-02,img-node-03"
IPS = ("10.80.0.11", "10.80.0.12", "10.80.0.13")
HOSTS = ("img-node-01", "img-node-02", "img-node-03")
TRAIN = ("train.py --data-dir data/leaf --train-split train --val-split validation --model test_resnet "
         "--num-classes 4 --img-size 64 --device cpu -b 8 --sched cosine --warmup-epochs 1 -j 1 --log-interval 5 "
         "--output runs --experiment leafspot-v2 --checkpoint-hist 3 --seed 42 ")


def prep(n: int = 2, data: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_data.py {data}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    return f"ip netns exec btfnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"\*\*\* Best metric[\s\S]*job exited with 0"
LONG = "--epochs 30 --lr 0.05"
AT = r"Train: 2 \[  10/20"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29800, "--epochs 6 --lr 0.05"), DONE, prep=prep(), timeout=400),
    Scenario("healthy-3nodes", "no_failure", job(29801, "--epochs 5 --lr 0.05", n=3, procs=1), DONE, prep=prep(3),
             timeout=400),
    Scenario("healthy-resume", "no_failure",
             job(29802, "--epochs 7 --lr 0.05 --resume runs/leafspot-v2/last.pth.tar"), r"Restoring[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29803, '--epochs 3 --lr 0.05')}) > /dev/null 2>&1"), timeout=400),
    Scenario("healthy-late-node", "no_failure", job(29804, "--epochs 5 --lr 0.05", late=20, rdzv=C10D), DONE,
             prep=prep(), timeout=400),
    Scenario("healthy-warnings", "no_failure", job(29805, "--epochs 5 --lr 0.05"), r"Skipped sample[\s\S]*" + DONE,
             prep=prep(data="--corrupt 6"), timeout=400),
    Scenario("label-keyerror", "worker_exception", job(29806, LONG), r"KeyError", prep=prep(data="keyerr"),
             timeout=200, hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(29807, LONG), r"exited with", prep=prep(),
             trigger=((AT, "rank3:KILL"),), timeout=200, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29808, LONG), r"exited with", prep=prep(data="segv"), timeout=200,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29809, "--epochs 6 --lr 5e4 --warmup-epochs 0"), r"exited with",
             prep=prep(), timeout=300, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29800, LONG), r"exited with", prep=prep(),
             tmpfs=(("runs/leafspot-v2", "2m"),), timeout=200, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29801, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec btfnode0 {{py}} -m http.server --bind {IPS[0]} 29801", stale_ready=r"Serving HTTP",
             timeout=150, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29802, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29803, LONG, master={1: "10.80.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29804, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (110, "scheduler:15")), timeout=250, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29805, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29806, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("audit-shape-rank3", "collective_mismatch", job(29807, LONG), r"exited with", prep=prep(data="shape3"),
             timeout=150, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29808, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("torchvision-cuda-node1", "library_version_mismatch",
             job(29809, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bt-f-tv-cuda"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
