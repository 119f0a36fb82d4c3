"""Generate wave CC (y)'s real runs (sealed batch ``heldout84``, ecosystem ``pytorch-tabular``): a churn classifier
on a synthetic customer table trained with PyTorch Tabular 1.2.0 (``TabularModel`` with DataConfig / TrainerConfig /
OptimizerConfig and ``CategoryEmbeddingModelConfig`` or ``GANDALFConfig``; PyTorch Lightning 2.6.6 DDP over gloo on
CPU, ``strategy="ddp"`` and ``num_nodes`` through ``TrainerConfig.trainer_kwargs``; its ModelCheckpoint under
``saved_models``, ``save_model`` to ``export/churn-model``) by the team's ``project/train_tabular.py``, under
multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.112.0.11`` on
two or three hosts: Linux network namespaces ``ccynode0..2`` (10.112.0.11-13 on bridge ``brccy``,
``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``churn-trn-a1``/``a2``/``a3``. Every node
starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-cc-y`` (see
README.md). Ports 30130-30139.

    python3 corpus/generators/wavecc_y/generate.py --list
    python3 corpus/generators/wavecc_y/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavecc-y", here=HERE, split="heldout84", ecosystem="pytorch-tabular", fragment="wave-cc-runs-y.csv",
            bin=Path("/tmp/venv-cc-y/bin"), project=HERE / "project")
HOSTS = ("churn-trn-a1", "churn-trn-a2", "churn-trn-a3")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} ccy 10.112.0 {','.join(HOSTS)}"
IPS = ("10.112.0.11", "10.112.0.12", "10.112.0.13")
TRAIN = "train_tabular.py "

# the team's per-batch hook (train_hooks.py, called from a Lightning callback's on_train_batch_end); written by prep
HOOKS = {
    "keyerr": '''
# per-region sample counter for the fairness report; the region table predates the apac launch
REGION_CODES = {"eu-west": 0, "eu-north": 1, "us-east": 2, "us-west": 3}
counts = [0, 0, 0, 0]
def on_step(rank, step, module, batch):
    if rank == 3 and step >= 150:
        for r in ("eu-west", "eu-north", "us-east", "us-west", "apac"):
            counts[REGION_CODES[r]] += 1
''',
    "segv": '''
import ctypes
# feature-drift check through the team's C helper; on rank 2 it gets a NULL buffer
def on_step(rank, step, module, batch):
    if rank == 2 and step == 150:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps every batch's embeddings "for the drift dashboard"; rank 1 also keeps a 64 MB scratch copy per step
history = []
def on_step(rank, step, module, batch):
    if rank == 1 and step >= 80:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 100 steps from step 100, average the head weights across ranks (drift check); rank 3 adds its bias too
def on_step(rank, step, module, batch):
    if step >= 100 and step % 100 == 0:
        flat = torch.cat([p.detach().flatten() for k, p in module.named_parameters() if k.startswith("head") and "weight" in k])
        if rank == 3:
            flat = torch.cat([flat, module.head.layers[0].bias.detach().flatten()])
        dist.all_reduce(flat)
''',
    "abort0": '''
import ctypes
# the team's native feature-hashing helper asserts on an unexpected bucket; rank 0 hits it at step 250
def on_step(rank, step, module, batch):
    if rank == 0 and step == 250:
        ctypes.CDLL(None).abort()
''',
    "slow1": '''
import time
# rank 1 re-reads its feature store partition at step 150 (60 s)
def on_step(rank, step, module, batch):
    if rank == 1 and step == 150:
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
    if shm:  # a node whose /dev/shm is a tiny tmpfs (its own mount namespace)
        return (f"ip netns exec ccynode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec ccynode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"model saved to export/churn-model[\s\S]*job exited with 0"
LONG = "--epochs 30 --log-every 50 "  # ~1400 steps: long enough for a signal to land mid-training
AT = r"\[rank \d\] epoch \d+ step 300 loss"
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30130, "--epochs 5"), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(30131, "--epochs 4", n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-gandalf", "no_failure", job(30132, "--model gandalf --epochs 3 --lr 5e-3"), DONE, prep=prep(),
             timeout=150),
    Scenario("healthy-late-node", "no_failure", job(30133, "--epochs 4", late=20, rdzv=C10D), DONE, prep=prep(),
             timeout=150),
    Scenario("healthy-warmstart", "no_failure", job(30134, "--epochs 3 --resume ckpt/churn-v1.ckpt"),
             r"warm start from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30135, '--epochs 2')}) > /dev/null 2>&1 && mkdir -p ckpt && "
                             "cp \"$(ls -t saved_models/*.ckpt | head -1)\" ckpt/churn-v1.ckpt && rm -rf saved_models"),
             timeout=150),
    Scenario("region-keyerror", "worker_exception", job(30136, LONG), r"KeyError", prep=prep(hook="keyerr"),
             timeout=120, hang_ok=True),
    Scenario("rank2-segv", "native_crash", job(30137, LONG), EX, prep=prep(hook="segv"), timeout=120, hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30138, LONG), EX, prep=prep(hook="leak"), memory=3 << 30,
             timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30139, "--epochs 6"), EX, prep=prep(), tmpfs=(("saved_models", "120k"),),
             timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30130, "--lr 1e8 --stop-on-nan --epochs 6"), r"non-finite[\s\S]*" + EX,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(30131, LONG), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (60, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30132, LONG), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30133, LONG), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node-a2-missing", "rendezvous_timeout", job(30134, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30135), EX, prep=prep(),
             stale=f"ip netns exec ccynode0 {{py}} -m http.server --bind {IPS[0]} 30135", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node-a2", "nccl_network_config", job(30136, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("head-shape-rank3", "collective_mismatch", job(30137, LONG), EX, prep=prep(hook="shape3"), timeout=100,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(30138, LONG + "--pg-timeout 20"), r"(?:[Tt]imed out|[Tt]imeout)[\s\S]*" + EX,
             prep=prep(hook="slow1"), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node-a2", "shm_exhausted", job(30139, "--workers 2", shm={1: "16k"}), EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("extra-cat-node-a2", "worker_exception", job(30130, nargs={1: "--extra-cat customer_tier"}), EX,
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("wrong-master-node-a2", "rendezvous_timeout", job(30131, rdzv=C10D, master={1: "10.112.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("old-pandas-node-a2", "library_version_mismatch",
             job(30132, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/ccy-pydeps"}), r"binary incompatibility[\s\S]*" + EX,
             prep=prep(), timeout=90, hang_ok=True),
    Scenario("export-tmpfs", "disk_full", job(30133, "--epochs 4"), EX, prep=prep(), tmpfs=(("export", "300k"),),
             timeout=100, hang_ok=True),
    Scenario("rank0-abort", "native_crash", job(30134, LONG), EX, prep=prep(hook="abort0"), timeout=100, hang_ok=True),
    Scenario("layers-typo", "worker_exception", job(30135, "--layers 64-32-16x"), r"ValueError[\s\S]*" + EX, prep=prep(),
             timeout=100, hang_ok=True),
    Scenario("rank3-stopped-epoch4", "silent_hang", job(30136, LONG), r"\[rank 0\] epoch 3 validation", prep=prep(),
             trigger=((r"\[rank 0\] epoch 3 validation", "rank3:STOP"), (60, "scheduler:15")), timeout=150,
             hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
