"""Generate wave BN (e)'s real runs (sealed batch ``heldout69``, ecosystem ``lightning``): a day-ahead feeder-load
forecaster (``project/train.py``: MLP over a 24 h window, PyTorch Lightning 2.6.6 ``Trainer(accelerator="cpu",
devices=2, num_nodes=2, strategy=DDPStrategy(process_group_backend="gloo"))``, ModelCheckpoint top-2 + last, CSV
logger) launched the way Lightning documents for a general cluster: on every node ``MASTER_ADDR=10.71.0.11
MASTER_PORT=P NODE_RANK=K python train.py`` (Lightning starts the node's other local process itself). The nodes are
Linux network namespaces on this machine (``benode0..2``, 10.71.0.11-13 on one bridge, built by ``../netns_hosts.sh``), each in
its own UTS namespace with hostname ``gpu-a01``, ``gpu-a02``, ``gpu-a03``. The launch script starts every node in the
background and waits for all; their stdout+stderr go to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bn-e``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install lightning`` -> 2.6.6). Ports 38000-38999.

    python3 corpus/generators/wavebn_e/generate.py --list
    python3 corpus/generators/wavebn_e/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402


def _rank(p):
    env = p.environ()
    lr, nr = env.get("LOCAL_RANK"), env.get("NODE_RANK")
    if nr is None or not nr.isdigit():
        return None
    return int(nr) * 2 + (int(lr) if lr and lr.isdigit() else 0)


WAVE = Wave(tag="wavebn-e", here=HERE, split="heldout69", ecosystem="lightning", bin=Path("/tmp/venv-bn-e/bin"),
            fragment="wave-bn-runs-e.csv", project=HERE / "project", rank_of=_rank)
NETNS = f"{HERE.parent / 'netns_hosts.sh'} be 10.71.0 gpu-a01,gpu-a02,gpu-a03"
IPS = ("10.71.0.11", "10.71.0.12", "10.71.0.13")
HOSTS = ("gpu-a01", "gpu-a02", "gpu-a03")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_load.py {hook}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str = "GLOO_SOCKET_IFNAME=eth0", master: str = IPS[0],
         devices: int = 2, pre: str = "") -> str:
    inner = (f"hostname {HOSTS[i]} && {pre}cd {{job}} && exec env MASTER_ADDR={master} MASTER_PORT={port} "
             f"NODE_RANK={i} {env} nice -n 5 {{py}} train.py --nodes {n} --devices {devices} {args}")
    mnt = " --mount" if pre else ""
    return f"ip netns exec benode{i} unshare --uts{mnt} bash -c '{inner}'"


def job(port: int, args: str = "--epochs 4", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, devices: int = 2, pre: dict | None = None) -> str:
    env, master, pre = env or {}, master or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, master=master.get(i, IPS[0]), devices=devices, pre=pre.get(i, ""),
                       **({"env": env[i]} if i in env else {})),
        n, late, only)


LONG = "--epochs 12"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(38010), r"training finished[\s\S]*job exited with 0", prep=prep(),
             timeout=150),
    Scenario("healthy-resume", "no_failure", job(38020, "--epochs 5 --resume"),
             r"training finished[\s\S]*job exited with 0", prep=prep() + f" && ({job(38021, '--epochs 2')}) > /dev/null 2>&1",
             timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(38030, "--epochs 3", n=3, devices=1),
             r"training finished[\s\S]*job exited with 0", prep=prep(3), timeout=150),
    Scenario("rank-sigkill", "host_oom_killed", job(38040, LONG), r"step 120 ", prep=prep(),
             trigger=((r"step 120 ", "rank3:KILL"),), timeout=120, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(38050, LONG), r"exited with", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("rank-abort", "native_crash", job(38060, LONG), r"exited with", prep=prep(hook="abort"), timeout=120,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(38070, "--epochs 4 --lr 1e4"), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("rank-typeerror", "worker_exception", job(38080, LONG), r"TypeError", prep=prep(hook="typeerr"),
             timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(38090, LONG), r"exited with", prep=prep(), tmpfs=(("checkpoints", "200k"),),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(38100), r"exited with", prep=prep(),
             stale=f"ip netns exec benode0 {{py}} -m http.server --bind {IPS[0]} 38100", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-missing", "nccl_network_config", job(38110, "--pg-timeout 40", env={1: "GLOO_SOCKET_IFNAME=eth1"}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(38120, "--pg-timeout 40", only=(0,)), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("preempt", "job_preempted", job(38130, LONG), r"step 120 ", prep=prep(),
             trigger=((r"step 120 ", "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(38140, LONG), r"step 120 ", prep=prep(),
             trigger=((r"step 120 ", "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(38150, LONG), r"step 120 ", prep=prep(),
             trigger=((r"step 120 ", "rank2:STOP"), (50, "scheduler:15")), timeout=120, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(38170, "--epochs 3 --hidden 6000"), r"exited with", prep=prep(),
             memory=1_000_000_000, timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
