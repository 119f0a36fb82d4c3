"""Generate wave BS (d)'s real runs (sealed batch ``heldout74``, ecosystem ``torchft``): fault-tolerant data-parallel
training with torchft 0.2.0 (``project/train_ft.py``: ``torchft.Manager`` over ``ProcessGroupGloo``, torchft's
``DistributedDataParallel`` and ``OptimizerWrapper``, ``torchft.data.DistributedSampler``) of a small vibration-spectrum
classifier ("bearing-fault-ft"), one replica group per host, each launched by its own ``torchrun`` with its own
``REPLICA_GROUP_ID``; the groups meet at a ``torchft_lighthouse`` started on the first host. Hosts are Linux network
namespaces ``bsdnode0..2`` (10.78.0.11-13 on one bridge, ``../netns_hosts.sh``), each process in its own UTS
namespace with hostname ``ft-node-01``/``02``/``03``. The lighthouse and every node start from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bs-d``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install torchft==0.2.0``). Ports 29780-29789.

    python3 corpus/generators/wavebs_d/generate.py --list
    python3 corpus/generators/wavebs_d/generate.py --scenario NAME
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402


def rank_of(p: psutil.Process) -> int | None:
    """Global rank of a torchft worker: REPLICA_GROUP_ID * group world size + RANK (every group has its own RANK 0);
    100 + REPLICA_GROUP_ID for a group's torchrun agent (so ``rank101:KILL`` then ``rank1:KILL`` takes a host down)."""
    with contextlib.suppress(psutil.Error):
        e = p.environ()
        if "RANK" in e and "REPLICA_GROUP_ID" in e:
            return int(e["REPLICA_GROUP_ID"]) * int(e.get("WORLD_SIZE", 1)) + int(e["RANK"])
        if "REPLICA_GROUP_ID" in e and any("torchrun" in a for a in p.cmdline()):
            return 100 + int(e["REPLICA_GROUP_ID"])  # the group's torchrun agent: rank10N
    return None


def is_runner(p: psutil.Process) -> bool:
    with contextlib.suppress(psutil.Error):
        return any("torchrun" in a for a in p.cmdline())
    return False


WAVE = Wave(tag="wavebs-d", here=HERE, split="heldout74", ecosystem="torchft", bin=Path("/tmp/venv-bs-d/bin"),
            fragment="wave-bs-runs-d.csv", project=HERE / "project", rank_of=rank_of, is_runner=is_runner)
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bsd 10.78.0 ft-node-01,ft-node-02,ft-node-03"
IPS = ("10.78.0.11", "10.78.0.12", "10.78.0.13")
HOSTS = ("ft-node-01", "ft-node-02", "ft-node-03")
LH_PORT = 29780


def prep(n: int = 2, extra: str = "") -> str:
    return f"{NETNS} up {n}" + (f" && {extra}" if extra else "")


def lighthouse(min_replicas: int, join_ms: int = 10000) -> str:
    inner = (f"hostname {HOSTS[0]} && cd {{job}} && exec env RUST_BACKTRACE=0 nice -n 5 {{bin}}/torchft_lighthouse "
             f"--min_replicas {min_replicas} --join_timeout_ms {join_ms} --bind [::]:{LH_PORT}")
    return f"ip netns exec bsdnode0 unshare --uts bash -c '{inner}'"


def node(i: int, n: int, args: str, env: str, lh: str, nproc: int, trun: str = "") -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env REPLICA_GROUP_ID={i} NUM_REPLICA_GROUPS={n} "
             f"TORCHFT_LIGHTHOUSE={lh} RUST_LOG=warn {env} nice -n 5 {{bin}}/torchrun --nnodes 1 "
             f"--nproc-per-node {nproc} {trun}"
             f"--master-addr {IPS[i]} --master-port {29781 + i} train_ft.py {args}")
    return f"ip netns exec bsdnode{i} unshare --uts bash -c '{inner}'"


