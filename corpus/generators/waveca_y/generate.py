"""Generate wave CA (y)'s real runs (sealed batch ``heldout82``, ecosystem ``timm``): "weldscan", a weld-seam defect
classifier (timm 1.0.31's ``mobilenetv3_small_050``, 572k parameters, 64x64 px, 4 classes, a generated ImageFolder set,
``project/make_data.py``) trained by the team's own loop ``project/weldscan.py`` built from timm's pieces
(create_model, create_dataset/create_loader with one DataLoader worker, Mixup, create_optimizer_v2 adamw,
create_scheduler_v2 cosine, ModelEmaV3, CheckpointSaver, resume_checkpoint, distribute_bn, reduce_tensor,
init_distributed_device) under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2
--node-rank K --master-addr 10.107.0.11`` (gloo, CPU) on two or three hosts: Linux network namespaces
``caynode0..2`` (10.107.0.11-13 on bridge ``brcay``, ``../netns_hosts.sh``), each node in its own UTS namespace with
hostname ``vit-node-a``/``b``/``c``. Every node starts from one job shell in the background; their output goes to
one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-ca-y``
(see README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/ca-y-oldtimm
timm==0.6.13``. Ports 30080-30089.

    python3 corpus/generators/waveca_y/generate.py --list
    python3 corpus/generators/waveca_y/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="waveca-y", here=HERE, split="heldout82", ecosystem="timm", bin=Path("/tmp/venv-ca-y/bin"),
            fragment="wave-ca-runs-y.csv", project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cay 10.107.0 vit-node-a,vit-node-b,vit-node-c"
IPS = ("10.107.0.11", "10.107.0.12", "10.107.0.13")
HOSTS = ("vit-node-a", "vit-node-b", "vit-node-c")
TRAIN = "weldscan.py --data data/welds --output output/weldscan "

# the team's per-update hook (train_hooks.py, called by weldscan.py after every optimizer step); written by prep
HOOKS = {
    "idxerr": '''
# per-class loss audit on the ranks of the "audit" shard (rank 2); its weight table was written before "spatter"
# was added as class 3
CLASS_WEIGHT = [1.0, 0.5, 1.5]
def on_update(rank, epoch, idx, input, target, loss):
    if rank == 2 and epoch >= 2 and idx == 5:
        hard = target.argmax(dim=1).tolist()
        w = sum(CLASS_WEIGHT[c] for c in hard) / len(hard)
''',
    "segv": '''
import ctypes
# fast path for the seam-width statistic through a C helper; on rank 3 it reads a NULL buffer
def on_update(rank, epoch, idx, input, target, loss):
    if rank == 3 and epoch == 2 and idx == 5:
        ctypes.string_at(0)
''',
    "leak": '''
# hard-example cache: keeps an upsampled copy of every batch on rank 2 (never trimmed)
CACHE = []
def on_update(rank, epoch, idx, input, target, loss):
    if rank == 2 and epoch >= 1:
        CACHE.append(input.detach().repeat(64, 1, 1, 1).clone())
''',
    "shape": '''
import torch
from timm.utils import reduce_tensor
# every 4 updates from epoch 2 average a 1024-bin pixel-intensity histogram over the ranks; rank 3 was given a
# config with one extra bin
def on_update(rank, epoch, idx, input, target, loss):
    if epoch >= 2 and idx % 4 == 0:
        nb = 1025 if rank == 3 else 1024
        hist = torch.histc(input.detach(), bins=nb, min=-3.0, max=3.0)
        reduce_tensor(hist, 4)
''',
    "sleep": '''
import time
# on rank 1 the audit uploads a sample grid to a slow share every epoch from epoch 2
def on_update(rank, epoch, idx, input, target, loss):
    if rank == 1 and epoch >= 2 and idx == 3:
        time.sleep(120)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_data.py"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    if shm:
        return (f"ip netns exec caynode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && "
                f"mount -t tmpfs -o size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec caynode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, nargs: dict | None = None,
        shm: dict | None = None) -> str:
    env, master, nargs, shm = env or {}, master or {}, nargs or {}, shm or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args + nargs.get(i, ""), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"Training finished[\s\S]*job exited with 0"
LONG = "--epochs 40 "
AT = r"Train: 2 \[  4/12\]"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30080, "--epochs 8"), DONE, prep=prep(), timeout=100),
    Scenario("healthy-3nodes", "no_failure", job(30081, "--epochs 8 --global-batch 36", n=3), DONE, prep=prep(3),
             timeout=150),
    Scenario("healthy-resume", "no_failure", job(30082, "--epochs 8 --resume output/weldscan/last.pth.tar"),
             r"Loaded checkpoint[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30083, '--epochs 4')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(30084, "--epochs 6", late=20, rdzv=C10D), DONE, prep=prep(),
             timeout=150),
    Scenario("classweight-indexerror", "worker_exception", job(30085, LONG), r"IndexError", prep=prep(hook="idxerr"),
             timeout=120, hang_ok=True),
    Scenario("rank3-segv", "native_crash", job(30086, LONG), r"exited with", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("cache-leak-oom", "host_oom_killed", job(30087, LONG), r"exited with", prep=prep(hook="leak"),
             memory=3 * 2**30, timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30088, LONG), r"exited with", prep=prep(),
             tmpfs=(("output/weldscan", "15m"),), timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30089, LONG + "--opt sgd --lr 5e3 --warmup-epochs 0 --weight-decay 0"),
             r"Loss is (nan|inf)[\s\S]*exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(30080, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (60, "scheduler:15")), timeout=120, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30081, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30082, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30083, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30084, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec caynode0 {{py}} -m http.server --bind {IPS[0]} 30084", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30085, LONG, env={1: "GLOO_SOCKET_IFNAME=eth1"}),
             r"exited with", prep=prep(), timeout=90, hang_ok=True),
    Scenario("pixhist-shape-rank3", "collective_mismatch", job(30086, LONG), r"exited with",
             prep=prep(hook="shape"), timeout=60, hang_ok=True),
    Scenario("slow-rank1-timeout", "collective_timeout", job(30087, LONG + "--dist-timeout 20"), r"exited with",
             prep=prep(hook="sleep"), timeout=120, hang_ok=True),
    Scenario("odd-batch-mixup", "batch_size_mismatch", job(30088, LONG + "--global-batch 28"), r"exited with",
             prep=prep(), timeout=90, hang_ok=True),
    Scenario("old-timm-node-b", "library_version_mismatch",
             job(30089, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/ca-y-oldtimm"}), r"exited with",
             prep=prep(), timeout=90, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30080, LONG, shm={1: "256k"}), r"exited with", prep=prep(),
             timeout=90, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(30081, LONG, master={1: "10.107.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=100, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
