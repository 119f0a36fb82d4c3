"""Generate wave BU (i)'s real runs (sealed batch ``heldout76``, ecosystem ``fairscale``): "churn-risk", a tabular
classifier (an MLP over 48 generated account features, 6 risk classes, 243k parameters, ``project/train.py``) trained
with fairscale 0.4.13's OSS (sharded AdamW state) + ShardedDataParallel over torch 2.13.0+cpu (gloo), logging per-step
loss and per-epoch validation with ``logging`` (host and rank in the format), saving a consolidated OSS checkpoint on
rank 0 every epoch and resuming from it when present; launched with multi-node ``python -m torch.distributed.run
--nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.83.0.11`` on two or three hosts: Linux network
namespaces ``buinode0..2`` (10.83.0.11-13 on one bridge, ``../netns_hosts.sh``), each node in its own UTS namespace
with hostname ``fs-worker-a``/``b``/``c``. Every node starts from one job shell in the background; their output goes
to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs) and the venv ``/tmp/venv-bu-i`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bui-fs-030 fairscale==0.3.0``.
Fault hooks (``hooks/*.py``) are copied into the job dir as ``step_hooks.py`` by ``prep``. Ports 29840-29849.

    python3 corpus/generators/wavebu_i/generate.py --list
    python3 corpus/generators/wavebu_i/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebu-i", here=HERE, split="heldout76", ecosystem="fairscale", fragment="wave-bu-runs-i.csv",
            bin=Path("/tmp/venv-bu-i/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bui 10.83.0 fs-worker-a,fs-worker-b,fs-worker-c"
IPS = ("10.83.0.11", "10.83.0.12", "10.83.0.13")
HOSTS = ("fs-worker-a", "fs-worker-b", "fs-worker-c")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_data.py"
    if hook:
        s += f" && cp {HERE / 'hooks' / hook}.py step_hooks.py"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"train.py {args}")
    return f"ip netns exec buinode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"macro avg[\s\S]*job exited with 0"
LONG = "--epochs 40"
AT = r"epoch 2 step 24/48"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29840, "--epochs 8"), DONE, prep=prep(), timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(29841, "--epochs 6", n=3), DONE, prep=prep(3), timeout=300),
    Scenario("healthy-resume", "no_failure", job(29842, "--epochs 8"), r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29843, '--epochs 3')}) > /dev/null 2>&1"), timeout=300),
    Scenario("healthy-late-node", "no_failure", job(29844, "--epochs 6", late=20, rdzv=C10D), DONE,
             prep=prep(), timeout=300),
    Scenario("label-keyerror", "worker_exception", job(29845, LONG), r"KeyError", prep=prep(hook="tier_audit"),
             timeout=150, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29846, LONG), r"SIGSEGV", prep=prep(hook="fast_stats"),
             timeout=150, hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(29847, LONG), r"SIGKILL", prep=prep(),
             trigger=((AT, "rank3:KILL"),), timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29848, LONG), r"exited with", prep=prep(),
             tmpfs=(("checkpoints", "2m"),), timeout=150, hang_ok=True),
    Scenario("lr-typo", "training_divergence", job(29849, "--epochs 6 --lr 1e3"), r"loss nan[\s\S]*exited with",
             prep=prep(), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29840, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (100, "scheduler:15")), timeout=250, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29841, LONG), AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29842, LONG), AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29843, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29849, LONG, master={1: "10.83.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29844, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec buinode0 {{py}} -m http.server --bind {IPS[0]} 29844", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29845, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("pred-hist", "collective_mismatch", job(29846, LONG), r"exited with", prep=prep(hook="pred_hist"),
             timeout=150, hang_ok=True),
    Scenario("pred-hist-debug", "collective_mismatch",
             job(29848, LONG, env={i: "GLOO_SOCKET_IFNAME=eth0 TORCH_DISTRIBUTED_DEBUG=DETAIL" for i in (0, 1)}),
             r"exited with", prep=prep(hook="pred_hist"), timeout=150, hang_ok=True),
    Scenario("fairscale-old-node1", "library_version_mismatch",
             job(29847, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bui-fs-030"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
