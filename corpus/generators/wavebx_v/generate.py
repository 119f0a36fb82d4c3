"""Generate wave BX (v)'s real runs (sealed batch ``heldout79``, ecosystem ``mosaicml-streaming``): the team's sensor
classifier (``project/train.py``: a 32-64-4 MLP, plain DistributedDataParallel over gloo on CPU) reading a small MDS
dataset (``project/make_data.py``: 8000 samples, 48 shards of ~24 KB with sha1/xxh64 hashes, written with
``streaming.MDSWriter`` into the job's ``remote/sensors``) through MosaicML Streaming 0.13.0's ``StreamingDataset``
(shuffle, a per-node local cache ``cache/<hostname>``) and ``StreamingDataLoader`` (2 workers per rank), saving the
model, optimizer and the loader's ``state_dict()`` every 50 steps for mid-epoch resumption. Launched with
``python -m torch.distributed.run --nnodes N --nproc-per-node 2`` on two or three hosts: network namespaces
``bxvnode0..2`` (10.96.0.11-13, bridge ``brbxv``, ``../netns_hosts.sh``), each node in its own UTS namespace
(hostname ``mds-node-a``/``b``/``c``) and its own mount namespace with a private /dev/shm (as separate hosts have).

Uses the shared harness (``../harness.py``). Needs root and the venv ``/tmp/venv-bx-v`` (see README.md); the
version-mismatch run also needs ``pip install --no-deps --no-binary :all: --target /tmp/bxv-pydeps xxhash==1.4.4``.
Ports 29970-29979.

    python3 corpus/generators/wavebx_v/generate.py --list
    python3 corpus/generators/wavebx_v/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebx-v", here=HERE, split="heldout79", ecosystem="mosaicml-streaming",
            fragment="wave-bx-runs-v.csv", bin=Path("/tmp/venv-bx-v/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bxv 10.96.0 mds-node-a,mds-node-b,mds-node-c"
IPS = ("10.96.0.11", "10.96.0.12", "10.96.0.13")
HOSTS = ("mds-node-a", "mds-node-b", "mds-node-c")
TRAIN = "train.py --step-sleep 0.05 "

# the team's optional per-step hook (train_hooks.py, called by train.py after every optimizer step); written by prep
HOOKS = {
    "grow": '''
# keep every batch's features for a later drift report; on rank 3 this also keeps a 16 MB scratch buffer per step
kept = []
def on_step(rank, step, x, y, loss, model):
    if rank == 3 and step >= 150:
        buf = bytearray(16 << 20)
        buf[::4096] = b"x" * len(buf[::4096])
        kept.append(buf)
''',
    "segv": '''
import ctypes
# feature-stats fast path through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, step, x, y, loss, model):
    if rank == 2 and step == 150:
        ctypes.string_at(0)
''',
    "shape": '''
import torch
import torch.distributed as dist
# every 40 steps sum a per-rank label histogram across ranks; rank 3 counts one extra "unknown" class
def on_step(rank, step, x, y, loss, model):
    if step % 40 == 0 and step >= 120:
        n = 5 if rank == 3 else 4
        hist = torch.bincount(y, minlength=n)[:n].float()
        dist.all_reduce(hist)
''',
    "slow": '''
import time
import torch
import torch.distributed as dist
# every 40 steps sum the loss across ranks for the dashboard; rank 1 first flushes a (slow) metrics file
def on_step(rank, step, x, y, loss, model):
    if step % 40 == 0 and step >= 120:
        if rank == 1:
            time.sleep(90)
        t = loss.detach().reshape(1)
        dist.all_reduce(t)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "", data: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_data.py {data}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    return (f"ip netns exec bxvnode{i} unshare --uts --mount bash -c 'mount -t tmpfs -o size={shm} tmpfs /dev/shm && "
            f"hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'")


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", shm: dict | None = None) -> str:
    env, master, shm = env or {}, master or {}, shm or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), rdzv,
                       shm.get(i, "512m")), n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training finished[\s\S]*job exited with 0"
AT = r"step 150: loss"
EXITED = r"job exited with [1-9]"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29970), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29971, n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure", job(29972, "--resume"), r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29973, '--max-steps 180')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29974, late=20, rdzv=C10D), DONE, prep=prep(), timeout=150),
    Scenario("bad-unit-sample", "worker_exception", job(29975), r"KeyError[\s\S]*" + EXITED,
             prep=prep(data="--bad-units 3"), timeout=150, hang_ok=True),
    Scenario("cache-limit-64kb", "worker_exception", job(29979, "--cache-limit 64kb"), r"Cache limit[\s\S]*" + EXITED,
             prep=prep(), timeout=90, hang_ok=True),
    Scenario("rank3-mem-growth", "host_oom_killed", job(29976, "--epochs 3"), EXITED, prep=prep(hook="grow"),
             memory=3 << 30, timeout=150, hang_ok=True),
    Scenario("rank2-segv", "native_crash", job(29977), EXITED, prep=prep(hook="segv"), timeout=150, hang_ok=True),
    Scenario("cache-tmpfs-node-b", "disk_full", job(29978), EXITED, prep=prep(),
             tmpfs=(("cache/mds-node-b", "160k"),), timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29979, "--lr 200"), r"loss is (nan|inf)[\s\S]*" + EXITED,
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(29970), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (75, "scheduler:15")), timeout=120, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29971), AT, prep=prep(), trigger=((AT, "scheduler:15"),), timeout=150,
             hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29972), AT, prep=prep(), trigger=((AT, "runner:HUP"),),
             timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29973, only=(0,), rdzv=C10D), EXITED, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(29976, master={1: "10.96.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29974), r"exited with", prep=prep(),
             stale=f"ip netns exec bxvnode0 {{py}} -m http.server --bind {IPS[0]} 29974", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29975, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29976), r"exited with", prep=prep(hook="shape"),
             timeout=120, hang_ok=True),
    Scenario("metrics-sleep-rank1", "collective_timeout", job(29977, "--pg-timeout 20"), r"exited with",
             prep=prep(hook="slow"), timeout=150, hang_ok=True),
    Scenario("resume-3nodes-bs5", "batch_size_mismatch", job(29978, "--resume --batch-size 5", n=3),
             r"global batch size[\s\S]*" + EXITED,
             prep=prep(3, extra=f"({job(29979, '--max-steps 120 --batch-size 5 --num-canonical-nodes 2')}) "
                                f"> /dev/null 2>&1"), timeout=120, hang_ok=True),
    Scenario("old-xxhash-node-b", "library_version_mismatch",
             job(29971, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bxv-pydeps"}), r"algorithms_available",
             prep=prep(), timeout=90, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(29970, shm={1: "64k"}), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
