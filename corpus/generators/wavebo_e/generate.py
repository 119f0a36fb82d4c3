"""Generate wave BO (e)'s real runs (sealed batch ``heldout70``, ecosystem ``transformers``): a small causal language
model on SQL query logs (``project/train_lm.py``: GPT-2 architecture, 2 layers, character vocabulary) trained with
the Hugging Face Trainer (transformers 4.57.6; logging set up as in its ``run_clm.py`` example) under **multi-node**
``torchrun --nnodes 2 --nproc-per-node 2 --node-rank K --master-addr 10.73.0.11`` (DDP over gloo on CPU) on two or
three hosts: Linux network namespaces ``benode0..2`` (10.73.0.11-13 on one bridge, ``../netns_hosts.sh``), each node in its own
UTS namespace with hostname ``trn-c03``/``trn-c04``/``trn-c05``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bo-e``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install transformers==4.57.6 accelerate`` -> accelerate
1.16.0). Ports 38000-38999.

    python3 corpus/generators/wavebo_e/generate.py --list
    python3 corpus/generators/wavebo_e/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebo-e", here=HERE, split="heldout70", ecosystem="transformers", bin=Path("/tmp/venv-bo-e/bin"),
            fragment="wave-bo-runs-e.csv", project=HERE / "project", extra_env={"HF_HUB_OFFLINE": "1"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} be 10.73.0 trn-c03,trn-c04,trn-c05"
IPS = ("10.73.0.11", "10.73.0.12", "10.73.0.13")
HOSTS = ("trn-c03", "trn-c04", "trn-c05")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_corpus.py {hook}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env {env} nice -n 5 {{bin}}/torchrun --nnodes {n} "
             f"--nproc-per-node {procs} --node-rank {i} --master-addr {master} --master-port {port} {rdzv}"
             f"train_lm.py {args}")
    return f"ip netns exec benode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "--epochs 2", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint 10.73.0.11:{port} --rdzv-conf join_timeout=40 "
DONE = r"eval_loss[\s\S]*job exited with 0"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(38010), DONE, prep=prep(), timeout=300),
    Scenario("healthy-resume", "no_failure", job(38020, "--epochs 2 --resume"), r"resuming training[\s\S]*" + DONE,
             prep=prep() + f" && ({job(38021, '--epochs 0.5')}) > /dev/null 2>&1", timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(38030, n=3, procs=1), DONE, prep=prep(3), timeout=300),
    Scenario("healthy-late-node", "no_failure", job(38040, late=20, rdzv=C10D.format(port=38040)), DONE,
             prep=prep(), timeout=300),
    Scenario("rank-sigkill", "host_oom_killed", job(38050, "--epochs 4"), r"exited with", prep=prep(),
             trigger=((r"'loss': [\d.]+, 'grad_norm'[^\n]*'epoch': 0\.[3-9]", "rank3:KILL"),), timeout=300,
             hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(38060, "--epochs 2 --dim 1536 --batch 32"), r"exited with",
             prep=prep(), memory=2_500_000_000, timeout=300, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(38070), r"exited with", prep=prep(hook="segv"), timeout=300,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(38080, "--epochs 2 --lr 50"), r"exited with", prep=prep(),
             timeout=300, hang_ok=True),
    Scenario("rank-keyerror", "worker_exception", job(38090), r"KeyError", prep=prep(hook="keyerr"), timeout=300,
             hang_ok=True),
    Scenario("grad-shape", "collective_mismatch", job(38100), r"exited with", prep=prep(hook="shape"),
             timeout=300, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(38110), r"exited with", prep=prep(), tmpfs=(("outputs", "400k"),),
             timeout=300, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(38120), r"exited with", prep=prep(),
             stale=f"ip netns exec benode0 {{py}} -m http.server --bind {IPS[0]} 38120", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(38130, only=(0,), rdzv=C10D.format(port=38130)),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(38140, "--epochs 4"), r"exited with|'epoch': 0\.[4-9]", prep=prep(),
             trigger=((r"'loss': [\d.]+, 'grad_norm'[^\n]*'epoch': 0\.[4-9]", "scheduler:15"),), timeout=300,
             hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(38150, "--epochs 4"), r"exited with|'epoch': 0\.[4-9]",
             prep=prep(), trigger=((r"'loss': [\d.]+, 'grad_norm'[^\n]*'epoch': 0\.[4-9]", "runner:HUP"),),
             timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(38160, "--epochs 4"), r"'epoch': 0\.[4-9]", prep=prep(),
             trigger=((r"'loss': [\d.]+, 'grad_norm'[^\n]*'epoch': 0\.[4-9]", "rank1:STOP"), (150, "scheduler:15")),
             timeout=300, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
