"""Generate wave CE (y)'s real runs (sealed batch ``heldout86``, ecosystem ``torchgeo``): TorchGeo 0.8.1's
``ClassificationTask`` (a timm ``mobilenetv3_small_050`` built from its config, no pretrained weights, 4 input bands)
over synthetic 4-band GeoTIFF chips (written with rasterio) fed by a TorchGeo ``NonGeoDataModule``, trained by
Lightning 2.6.6's ``Trainer(accelerator="cpu", devices=2, num_nodes=N, strategy=DDPStrategy(process_group_backend=
"gloo"))`` with ``ModelCheckpoint`` and ``CSVLogger`` (``project/train_landcover.py``), under multi-node ``python -m
torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.116.0.11`` on two or three hosts:
Linux network namespaces ``ceynode0..2`` (10.116.0.11-13 on bridge ``brcey``, ``../netns_hosts.sh``), each node in its
own UTS namespace with hostname ``geo-cpu-a01``/``a02``/``a03``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-ce-y`` (see
README.md). Ports 30170-30179.

    python3 corpus/generators/wavece_y/generate.py --list
    python3 corpus/generators/wavece_y/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavece-y", here=HERE, split="heldout86", ecosystem="torchgeo", fragment="wave-ce-runs-y.csv",
            bin=Path("/tmp/venv-ce-y/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cey 10.116.0 geo-cpu-a01,geo-cpu-a02,geo-cpu-a03"
IPS = ("10.116.0.11", "10.116.0.12", "10.116.0.13")
HOSTS = ("geo-cpu-a01", "geo-cpu-a02", "geo-cpu-a03")
TRAIN = "train_landcover.py "

# the team's per-batch hooks (train_hooks.py, called from a Lightning Callback); written by prep
HOOKS = {
    "keyerr2": '''
# per-tile-group sample counter from epoch 1; the group table was written for the 2-rank pilot
GROUP_OF_RANK = {0: "utm33-north", 1: "utm33-south"}
seen = {}
def on_batch(rank, epoch, batch_idx, trainer, module):
    if epoch >= 1 and batch_idx == 3:
        g = GROUP_OF_RANK[rank]
        seen[g] = seen.get(g, 0) + 1
''',
    "segv1": '''
import ctypes
# band-statistics fast path through a C helper; on rank 1 it reads a NULL buffer
def on_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 1 and epoch == 1 and batch_idx == 5:
        ctypes.string_at(0)
''',
    "abort3val": '''
import ctypes
# the team's C cloud-mask helper, run on validation batches from epoch 1; it aborts on rank 3
def on_val_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 3 and epoch == 1 and batch_idx == 1:
        ctypes.CDLL(None).abort()
''',
    "leak1": '''
import torch
# keeps a copy of each batch's feature maps for a later drift plot; rank 1 also keeps a 64 MB scratch copy
history = []
def on_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 1 and (epoch >= 1 or batch_idx >= 6):
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape2": '''
import torch
import torch.distributed as dist
# every 4 batches from epoch 1 average the classifier head across ranks (drift check); rank 2 pads one value
def on_batch(rank, epoch, batch_idx, trainer, module):
    if epoch >= 1 and batch_idx % 4 == 2:
        flat = torch.cat([p.detach().flatten() for p in module.model.get_classifier().parameters()])
        if rank == 2:
            flat = torch.cat([flat, torch.zeros(1)])
        dist.all_reduce(flat)
''',
    "slow3": '''
import time
# rank 3 re-reads its tile index from slow object storage in epoch 1 (60 s)
def on_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 3 and epoch == 1 and batch_idx == 2:
        time.sleep(60)
''',
    "segv5val": '''
import ctypes
# per-tile cloud fraction through the team's C helper on validation batches; on rank 5 it reads a NULL buffer
def on_val_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 5 and epoch == 0 and batch_idx == 1:
        ctypes.string_at(0)
''',
    "leak4": '''
import torch
# keeps every batch's logits plus a 64 MB scratch copy for a later calibration plot, on rank 4 only
history = []
def on_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 4:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "zerodiv0val": '''
# per-class validation ratio for the dashboard, from epoch 2 on rank 0; class "snow" never occurs in these chips
counts = {"water": 3, "forest": 5, "urban": 2, "crop": 4, "snow": 0}
def on_val_batch(rank, epoch, batch_idx, trainer, module):
    if rank == 0 and epoch == 2 and batch_idx == 2:
        ratios = {k: counts["forest"] / v for k, v in counts.items()}
        print(f"class ratios: {ratios}", flush=True)
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
           f"{TRAIN}--nodes {n} {args}")
    if shm:
        return (f"ip netns exec ceynode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec ceynode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training done: test=[\s\S]*job exited with 0"
AT = r"\] epoch 1 step \d+ batch 4 "
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30170), DONE, prep=prep(), timeout=240),
    Scenario("healthy-3nodes", "no_failure", job(30171, "--epochs 3", n=3), DONE, prep=prep(3), timeout=240),
    Scenario("healthy-resume", "no_failure", job(30172, "--resume out-lc/checkpoints/last.ckpt --epochs 5"),
             DONE, prep=prep(extra=f"({job(30173, '--epochs 2')}) > /dev/null 2>&1"), timeout=240),
    Scenario("healthy-late-node", "no_failure", job(30174, late=20, rdzv=C10D), DONE, prep=prep(), timeout=240),
    Scenario("healthy-resnet-workers", "no_failure", job(30175, "--model resnet10t --workers 1 --epochs 2 "
             "--batch-size 32 --lr 5e-4"), DONE, prep=prep(), timeout=240),
    Scenario("group-keyerror", "worker_exception", job(30176), r"KeyError[\s\S]*" + EX, prep=prep(hook="keyerr2"),
             timeout=150, hang_ok=True),
    Scenario("rank1-segv", "native_crash", job(30177), EX, prep=prep(hook="segv1"), timeout=150, hang_ok=True),
    Scenario("rank3-abort-val", "native_crash", job(30178), EX, prep=prep(hook="abort3val"), timeout=150,
             hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30179), EX, prep=prep(hook="leak1"), memory=3 << 30,
             timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30170), EX, prep=prep(), tmpfs=(("out-lc/checkpoints", "20m"),),
             timeout=150, hang_ok=True),
    Scenario("huge-lr-nan", "training_divergence", job(30171, "--lr 1e30 --stop-on-nan"), r"nan[\s\S]*" + EX,
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(30172), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30173), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30174), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30175, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30176), EX, prep=prep(),
             stale=f"ip netns exec ceynode0 {{py}} -m http.server --bind {IPS[0]} 30176", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30177, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("head-shape-rank2", "collective_mismatch", job(30178), EX, prep=prep(hook="shape2"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank3-pg20", "collective_timeout", job(30179, "--pg-timeout 20"), r"[Tt]imed? ?out[\s\S]*" + EX,
             prep=prep(hook="slow3"), timeout=150, hang_ok=True),
    Scenario("shm-tiny-node-b", "shm_exhausted", job(30170, "--workers 2", shm={1: "256k"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("devices-node-b", "worker_exception", job(30171, nargs={1: "--devices 4"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30172, rdzv=C10D, master={1: "10.116.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank0-zerodiv-val", "worker_exception", job(30173), r"ZeroDivisionError[\s\S]*" + EX,
             prep=prep(hook="zerodiv0val"), timeout=150, hang_ok=True),
    Scenario("bands-node-b", "worker_exception", job(30174, nargs={1: "--in-channels 3"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    # node b has an old kornia (0.7.0, installed with pip --target under /tmp/ce-y-old) first on its PYTHONPATH
    Scenario("old-kornia-node-b", "library_version_mismatch",
             job(30175, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/ce-y-old/kornia-0.7.0"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    # the chips are pre-built by a one-process run of the same script (0 epochs), then one training chip is cut short
    # (an interrupted copy from the tile store)
    Scenario("truncated-chip", "worker_exception", job(30177), r"Error[\s\S]*" + EX,
             prep=prep(extra="{py} train_landcover.py --nodes 1 --devices 1 --epochs 0 --out /tmp/wavece-y-prebuild; "
                       "f=$(ls data/chips-v1/train/chip_00421_c*.tif) && head -c 700 $f > /tmp/wavece-y-cut.tif "
                       "&& mv /tmp/wavece-y-cut.tif $f && rm -rf /tmp/wavece-y-prebuild"),
             timeout=100, hang_ok=True),
    Scenario("rank5-segv-val-3nodes", "native_crash", job(30178, n=3), EX, prep=prep(3, hook="segv5val"),
             timeout=150, hang_ok=True),
    Scenario("rank4-leak-oom-3nodes", "host_oom_killed", job(30179, n=3), EX, prep=prep(3, hook="leak4"),
             memory=4 << 30, timeout=150, hang_ok=True),
    Scenario("preempt-3nodes-val-end", "job_preempted", job(30176, n=3), EX + "|epoch 1 metrics", prep=prep(3),
             trigger=((r"\[rank 0\] epoch 1 metrics", "scheduler:15"),), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
