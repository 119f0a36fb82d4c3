"""Generate wave BZ (y)'s real runs (sealed batch ``heldout81``, ecosystem ``lightly``): self-supervised pretraining
with Lightly 1.6.0 (SimCLR, BYOL or MoCo: Lightly's ``LightlyDataset``, ``SimCLRTransform``/``BYOLTransform``/
``MoCoV2Transform``, projection/prediction heads, ``NTXentLoss(gather_distributed=True)`` with or without its memory
bank, ``NegativeCosineSimilarity``, ``update_momentum``/``cosine_schedule``) of a small 3-layer CNN on 512 synthetic
32x32 PNG images (``project/prepare.py``), by the team's script ``project/train_ssl.py`` (plain DDP over gloo,
DistributedSampler, one DataLoader worker per rank, a checkpoint per epoch from rank 0) under multi-node
``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.104.0.11`` on two or
three hosts: Linux network namespaces ``bzynode0..2`` (10.104.0.11-13 on bridge ``brbzy``, ``../netns_hosts.sh``),
each node in its own UTS namespace with hostname ``ssl-node-a``/``b``/``c``. Every node starts from one job shell
in the background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bz-y`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bzy-tv-cuda
torchvision==0.28.0`` (the unpatched CUDA wheel). Ports 30050-30059.

    python3 corpus/generators/wavebz_y/generate.py --list
    python3 corpus/generators/wavebz_y/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebz-y", here=HERE, split="heldout81", ecosystem="lightly", fragment="wave-bz-runs-y.csv",
            bin=Path("/tmp/venv-bz-y/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bzy 10.104.0 ssl-node-a,ssl-node-b,ssl-node-c"
IPS = ("10.104.0.11", "10.104.0.12", "10.104.0.13")
HOSTS = ("ssl-node-a", "ssl-node-b", "ssl-node-c")
TRAIN = "train_ssl.py "

# the team's optional per-step hook (ssl_hooks.py, called by train_ssl.py after every optimizer step); written by prep
HOOKS = {
    "segv": '''
import ctypes
# embedding-norm stats through a C helper; on rank 2 it is handed a NULL buffer
def on_step(rank, epoch, step, views, loss):
    if rank == 2 and epoch == 3 and step == 2:
        ctypes.string_at(0)
''',
    "memgrow": '''
import torch
# keeps every batch's views for an offline kNN probe; never flushed (rank 3 holds the probe queue)
kept = []
def on_step(rank, epoch, step, views, loss):
    if rank == 3 and epoch >= 2:
        kept.append(torch.ones(40 * 1024 * 1024 // 4))
''',
    "sleep": '''
import time
# rank 1 syncs its view cache to the shared folder at the start of epoch 3; the copy stalls
def on_step(rank, epoch, step, views, loss):
    if rank == 1 and epoch == 3 and step == 0:
        time.sleep(120)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && N_IMAGES=512 {{py}} prepare.py"
    if hook:
        s += f" && cat > ssl_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, pre: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    mnt = " --mount" if pre else ""
    return (f"ip netns exec bzynode{i} unshare --uts{mnt} bash -c '{pre}hostname {HOSTS[i]} && cd {{job}} && "
            f"exec {cmd}'")


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, node_args: dict | None = None,
        pre: dict | None = None) -> str:
    env, master, node_args, pre = env or {}, master or {}, node_args or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args + node_args.get(i, ""), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, pre.get(i, "")), n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training finished[\s\S]*job exited with 0"
LONG = "--epochs 60 "
AT = r"epoch 3 step 4/"
SCENARIOS = [
    Scenario("healthy-simclr-2nodes", "no_failure", job(30050, "--epochs 10"), DONE, prep=prep(), timeout=120),
    Scenario("healthy-byol-3nodes", "no_failure", job(30051, "--method byol --epochs 8", n=3), DONE, prep=prep(3),
             timeout=120),
    Scenario("healthy-moco-resume", "no_failure",
             job(30052, "--method moco --epochs 10 --resume checkpoints/moco-epoch5.pt"), r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30053, '--method moco --epochs 5')}) > /dev/null 2>&1"), timeout=120),
    Scenario("healthy-late-node", "no_failure", job(30054, "--epochs 10", late=20, rdzv=C10D), DONE, prep=prep(),
             timeout=150),
    Scenario("corrupt-png", "worker_exception", job(30055, LONG), r"exited with",
             prep=prep(extra="head -c 300 data/shapes/ring/ring_0207.png > x && mv x data/shapes/ring/ring_0207.png"),
             timeout=120, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(30056, LONG), r"exited with", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("probe-cache-oom", "host_oom_killed", job(30057, LONG), r"exited with", prep=prep(hook="memgrow"),
             memory=2500 * 1024 * 1024, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30058, LONG), r"exited with", prep=prep(),
             tmpfs=(("checkpoints", "700k"),), timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30059, "--epochs 10 --lr 1e5"), r"loss is nan[\s\S]*exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30050, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (50, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30051, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30052, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30053, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30054, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bzynode0 {{py}} -m http.server --bind {IPS[0]} 30054", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30055, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("batch-node-b", "collective_mismatch", job(30056, LONG, node_args={1: " --batch-size 12"}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("gather-timeout", "collective_timeout", job(30057, LONG + "--pg-timeout 20"), r"exited with",
             prep=prep(hook="sleep"), timeout=150, hang_ok=True),
    Scenario("torchvision-cuda-node-b", "library_version_mismatch",
             job(30058, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bzy-tv-cuda"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted",
             job(30059, LONG + "--workers 2", pre={1: "mount -t tmpfs -o size=256k tmpfs /dev/shm && "}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("temperature-zero-node-b", "worker_exception",
             job(30051, LONG, node_args={1: " --temperature 0"}), r"Illegal temperature[\s\S]*exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("healthy-moco-2workers", "no_failure", job(30052, "--method moco --epochs 10 --workers 2"), DONE,
             prep=prep(), timeout=120),
    Scenario("wrong-master", "rendezvous_timeout", job(30050, LONG, master={1: "10.104.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
