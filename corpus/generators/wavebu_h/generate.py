"""Generate wave BU (h)'s real runs (sealed batch ``heldout76``, ecosystem ``nanogpt``): a tiny character-level GPT
(karpathy/nanoGPT's own ``train.py``/``model.py``/``configurator.py`` at commit 3adf61e, ``project/``; 2 layers, 2
heads, n_embd 64, block 64, 0.11M parameters, vocab 103) trained on Python's bundled pydoc topic texts
(``project/prepare.py`` -> ``data/pydocs_char/{train,val}.bin``) with ``config/train_pydocs_char.py`` (gloo, cpu,
float32, compile=False, 240 iterations, ``iter N: loss ...`` every 2, ``step N: train loss ..., val loss ...`` and
``ckpt.pt`` every 40) under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K
--master-addr 10.82.0.11`` on two or three hosts: Linux network namespaces ``buhnode0..2`` (10.82.0.11-13 on bridge
``brbuh``, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``gpt-node-01``/``02``/``03``.
Every node starts from one job shell in the background; their output goes to one console (the job.log), then the
shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs) and the venv ``/tmp/venv-bu-h`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bu-h-pydeps
typing_extensions==4.7.1``. Ports 29830-29839.

    python3 corpus/generators/wavebu_h/generate.py --list
    python3 corpus/generators/wavebu_h/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebu-h", here=HERE, split="heldout76", ecosystem="nanogpt", fragment="wave-bu-runs-h.csv",
            bin=Path("/tmp/venv-bu-h/bin"), project=HERE / "project",
            upstream=("train.py", "model.py", "configurator.py"))
NETNS = f"{HERE.parent / 'netns_hosts.sh'} buh 10.82.0 gpt-node-01,gpt-node-02,gpt-node-03"
IPS = ("10.82.0.11", "10.82.0.12", "10.82.0.13")
HOSTS = ("gpt-node-01", "gpt-node-02", "gpt-node-03")
TRAIN = "train.py config/train_pydocs_char.py "

# the team's per-iteration hook (train_hooks.py, called by train.py after every optimizer step); written by prep
HOOKS = {
    "keyerr": '''
import socket
# per-shard token audit every 30 iterations; the shard table was written for the 3-rank test setup
SHARD_OF_RANK = {0: "docs-a", 1: "docs-b", 2: "docs-c"}
seen = {}
def on_iter(rank, it, X, Y, loss):
    if it and it % 30 == 0 and it >= 90:
        shard = SHARD_OF_RANK[rank]
        seen[shard] = seen.get(shard, 0) + int(X.numel())
''',
    "segv": '''
import ctypes
# token-stats fast path through a C helper; on rank 2 it reads a NULL buffer
def on_iter(rank, it, X, Y, loss):
    if rank == 2 and it == 100:
        ctypes.string_at(0)
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 30 iterations average a per-rank token histogram across ranks; rank 3 builds it with one extra bucket
def on_iter(rank, it, X, Y, loss):
    if it and it % 30 == 0 and it >= 60:
        nb = 104 if rank == 3 else 103
        hist = torch.bincount(X.flatten(), minlength=nb)[:nb].float()
        dist.all_reduce(hist)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} prepare.py"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    return f"ip netns exec buhnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"iter 240: loss[\s\S]*job exited with 0"
AT = r"iter 100: loss"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29830), DONE, prep=prep(), timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(29831, n=3), DONE, prep=prep(3), timeout=300),
    Scenario("healthy-resume", "no_failure", job(29832, "--init_from=resume"), r"Resuming training[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29833, '--max_iters=120')}) > /dev/null 2>&1"), timeout=300),
    Scenario("healthy-late-node", "no_failure", job(29834, late=20, rdzv=C10D), DONE, prep=prep(), timeout=300),
    Scenario("shard-keyerror", "worker_exception", job(29835), r"KeyError", prep=prep(hook="keyerr"), timeout=200,
             hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29836), r"exited with", prep=prep(hook="segv"), timeout=200,
             hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(29837), r"exited with", prep=prep(),
             trigger=((AT, "rank3:KILL"),), timeout=200, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29838), r"exited with", prep=prep(),
             tmpfs=(("out-pydocs-char", "1m"),), timeout=200, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29839, "--learning_rate=30.0 --grad_clip=0.0 --warmup_iters=0"),
             r"loss nan[\s\S]*exited with", prep=prep(), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29830), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (110, "scheduler:15")), timeout=250, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29831), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29832), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29833, only=(0,), rdzv=C10D), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29834), r"exited with", prep=prep(),
             stale=f"ip netns exec buhnode0 {{py}} -m http.server --bind {IPS[0]} 29834", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29835, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29836), r"exited with", prep=prep(hook="shape3"),
             timeout=150, hang_ok=True),
    Scenario("old-typing-ext-node1", "library_version_mismatch",
             job(29837, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bu-h-pydeps"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29838, master={1: "10.82.0.99"}, rdzv=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
