"""Generate wave BV (m)'s real runs (sealed batch ``heldout77``, ecosystem ``neuralforecast``): a small NeuralForecast
model (NHITS, 3 stacks of [64, 64] MLPs, 50.6K parameters; or LSTM, hidden 32) fitted with ``NeuralForecast.fit`` on
240 generated monthly demand series (``project/train.py``), the Lightning trainer kwargs passed through the model
(``accelerator='cpu', devices=2, num_nodes=N, strategy='ddp'``, a ``ModelCheckpoint`` every 50 steps), under
multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.87.0.11`` on
two or three hosts: Linux network namespaces ``bvmnode0..2`` (10.87.0.11-13 on bridge ``brbvm``,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``fc-worker-0``/``1``/``2``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bv-m`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bv-m-pydeps
utilsforecast==0.0.10``. Ports 29880-29889.

    python3 corpus/generators/wavebv_m/generate.py --list
    python3 corpus/generators/wavebv_m/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebv-m", here=HERE, split="heldout77", ecosystem="neuralforecast", fragment="wave-bv-runs-m.csv",
            bin=Path("/tmp/venv-bv-m/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bvm 10.87.0 fc-worker-0,fc-worker-1,fc-worker-2"
IPS = ("10.87.0.11", "10.87.0.12", "10.87.0.13")
HOSTS = ("fc-worker-0", "fc-worker-1", "fc-worker-2")

# the team's optional Lightning callback (train_hooks.py, picked up by train.py when present); written by prep
HOOKS = {
    "keyerr": '''
import os
import pytorch_lightning as pl
# per-region loss audit; the region table was written for the 3-rank test setup
REGION_OF_RANK = {0: "emea", 1: "amer", 2: "apac"}
class Hook(pl.Callback):
    def __init__(self):
        self.seen = {}
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        step = trainer.global_step
        if step >= 80 and step % 20 == 0:
            region = REGION_OF_RANK[trainer.global_rank]
            self.seen[region] = self.seen.get(region, 0) + 1
''',
    "segv": '''
import ctypes
import pytorch_lightning as pl
# window-stats fast path through a C helper; on rank 2 it reads a NULL buffer
class Hook(pl.Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if trainer.global_rank == 2 and trainer.global_step == 90:
            ctypes.string_at(0)
''',
    "leak": '''
import numpy as np
import pytorch_lightning as pl
# keeps every batch's window tensor for a later error analysis; rank 1 copies them as float64 blocks
class Hook(pl.Callback):
    def __init__(self):
        self.kept = []
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        if trainer.global_rank == 1 and trainer.global_step >= 60:
            self.kept.append(np.ones((64, 1024, 1024), dtype=np.float64).reshape(-1) * trainer.global_step)
''',
    "shape3": '''
import torch
import torch.distributed as dist
import pytorch_lightning as pl
# every 20 steps average a per-rank histogram of scaled targets across ranks; rank 3 builds it with one extra bin
class Hook(pl.Callback):
    def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
        step = trainer.global_step
        if step >= 60 and step % 20 == 0:
            nb = 33 if trainer.global_rank == 3 else 32
            hist = torch.histc(batch["temporal"][:, 0].flatten().float(), bins=nb)
            dist.all_reduce(hist)
''',
    "slow2": '''
import time
import pytorch_lightning as pl
# rank 2 re-reads its shard from the object store at step 80 (stalls for 90 s)
class Hook(pl.Callback):
    def on_train_batch_start(self, trainer, pl_module, batch, batch_idx):
        if trainer.global_rank == 2 and trainer.global_step == 80:
            time.sleep(90)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"train.py {args}")
    mnt = f"mount -t tmpfs -o size={shm} tmpfs /dev/shm && " if shm else ""
    uns = "unshare --uts --mount" if shm else "unshare --uts"
    return f"ip netns exec bvmnode{i} {uns} bash -c '{mnt}hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", shm: str = "") -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), rdzv, shm),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"max_steps=\d+` reached[\s\S]*\[train\] done[\s\S]*job exited with 0"
AT = r"\[train\] step 100 train_loss"
LONG = "--max-steps 600 "
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29880), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes-lstm", "no_failure", job(29881, "--model lstm --progress", n=3), DONE, prep=prep(3),
             timeout=200),
    Scenario("healthy-resume", "no_failure", job(29882, "--load-dir saved --max-steps 200"),
             r"resuming NHITS[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29883, '--max-steps 100 --save-dir saved')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(29884, "--progress", late=20, rdzv=C10D), DONE, prep=prep(),
             timeout=200),
    Scenario("region-keyerror", "worker_exception", job(29885), r"KeyError", prep=prep(hook="keyerr"), timeout=150,
             hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29886), r"exited with", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("rank-leak-cgroup", "host_oom_killed", job(29887, LONG), r"exited with|SIGKILL|-9", prep=prep(hook="leak"),
             memory=3 << 30, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29888), r"exited with", prep=prep(),
             tmpfs=(("checkpoints", "1m"),), timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29889, "--lr 1e12"), r"Loss is NaN[\s\S]*exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29880, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (100, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29881, LONG + "--progress"), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29882, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29883, only=(0,), rdzv=C10D), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29884), r"exited with|Address already in use", prep=prep(),
             stale=f"ip netns exec bvmnode0 {{py}} -m http.server --bind {IPS[0]} 29884", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29885, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29886), r"exited with", prep=prep(hook="shape3"),
             timeout=150, hang_ok=True),
    Scenario("slow-rank2-pg-timeout", "collective_timeout", job(29887, "--pg-timeout 20"), r"exited with",
             prep=prep(hook="slow2"), timeout=150, hang_ok=True),
    Scenario("old-utilsforecast-node1", "library_version_mismatch",
             job(29888, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bv-m-pydeps"}),
             r"cannot import name[\s\S]*exited with", prep=prep(), timeout=100, hang_ok=True),
    Scenario("tiny-shm-workers", "shm_exhausted", job(29889, "--workers 2", shm="64k"), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29880, master={1: "10.87.0.99"}, rdzv=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