def job(args: str = "", n: int = 2, minr: int = 1, env: dict | None = None, lh: dict | None = None,
        late: float = 3, only: tuple | None = None, nproc: int = 1, join_ms: int = 10000,
        lh_min: int | None = None, trun: str = "") -> str:
    env, lh = env or {}, lh or {}
    body = harness.multinode_job(
        lambda i: node(i, n, f"--min-replicas {minr} {args}", env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       lh.get(i, f"http://{IPS[0]}:{LH_PORT}"), nproc, trun), n, late, only)
    body = body.replace("; (exit $((", "; kill $lh 2>/dev/null; wait $lh 2>/dev/null; (exit $((", 1)
    return f"{lighthouse(lh_min or minr, join_ms)} & lh=$!; sleep 2; {body}"


DONE = r"finished \d+ steps[\s\S]*job exited with 0"
FIN = r"finished 200 steps"
AT = r"step 80 \|"
END = r"job exited with"
RESUME = prep(extra=job("--steps 100"))
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(), DONE, prep=prep(), timeout=300),
    Scenario("healthy-3nodes", "no_failure", job(n=3), DONE, prep=prep(3), timeout=300),
    Scenario("healthy-resumed", "no_failure", job("--resume --steps 200"), r"resumed from[\s\S]*job exited with 0",
             prep=RESUME, timeout=300),
    Scenario("healthy-warnings", "no_failure", job("--warn", env={1: "GLOO_SOCKET_IFNAME=eth0 TORCH_CPP_LOG_LEVEL=INFO"}),
             DONE, prep=prep(), timeout=300),
    Scenario("healthy-late-node", "no_failure", job(minr=2, late=20), DONE, prep=prep(), timeout=300),
    Scenario("replica-killed-restarted", "no_failure", job(trun="--max-restarts 2 "), FIN, prep=prep(),
             trigger=((AT, "rank1:KILL"),), timeout=300, hang_ok=True),
    Scenario("replica-killed-3nodes", "no_failure", job(n=3), FIN, prep=prep(3),
             trigger=((AT, "rank2:KILL"),), timeout=300, hang_ok=True),
    Scenario("label-keyerror", "worker_exception", job("--inject keyerror", minr=2), END, prep=prep(), timeout=300,
             hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(minr=2), END, prep=prep(), trigger=((AT, "rank1:KILL"),),
             timeout=300, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job("--inject oom", minr=2), END, prep=prep(), memory=2_000_000_000,
             timeout=300, hang_ok=True),
    Scenario("fft-segv", "native_crash", job("--inject segv", minr=2), END, prep=prep(), timeout=300, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job("--inject nan --lr 400", minr=2), END, prep=prep(), timeout=300,
             hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job("--ckpt-every 20", minr=2), END, prep=prep(),
             tmpfs=(("checkpoints", "160k"),), timeout=300, hang_ok=True),
    Scenario("lighthouse-port-taken", "port_in_use", job(minr=2), END, prep=prep(),
             stale=f"ip netns exec bsdnode0 {{py}} -m http.server --bind {IPS[0]} {LH_PORT}",
             stale_ready=r"Serving HTTP", timeout=200, hang_ok=True),
    Scenario("node2-missing", "rendezvous_timeout", job(minr=2, only=(0,)), END, prep=prep(), timeout=200,
             hang_ok=True),
    Scenario("wrong-lighthouse", "rendezvous_timeout", job(minr=2, lh={1: f"http://10.78.0.99:{LH_PORT}"}), END,
             prep=prep(), timeout=200, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(minr=2), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (150, "scheduler:15")), timeout=300, hang_ok=True),
    Scenario("preempt", "job_preempted", job(minr=2), END, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=300, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(minr=2), END, prep=prep(), trigger=((AT, "runner:HUP"),),
             timeout=300, hang_ok=True),
    Scenario("wrong-ifname", "nccl_network_config", job(minr=2, env={1: "GLOO_SOCKET_IFNAME=ib0"}), END, prep=prep(),
             timeout=200, hang_ok=True),
    Scenario("node2-vanishes", "host_oom_killed", job(minr=2), END, prep=prep(),
             trigger=((AT, "rank101:KILL"), (AT, "rank1:KILL")), timeout=300, hang_ok=True),
    Scenario("metric-shape", "collective_mismatch", job("--inject shape", minr=2), END, prep=prep(), timeout=300,
             hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
