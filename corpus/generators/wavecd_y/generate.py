"""Generate wave CD (y)'s real runs (sealed batch ``heldout85``, ecosystem ``recbole``): RecBole 1.2.1 recommender
training (BPR by default; NeuMF and SASRec in some runs) on a synthetic purchase log in RecBole's atomic format
(``data/synthshop/synthshop.inter``, written by the team's ``project/train_rec.py``) with RecBole's own Config,
create_dataset, data_preparation, model, Trainer.fit/evaluate, logger and checkpoints (``saved/<Model>-<time>.pth``),
in RecBole's distributed mode (``local_rank``/``offset``/``world_size``/``nproc``/``ip``/``port`` in the config dict;
the team's ``CpuClusterConfig`` makes its ``init_process_group`` use gloo and the CPU instead of NCCL/CUDA) under
multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.114.0.11``
on two or three hosts: network namespaces ``cdynode0..2`` (10.114.0.11-13 on bridge ``brcdy``,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``recsys-cpu-01``/``02``/``03``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-cd-y`` (see
README.md); the numpy-2 run also needs ``pip install --no-deps --target /tmp/cd-y-pydeps numpy==2.4.6``.
Ports 30150-30159.

    python3 corpus/generators/wavecd_y/generate.py --list
    python3 corpus/generators/wavecd_y/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavecd-y", here=HERE, split="heldout85", ecosystem="recbole", fragment="wave-cd-runs-y.csv",
            bin=Path("/tmp/venv-cd-y/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cdy 10.114.0 recsys-cpu-01,recsys-cpu-02,recsys-cpu-03"
IPS = ("10.114.0.11", "10.114.0.12", "10.114.0.13")
HOSTS = ("recsys-cpu-01", "recsys-cpu-02", "recsys-cpu-03")
TRAIN = "train_rec.py "

# the team's optional hooks (train_hooks.py: on_batch before each training batch's loss, on_eval before each
# full-sort evaluation batch); written by prep
HOOKS = {
    "keyerr": '''
# per-segment loss audit from batch 30; the segment table was written for the 2-rank dev setup
SEGMENT_OF_RANK = {0: "grocery", 1: "fashion"}
seen = {}
def on_batch(rank, step, model):
    if step >= 30:
        seg = SEGMENT_OF_RANK[rank]
        seen[seg] = seen.get(seg, 0) + 1
''',
    "segv": '''
import ctypes
# embedding-norm probe through a C helper; on rank 3 it reads a NULL buffer
def on_batch(rank, step, model):
    if rank == 3 and step == 40:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps a copy of the item table every batch for an offline drift plot; rank 1 also keeps a 64 MB scratch buffer
history = []
def on_batch(rank, step, model):
    if rank == 1 and step >= 15:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape2": '''
import torch
import torch.distributed as dist
# from batch 25 average the item-embedding norms across ranks every 10 batches; rank 2 appends the padding row
def on_batch(rank, step, model):
    if step >= 25 and step % 10 == 5:
        norms = model.item_embedding.weight.detach().norm(dim=1)
        if rank == 2:
            norms = torch.cat([norms, torch.zeros(1)])
        dist.all_reduce(norms)
''',
    "slow1": '''
import time
# rank 1 re-reads its candidate shard from slow storage at batch 30 (60 s)
def on_batch(rank, step, model):
    if rank == 1 and step == 30:
        time.sleep(60)
''',
    "evalidx": '''
import torch
# cold-start audit during evaluation: look up the popularity prior of the newest items (table built with 1000 items)
prior = torch.zeros(1000)
def on_eval(rank, n, model):
    if rank == 2 and n == 1:
        newest = torch.arange(model.n_items - 5, model.n_items)
        prior[newest].sum()
''',
    "evalleak4": '''
import torch
# keeps every validation pass's score matrix for a later calibration study; rank 4 keeps a 512 MB float copy
kept = []
def on_eval(rank, n, model):
    if rank == 4:
        kept.append(torch.ones(128 * 1024 * 1024))
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    if shm:  # a node whose /dev/shm is a tiny tmpfs (its own mount namespace)
        return (f"ip netns exec cdynode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec cdynode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"train done: model=\w+[\s\S]*job exited with 0"
AT = r"epoch 3 training \["
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-bpr-2nodes", "no_failure", job(30150), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(30151, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-neumf", "no_failure", job(30152, "--model NeuMF --epochs 6"), DONE, prep=prep(), timeout=200),
    Scenario("healthy-sasrec", "no_failure", job(30153, "--model SASRec --epochs 6 --lr 2e-3"), DONE, prep=prep(),
             timeout=200),
    Scenario("healthy-resume", "no_failure", job(30154, "--resume --epochs 12"), r"Resume[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30155, '--epochs 5')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(30156, late=20, rdzv=C10D), DONE, prep=prep(), timeout=200),
    Scenario("segment-keyerror", "worker_exception", job(30157, "--pg-timeout 60"), r"KeyError[\s\S]*" + EX,
             prep=prep(hook="keyerr"), timeout=150, hang_ok=True),
    Scenario("eval-prior-index", "worker_exception", job(30158, "--pg-timeout 60"), r"IndexError[\s\S]*" + EX,
             prep=prep(hook="evalidx"), timeout=150, hang_ok=True),
    Scenario("auc-metric-node-b", "worker_exception", job(30159, "--pg-timeout 40",
             nargs={1: "--extra metrics=AUC"}), r"value-based metrics[\s\S]*" + EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank3-segv", "native_crash", job(30150), EX, prep=prep(hook="segv"), timeout=150, hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30151), EX, prep=prep(hook="leak"), memory=3 << 30,
             timeout=150, hang_ok=True),
    Scenario("saved-tmpfs", "disk_full", job(30152), EX, prep=prep(), tmpfs=(("saved", "400k"),), timeout=150,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30153, "--lr 1e20"), r"nan[\s\S]*" + EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(30154), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30155), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30156), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30157, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30158), EX, prep=prep(),
             stale=f"ip netns exec cdynode0 {{py}} -m http.server --bind {IPS[0]} 30158", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30159, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("norm-shape-rank2", "collective_mismatch", job(30150), EX, prep=prep(hook="shape2"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(30151, "--pg-timeout 20"), r"[Tt]imed out[\s\S]*" + EX,
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("numpy2-node-b", "library_version_mismatch",
             job(30152, "--pg-timeout 40", env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/cd-y-pydeps"}),
             r"NumPy 2[\s\S]*" + EX, prep=prep(), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30153, "--workers 2", shm={1: "16k"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("logdir-race-3nodes", "worker_exception", job(30155, "--no-predirs --pg-timeout 40", n=3),
             r"FileExistsError[\s\S]*" + EX, prep=prep(3), timeout=150, hang_ok=True),
    Scenario("preempt-sasrec-3nodes", "job_preempted", job(30156, "--model SASRec --epochs 6", n=3),
             EX + "|" + r"epoch 1 evaluating", prep=prep(3), trigger=((r"epoch 1 evaluating", "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("rank2-abort-epoch6", "native_crash", job(30157), EX, prep=prep(),
             trigger=((r"epoch 6 training \[", "rank2:ABRT"),), timeout=150, hang_ok=True),
    Scenario("rank4-evalleak-3nodes", "host_oom_killed", job(30158, n=3), EX, prep=prep(3, hook="evalleak4"),
             memory=4 << 30, timeout=150, hang_ok=True),
    Scenario("rank4-stopped-3nodes", "silent_hang", job(30159, n=3), r"epoch 2 evaluating", prep=prep(3),
             trigger=((r"epoch 2 evaluating", "rank4:STOP"), (60, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30154, rdzv=C10D, master={1: "10.114.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
