"""Generate wave BW (p)'s real runs (sealed batch ``heldout78``, ecosystem ``open_clip``): OpenCLIP's own trainer
(``open_clip_train.main`` from ``open_clip_torch[training]`` 3.3.0, pip-installed into the venv; launched through
``project/train_clip.py``, the team's three-line launcher that registers ``project/model_configs/clip-tiny-sd.json``
and imports an optional ``train_hooks.py``) training a tiny CLIP (ViT 2 layers, width 64, 32 px, patch 8; text
tower 2 layers, width 64, context 32, SimpleTokenizer; embed 64) on ``--dataset-type synthetic`` (256 samples,
batch 8 per rank, 8 steps per epoch with 4 ranks, ``Train Epoch: E [n/256 (p%)] ... Loss: ...`` every 2 steps,
``epoch_E.pt`` checkpoints every epoch under ``logs/clip-tiny-sd-synth/checkpoints``) with ``--device cpu
--dist-backend gloo`` under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --rdzv-backend
c10d --rdzv-endpoint 10.90.0.11:PORT`` on two or three hosts: Linux network namespaces ``bwpnode0..2`` (10.90.0.11-13
on bridge ``brbwp``, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``clip-node-a/b/c``.
Every node starts from one job shell in the background; their output goes to one console (the job.log), then the
shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bw-p``
(see README.md, including its two patches to the installed packages); the version-mismatch run also needs ``pip install
--no-deps --target /tmp/bw-p-wds webdataset==0.1.103``.
Ports 29910-29919.

    python3 corpus/generators/wavebw_p/generate.py --list
    python3 corpus/generators/wavebw_p/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebw-p", here=HERE, split="heldout78", ecosystem="open_clip", fragment="wave-bw-runs-p.csv",
            bin=Path("/tmp/venv-bw-p/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bwp 10.90.0 clip-node-a,clip-node-b,clip-node-c"
IPS = ("10.90.0.11", "10.90.0.12", "10.90.0.13")
HOSTS = ("clip-node-a", "clip-node-b", "clip-node-c")
TRAIN = ("train_clip.py --model clip-tiny-sd --dataset-type synthetic --train-num-samples 256 --batch-size 8 "
         "--workers 1 --device cpu --dist-backend gloo --lr 1e-3 --warmup 8 --log-every-n-steps 2 "
         "--save-frequency 1 --name clip-tiny-sd-synth --report-to none --seed 0 ")

# the team's optional patches (train_hooks.py, imported by train_clip.py before open_clip_train.main); written by prep
HOOKS = {
    "keyerr": '''
import open_clip.loss as L
import torch.distributed as dist
# per-source loss audit: each rank reads one caption source; the table was written for the 3-source setup
SOURCE_OF_RANK = ["cc3m", "yfcc15m", "sbu", "redcaps"]
AUDIT_WEIGHT = {"cc3m": 1.0, "yfcc15m": 0.8, "sbu": 0.5}
_orig = L.ClipLoss.forward
step = 0
def forward(self, image_features, text_features, logit_scale, *a, **k):
    global step
    step += 1
    out = _orig(self, image_features, text_features, logit_scale, *a, **k)
    if step >= 20:
        w = AUDIT_WEIGHT[SOURCE_OF_RANK[dist.get_rank()]]
    return out
L.ClipLoss.forward = forward
''',
    "segv": '''
import ctypes
import open_clip.loss as L
import torch.distributed as dist
# feature-norm stats through a C helper; on rank 2 it reads a NULL buffer
_orig = L.ClipLoss.forward
step = 0
def forward(self, image_features, text_features, logit_scale, *a, **k):
    global step
    step += 1
    if step == 20 and dist.get_rank() == 2:
        ctypes.string_at(0)
    return _orig(self, image_features, text_features, logit_scale, *a, **k)
L.ClipLoss.forward = forward
''',
    "abort": '''
import os
import open_clip.loss as L
import torch.distributed as dist
# a native sanity check that aborts the process on rank 1
_orig = L.ClipLoss.forward
step = 0
def forward(self, image_features, text_features, logit_scale, *a, **k):
    global step
    step += 1
    if step == 20 and dist.get_rank() == 1:
        os.abort()
    return _orig(self, image_features, text_features, logit_scale, *a, **k)
L.ClipLoss.forward = forward
''',
    "shape3": '''
import open_clip.loss as L
import torch
import torch.distributed as dist
# every 10 steps average a per-rank logit histogram; rank 3 builds it with one extra bucket
_orig = L.ClipLoss.forward
step = 0
def forward(self, image_features, text_features, logit_scale, *a, **k):
    global step
    step += 1
    if step >= 20 and step % 10 == 0:
        nb = 33 if dist.get_rank() == 3 else 32
        hist = torch.histc(image_features.detach().float(), bins=nb)
        dist.all_reduce(hist)
    return _orig(self, image_features, text_features, logit_scale, *a, **k)
L.ClipLoss.forward = forward
''',
    "memgrow": '''
import open_clip.loss as L
import torch
import torch.distributed as dist
# keeps every step's features "for the retrieval eval"; rank 3 (the eval rank) also keeps a 120 MB scratch copy
_orig = L.ClipLoss.forward
KEEP = []
step = 0
def forward(self, image_features, text_features, logit_scale, *a, **k):
    global step
    step += 1
    if dist.get_rank() == 3 and step >= 12:
        KEEP.append(torch.ones(30 * 1024 * 1024))
    return _orig(self, image_features, text_features, logit_scale, *a, **k)
L.ClipLoss.forward = forward
''',
    "slowrank": '''
import datetime
import time
import open_clip.loss as L
import torch.distributed as dist
# the team's process-group timeout for fast failure detection, and a debug pause left in on rank 1
_init = dist.init_process_group
def init_process_group(*a, **k):
    k.setdefault("timeout", datetime.timedelta(seconds=20))
    return _init(*a, **k)
dist.init_process_group = init_process_group
_orig = L.ClipLoss.forward
step = 0
def forward(self, image_features, text_features, logit_scale, *a, **k):
    global step
    step += 1
    if step == 20 and dist.get_rank() == 1:
        time.sleep(60)
    return _orig(self, image_features, text_features, logit_scale, *a, **k)
L.ClipLoss.forward = forward
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n}"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, jt: int, pre: str,
         static: bool = False) -> str:
    rdzv = (f"--node-rank {i} --master-addr {master} --master-port {port} " if static else
            f"--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout={jt} ")
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} "
           f"{rdzv}{TRAIN}{args}")
    uts = "unshare --uts --mount" if pre else "unshare --uts"
    return f"ip netns exec bwpnode{i} {uts} bash -c 'hostname {HOSTS[i]} && {pre}cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "--epochs 3", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, procs: int = 2, jt: int = 40, pre: dict | None = None,
        static: bool = False) -> str:
    env, master, pre = env or {}, master or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, jt,
                       pre.get(i, ""), static),
        n, late, only)


DONE = r"Train Epoch: 2 \[256/256[\s\S]*job exited with 0"
LONG = "--epochs 8"
AT = r"Train Epoch: 2 \[ 96/256"
SHM = "mount -t tmpfs -o size=64k tmpfs /dev/shm && "
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29910), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29911, n=3), r"Train Epoch: 2 \[240/256[\s\S]*job exited with 0",
             prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure", job(29912, "--epochs 4 --resume latest"),
             r"resuming checkpoint[\s\S]*Train Epoch: 3 \[256/256[\s\S]*job exited with 0",
             prep=prep(extra=f"({job(29913, '--epochs 2')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29914, late=20), DONE, prep=prep(), timeout=150),
    Scenario("audit-keyerror", "worker_exception", job(29915, LONG), r"KeyError", prep=prep(hook="keyerr"),
             timeout=120, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29916, LONG), r"exited with", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("rank-memgrow", "host_oom_killed", job(29917, LONG), r"exited with", prep=prep(hook="memgrow"),
             memory=2500 * 1024 * 1024, timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29918, LONG), r"exited with", prep=prep(),
             tmpfs=(("logs/clip-tiny-sd-synth/checkpoints", "60m"),), timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29919, "--epochs 3 --lr 1e3 --warmup 0"),
             r"Loss: nan[\s\S]*exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29910, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (75, "scheduler:15")), timeout=120, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29911, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29912, LONG), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29913, only=(0,), jt=30), r"exited with", prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29914, static=True), r"EADDRINUSE", prep=prep(),
             stale=f"ip netns exec bwpnode0 {{py}} -m http.server --bind {IPS[0]} 29914", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29915, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29916, LONG), r"exited with", prep=prep(hook="shape3"),
             timeout=100, hang_ok=True),
    Scenario("slow-rank1-pg-timeout", "collective_timeout", job(29917, LONG), r"exited with",
             prep=prep(hook="slowrank"), timeout=120, hang_ok=True),
    Scenario("old-webdataset-node-b", "library_version_mismatch",
             job(29918, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bw-p-wds"}), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(29919, master={1: "10.90.0.99"}, jt=30), r"exited with",
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(29910, "--epochs 3 --workers 2", pre={1: SHM}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank-abort", "native_crash", job(29911, LONG), r"exited with", prep=prep(hook="abort"), timeout=120,
             hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
