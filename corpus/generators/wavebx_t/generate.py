"""Generate wave BX (t)'s real runs (sealed batch ``heldout79``, ecosystem ``speechbrain``): a tiny SpeechBrain
keyword-spotting recipe (``project/train.py``: an ``sb.Brain`` subclass, ``project/hparams/train.yaml``: HyperPyYAML
with a 3-layer MLP encoder + statistics pooling + linear classifier, 39.3k parameters, a ``DynamicItemDataset``
pipeline with a ``CategoricalEncoder``, the ``Checkpointer`` and a ``FileTrainLogger``) on synthetic 40-dim features
for four commands (``project/make_data.py`` -> ``data/{train,valid}.json`` + ``.npy``; 960 train / 160 valid items),
8 epochs of batch 8 per rank, under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2
--rdzv-backend c10d --rdzv-endpoint 10.94.0.11:PORT ... train.py hparams/train.yaml --device=cpu
--distributed_backend=gloo --noprogressbar`` on two or three hosts: Linux network namespaces ``bxtnode0..2``
(10.94.0.11-13 on bridge ``brbxt``, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname
``asr-node-a``/``b``/``c``. Every node starts from one job shell in the background; their output goes to one console
(the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bx-t`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bx-t-pydeps
ruamel.yaml==0.19.1``. Ports 29950-29959.

    python3 corpus/generators/wavebx_t/generate.py --list
    python3 corpus/generators/wavebx_t/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebx-t", here=HERE, split="heldout79", ecosystem="speechbrain", fragment="wave-bx-runs-t.csv",
            bin=Path("/tmp/venv-bx-t/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bxt 10.94.0 asr-node-a,asr-node-b,asr-node-c"
IPS = ("10.94.0.11", "10.94.0.12", "10.94.0.13")
HOSTS = ("asr-node-a", "asr-node-b", "asr-node-c")
TRAIN = "train.py hparams/train.yaml --device=cpu --distributed_backend=gloo --noprogressbar "

# the team's per-batch audit (train_hooks.py, called from KWSBrain.on_fit_batch_end); written by prep
HOOKS = {
    "segv": '''
import ctypes
# per-batch feature checksum through a C helper; on rank 2 it reads a NULL buffer
def on_batch(rank, step, epoch, batch, loss):
    if rank == 2 and epoch == 3 and step == 15:
        ctypes.string_at(0)
''',
    "memgrow": '''
import torch
# keeps every batch's features, upsampled, for an end-of-run embedding dump; enabled on rank 1 only
_dump = []
def on_batch(rank, step, epoch, batch, loss):
    if rank == 1 and epoch >= 2:
        _dump.append(torch.ones(64, 1024, 1024, dtype=torch.uint8) * step)
''',
    "slow2": '''
import time
# rank 2 re-reads its shard index from the network share at the start of epoch 2 (a stalled NFS read)
def on_batch(rank, step, epoch, batch, loss):
    if rank == 2 and epoch == 2 and step == 10:
        time.sleep(75)
''',
}


def prep(n: int = 2, hook: str = "", data: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_data.py {data}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-id kws-{port} --rdzv-conf join_timeout=40 "
STATIC = "--node-rank {i} --master-addr {master} --master-port {port} "


def node(i: int, port: int, n: int, args: str, env: str, master: str, pre: str, uts: str, rdzv: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"{rdzv.format(i=i, master=master, port=port)}{TRAIN}{args}")
    return (f"ip netns exec bxtnode{i} unshare {uts} bash -c '{pre}hostname {HOSTS[i]} && cd {{job}} && "
            f"exec {cmd}'")


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, pre: dict | None = None, rdzv: str = C10D) -> str:
    env, master, pre = env or {}, master or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]),
                       pre.get(i, ""), "--uts --mount --propagation private" if i in pre else "--uts", rdzv),
        n, late, only)


DONE = r"training finished[\s\S]*job exited with 0"
AT = r"epoch 4 step 20: loss"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29950), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(29951, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(29952), r"Loading a checkpoint from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29953, '--number_of_epochs=4')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(29954, late=20), DONE, prep=prep(), timeout=200),
    Scenario("label-typo", "worker_exception", job(29955), r"KeyError[\s\S]*exited with",
             prep=prep(data="--bad-label train-up-00402:uP"), timeout=150, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29956), r"exited with", prep=prep(hook="segv"), timeout=150,
             hang_ok=True),
    Scenario("rank-memgrow", "host_oom_killed", job(29957), r"exited with", prep=prep(hook="memgrow"),
             memory=3 * 1024 ** 3, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29958), r"exited with", prep=prep(), tmpfs=(("results", "800k"),),
             timeout=150, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29959, "--lr=1e20 --max_grad_norm=-1"),
             r"not finite[\s\S]*exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29950), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:15")), timeout=120, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29951), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29952), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29953, only=(0,)), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29954, rdzv=STATIC), r"exited with", prep=prep(),
             stale=f"ip netns exec bxtnode0 {{py}} -m http.server --bind {IPS[0]} 29954", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(29953, master={1: "10.94.0.99"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29955, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("slow-rank2-pg-timeout", "collective_timeout", job(29957, "--ddp_timeout_s=20"), r"exited with",
             prep=prep(hook="slow2"), timeout=150, hang_ok=True),
    Scenario("ruamel019-node-b", "library_version_mismatch",
             job(29958, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bx-t-pydeps"}), r"max_depth[\s\S]*exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(29959, "--num_workers=2", pre={1: "mount -t tmpfs -o size=64k "
             "tmpfs /dev/shm && "}), r"exited with", prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
