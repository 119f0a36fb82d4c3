"""Generate wave CE (x)'s real runs (sealed batch ``heldout86``, ecosystem ``pytorch-metric-learning``): a small
embedding model (MLP trunk + linear embedder) trained with pytorch-metric-learning 2.9.0's ``trainers.MetricLossOnly``
(TripletMarginLoss / ArcFaceLoss + MultiSimilarityMiner wrapped in ``DistributedLossWrapper`` /
``DistributedMinerWrapper``, MPerClassSampler, GlobalEmbeddingSpaceTester + AccuracyCalculator each epoch on rank 0)
over gloo on CPU (torch 2.13.0+cpu) on synthetic class-clustered features (``project/train_embed.py``), under
multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.115.0.11``
on two or three hosts: Linux network namespaces ``cexnode0..2`` (10.115.0.11-13 on bridge ``brcex``,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``emb-cpu-31``/``32``/``33``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-ce-x`` (see
README.md). Ports 30160-30169.

    python3 corpus/generators/wavece_x/generate.py --list
    python3 corpus/generators/wavece_x/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavece-x", here=HERE, split="heldout86", ecosystem="pytorch-metric-learning",
            fragment="wave-ce-runs-x.csv", bin=Path("/tmp/venv-ce-x/bin"), project=HERE / "project",
            extra_env={"TQDM_MININTERVAL": "5"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cex 10.115.0 emb-cpu-31,emb-cpu-32,emb-cpu-33"
IPS = ("10.115.0.11", "10.115.0.12", "10.115.0.13")
HOSTS = ("emb-cpu-31", "emb-cpu-32", "emb-cpu-33")
TRAIN = "train_embed.py "

# the team's per-iteration / per-epoch hooks (train_hooks.py, called from the trainer's end_of_iteration_hook and
# end_of_epoch_hook); written by prep
HOOKS = {
    "keyerr2": '''
# per-category recall report from epoch 2; the category table was written for the 32-class catalogue
CATEGORY = {c: f"cat-{c % 8}" for c in range(32)}
def on_epoch(rank, epoch, trainer):
    if rank == 2 and epoch >= 2:
        labels = trainer.dataset.tensors[1].tolist()
        per_cat = {}
        for y in labels:
            per_cat[CATEGORY[y]] = per_cat.get(CATEGORY[y], 0) + 1
''',
    "segv1": '''
import ctypes
# embedding-norm fast path through a C helper; on rank 1 it reads a NULL buffer
def on_iter(rank, epoch, it, trainer):
    if rank == 1 and epoch == 3 and it == 7:
        ctypes.string_at(0)
''',
    "abort2": '''
import ctypes
# the team's C hard-negative cache, flushed at the end of epoch 2; it aborts on rank 2
def on_epoch(rank, epoch, trainer):
    if rank == 2 and epoch == 2:
        ctypes.CDLL(None).abort()
''',
    "leak3": '''
import torch
# keeps the mined-pair embeddings per iteration for a later "hardness" plot; rank 3 also keeps a 64 MB scratch copy
history = []
def on_iter(rank, epoch, it, trainer):
    if rank == 3 and epoch >= 2:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 10 iterations from epoch 2 average the embedder weights across ranks (drift check); rank 3 pads one
def on_iter(rank, epoch, it, trainer):
    if epoch >= 2 and it % 10 == 0:
        flat = torch.cat([p.detach().flatten() for p in trainer.models["embedder"].parameters()])
        if rank == 3:
            flat = torch.cat([flat, torch.zeros(1)])
        dist.all_reduce(flat)
''',
    "leak0": '''
import torch
# keeps every epoch's validation embeddings (and a 512 MB float copy for a later UMAP) on rank 0
kept = []
def on_epoch(rank, epoch, trainer):
    if rank == 0:
        kept.append(torch.ones(128 * 1024 * 1024))
''',
    "sloweval0": '''
import time
# rank 0 builds the full-catalogue retrieval report at the end of epoch 2 before evaluating (45 s on this data)
def on_epoch(rank, epoch, trainer):
    if rank == 0 and epoch == 2:
        time.sleep(45)
''',
    "slow0": '''
import time
# rank 0 rebuilds the catalogue index from slow storage in epoch 3 (60 s)
def on_iter(rank, epoch, it, trainer):
    if rank == 0 and epoch == 3 and it == 4:
        time.sleep(60)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, shm: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    if shm:
        return (f"ip netns exec cexnode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec cexnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training done:[\s\S]*job exited with 0"
AT2 = r"epoch 2 iter 10/"
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30160), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes-arcface", "no_failure", job(30161, "--loss arcface --epochs 4 --global-batch 96", n=3),
             DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure", job(30162, "--resume --epochs 8 --lr 5e-4"), r"resumed[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30163, '--epochs 3')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(30164, late=20, rdzv=C10D), DONE, prep=prep(), timeout=150),
    Scenario("healthy-workers-contrastive", "no_failure", job(30165, "--loss contrastive --workers 2 --m-per-class 8"), DONE,
             prep=prep(), timeout=150),
    Scenario("category-keyerror", "worker_exception", job(30166), r"KeyError[\s\S]*" + EX, prep=prep(hook="keyerr2"),
             timeout=120, hang_ok=True),
    Scenario("rank1-segv", "native_crash", job(30167), EX, prep=prep(hook="segv1"), timeout=120, hang_ok=True),
    Scenario("rank3-leak-oom", "host_oom_killed", job(30168), EX, prep=prep(hook="leak3"), memory=3 << 30,
             timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30169), EX, prep=prep(), tmpfs=(("ckpt", "150k"),), timeout=120,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30160, "--lr 1e30"), r"not finite[\s\S]*" + EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(30161), r"epoch 3 iter 10/", prep=prep(),
             trigger=((r"epoch 3 iter 10/", "rank1:STOP"), (60, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30162), EX + "|" + AT2, prep=prep(), trigger=((AT2, "scheduler:15"),),
             timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30163), EX + "|" + AT2, prep=prep(),
             trigger=((AT2, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30164, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30165), EX, prep=prep(),
             stale=f"ip netns exec cexnode0 {{py}} -m http.server --bind {IPS[0]} 30165", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30166, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("embedder-shape-rank3", "collective_mismatch", job(30167), EX, prep=prep(hook="shape3"), timeout=100,
             hang_ok=True),
    Scenario("slow-rank0-pg20", "collective_timeout", job(30168, "--pg-timeout 20"), r"[Tt]imed? ?out[\s\S]*" + EX,
             prep=prep(hook="slow0"), timeout=120, hang_ok=True),
    Scenario("workers-tiny-shm", "shm_exhausted", job(30169, "--workers 2", shm={1: "16k"}), EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("global-batch-100", "batch_size_mismatch", job(30160, "--global-batch 100"), EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("rank2-abort-epoch2", "native_crash", job(30161), EX, prep=prep(hook="abort2"), timeout=120,
             hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30162, rdzv=C10D, master={1: "10.115.0.99"}), EX,
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("preempt-3nodes-epoch3", "job_preempted", job(30163, "--global-batch 96", n=3), EX + "|epoch 3",
             prep=prep(3),
             trigger=((r"epoch 3 iter 5/", "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("old-pml-node-b", "library_version_mismatch",
             job(30164, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/pml-old099"}), EX,
             prep=prep(extra="[ -d /tmp/pml-old099 ] || {bin}/pip install -q --no-deps --target /tmp/pml-old099 "
                       "pytorch-metric-learning==0.9.99"), timeout=100, hang_ok=True),
    Scenario("global-batch-3nodes", "batch_size_mismatch", job(30166, n=3), EX, prep=prep(3), timeout=100,
             hang_ok=True),
    Scenario("rank4-stopped-3nodes", "silent_hang", job(30167, "--global-batch 96", n=3), r"epoch 2 iter 15/",
             prep=prep(3), trigger=((r"epoch 2 iter 15/", "rank4:STOP"), (50, "scheduler:15")), timeout=120,
             hang_ok=True),
    Scenario("rank0-epoch-leak-oom", "host_oom_killed", job(30168), EX, prep=prep(hook="leak0"), memory=2 << 30,
             timeout=120, hang_ok=True),
    Scenario("hup-3nodes-epoch4", "terminal_hangup", job(30169, "--global-batch 96", n=3), EX + "|epoch 4", prep=prep(3),
             trigger=((r"epoch 4 iter 15/", "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("slow-eval-rank0-3nodes-pg20", "collective_timeout", job(30160, "--pg-timeout 20 --global-batch 96", n=3),
             r"[Tt]imed? ?out[\s\S]*" + EX, prep=prep(3, hook="sloweval0"), timeout=120, hang_ok=True),
    Scenario("data-tmpfs", "disk_full", job(30161), EX, prep=prep(), tmpfs=(("data", "96k"),), timeout=100,
             hang_ok=True),
    Scenario("arcface-classes-node-b", "worker_exception", job(30165, "--loss arcface", nargs={1: "--classes 32"}),
             EX, prep=prep(), timeout=100, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
