"""Generate wave BR (d)'s real runs (sealed batch ``heldout73``, ecosystem ``pytorch``): a click-through-rate model
trained with PyTorch's **RPC framework** (``project/ctr_ps.py``): rank 0 is a parameter server holding the sparse
embedding tables and serving lookups over ``torch.distributed.rpc`` (TensorPipe); the other ranks are trainers that
call ``rpc_sync`` inside a ``dist_autograd`` context, run a dense tower under DDP over a gloo group of the trainers and
step a ``DistributedOptimizer`` (remote tables + local tower); trainer1 checkpoints (the ps writes its tables itself,
over RPC). Launched with **multi-node** ``torchrun --nnodes N --nproc-per-node P --node-rank K --master-addr
10.76.0.11`` on two or three hosts: Linux network namespaces ``brdnode0..2`` (10.76.0.11-13 on one bridge,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``gpu-ps-01``/``02``/``03``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-br-d``
(``python -m venv --system-site-packages`` over torch 2.13.0+cpu, Python 3.11.7, plus a ``torchrun`` entry script
for the venv's python). Ports 29760-29769 (reused: every run gets fresh namespaces).

    python3 corpus/generators/wavebr_d/generate.py --list
    python3 corpus/generators/wavebr_d/generate.py --scenario NAME
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402


def rank_of(p) -> int | None:
    """A worker's global rank (its RANK); a node's torchrun agent is 100 + its node rank (to kill a whole node)."""
    r = p.environ().get("RANK")
    if r and r.isdigit():
        return int(r)
    argv = p.cmdline()
    if not argv or "python" not in Path(argv[0]).name or not any(a.endswith("/torchrun") for a in argv[:2]):
        return None
    m = re.search(r"--node-rank (\d)", " ".join(argv))
    return 100 + int(m.group(1)) if m else None


WAVE = Wave(tag="wavebr-d", here=HERE, split="heldout73", ecosystem="pytorch", bin=Path("/tmp/venv-br-d/bin"),
            fragment="wave-br-runs-d.csv", project=HERE / "project", rank_of=rank_of)
NETNS = f"{HERE.parent / 'netns_hosts.sh'} brd 10.76.0 gpu-ps-01,gpu-ps-02,gpu-ps-03"
IPS = ("10.76.0.11", "10.76.0.12", "10.76.0.13")
HOSTS = ("gpu-ps-01", "gpu-ps-02", "gpu-ps-03")
IFS = "GLOO_SOCKET_IFNAME=eth0 TP_SOCKET_IFNAME=eth0"


def prep(n: int = 2, fault: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_data.py {fault}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, bin: str) -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env {env} nice -n 5 {bin}/torchrun --nnodes {n} "
             f"--nproc-per-node {procs} --node-rank {i} --master-addr {master} --master-port {port} {rdzv}"
             f"ctr_ps.py {args}")
    return f"ip netns exec brdnode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, rdzv: str | dict = "", procs: int = 2, node_args: dict | None = None,
        bin: str = "{bin}") -> str:
    env, master, node_args = env or {}, master or {}, node_args or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, node_args.get(i, args), env.get(i, IFS), master.get(i, IPS[0]), procs,
                       rdzv.get(i, "") if isinstance(rdzv, dict) else rdzv, bin),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {ip}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training complete[\s\S]*job exited with 0"
LONG = "--max-steps 4000"
PD15 = "/tmp/venv-br-d-pd15/bin"  # the same venv plus pandas 1.5.3 (built against numpy 1.x) and pytz
AT100 = r"saved checkpoint checkpoints/step-100"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29760), DONE, prep=prep(), timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(29761, n=3, procs=1), DONE, prep=prep(3), timeout=300),
    Scenario("healthy-resume", "no_failure", job(29762, "--max-steps 400 --resume"), r"resumed[\s\S]*" + DONE,
             prep=prep() + f" && ({job(29763, '--max-steps 200')}) > /dev/null 2>&1", timeout=300),
    Scenario("healthy-late-node", "no_failure", job(29764, late=25), DONE, prep=prep(), timeout=300),
    Scenario("healthy-warnings", "no_failure", job(29765, "--max-steps 300", env={0: IFS, 1: "GLOO_SOCKET_IFNAME=eth0"}),
             DONE, prep=prep(fault="emptybags"), timeout=300),
    Scenario("bad-item-id", "worker_exception", job(29766, LONG), r"exited with", prep=prep(fault="badid"),
             timeout=240, hang_ok=True),
    Scenario("trainer-sigkill", "host_oom_killed", job(29767, LONG), r"exited with", prep=prep(),
             trigger=((AT100, "rank3:KILL"),), timeout=240, hang_ok=True),
    Scenario("ps-cgroup-oom", "host_oom_killed", job(29764, LONG + " --user-rows 8000000"), r"exited with",
             prep=prep(), memory=3_000_000_000, timeout=240, hang_ok=True),
    Scenario("transform-segv", "native_crash", job(29768, LONG), r"exited with", prep=prep(fault="segv"),
             timeout=240, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29769, LONG + " --optim sgd --lr 2000"), r"exited with",
             prep=prep(), timeout=240, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29760, LONG), r"exited with", prep=prep(),
             tmpfs=(("checkpoints", "2m"),), timeout=240, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29761, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec brdnode0 {{py}} -m http.server --bind {IPS[0]} 29761", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29762, LONG, only=(0,), rdzv=C10D.format(ip=IPS[0], port=29762)),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout",
             job(29763, LONG, master={1: "10.76.0.99"},
                 rdzv={0: C10D.format(ip=IPS[0], port=29763), 1: C10D.format(ip="10.76.0.99", port=29763)}),
             r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("trainer-stopped", "silent_hang", job(29764, LONG), AT100, prep=prep(),
             trigger=((AT100, "rank2:STOP"), (110, "scheduler:15")), timeout=400, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29765, LONG), r"exited with|step-100", prep=prep(),
             trigger=((AT100, "scheduler:15"),), timeout=240, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29766, LONG), r"exited with|step-100", prep=prep(),
             trigger=((AT100, "runner:HUP"),), timeout=240, hang_ok=True),
    Scenario("metrics-drift", "collective_mismatch",
             job(29767, LONG, node_args={1: LONG + " --eval-metrics logloss,acc,calibration"}), r"exited with", prep=prep(),
             timeout=240, hang_ok=True),
    Scenario("node1-sigkill", "host_oom_killed", job(29768, LONG), r"exited with", prep=prep(),
             trigger=((AT100, "rank101:KILL"), (AT100, "rank2:KILL"), (AT100, "rank3:KILL")), timeout=240,
             hang_ok=True),
    Scenario("pandas-numpy-abi", "library_version_mismatch", job(29760, LONG, bin=PD15), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-ifname", "nccl_network_config", job(29769, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0 TP_SOCKET_IFNAME=eth0"}),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
