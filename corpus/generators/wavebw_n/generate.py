"""Generate wave BW (n)'s real runs (sealed batch ``heldout78``, ecosystem ``torchtnt``): a small MLP classifier
(64 -> 512 -> 512 -> 10, 0.30M parameters) on generated teacher-network data (24576 samples) trained with TorchTNT
0.2.4 (``project/train_tnt.py``: an ``AutoUnit`` subclass, ``DDPStrategy()``, ``init_from_env(device_type="cpu",
pg_backend="gloo")``, ``torchtnt.framework.train`` with ``TQDMProgressBar``, ``IterationTimeLogger`` to a
``StdoutLogger``, ``GarbageCollector`` and ``DistributedCheckpointSaver`` (DCP) every 40 steps) under multi-node
``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --rdzv-backend c10d`` on two or three hosts: Linux
network namespaces ``bwnnode0..2`` (10.88.0.11-13 on bridge ``brbwn``, ``../netns_hosts.sh``), each node in its own
UTS namespace with hostname ``tnt-node-a``/``b``/``c``. Every node starts from one job shell in the background; their
output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bw-n`` (see
README.md); the version-mismatch run runs tnt-node-b from a second venv ``/tmp/venv-bw-n-b`` (torchtnt 0.2.4 with
setuptools 84.2.1, which no longer ships ``pkg_resources``).
Ports 29890-29899.

    python3 corpus/generators/wavebw_n/generate.py --list
    python3 corpus/generators/wavebw_n/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebw-n", here=HERE, split="heldout78", ecosystem="torchtnt", fragment="wave-bw-runs-n.csv",
            bin=Path("/tmp/venv-bw-n/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bwn 10.88.0 tnt-node-a,tnt-node-b,tnt-node-c"
IPS = ("10.88.0.11", "10.88.0.12", "10.88.0.13")
HOSTS = ("tnt-node-a", "tnt-node-b", "tnt-node-c")
TRAIN = "train_tnt.py "

# the team's per-step hook (train_hooks.py, called by a TorchTNT callback's on_train_step_end); written by prep
HOOKS = {
    "window": '''
# per-rank loss smoothing for the dashboard; the window table was written for the 3-rank test setup
WINDOW_OF_RANK = [10, 10, 10]
hist = []
def on_step(rank, step, batch, loss):
    hist.append(loss)
    if step >= 120 and step % 20 == 0:
        w = WINDOW_OF_RANK[rank]
        avg = sum(hist[-w:]) / w
''',
    "segv": '''
import ctypes
# loss-stats fast path through a C helper; on rank 1 it reads a NULL buffer
def on_step(rank, step, batch, loss):
    if rank == 1 and step == 120:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# a debug cache of activations that is never trimmed; rank 3 fills it from step 100
cache = []
def on_step(rank, step, batch, loss):
    if rank == 3 and step >= 100:
        cache.append(torch.ones(32 * 1024 * 1024 // 4 * 4))
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 40 steps average a per-rank class histogram across ranks; rank 3 builds it with one extra bucket
def on_step(rank, step, batch, loss):
    if step >= 80 and step % 40 == 0:
        nb = 11 if rank == 3 else 10
        dist.all_reduce(torch.zeros(nb))
''',
    "slow3": '''
import time
# rank 3 re-reads its shard from slow storage at step 100 (stands for a stuck data fetch)
def on_step(rank, step, batch, loss):
    if rank == 3 and step == 100:
        time.sleep(75)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, uts: str,
         pre: str, py: str) -> str:
    cmd = (f"env {env} nice -n 5 {py} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"{rdzv.format(master=master, port=port, i=i)}{TRAIN}{args}")
    return f"ip netns exec bwnnode{i} unshare {uts} bash -c 'hostname {HOSTS[i]} && {pre}cd {{job}} && exec {cmd}'"


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-id tnt-mlp --rdzv-conf join_timeout=40 "
STATIC = "--node-rank {i} --master-addr {master} --master-port {port} "


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = C10D, procs: int = 2, uts: dict | None = None, pre: dict | None = None, py: dict | None = None) -> str:
    env, master, uts, pre, py = env or {}, master or {}, uts or {}, pre or {}, py or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv,
                       uts.get(i, "--uts"), pre.get(i, ""), py.get(i, "{py}")),
        n, late, only)


DONE = r"Finished train[\s\S]*training done[\s\S]*job exited with 0"
AT = r"\[Step 100\]"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29890), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29891, n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure", job(29892, "--epochs 4 --resume"), r"Restored snapshot[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29893, '--epochs 2')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29894, late=20), DONE, prep=prep(), timeout=180),
    Scenario("window-indexerror", "worker_exception", job(29895), r"IndexError", prep=prep(hook="window"),
             timeout=120, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29896), r"SIGSEGV", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("rank-leak-oom", "host_oom_killed", job(29897), r"SIGKILL", prep=prep(hook="leak"),
             memory=3 * 1024 ** 3, timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29898), r"exited with", prep=prep(),
             tmpfs=(("checkpoints", "6m"),), timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29899, "--lr 80 --early-stop --log-every 1"),
             r"loss=nan[\s\S]*exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29890), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (60, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29891), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29892), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29893, only=(0,)), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29894, rdzv=STATIC), r"EADDRINUSE", prep=prep(),
             stale=f"ip netns exec bwnnode0 {{py}} -m http.server --bind {IPS[0]} 29894", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29895, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29896), r"exited with", prep=prep(hook="shape3"),
             timeout=120, hang_ok=True),
    Scenario("slow-rank3-pg-timeout", "collective_timeout", job(29897, "--pg-timeout 20"), r"exited with",
             prep=prep(hook="slow3"), timeout=150, hang_ok=True),
    Scenario("new-setuptools-node-b", "library_version_mismatch",
             job(29898, py={1: "/tmp/venv-bw-n-b/bin/python"}), r"No module named 'pkg_resources'[\s\S]*exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29899, master={1: "10.88.0.99"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("shm-tiny-workers", "shm_exhausted",
             job(29890, "--workers 2 --batch-size 4096 --samples 65536 --epochs 1",
                 uts={1: "--uts --mount"}, pre={1: "mount -t tmpfs -o size=1m tmpfs /dev/shm && "}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
