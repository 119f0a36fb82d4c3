"""Generate wave BP (e)'s real runs (sealed batch ``heldout71``, ecosystem ``torch``): a small causal transformer LM
sharded with FSDP2 (``fully_shard`` per block) and checkpointed with Distributed Checkpoint (``dcp.save`` every 40
steps, ``dcp.load`` on restart), plain PyTorch (``project/train_fsdp.py``), under **multi-node**
``torchrun --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.75.0.11`` (gloo on CPU) on two or three hosts:
Linux network namespaces ``bqnode0..2`` (10.75.0.11-13 on one bridge, ``../netns_hosts.sh``), each node in its own UTS
namespace with hostname ``pt-node-31``/``32``/``33``. Every node starts from one job shell in the background; their
output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and torch 2.13.0+cpu in the system
Python 3.11.7 (its ``torchrun`` script). Ports 39500-39999.

    python3 corpus/generators/wavebp_e/generate.py --list
    python3 corpus/generators/wavebp_e/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebp-e", here=HERE, split="heldout71", ecosystem="torch",
            bin=Path(sys.executable).resolve().parent, fragment="wave-bp-runs-e.csv", project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bq 10.75.0 pt-node-31,pt-node-32,pt-node-33"
IPS = ("10.75.0.11", "10.75.0.12", "10.75.0.13")
HOSTS = ("pt-node-31", "pt-node-32", "pt-node-33")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_text.py {hook}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env {env} nice -n 5 {{bin}}/torchrun --nnodes {n} "
             f"--nproc-per-node {procs} --node-rank {i} --master-addr {master} --master-port {port} {rdzv}"
             f"train_fsdp.py {args}")
    return f"ip netns exec bqnode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, late: float = 1, only: tuple | None = None,
        rdzv: str = "", procs: int = 2) -> str:
    env = env or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), IPS[0], procs, rdzv), n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint 10.75.0.11:{port} --rdzv-conf join_timeout=40 "
DONE = r"training complete[\s\S]*job exited with 0"
LONG = "--steps 3000"
AT40 = r"saved checkpoint checkpoints/step-40"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(39510), DONE, prep=prep(), timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(39520, n=3, procs=1), DONE, prep=prep(3), timeout=300),
    Scenario("healthy-resume", "no_failure", job(39530, "--steps 160"), r"resumed from[\s\S]*" + DONE,
             prep=prep() + f" && ({job(39531, '--steps 80')}) > /dev/null 2>&1", timeout=300),
    Scenario("healthy-late-node", "no_failure", job(39540, late=20, rdzv=C10D.format(port=39540)), DONE,
             prep=prep(), timeout=300),
    Scenario("rank-sigkill", "host_oom_killed", job(39550, LONG), r"exited with", prep=prep(),
             trigger=((AT40, "rank3:KILL"),), timeout=300, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(39560, LONG + " --dim 1024 --layers 4 --batch 16"),
             r"exited with", prep=prep(), memory=2_000_000_000, timeout=300, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(39570, LONG), r"exited with", prep=prep(hook="segv"), timeout=300,
             hang_ok=True),
    Scenario("rank-abort", "native_crash", job(39580, LONG), r"exited with", prep=prep(hook="abort"), timeout=300,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(39590, "--steps 200 --lr 80"), r"exited with", prep=prep(),
             timeout=300, hang_ok=True),
    Scenario("rank-valueerror", "worker_exception", job(39600, LONG), r"exited with", prep=prep(hook="valerr"),
             timeout=300, hang_ok=True),
    Scenario("rank-memerror", "host_oom_killed", job(39610, LONG), r"exited with", prep=prep(hook="memerr"),
             timeout=300, hang_ok=True),
    Scenario("dcp-tmpfs", "disk_full", job(39620, LONG + " --dim 256"), r"exited with", prep=prep(),
             tmpfs=(("checkpoints", "6m"),), timeout=300, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(39630, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bqnode0 {{py}} -m http.server --bind {IPS[0]} 39630", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(39640, LONG, only=(0,), rdzv=C10D.format(port=39640)),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(39650, LONG), r"exited with|step-40", prep=prep(),
             trigger=((AT40, "scheduler:15"),), timeout=300, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(39660, LONG), r"exited with|step-40", prep=prep(),
             trigger=((AT40, "runner:HUP"),), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(39670, LONG), r"step-40", prep=prep(),
             trigger=((AT40, "rank1:STOP"), (150, "scheduler:15")), timeout=300, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(39690, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
    Scenario("healthy-4layers", "no_failure", job(39700, "--steps 100 --layers 4 --dim 96"), DONE, prep=prep(),
             timeout=300),
    Scenario("slow-rank-timeout", "collective_timeout", job(39680, LONG + " --timeout 45"), r"exited with",
             prep=prep(hook="slow"), timeout=300, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
