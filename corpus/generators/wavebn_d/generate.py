"""Generate wave BN (d)'s real runs (sealed batch ``heldout69``, ecosystem ``accelerate``): a support-ticket intent
classifier (``project/train.py``: bag-of-embeddings + MLP, Hugging Face Accelerate 1.16.0 custom loop, gloo on CPU,
``accelerator.save_state`` checkpoints) launched with **multi-node** ``ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu
--num_machines 2 --machine_rank K --main_process_ip 10.70.0.11`` (torchrun underneath; MULTI_CPU, gloo) on two (or three) hosts: Linux network namespaces on this machine
(``bdnode0..2``, 10.70.0.11-13 on one bridge, built by ``../netns_hosts.sh``), each node in its own UTS namespace with its own
hostname (``ml-node-07``, ``ml-node-08``, ``ml-node-09``). The launch script starts every node in the background and
waits for all; their stdout+stderr go to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bn-d``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install accelerate`` -> 1.16.0). Ports 37000-37999.

    python3 corpus/generators/wavebn_d/generate.py --list
    python3 corpus/generators/wavebn_d/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebn-d", here=HERE, split="heldout69", ecosystem="accelerate", bin=Path("/tmp/venv-bn-d/bin"),
            fragment="wave-bn-runs-d.csv", project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bd 10.70.0 ml-node-07,ml-node-08,ml-node-09"
IPS = ("10.70.0.11", "10.70.0.12", "10.70.0.13")
HOSTS = ("ml-node-07", "ml-node-08", "ml-node-09")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_tickets.py {hook}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str = "GLOO_SOCKET_IFNAME=eth0", master: str = IPS[0],
         procs: int = 2, rdzv: str = "") -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env ACCELERATE_USE_CPU=1 {env} nice -n 5 {{bin}}/accelerate launch --multi_gpu "
             f"--num_machines {n} --num_processes {n * procs} --machine_rank {i} --main_process_ip {master} "
             f"--main_process_port {port} {rdzv}train.py {args}")
    return f"ip netns exec bdnode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "--epochs 4", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, master=master.get(i, IPS[0]), rdzv=rdzv, procs=procs,
                       **({"env": env[i]} if i in env else {})),
        n, late, only)


C10D = "--rdzv_backend c10d --rdzv_conf join_timeout=40 "
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(37010), r"done:[\s\S]*job exited with 0", prep=prep()),
    Scenario("healthy-resume", "no_failure", job(37020, "--epochs 3 --resume"),
             r"Resumed from[\s\S]*job exited with 0",
             prep=prep() + f" && ({job(37021, '--epochs 1')}) > /dev/null 2>&1"),
    Scenario("healthy-late-node", "no_failure", job(37030, late=20, rdzv=C10D), r"done:[\s\S]*job exited with 0",
             prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(37040, n=3, procs=1), r"done:[\s\S]*job exited with 0",
             prep=prep(3), timeout=150),
    Scenario("rank-sigkill", "host_oom_killed", job(37050, "--epochs 6"), r"step 60/", prep=prep(),
             trigger=((r"step 60/", "rank3:KILL"),), timeout=120, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(37060, "--epochs 3"), r"exited with", prep=prep(hook="segv"),
             timeout=120, hang_ok=True),
    Scenario("rank-abort", "native_crash", job(37070, "--epochs 3"), r"exited with", prep=prep(hook="abort"),
             timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(37080, "--epochs 2 --lr 1e4"), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("rank-keyerror", "worker_exception", job(37090, "--epochs 3"), r"KeyError", prep=prep(hook="keyerr"),
             timeout=120, hang_ok=True),
    Scenario("grad-shape", "collective_mismatch", job(37100, "--epochs 3"), r"exited with|step 50/",
             prep=prep(hook="shape"), timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(37110, "--epochs 3"), r"No space|Errno 28|exited with", prep=prep(),
             tmpfs=(("outputs", "300k"),), timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(37120), r"exited with", prep=prep(),
             stale=f"ip netns exec bdnode0 {{py}} -m http.server --bind {IPS[0]} 37120", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-missing", "nccl_network_config", job(37130, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    # planned as a wrong interface; gloo still connected every pair and the run finished; its log (the text of
    # healthy-2nodes to the digits) was dropped after the blind measurement
    Scenario("healthy-node1-ifname-lo", "no_failure", job(37140, env={1: "GLOO_SOCKET_IFNAME=lo"}),
             r"done:[\s\S]*job exited with 0", prep=prep(), timeout=120),
    Scenario("node1-missing", "rendezvous_timeout", job(37150, only=(0,), rdzv=C10D), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(37160, master={1: "10.70.0.99"}, rdzv=C10D), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("preempt", "job_preempted", job(37170, "--epochs 6"), r"step 60/", prep=prep(),
             trigger=((r"step 60/", "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(37180, "--epochs 6"), r"step 60/", prep=prep(),
             trigger=((r"step 60/", "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(37190, "--epochs 6"), r"step 60/", prep=prep(),
             trigger=((r"step 60/", "rank2:STOP"), (60, "scheduler:15")), timeout=120, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(37200, "--epochs 3 --dim 4096"), r"exited with", prep=prep(),
             memory=900_000_000, timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
