"""Generate wave BV (l)'s real runs (sealed batch ``heldout77``, ecosystem ``picotron``): huggingface/picotron's own
``train.py`` and ``picotron/`` package (commit 59714b1, ``project/``; four CPU patches and an optional per-step hook,
see README.md) training a tiny Llama (4 layers, hidden 64, 4 heads / 2 KV heads, vocab 512, seq 64) on Python's
bundled pydoc topic texts, everything the hub would give built locally by ``project/prepare.py`` (tokenizer trained
with ``tokenizers``, JSON dataset, config.json, random initial safetensors). Configs in ``project/config/`` (gloo,
use_cpu, FLASH_ATTEN=0, float32; dp4, dp2 x tp2, dp2 x pp2 (1f1b), dp6; 40 steps, checkpoint every 20). Launched per
node with ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.86.0.11``
on two or three hosts: network namespaces ``bvlnode0..2`` (10.86.0.11-13 on bridge ``brbvl``,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``pico-host-1``/``2``/``3``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bv-l`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bvl-pydeps
transformers==4.47.0``. Ports 29870-29879.

    python3 corpus/generators/wavebv_l/generate.py --list
    python3 corpus/generators/wavebv_l/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebv-l", here=HERE, split="heldout77", ecosystem="picotron", fragment="wave-bv-runs-l.csv",
            bin=Path("/tmp/venv-bv-l/bin"), project=HERE / "project", upstream=("train.py", "picotron/model.py"),
            extra_env={"HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bvl 10.86.0 pico-host-1,pico-host-2,pico-host-3"
IPS = ("10.86.0.11", "10.86.0.12", "10.86.0.13")
HOSTS = ("pico-host-1", "pico-host-2", "pico-host-3")

# the team's per-step hook (train_hooks.py, called by train.py after every optimizer step); written by prep
HOOKS = {
    "keyerr": '''
# per-shard token audit every 5 steps from step 15; the shard table was written for the 3-rank test setup
SHARD_OF_RANK = {0: "pydocs-a", 1: "pydocs-b", 2: "pydocs-c"}
audited = {}
def on_step(rank, step, loss, model):
    if step >= 15 and step % 5 == 0:
        shard = SHARD_OF_RANK[rank]
        audited[shard] = audited.get(shard, 0) + 1
''',
    "segv": '''
import ctypes
# loss-stats fast path through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, step, loss, model):
    if rank == 2 and step == 15:
        ctypes.string_at(0)
''',
    "memgrow": '''
# per-step activation cache for later inspection; rank 1 keeps every step's 160 MB buffer
kept = []
def on_step(rank, step, loss, model):
    if rank == 1 and step >= 5:
        kept.append(b"\\x01" * (160 << 20))
''',
    "nanguard": '''
import math
# the team's divergence guard: stop the job as soon as the averaged loss is not finite
def on_step(rank, step, loss, model):
    if not math.isfinite(loss):
        raise FloatingPointError(f"loss is {loss} at step {step}: training diverged, stopping")
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 5 steps from step 15 average a per-rank parameter-norm vector; rank 3 builds it with one extra entry
def on_step(rank, step, loss, model):
    if step >= 15 and step % 5 == 0:
        n = 39 if rank == 3 else 38
        norms = torch.stack([p.detach().norm() for p in model.parameters()] + [torch.zeros(())] * 40)[:n]
        dist.all_reduce(norms)
''',
    "slow3": '''
import datetime, time
import torch
import torch.distributed as dist
# a side process group (10 s timeout) for the loss audit; rank 3 stalls 45 s before the step-15 audit
group = None
def on_step(rank, step, loss, model):
    global group
    if group is None:
        group = dist.new_group(timeout=datetime.timedelta(seconds=10))
    if step == 15:
        if rank == 3:
            time.sleep(45)
        t = torch.tensor([loss])
        dist.all_reduce(t, group=group)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} prepare.py"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, cfg: str, env: str, master: str, procs: int, rdzv: str, mnt: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"train.py --config config/{cfg}.json")
    return (f"ip netns exec bvlnode{i} unshare --uts {mnt}bash -c "
            f"'hostname {HOSTS[i]} && {{pre}}cd {{job}} && exec {cmd}'").replace("{pre}", "")


def job(port: int, cfg: str = "dp2_tp2", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None) -> str:
    env, master, shm = env or {}, master or {}, shm or {}

    def one(i: int) -> str:
        s = node(i, port, n, cfg, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv,
                 "--mount " if i in shm else "")
        if i in shm:  # a node whose /dev/shm is a tiny tmpfs (its own mount namespace)
            s = s.replace(f"'hostname {HOSTS[i]} && ",
                          f"'hostname {HOSTS[i]} && mount -t tmpfs -o size={shm[i]} tmpfs /dev/shm && ")
        return s
    return harness.multinode_job(one, n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=30 "
DONE = r"Step: 40 [\s\S]*job exited with 0"
AT = r"Step: 20 "
FIRST = f"({job(29879, 'dp2_tp2_first20')}) > /dev/null 2>&1"
SCENARIOS = [
    Scenario("healthy-dp2-tp2", "no_failure", job(29870), DONE, prep=prep(), timeout=150),
    Scenario("healthy-dp2-pp2", "no_failure", job(29871, "dp2_pp2"), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes-dp6", "no_failure", job(29872, "dp6", n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume-tp2", "no_failure", job(29873, "dp2_tp2_resume"), r"Step: 21 [\s\S]*" + DONE,
             prep=prep(extra=FIRST), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29874, "dp4", late=15, rdzv=C10D), DONE, prep=prep(),
             timeout=150),
    Scenario("shard-keyerror", "worker_exception", job(29875, "dp4"), r"KeyError", prep=prep(hook="keyerr"),
             timeout=120, hang_ok=True),
    Scenario("rank2-segv", "native_crash", job(29876, "dp4"), r"exited with", prep=prep(hook="segv"),
             timeout=120, hang_ok=True),
    Scenario("rank1-memgrow", "host_oom_killed", job(29877, "dp4"), r"exited with", prep=prep(hook="memgrow"),
             memory=3500 << 20, timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29878, "dp4"), r"exited with", prep=prep(), tmpfs=(("ckpt", "4m"),),
             timeout=120, hang_ok=True),
    Scenario("lr-1e4-nan", "training_divergence", job(29870, "dp4_lr_1e4"), r"nan[\s\S]*exited with",
             prep=prep(hook="nanguard"), timeout=120, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(29871, "dp2_tp2"), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:10")), timeout=110, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29872, "dp2_pp2"), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29873, "dp2_tp2"), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node2-missing", "rendezvous_timeout", job(29874, "dp4", only=(0,), rdzv=C10D), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29875, "dp4"), r"exited with", prep=prep(),
             stale=f"ip netns exec bvlnode0 {{py}} -m http.server --bind {IPS[0]} 29875", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node2", "nccl_network_config", job(29876, "dp4", env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=100, hang_ok=True),
    Scenario("norms-shape-rank3", "collective_mismatch", job(29877, "dp4"), r"exited with",
             prep=prep(hook="shape3"), timeout=100, hang_ok=True),
    Scenario("audit-group-timeout", "collective_timeout", job(29878, "dp4"), r"exited with",
             prep=prep(hook="slow3"), timeout=110, hang_ok=True),
    Scenario("dp4-on-3nodes", "batch_size_mismatch", job(29879, "dp4", n=3), r"exited with", prep=prep(3),
             timeout=100, hang_ok=True),
    Scenario("old-transformers-node2", "library_version_mismatch",
             job(29870, "dp4", env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bvl-pydeps"}), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("tiny-shm-node2", "shm_exhausted", job(29871, "dp4_workers2", shm={1: "8k"}), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("small-shm-loader-node2", "shm_exhausted", job(29872, "dp4_workers2", shm={1: "96k"}),
             r"_MultiProcessingDataLoaderIter[\s\S]*No space left on device[\s\S]*exited with", prep=prep(),
             timeout=100, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
