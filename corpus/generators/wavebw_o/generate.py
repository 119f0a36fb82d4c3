"""Generate wave BW (o)'s real runs (sealed batch ``heldout78``, ecosystem ``monai``): MONAI 1.6.1's engines
(``SupervisedTrainer``/``SupervisedEvaluator`` on pytorch-ignite 0.5.5) training a tiny 2D ``UNet`` (channels 4/8/16,
one residual unit) on 40 synthetic 64x64 images + masks (``monai.data.synthetic.create_test_image_2d`` written as
NIfTI by ``project/prepare.py``) loaded with ``LoadImaged``/``EnsureChannelFirstd``/``ScaleIntensityd``/
``RandRotate90d`` through ``monai.data.Dataset`` + ``DistributedSampler``, with ``StatsHandler``,
``LrScheduleHandler``, ``ValidationHandler`` (MeanDice every epoch) and ``CheckpointSaver`` (rank 0, every epoch,
n_saved 2), DDP over gloo on CPU (``project/train.py``, written for this wave in the shape of MONAI tutorials'
distributed workflow example). Launched per node with ``python -m torch.distributed.run --nnodes N --nproc-per-node 2
--rdzv-backend c10d`` on two or three hosts: Linux network namespaces ``bwonode0..2`` (10.89.0.11-13 on bridge
``brbwo``, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``monai-node-a/b/c``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then ``job exited
with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bw-o`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bw-o-pydeps
pytorch-ignite==0.4.2``. Ports 29900-29909.

    python3 corpus/generators/wavebw_o/generate.py --list
    python3 corpus/generators/wavebw_o/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebw-o", here=HERE, split="heldout78", ecosystem="monai", fragment="wave-bw-runs-o.csv",
            bin=Path("/tmp/venv-bw-o/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bwo 10.89.0 monai-node-a,monai-node-b,monai-node-c"
IPS = ("10.89.0.11", "10.89.0.12", "10.89.0.13")
HOSTS = ("monai-node-a", "monai-node-b", "monai-node-c")

# the team's per-iteration hook (train_hooks.py, attached by train.py to ITERATION_COMPLETED); written by prep
HOOKS = {
    "segv": '''
import ctypes
# mask statistics through a C helper; on rank 2 it reads a NULL buffer
def on_iter(rank, world, engine):
    if rank == 2 and engine.state.iteration == 60:
        ctypes.string_at(0)
''',
    "leak": '''
import numpy as np
# keeps every batch's prediction for a "hard example" report; rank 3 copies them into a growing buffer
kept = []
def on_iter(rank, world, engine):
    if rank == 3 and engine.state.iteration >= 40:
        kept.append(np.ones(16 * 1024 * 1024, dtype=np.float32))  # 64 MB per iteration
''',
    "slow": '''
import time
# a synchronous upload of rank 1's per-iteration metrics to a slow share
def on_iter(rank, world, engine):
    if rank == 1 and engine.state.iteration == 40:
        time.sleep(60)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} prepare.py"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, pre: str, mnt: bool) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} {rdzv.format(master=master, port=port)}train.py {args}")
    return (f"ip netns exec bwonode{i} unshare --uts{' --mount' if mnt else ''} bash -c "
            f"'{pre}hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'")


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
STATIC = "--master-addr {master} --master-port {port} "


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = C10D, pre: dict | None = None) -> str:
    env, master, pre = env or {}, master or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), rdzv,
                       pre.get(i, ""), i in pre), n, late, only)


DONE = r"training done: 40 epochs[\s\S]*job exited with 0"
AT = r"Epoch: 15/40, Iter: 2/2"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29900), DONE, prep=prep(), timeout=120),
    Scenario("healthy-3nodes", "no_failure", job(29901, n=3), DONE, prep=prep(3), timeout=120),
    Scenario("healthy-resume", "no_failure", job(29902, "--resume runs/checkpoint_epoch=20.pt"),
             r"Restored all variables from runs/checkpoint_epoch=20.pt[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29903, '--epochs 20')}) > /dev/null 2>&1"), timeout=120),
    Scenario("healthy-late-node", "no_failure", job(29904, late=20), DONE, prep=prep(), timeout=120),
    Scenario("bad-nifti", "worker_exception", job(29905), r"applying transform", timeout=150, hang_ok=True,
             prep=prep(extra="head -c 300 data/img13.nii.gz > /tmp/bwo-trunc && mv /tmp/bwo-trunc data/img13.nii.gz")),
    Scenario("rank-segv", "native_crash", job(29906), r"exited with", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("rank-leak-oom", "host_oom_killed", job(29907), r"exited with", prep=prep(hook="leak"),
             memory=2200 * 2**20, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29908), r"(No space left|iostream error|unexpected pos)[\s\S]*exited with",
             prep=prep(), tmpfs=(("runs", "100k"),),
             timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29909, "--lr 1e30 --nan-check"), r"NaN[\s\S]*exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29900), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (75, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29901), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29902), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29903, only=(0,)), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29904, rdzv=STATIC), r"(?i)address already in use", prep=prep(),
             stale=f"ip netns exec bwonode0 {{py}} -m http.server --bind {IPS[0]} 29904", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29905, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("slow-rank1-pg-timeout", "collective_timeout", job(29907, "--pg-timeout 15"), r"exited with",
             prep=prep(hook="slow"), timeout=150, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(29909, "--workers 2", pre={1: "mount -t tmpfs -o size=64k tmpfs /dev/shm && "}),
             r"exited with", prep=prep(), timeout=80, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
