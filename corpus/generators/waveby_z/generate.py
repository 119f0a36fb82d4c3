"""Generate wave BY (z)'s real runs (sealed batch ``heldout80``, ecosystem ``lhotse``): a small tone-classification
acoustic model (``project/train.py``: 2 conv layers + GRU, 40 fbank bins, 8 classes, 58k parameters) trained on a
synthetic Lhotse corpus (``project/prepare.py``: 96 sine+noise utterances of 0.6-2.4 s written as WAV/FLAC with
soundfile, ``RecordingSet``/``SupervisionSet``/``CutSet`` manifests in ``data/``) with Lhotse's
``DynamicBucketingSampler`` (max_duration 6 s, 4 buckets, rank/world size from torch.distributed), on-the-fly
``Fbank`` features (``OnTheFlyFeatures``) in one DataLoader worker per rank, plain gloo DDP, and rank 0 saving
model + Adam + ``sampler.state_dict()`` every 40 steps (``exp/checkpoint-N.pt`` + ``exp/last.pt``; ``--resume``
restores them). Launched with ``python -m torch.distributed.run --nnodes N --nproc-per-node 2`` on two or three
hosts: network namespaces ``byznode0..2`` (10.101.0.11-13 on bridge ``brbyz``, ``../netns_hosts.sh``), each node in its
own UTS namespace with hostname ``asr-node-a``/``b``/``c``; every node starts from one job shell in the background and
their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-by-z`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/by-z-pydeps lhotse==1.26.0
lilcom``.
Ports 30020-30029.

    python3 corpus/generators/waveby_z/generate.py --list
    python3 corpus/generators/waveby_z/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="waveby-z", here=HERE, split="heldout80", ecosystem="lhotse", fragment="wave-by-runs-z.csv",
            bin=Path("/tmp/venv-by-z/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} byz 10.101.0 asr-node-a,asr-node-b,asr-node-c"
IPS = ("10.101.0.11", "10.101.0.12", "10.101.0.13")
HOSTS = ("asr-node-a", "asr-node-b", "asr-node-c")

# the team's optional per-step hook (train_hooks.py, called by train.py after every optimizer step); written by prep
HOOKS = {
    "segv": '''
import ctypes
# per-batch feature stats through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, step, batch, loss):
    if rank == 2 and step == 60:
        ctypes.string_at(0)
''',
    "hog": '''
# keep every batch's features for a later "hard example" pass -- rank 3 also keeps a float64 upsampled copy
kept = []
def on_step(rank, step, batch, loss):
    if rank == 3 and step >= 30:
        kept.append(bytearray(96 * 1024 * 1024))
        for i in range(0, len(kept[-1]), 4096):
            kept[-1][i] = 1
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 20 steps average a per-rank class histogram across ranks; rank 3 builds it with one extra bucket
def on_step(rank, step, batch, loss):
    if step % 20 == 0 and step >= 40:
        nb = 9 if rank == 3 else 8
        hist = torch.bincount(batch["cls"], minlength=nb)[:nb].float()
        dist.all_reduce(hist)
''',
    "slow1": '''
import time
# rank 1 copies the batch's audio to a slow network share at step 40 (blocks 90 s)
def on_step(rank, step, batch, loss):
    if rank == 1 and step == 40:
        time.sleep(90)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} prepare.py"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"train.py {args}")
    mnt = f"mount -t tmpfs -o size={shm} tmpfs /dev/shm && " if shm else ""
    return (f"ip netns exec byznode{i} unshare --uts{' --mount' if shm else ''} bash -c "
            f"'hostname {HOSTS[i]} && {mnt}cd {{job}} && exec {cmd}'")


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", shm: dict | None = None) -> str:
    env, master, shm = env or {}, master or {}, shm or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), rdzv,
                       shm.get(i, "")), n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training finished[\s\S]*job exited with 0"
AT = r"step 60: loss"
TRUNC = ("{py} -c \"import soundfile as sf; x, sr = sf.read('data/audio/tone037.flac'); "
         "sf.write('data/audio/tone037.flac', x[: len(x) // 3], sr)\"")
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30020, rdzv=C10D), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(30021, "--epochs 45", n=3, rdzv=C10D), DONE, prep=prep(3),
             timeout=150),
    Scenario("healthy-resume", "no_failure", job(30022, "--resume", rdzv=C10D), r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30023, '--epochs 12', rdzv=C10D)}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(30024, late=20, rdzv=C10D), DONE, prep=prep(), timeout=150),
    Scenario("truncated-flac", "worker_exception", job(30025, rdzv=C10D), r"exited with", prep=prep(extra=TRUNC),
             timeout=120, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(30026, rdzv=C10D), r"exited with", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("rank3-hoards-features", "host_oom_killed", job(30027, rdzv=C10D), r"exited with",
             prep=prep(hook="hog"), memory=3 * 1024**3, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30028, rdzv=C10D), r"exited with", prep=prep(),
             tmpfs=(("exp", "2m"),), timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30029, "--lr 1e30", rdzv=C10D), r"loss is (nan|inf)",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30020, rdzv=C10D), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (75, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30021, rdzv=C10D), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30022, rdzv=C10D), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30023, only=(0,), rdzv=C10D), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30024), r"(?i)address already in use", prep=prep(),
             stale=f"ip netns exec byznode0 {{py}} -m http.server --bind {IPS[0]} 30024", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30025, env={1: "GLOO_SOCKET_IFNAME=ib0"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(30026, rdzv=C10D), r"exited with",
             prep=prep(hook="shape3"), timeout=120, hang_ok=True),
    Scenario("slow-rank1-pg-timeout", "collective_timeout", job(30027, "--pg-timeout 20", rdzv=C10D), r"exited with",
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30028, rdzv=C10D, shm={1: "64k"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("old-lhotse-node-b", "library_version_mismatch",
             job(30029, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/by-z-pydeps"}, rdzv=C10D), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("resume-on-3nodes", "worker_exception", job(30020, "--resume", n=3, rdzv=C10D), r"exited with",
             prep=prep(3, extra=f"({job(30021, '--epochs 12', rdzv=C10D)}) > /dev/null 2>&1"), timeout=120,
             hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(30022, master={1: "10.101.0.99"}, rdzv=C10D), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
