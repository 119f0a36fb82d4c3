"""Generate wave BW (r)'s real runs (sealed batch ``heldout78``, ecosystem ``pytorch-forecasting``): "demand-ar-v3",
a small TemporalFusionTransformer (pytorch-forecasting 1.8.0, hidden_size 12, one attention head, QuantileLoss,
11.9k parameters) forecasting 24 synthetic AR series (pytorch-forecasting's own ``generate_ar_data``, 120 steps,
encoder 24 / prediction 6) through ``TimeSeriesDataSet`` / ``to_dataloader``, trained by Lightning 2.6.6
(``Trainer(accelerator="cpu", strategy=DDPStrategy(gloo))``, ModelCheckpoint top-2 + last, EarlyStopping on
val_loss, CSVLogger, 12 batches an epoch, 8 epochs; ``project/train.py``, this wave's own script) under multi-node
``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.92.0.11`` on two or
three hosts: Linux network namespaces ``bwrnode0..2`` (10.92.0.11-13 on bridge ``brbwr``, ``../netns_hosts.sh``),
each node in its own UTS namespace with hostname ``fc-node-a``/``b``/``c``. Every node starts from one job shell in
the background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bw-r``
(see README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bw-r-pydeps
pandas==1.5.3``. Ports 29930-29939.

    python3 corpus/generators/wavebw_r/generate.py --list
    python3 corpus/generators/wavebw_r/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebw-r", here=HERE, split="heldout78", ecosystem="pytorch-forecasting", fragment="wave-bw-runs-r.csv",
            bin=Path("/tmp/venv-bw-r/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bwr 10.92.0 fc-node-a,fc-node-b,fc-node-c"
IPS = ("10.92.0.11", "10.92.0.12", "10.92.0.13")
HOSTS = ("fc-node-a", "fc-node-b", "fc-node-c")
TRAIN = "train.py "

# the team's optional Lightning callback (train_hooks.py, picked up by train.py when present); written by prep
HOOKS = {
    "keyerr": '''
import lightning.pytorch as pl
# per-shard audit of the target rows each rank trains on; the shard table was written for the 3-rank dev setup
SHARD_OF_RANK = {0: "dc-a", 1: "dc-b", 2: "dc-c"}
class Hook(pl.Callback):
    seen = {}
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_step >= 30:
            shard = SHARD_OF_RANK[trainer.global_rank]
            self.seen[shard] = self.seen.get(shard, 0) + int(batch[1][0].numel())
''',
    "segv": '''
import ctypes
import lightning.pytorch as pl
# fast path of the audit through a C helper; on rank 2 it reads a NULL buffer
class Hook(pl.Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_rank == 2 and trainer.global_step == 30:
            ctypes.string_at(0)
''',
    "grow": '''
import torch
import lightning.pytorch as pl
# keeps every batch's encoder inputs for an "exact replay" debug dump; on rank 1 a copy-paste bug keeps 200 MB a step
class Hook(pl.Callback):
    kept = []
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_rank == 1 and trainer.global_step >= 20:
            self.kept.append(torch.ones(50_000_000))
''',
    "shape3": '''
import torch
import torch.distributed as dist
import lightning.pytorch as pl
# every 10 steps average a per-rank histogram of the series ids seen; rank 3 builds it with one extra bucket
class Hook(pl.Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_step >= 30 and trainer.global_step % 10 == 0:
            nb = 25 if trainer.global_rank == 3 else 24
            ids = batch[0]["groups"].flatten()
            hist = torch.bincount(ids, minlength=nb)[:nb].float()
            dist.all_reduce(hist)
''',
    "slow1": '''
import time
import lightning.pytorch as pl
# rank 1 re-reads its series from a slow network share at step 30 (60 s) before the next step's gradient all-reduce
class Hook(pl.Callback):
    def on_train_batch_end(self, trainer, module, outputs, batch, batch_idx):
        if trainer.global_rank == 1 and trainer.global_step == 30:
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
        return (f"ip netns exec bwrnode{i} unshare --uts --mount --propagation private bash -c 'hostname {HOSTS[i]} && "
                f"mount -t tmpfs -o size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec bwrnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: str = "") -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv,
                       shm),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=30 "
DONE = r"training done[\s\S]*job exited with 0"
AT = r"epoch 2 step 28: train_loss_step"
EXITED = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29930), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29931, n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure",
             job(29932, "--resume runs/demand-ar-v3/checkpoints/last.ckpt --trust-checkpoint --max-epochs 8"),
             r"Restored all states from the checkpoint[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29933, '--max-epochs 4')}) > /dev/null 2>&1"), timeout=150),
    Scenario("resume-weights-only", "library_version_mismatch",
             job(29935, "--resume runs/demand-ar-v3/checkpoints/last.ckpt --max-epochs 8"),
             r"Weights only load failed[\s\S]*exited with",
             prep=prep(extra=f"({job(29936, '--max-epochs 4')}) > /dev/null 2>&1"), timeout=120, hang_ok=True),
    Scenario("healthy-late-node", "no_failure", job(29934, late=15, rdzv=C10D), DONE, prep=prep(), timeout=150),
    Scenario("shard-keyerror", "worker_exception", job(29935), r"KeyError", prep=prep(hook="keyerr"), timeout=120,
             hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29936), EXITED, prep=prep(hook="segv"), timeout=120, hang_ok=True),
    Scenario("rank-memory-growth", "host_oom_killed", job(29937), EXITED, prep=prep(hook="grow"),
             memory=3 * 1024 ** 3, timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29938), EXITED, prep=prep(), tmpfs=(("runs", "1m"),), timeout=120,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29939, "--lr 10000 --gradient-clip 0"),
             r"Loss is not finite[\s\S]*exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29930), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29931), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29932), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(29933, only=(0,), rdzv=C10D), EXITED, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29934), EXITED, prep=prep(),
             stale=f"ip netns exec bwrnode0 {{py}} -m http.server --bind {IPS[0]} 29934", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(29935, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EXITED,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29936), EXITED, prep=prep(hook="shape3"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(29937, "--pg-timeout 20"), EXITED,
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("old-pandas-node-b", "library_version_mismatch",
             job(29938, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bw-r-pydeps"}), EXITED, prep=prep(),
             timeout=90, hang_ok=True),
    Scenario("tiny-shm-workers", "shm_exhausted", job(29939, "--num-workers 2", shm="256k"), EXITED, prep=prep(),
             timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
