"""Generate wave BY (w)'s real runs (sealed batch ``heldout80``, ecosystem ``webdataset``): a tiny MLP classifier
(16 -> 32 -> 2) trained with plain DistributedDataParallel (gloo, CPU) on a 12-shard tar dataset written by
``webdataset.ShardWriter`` (``project/make_shards.py``, 768 samples of ``x.npy`` + ``cls``), read by
``project/train_wds.py`` through ``wds.WebDataset(urls, nodesplitter=wds.split_by_node, shardshuffle=False,
handler=...)`` ``.decode().to_tuple("x.npy", "cls").batched(8).with_epoch(16)`` and a ``wds.WebLoader`` with 2
workers; 3 epochs, ``ckpt/model.pt`` saved by rank 0 after each epoch. Launched with multi-node ``python -m
torch.distributed.run --nnodes N --nproc-per-node 2 --rdzv-backend c10d`` on two or three hosts: network namespaces
``bywnode0..2`` (10.98.0.11-13, ``../netns_hosts.sh``), each in its own UTS namespace with hostname
``wds-node-a``/``b``/``c``. Every node starts from one job shell in the background; their output goes to one console
(the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs) and the venv ``/tmp/venv-by-w`` (README.md).
Ports 29990-29999.

    python3 corpus/generators/waveby_w/generate.py --list
    python3 corpus/generators/waveby_w/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="waveby-w", here=HERE, split="heldout80", ecosystem="webdataset", fragment="wave-by-runs-w.csv",
            bin=Path("/tmp/venv-by-w/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} byw 10.98.0 wds-node-a,wds-node-b,wds-node-c"
IPS = ("10.98.0.11", "10.98.0.12", "10.98.0.13")
HOSTS = ("wds-node-a", "wds-node-b", "wds-node-c")
TRAIN = "train_wds.py "

HOOKS = {
    "shape3": '''
import torch
import torch.distributed as dist
# every 4 steps of epoch 1 average a per-rank label histogram; rank 3 builds it with one extra bucket
def on_step(rank, epoch, step, x, y, loss):
    if epoch == 1 and step % 4 == 2:
        nb = 3 if rank == 3 else 2
        hist = torch.bincount(y, minlength=nb)[:nb].float()
        dist.all_reduce(hist)
''',
    "segv": '''
import ctypes
# per-batch feature stats through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, epoch, step, x, y, loss):
    if rank == 2 and epoch == 1 and step == 6:
        ctypes.string_at(0)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_shards.py"
    if hook:
        s += f" && cat > step_hook.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "


def node(i: int, port: int, n: int, args: str, env: str, master: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"{C10D.format(master=master, port=port)}{TRAIN}{args}")
    return f"ip netns exec bywnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0])), n, late, only)


DONE = r"epoch 2 done, saved ckpt/model.pt[\s\S]*job exited with 0"
AT = r"epoch 1 step 4: loss"
HOOK = "--hook step_hook.py"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29990), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29991, n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure", job(29992, "--resume --epochs 4"),
             r"resumed from ckpt/model.pt at epoch 2[\s\S]*epoch 3 done, saved ckpt/model.pt[\s\S]*job exited with 0",
             prep=prep(extra=f"({job(29993, '--epochs 2')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29994, late=15), DONE, prep=prep(), timeout=150),
    Scenario("truncated-shard", "worker_exception", job(29992), r"exited with", timeout=150, hang_ok=True,
             prep=prep(extra="head -c 20000 shards/train-000005.tar > t.tar && mv t.tar shards/train-000005.tar")),
    Scenario("rank-segv", "native_crash", job(29993, HOOK), r"exited with", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("preempt", "job_preempted", job(29994), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29995), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29996, "--lr 1e30"), r"FloatingPointError[\s\S]*exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29990, HOOK + " --pg-timeout 30"), r"exited with",
             prep=prep(hook="shape3"), timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29991, "--keep-all"), r"exited with", prep=prep(),
             tmpfs=(("ckpt", "8k"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29998, only=(0,)), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
