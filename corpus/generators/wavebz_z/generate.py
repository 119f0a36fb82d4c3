"""Generate wave BZ (z)'s real runs (sealed batch ``heldout81``, ecosystem ``hf-datasets``): "ticket-intent", a tiny
bag-of-embeddings intent classifier (``project/train.py``, the team's own script) whose data path is Hugging Face
``datasets`` 5.2.0: a generated local corpus of 4800 support tickets in 8 JSON Lines shards (plus a Parquet copy,
``project/make_data.py``), loaded on every rank with ``load_dataset("json"|"parquet", data_files=..., features=...,
cache_dir="hf-cache"[, streaming=True])``, split with ``datasets.distributed.split_dataset_by_node``, tokenised with
``.map`` (hand-made word vocabulary; ``num_proc`` on some runs), ``.with_format("torch")``, then a DataLoader
(workers) and plain DistributedDataParallel (gloo, CPU) with a checkpoint per epoch. Launched with multi-node
``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.105.0.11`` on two or
three hosts: Linux network namespaces ``bzznode0..2`` (10.105.0.11-13 on bridge ``brbzz``, ``../netns_hosts.sh``),
each node in its own UTS namespace with hostname ``ds-node-a``/``b``/``c``. Every node starts from one job shell in
the background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bz-z``
(see README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bz-z-pydeps
pyarrow==12.0.1``. Ports 30060-30069.

    python3 corpus/generators/wavebz_z/generate.py --list
    python3 corpus/generators/wavebz_z/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebz-z", here=HERE, split="heldout81", ecosystem="hf-datasets", fragment="wave-bz-runs-z.csv",
            bin=Path("/tmp/venv-bz-z/bin"), project=HERE / "project",
            extra_env={"HF_DATASETS_OFFLINE": "1", "HF_HUB_OFFLINE": "1"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bzz 10.105.0 ds-node-a,ds-node-b,ds-node-c"
IPS = ("10.105.0.11", "10.105.0.12", "10.105.0.13")
HOSTS = ("ds-node-a", "ds-node-b", "ds-node-c")
TRAIN = "train.py "

# the team's optional hook module (data_hooks.py, imported by train.py when present); written by prep
HOOKS = {
    "segv": '''
import ctypes
# fast whitespace tokeniser through a C helper; on rank 2 it is handed a NULL buffer for one record
def on_example(rank, ex):
    if rank == 2 and ex["id"] % 600 == 300:
        ctypes.string_at(0)
''',
    "leak": '''
# per-example debug snapshot kept "for the error report"; rank 3 runs with DEBUG_SNAPSHOTS on
_SNAPSHOTS = []
def on_example(rank, ex):
    if rank == 3:
        _SNAPSHOTS.append(ex["text"].encode() * 40000)
''',
    "slowfetch": '''
import time
# records whose id ends in 300 are re-fetched from the "enrichment" service; on rank 1 that call stalls
def on_example(rank, ex):
    if rank == 1 and ex["id"] % 600 == 300:
        time.sleep(120)
''',
    "tier": '''
# route priority tickets: the tier column only exists in the export the node-b team was given
TIER_BOOST = {"gold": 2, "silver": 1}
def on_example(rank, ex):
    if rank >= 2:
        ex["boost"] = TIER_BOOST.get(ex["customer_tier"], 0)
''',
    "labelhist": '''
import torch
import torch.distributed as dist
# class-balance audit: sum every rank's label histogram (bincount without minlength)
def on_dataset(rank, ds):
    hist = torch.bincount(ds["label"][:]).float()
    dist.all_reduce(hist)
    if rank == 0:
        print(f"label histogram over all ranks: {hist.tolist()}", flush=True)
''',
}


def prep(n: int = 2, data: str = "", hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_data.py {data}"
    if hook:
        s += f" && cat > data_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, pre: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    if pre:
        return (f"ip netns exec bzznode{i} unshare --uts --mount bash -c '{pre} && hostname {HOSTS[i]} && "
                f"cd {{job}} && exec {cmd}'")
    return f"ip netns exec bzznode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, pre: dict | None = None) -> str:
    env, master, pre = env or {}, master or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv,
                       pre.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training finished[\s\S]*job exited with 0"
LONG = "--epochs 60 --log-every 25"
AT = r"epoch 3 done"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30060, "--epochs 4 --num-proc 2 --log-every 25"), DONE, prep=prep()),
    Scenario("healthy-3nodes", "no_failure",
             job(30061, "--epochs 4 --streaming --format parquet --data data/tickets-parquet --log-every 25", n=3),
             DONE, prep=prep(3)),
    Scenario("healthy-resume", "no_failure", job(30062, "--epochs 6 --resume --log-every 25"),
             r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30063, '--epochs 3 --log-every 25')}) > /dev/null 2>&1")),
    Scenario("healthy-late-node", "no_failure", job(30064, "--epochs 4 --streaming --log-every 25", late=20,
                                                     rdzv=C10D), DONE, prep=prep()),
    Scenario("bad-label-row", "worker_exception", job(30065, LONG + " --streaming"), r"exited with",
             prep=prep(data="--bad-label-at 4400"), hang_ok=True),
    Scenario("map-leak-rank3", "host_oom_killed", job(30066, LONG), r"exited with", prep=prep(hook="leak"),
             memory=2_500_000_000, hang_ok=True),
    Scenario("tokenizer-segv", "native_crash", job(30067, LONG + " --streaming"), r"exited with",
             prep=prep(hook="segv"), hang_ok=True),
    Scenario("cache-tmpfs", "disk_full", job(30068, LONG + " --seq-len 128"), r"exited with", prep=prep(),
             tmpfs=(("hf-cache", "2m"),), hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30069, LONG + " --lr 1e6"), r"exited with", prep=prep(),
             hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30060, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (60, "scheduler:15")), timeout=80, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30061, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30062, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(30063, LONG, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30064, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bzznode0 {{py}} -m http.server --bind {IPS[0]} 30064", stale_ready=r"Serving HTTP",
             timeout=75, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(30065, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), hang_ok=True),
    Scenario("labelhist-rank3", "collective_mismatch",
             job(30066, LONG + " --pg-timeout 30", env={i: "GLOO_SOCKET_IFNAME=eth0 TORCH_DISTRIBUTED_DEBUG=DETAIL"
                                                        for i in (0, 1)}), r"exited with",
             prep=prep(data="--sorted", hook="labelhist"), hang_ok=True),
    Scenario("slow-fetch-rank1", "collective_timeout", job(30067, LONG + " --streaming --pg-timeout 20"),
             r"exited with", prep=prep(hook="slowfetch"), hang_ok=True),
    Scenario("old-pyarrow-node1", "library_version_mismatch",
             job(30068, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bz-z-pydeps"}), r"exited with",
             prep=prep(), timeout=75, hang_ok=True),
    Scenario("tiny-shm-node1", "shm_exhausted", job(30069, LONG + " --workers 2 --batch-size 64 --seq-len 128",
                                                    pre={1: "mount -t tmpfs -o size=40k tmpfs /dev/shm"}),
             r"exited with", prep=prep(), hang_ok=True),
    Scenario("tier-keyerror", "worker_exception", job(30061, LONG + " --num-proc 2"), r"KeyError[\s\S]*exited with",
             prep=prep(hook="tier"), hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(30060, LONG, master={1: "10.105.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
