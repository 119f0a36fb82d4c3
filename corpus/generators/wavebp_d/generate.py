"""Generate wave BP (d)'s real runs (sealed batch ``heldout71``, ecosystem ``trl``): GRPO reinforcement learning of a
tiny GPT-2 policy on addition prompts with TRL 0.25's ``GRPOTrainer`` (``project/grpo_arith.py``: generation by the
policy itself, no vLLM; a rule-based reward; completion tables printed with rich) launched with **multi-node**
``ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu --num_machines 2 --machine_rank K --main_process_ip 10.74.0.11``
(torchrun underneath; MULTI_CPU, gloo) on two or three hosts: Linux network namespaces ``bpnode0..2`` (10.74.0.11-13
on one bridge, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``rl-gpu-21``/``22``/``23``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bp-d``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install trl==0.25.0 transformers==4.57.6 accelerate
datasets`` -> accelerate 1.16.0, datasets 5.0.1). Ports 39000-39499.

    python3 corpus/generators/wavebp_d/generate.py --list
    python3 corpus/generators/wavebp_d/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebp-d", here=HERE, split="heldout71", ecosystem="trl", bin=Path("/tmp/venv-bp-d/bin"),
            fragment="wave-bp-runs-d.csv", project=HERE / "project", extra_env={"HF_HUB_OFFLINE": "1"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bp 10.74.0 rl-gpu-21,rl-gpu-22,rl-gpu-23"
IPS = ("10.74.0.11", "10.74.0.12", "10.74.0.13")
HOSTS = ("rl-gpu-21", "rl-gpu-22", "rl-gpu-23")


def prep(n: int = 2, hook: str = "", dim: int = 64, extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_tasks.py '{hook}' {dim}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env ACCELERATE_USE_CPU=1 {env} nice -n 5 {{bin}}/accelerate "
             f"launch --multi_gpu --num_machines {n} --num_processes {n * procs} --machine_rank {i} --main_process_ip "
             f"{master} --main_process_port {port} {rdzv}grpo_arith.py {args}")
    return f"ip netns exec bpnode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv),
        n, late, only)


C10D = "--rdzv_backend c10d --rdzv_conf join_timeout=40 "
DONE = r"train_loss[\s\S]*job exited with 0"
LONG = "--max-steps 600"
AT40 = r"Saving model checkpoint to outputs/grpo-arith/checkpoint-40"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(39010, "--max-steps 80"), DONE, prep=prep(), timeout=400),
    Scenario("healthy-3nodes", "no_failure", job(39030, "--max-steps 60", n=3, procs=1), DONE, prep=prep(3),
             timeout=400),
    Scenario("healthy-late-node", "no_failure", job(39040, "--max-steps 60", late=20, rdzv=C10D), DONE, prep=prep(),
             timeout=400),
    Scenario("healthy-8gen", "no_failure", job(39050, "--max-steps 40 --batch 8 --generations 8"), DONE, prep=prep(),
             timeout=400),
    Scenario("healthy-low-lr", "no_failure", job(39055, "--max-steps 40 --lr 1e-5"), DONE, prep=prep(), timeout=400),
    Scenario("rank-sigkill", "host_oom_killed", job(39060, LONG), r"exited with", prep=prep(),
             trigger=((AT40, "rank3:KILL"),), timeout=300, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(39070, LONG + " --batch 32 --generations 8"), r"exited with",
             prep=prep(dim=1536), memory=2_500_000_000, timeout=300, hang_ok=True),
    Scenario("reward-segv", "native_crash", job(39080, LONG), r"exited with", prep=prep(hook="segv"), timeout=300,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(39090, "--max-steps 200 --lr 5"), r"exited with", prep=prep(),
             timeout=300, hang_ok=True),
    Scenario("reward-keyerror", "worker_exception", job(39100, LONG), r"KeyError", prep=prep(hook="keyerr"), timeout=300,
             hang_ok=True),
    Scenario("reward-memerr", "host_oom_killed", job(39110, LONG), r"exited with", prep=prep(hook="memerr"),
             memory=3_000_000_000, timeout=300, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(39120, LONG), r"exited with", prep=prep(dim=256),
             tmpfs=(("outputs", "3m"),), timeout=300, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(39130, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bpnode0 {{py}} -m http.server --bind {IPS[0]} 39130", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(39140, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(39150, LONG, master={1: "10.74.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(39160, LONG), r"exited with|checkpoint-40", prep=prep(),
             trigger=((AT40, "scheduler:15"),), timeout=300, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(39170, LONG), r"exited with|checkpoint-40", prep=prep(),
             trigger=((AT40, "runner:HUP"),), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(39180, LONG), r"checkpoint-40", prep=prep(),
             trigger=((AT40, "rank1:STOP"), (150, "scheduler:15")), timeout=300, hang_ok=True),
    Scenario("healthy-batch3", "no_failure", job(39190, "--max-steps 60 --batch 3 --generations 4"), DONE,
             prep=prep(), timeout=400),
    Scenario("gen-batch", "batch_size_mismatch", job(39195, "--max-steps 60 --batch 3 --generations 8"),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
    Scenario("reward-shape", "collective_mismatch", job(39200, LONG), r"exited with", prep=prep(hook="shape"),
             timeout=300, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
