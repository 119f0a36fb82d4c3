"""Generate wave BY (x)'s real runs (sealed batch ``heldout80``, ecosystem ``torchmetrics``): "ticketsort", a 4-class
support-ticket router (an MLP over 48 synthetic features, 23k parameters, ``project/train.py``) trained with plain
``DistributedDataParallel`` (gloo, CPU) whose evaluation is TorchMetrics 1.9.0: a ``MetricCollection`` of
``MulticlassAccuracy``/``MulticlassF1Score``/``MulticlassAUROC`` plus two custom ``Metric``s (``MeanEvalLoss`` with
``add_state(..., dist_reduce_fx="sum")``, ``ConfidenceSpread`` with a list state and ``dist_reduce_fx="cat"``) that
synchronise across ranks at ``compute()``; the training loss goes through ``MeanMetric(nan_strategy="error")`` and a
running train ``MulticlassAUROC`` (persistent state) is saved in every checkpoint and restored on ``--resume``.
Launched with multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --rdzv-backend c10d
--rdzv-endpoint 10.99.0.11:PORT`` on two or three hosts: Linux network namespaces ``byxnode0..2`` (10.99.0.11-13 on
bridge ``brbyx``, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``tm-node-a``/``b``/``c``.
Every node starts from one job shell in the background; their output goes to one console (the job.log), then the
shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-by-x``
(see README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/by-x-pydeps-tm09
torchmetrics==0.9.3``. Ports 30000-30009.

    python3 corpus/generators/waveby_x/generate.py --list
    python3 corpus/generators/waveby_x/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="waveby-x", here=HERE, split="heldout80", ecosystem="torchmetrics", fragment="wave-by-runs-x.csv",
            bin=Path("/tmp/venv-by-x/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} byx 10.99.0 tm-node-a,tm-node-b,tm-node-c"
IPS = ("10.99.0.11", "10.99.0.12", "10.99.0.13")
HOSTS = ("tm-node-a", "tm-node-b", "tm-node-c")

# the team's optional hook file (train_hooks.py, loaded by train.py); written by prep
HOOKS = {
    "onebased": '''
# shard 3's export writes 1-based ticket categories (1..4); "normalised" here only from epoch 2 on, by mistake
def on_eval_batch(rank, epoch, x, y, logits):
    if rank == 3 and epoch >= 2:
        y = y + 1
    return x, y, logits
''',
    "segv": '''
import ctypes
# fast path for per-step token stats through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, epoch, step, x, y, loss, auroc):
    if rank == 2 and epoch == 2 and step == 20:
        ctypes.string_at(0)
''',
    "localauroc": '''
# node-local debug print of this shard's AUROC, added on tm-node-b's rank 3 only
def on_eval(rank, epoch, metrics):
    if rank == 3 and epoch >= 2:
        print(f"[rank 3] shard auroc before sync: {metrics['val_auroc'].compute().item():.4f}", flush=True)
''',
    "slowdump": '''
import time
# rank 1 dumps its per-sample predictions to the team share before the metric sync; the share is slow today
def on_eval(rank, epoch, metrics):
    if rank == 1 and epoch == 2:
        print("[rank 1] dumping eval predictions to /mnt/team-share ...", flush=True)
        time.sleep(60)
''',
    "hoard": '''
import torch
from torchmetrics import CatMetric
# rank 3 keeps every training batch's expanded features for a later retrieval metric (a list state, never reset)
FEATS = CatMetric()
def on_step(rank, epoch, step, x, y, loss, auroc):
    if rank == 3:
        FEATS.update(x.repeat(1, 2048))
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"{rdzv.format(master=master, port=port, i=i)}train.py {args}")
    mnt = f"mount -t tmpfs -o size={shm} tmpfs /dev/shm && " if shm else ""
    return (f"ip netns exec byxnode{i} unshare --uts{' --mount' if shm else ''} bash -c "
            f"'hostname {HOSTS[i]} && {mnt}cd {{job}} && exec {cmd}'")


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-id ticketsort --rdzv-conf join_timeout=40 "
STATIC = "--node-rank {i} --master-addr {master} --master-port {port} "


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = C10D, shm: dict | None = None) -> str:
    env, master, shm = env or {}, master or {}, shm or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), rdzv,
                       shm.get(i, "")), n, late, only)


DONE = r"training finished[\s\S]*job exited with 0"
AT = r"epoch 3 step 32/"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30000), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(30001, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(30002, "--resume --epochs 8"), r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30003, '--epochs 4')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(30004, late=20), DONE, prep=prep(), timeout=200),
    Scenario("onebased-labels-rank3", "worker_exception", job(30005), r"shape '\[4, 4\]' is invalid",
             prep=prep(hook="onebased"), timeout=150, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(30006), r"\(SIGSEGV\)", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("rank3-hoards-features", "host_oom_killed", job(30007), r"\(SIGKILL\)", prep=prep(hook="hoard"),
             memory=3 * 1024**3, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30008), r"unexpected pos", prep=prep(), tmpfs=(("checkpoints", "1m"),),
             timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30009, "--lr 40 --log-every 1"), r"Encountered `nan` values in tensor",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30000), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (75, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30001), AT + r"[\s\S]*closing signal SIGTERM", prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30002), AT + r"[\s\S]*closing signal SIGHUP", prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30003, only=(0,)), r"RendezvousTimeoutError", prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30004, rdzv=STATIC), r"EADDRINUSE", prep=prep(),
             stale=f"ip netns exec byxnode0 {{py}} -m http.server --bind {IPS[0]} 30004", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30005, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"Unable to find address for: ib0",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("local-auroc-rank3", "collective_mismatch", job(30006), r"collective mismatch", prep=prep(hook="localauroc"),
             timeout=150, hang_ok=True),
    Scenario("slow-dump-pg-timeout", "collective_timeout", job(30007, "--pg-timeout 20"),
             r"Timed out waiting 20000ms",
             prep=prep(hook="slowdump"), timeout=150, hang_ok=True),
    Scenario("old-torchmetrics-node-b", "library_version_mismatch",
             job(30008, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/by-x-pydeps-tm09"}),
             r"No module named 'pkg_resources'",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30009, "--workers 2", shm={1: "64k"}),
             r"unable to allocate shared memory",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(30000, master={1: "10.99.0.99"}),
             r"RendezvousConnectionError|RendezvousTimeoutError",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("resume-on-3nodes", "no_failure", job(30001, "--resume --epochs 8", n=3), r"resumed from[\s\S]*" + DONE,
             prep=prep(3, extra=f"({job(30002, '--epochs 4')}) > /dev/null 2>&1"), timeout=200),
    Scenario("val-top-k-5", "worker_exception", job(30003, "--val-top-k 5"), r"top_k",
             prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
