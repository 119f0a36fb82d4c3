"""Generate wave BV (k)'s real runs (sealed batch ``heldout77``, ecosystem ``litgpt``): LitGPT 0.5.13's own
``litgpt pretrain`` (CLI, training loop, checks, checkpoint saves; Lightning Fabric 2.6.6) of a tiny LLaMA-style GPT
(``project/config/pretrain_pydocs.yaml``: 2 layers, 2 heads, n_embd 64, block 64, vocab 512) on Python's bundled
pydoc topic texts with LitGPT's ``TextFiles`` data module (``project/pydocs_data.py``) and a byte-level BPE tokenizer
built locally (``project/prepare.py``), through the team's CPU entry point ``project/pretrain_cpu.py`` (Fabric DDP
over gloo instead of the GPU-only FSDP, torch.compile off), under multi-node ``python -m torch.distributed.run
--nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.85.0.11`` on two or three hosts: network namespaces
``bvknode0..2`` (10.85.0.11-13 on bridge ``brbvk``, ``../netns_hosts.sh``), each node in its own UTS namespace with
hostname ``lit-node-a``/``b``/``c``. Every node starts from one job shell in the background; their output goes to one
console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bv-k`` (see
README.md). Ports 29860-29869.

    python3 corpus/generators/wavebv_k/generate.py --list
    python3 corpus/generators/wavebv_k/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebv-k", here=HERE, split="heldout77", ecosystem="litgpt", fragment="wave-bv-runs-k.csv",
            bin=Path("/tmp/venv-bv-k/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bvk 10.85.0 lit-node-a,lit-node-b,lit-node-c"
IPS = ("10.85.0.11", "10.85.0.12", "10.85.0.13")
HOSTS = ("lit-node-a", "lit-node-b", "lit-node-c")
PREPARED = "/tmp/bv-k-prepared"  # prepare.py's output, built once and copied into each job dir
TRAIN = "pretrain_cpu.py pretrain --config config/pretrain_pydocs.yaml "

# the team's per-batch audit hook (batch_hooks.py, called from the training DataLoader's collate function in
# pydocs_data.py); written by prep only for the runs that inject a fault through it
HOOKS = {
    "keyerr": '''
# per-source token audit; the source table was written for the 3-rank smoke test
SOURCE_OF_RANK = {0: "topics-01", 1: "topics-02", 2: "topics-03"}
audit = {}
def on_batch(rank, n, batch):
    if n >= 30 and n % 10 == 0:
        src = SOURCE_OF_RANK[rank]
        audit[src] = audit.get(src, 0) + int(batch.numel())
''',
    "segv": '''
import ctypes
# fast token-count path through a C buffer; on rank 2 it is handed a NULL pointer
def on_batch(rank, n, batch):
    if rank == 2 and n == 40:
        ctypes.string_at(0)
''',
    "grow": '''
# keeps every batch's token histogram "for the end-of-run report"; rank 3 also keeps a 64 MB scratch copy each time
kept = []
def on_batch(rank, n, batch):
    if rank == 3 and n >= 20:
        kept.append(bytearray(64 * 1024 * 1024))
        for b in kept[-1:]:
            b[::4096] = b"\\x01" * len(b[::4096])
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 10 batches from 30 on, sum a token histogram across ranks; rank 3 counts one extra bucket
def on_batch(rank, n, batch):
    if n >= 30 and n % 10 == 0:
        nb = 513 if rank == 3 else 512
        hist = torch.bincount(batch.flatten(), minlength=nb)[:nb].float()
        dist.all_reduce(hist)
''',
    "slow3": '''
import time
# rank 3 re-reads its shard from a slow share at batch 30
def on_batch(rank, n, batch):
    if rank == 3 and n == 30:
        time.sleep(75)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = (f"{NETNS} up {n} && ([ -d {PREPARED} ] || {{py}} prepare.py {PREPARED}) && "
         f"cp -r {PREPARED}/data {PREPARED}/checkpoints .")
    if hook:
        s += f" && cat > batch_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, shm: str = "") -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}--devices 2 --num_nodes {n} {args}")
    if shm:  # the node's own /dev/shm, of this size, in its own mount namespace
        return (f"ip netns exec bvknode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} shm /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec bvknode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", shm: dict | None = None) -> str:
    env, master, shm = env or {}, master or {}, shm or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), rdzv,
                       shm.get(i, "")), n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"Final evaluation \| val loss[\s\S]*job exited with 0"
AT = r"iter 40 step 40 \|"
B3 = "--train.global_batch_size 24"  # 6 ranks x micro batch 4
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29860), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(29861, B3, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(29862, "--resume true --train.max_tokens 160000"),
             r"Resuming training from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29863)}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(29864, late=20, rdzv=C10D), DONE, prep=prep(), timeout=200),
    Scenario("source-keyerror", "worker_exception", job(29865), r"KeyError", prep=prep(hook="keyerr"),
             timeout=150, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29866), r"exited with", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("rank3-memcg-oom", "host_oom_killed", job(29867), r"exited with", prep=prep(hook="grow"),
             memory=3 * 1024 ** 3, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29868), r"exited with", prep=prep(),
             tmpfs=(("out", "5m"),), timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29869, "--config config/pretrain_pydocs_hotlr.yaml"),
             r"is non-finite, so it cannot be clipped[\s\S]*exited with", timeout=200, hang_ok=True,
             prep=prep(extra="sed 's/    lr: 0.003/    lr: 1.0e+6/' config/pretrain_pydocs.yaml > "
                             "config/pretrain_pydocs_hotlr.yaml")),
    Scenario("rank-stopped", "silent_hang", job(29860), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29861), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29862), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29863, only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29864), r"exited with", prep=prep(),
             stale=f"ip netns exec bvknode0 {{py}} -m http.server --bind {IPS[0]} 29864", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29865, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29866), r"exited with", prep=prep(hook="shape3"),
             timeout=150, hang_ok=True),
    Scenario("slow-rank3-pg-timeout", "collective_timeout",
             job(29867, env={i: "GLOO_SOCKET_IFNAME=eth0 PG_TIMEOUT_SECONDS=20" for i in range(2)}),
             r"exited with", prep=prep(hook="slow3"), timeout=150, hang_ok=True),
    Scenario("global-batch-3nodes", "batch_size_mismatch", job(29868, "--train.global_batch_size 4", n=3),
             r"exited with", prep=prep(3), timeout=120, hang_ok=True),
    Scenario("old-tokenizers-node-b", "library_version_mismatch",
             job(29860, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bv-k-pydeps"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(29861, "--data.num_workers 2", shm={1: "16k"}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29869, master={1: "10.85.0.99"}, rdzv=C10D),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
