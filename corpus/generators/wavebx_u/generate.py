"""Generate wave BX (u)'s real runs (sealed batch ``heldout79``, ecosystem ``opacus``): "ward-risk-dp", a small CNN
(two convs + GroupNorm + two linears, 38.3k parameters) on synthetic 16x16 single-channel "ward sensor maps" (10
classes, 4096 samples) made differentially private with Opacus 1.6.0 (``PrivacyEngine.make_private`` /
``make_private_with_epsilon`` over ``DifferentiallyPrivateDistributedDataParallel``, Poisson sampling,
``BatchMemoryManager``, RDP accountant, ``save_checkpoint``/``load_checkpoint`` every epoch), ``project/train_dp.py``,
under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --rdzv-backend c10d`` (gloo, CPU) on
two or three hosts: Linux network namespaces ``bxunode0..2`` (10.95.0.11-13 on bridge ``brbxu``,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``dp-node-a``/``b``/``c``. Every node starts
from one job shell in the background; their output goes to one console (the job.log), then the shell's ``job exited
with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bx-u``
(see README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bxu-pydeps
scipy==1.10.1``. Ports 29960-29969.

    python3 corpus/generators/wavebx_u/generate.py --list
    python3 corpus/generators/wavebx_u/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebx-u", here=HERE, split="heldout79", ecosystem="opacus", fragment="wave-bx-runs-u.csv",
            bin=Path("/tmp/venv-bx-u/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bxu 10.95.0 dp-node-a,dp-node-b,dp-node-c"
IPS = ("10.95.0.11", "10.95.0.12", "10.95.0.13")
HOSTS = ("dp-node-a", "dp-node-b", "dp-node-c")
TRAIN = "train_dp.py "

# the team's per-step hook (train_hooks.py, called by train_dp.py after every optimizer step); written by prep
HOOKS = {
    "keyerr": """
# per-ward audit of how many records each rank trained on; the ward table was written for the 3-rank test setup
WARD_OF_RANK = {0: "ward-north", 1: "ward-south", 2: "ward-east"}
seen = {}
def on_step(rank, epoch, step, model, optimizer, x, y, loss):
    if epoch >= 2 and step == 24:
        ward = WARD_OF_RANK[rank]
        seen[ward] = seen.get(ward, 0) + len(y)
""",
    "segv": """
import ctypes
# record-hash fast path through a C helper; on rank 2 it is handed a NULL buffer
def on_step(rank, epoch, step, model, optimizer, x, y, loss):
    if rank == 2 and epoch == 2 and step == 16:
        ctypes.string_at(0)
""",
    "gradcache": """
# debugging aid left on: rank 1 keeps every step's per-sample gradients (Opacus' p.grad_sample) for a later audit
CACHE = []
def on_step(rank, epoch, step, model, optimizer, x, y, loss):
    if rank == 1 and epoch >= 2:
        for p in model.parameters():
            gs = getattr(p, "grad_sample", None)
            CACHE.append((gs if gs is not None else p.detach()).clone().repeat(8, *([1] * (p.dim()))))
""",
    "slowrank3": """
import time
# rank 3 re-reads its shard from a slow NFS mount once per epoch (here: 45 s) inside the step loop
def on_step(rank, epoch, step, model, optimizer, x, y, loss):
    if rank == 3 and epoch == 2 and step == 8:
        print(f"[rank{rank}] refreshing shard cache ...", flush=True)
        time.sleep(45)
""",
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, pre: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} {rdzv.format(master=master, port=port)}{TRAIN}{args}")
    return (f"ip netns exec bxunode{i} unshare --uts {pre}bash -c '{{pre}}hostname {HOSTS[i]} && cd {{job}} && "
            f"exec {cmd}'")


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, mount: dict | None = None) -> str:
    env, master, mount = env or {}, master or {}, mount or {}
    rdzv = rdzv or C10D

    def one(i: int) -> str:
        s = node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv,
                 "--mount " if i in mount else "")
        return s.replace("{pre}", mount.get(i, ""))
    return harness.multinode_job(one, n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
STATIC = "--master-addr {master} --master-port {port} "
PGT = "GLOO_SOCKET_IFNAME=eth0 PG_TIMEOUT_S=20"
SHM = "mount -t tmpfs -o size=16k tmpfs /dev/shm && "
MEMLIMIT = 2560 * 2**20
DONE = r"training finished[\s\S]*job exited with 0"
AT2 = r"epoch 2 step 8:"
AT3 = r"epoch 3 step 8:"
LONG = "--epochs 10"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29960), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29961, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(29962, "--resume ckpt/ward-risk-epoch3.pt"),
             r"resumed from[\s\S]*" + DONE, prep=prep(extra=f"({job(29963, '--epochs 3')}) > /dev/null 2>&1"),
             timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29964, late=20), DONE, prep=prep(), timeout=200),
    Scenario("healthy-target-eps", "no_failure", job(29965, "--target-epsilon 3.0 --delta 1e-5"), DONE, prep=prep(),
             timeout=150),
    Scenario("ward-keyerror", "worker_exception", job(29966), r"KeyError", prep=prep(hook="keyerr"), timeout=150,
             hang_ok=True),
    Scenario("batchnorm-model", "worker_exception", job(29967, "--norm batch"), r"BatchNorm", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank2-segv", "native_crash", job(29968), r"exited with", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("gradcache-oom", "host_oom_killed", job(29969, LONG), r"exited with", prep=prep(hook="gradcache"),
             memory=MEMLIMIT, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29960), r"exited with", prep=prep(), tmpfs=(("ckpt", "1m"),),
             timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29961, "--lr 1e15"),
             r"(nan|inf)[\s\S]*exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(29962, LONG), AT2, prep=prep(),
             trigger=((AT2, "rank1:STOP"), (60, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29963, LONG), r"exited with|" + AT3, prep=prep(),
             trigger=((AT3, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29964, LONG), r"exited with|" + AT3, prep=prep(),
             trigger=((AT3, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29965, only=(0,)), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29966, master={1: "10.95.0.99"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29967, rdzv=STATIC), r"EADDRINUSE", prep=prep(),
             stale=f"ip netns exec bxunode0 {{py}} -m http.server --bind {IPS[0]} 29967", stale_ready=r"Serving HTTP",
             timeout=60, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29968, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("hidden-drift-node-b", "collective_mismatch",
             job(29969, env={1: "GLOO_SOCKET_IFNAME=eth0 WARD_HIDDEN=96"}), r"exited with", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("slow-rank3-pg-timeout", "collective_timeout", job(29960, env={0: PGT, 1: PGT}), r"exited with",
             prep=prep(hook="slowrank3"), timeout=150, hang_ok=True),
    Scenario("old-scipy-node-b", "library_version_mismatch",
             job(29961, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bxu-pydeps"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(29962, "--workers 2", mount={1: SHM}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("eps-budget-too-low", "worker_exception", job(29963, "--target-epsilon 0.001"),
             r"privacy budget is too low", prep=prep(), timeout=120, hang_ok=True),
    Scenario("resume-wide-ckpt", "worker_exception", job(29964, "--resume ckpt/ward-risk-epoch2.pt"),
             r"size mismatch", prep=prep(extra=f"({job(29965, '--epochs 2 --hidden 96')}) > /dev/null 2>&1"),
             timeout=120, hang_ok=True),
    Scenario("small-shm-node-b", "shm_exhausted", job(29966, "--workers 2", mount={1: SHM.replace("16k", "128k")}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
