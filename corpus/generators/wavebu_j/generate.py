"""Generate wave BU (j)'s real runs (sealed batch ``heldout76``, ecosystem ``cleanrl``): CleanRL's multi-process PPO
(``cleanrl/ppo_atari_multigpu.py`` from vwxyzjn/cleanrl @ fe8d8a0, torch.distributed with ``--backend gloo``, one
``all_reduce`` of the flattened gradients per minibatch, tyro args, SummaryWriter) on ``BreakoutNoFrameskip-v4``
(ale-py 0.9.0, ROMs bundled) with cleanrl's own Atari wrappers (``project/cleanrl_utils/atari_wrappers.py``), on CPU,
under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr
10.84.0.11`` on two or three hosts: Linux network namespaces ``bujnode0..2`` (10.84.0.11-13 on one bridge,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``rl-box-1``/``2``/``3``. Every node starts
from one job shell in the background; their output goes to one console (the job.log), then ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs) and the venv ``/tmp/venv-bu-j`` (see
README.md). The version-mismatch run also needs ``pip install --no-deps --target /tmp/buj-site gymnasium==1.0.0``.
Ports 29850-29859.

    python3 corpus/generators/wavebu_j/generate.py --list
    python3 corpus/generators/wavebu_j/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebu-j", here=HERE, split="heldout76", ecosystem="cleanrl", bin=Path("/tmp/venv-bu-j/bin"),
            fragment="wave-bu-runs-j.csv", project=HERE / "project",
            upstream=("ppo_atari_multigpu.py", "cleanrl_utils/atari_wrappers.py"))
NETNS = f"{HERE.parent / 'netns_hosts.sh'} buj 10.84.0 rl-box-1,rl-box-2,rl-box-3"
IPS = ("10.84.0.11", "10.84.0.12", "10.84.0.13")
HOSTS = ("rl-box-1", "rl-box-2", "rl-box-3")
TRAIN = ("ppo_atari_multigpu.py --backend gloo --local-num-envs 2 --num-steps 32 --save-every 4 "
         "--ckpt-dir runs/checkpoints ")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    cmd = f"{NETNS} up {n}"
    if hook:
        cmd += f" && cp hooks/{hook}.py train_hooks.py"
    return cmd + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    return f"ip netns exec bujnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2) -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"saved checkpoint runs/checkpoints/agent_0016\.pt[\s\S]*job exited with 0"
SHORT = "--total-timesteps 4096"
LONG = "--total-timesteps 32768"
AT = r"iteration: 12, "
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29850, SHORT), DONE, prep=prep(), timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(29851, "--total-timesteps 6144", n=3), DONE, prep=prep(3),
             timeout=400),
    Scenario("healthy-resume", "no_failure", job(29852, "--total-timesteps 6144 --resume "
                                                         "runs/checkpoints/agent_0012.pt"),
             r"resumed from[\s\S]*saved checkpoint runs/checkpoints/agent_0024\.pt[\s\S]*job exited with 0",
             prep=prep(extra=f"({job(29853, '--total-timesteps 3072')}) > /dev/null 2>&1"), timeout=400),
    Scenario("healthy-late-node", "no_failure", job(29854, SHORT, late=20, rdzv=C10D), DONE, prep=prep(),
             timeout=300),
    Scenario("action-names-keyerror", "worker_exception", job(29855, LONG), r"KeyError", prep=prep(hook="action_names"),
             timeout=200, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29856, LONG), r"exited with", prep=prep(hook="frame_probe"),
             timeout=200, hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(29857, LONG), r"exited with", prep=prep(),
             trigger=((AT, "rank3:KILL"),), timeout=200, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29858, LONG), r"exited with", prep=prep(),
             tmpfs=(("runs/checkpoints", "50m"),), timeout=250, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29859, LONG + " --learning-rate 1e4 --no-anneal-lr"),
             r"exited with", prep=prep(), timeout=250, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29850, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (100, "scheduler:15")), timeout=250, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29851, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29852, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29853, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29854, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bujnode0 {{py}} -m http.server --bind {IPS[0]} 29854", stale_ready=r"Serving HTTP",
             timeout=150, hang_ok=True),
    Scenario("mean-return-allreduce", "collective_mismatch", job(29855, LONG), r"exited with",
             prep=prep(hook="mean_return"), timeout=200, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29856, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("gymnasium1-node1", "library_version_mismatch",
             job(29857, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/buj-site"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master-node1", "rendezvous_timeout", job(29858, LONG, master={1: "10.84.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("healthy-eval", "no_failure", job(29859, SHORT + " --eval-episodes 3"),
             r"saved checkpoint runs/checkpoints/agent_0016\.pt[\s\S]*\| mean \|[\s\S]*job exited with 0", prep=prep(),
             timeout=300),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
