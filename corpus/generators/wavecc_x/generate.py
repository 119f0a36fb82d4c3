"""Generate wave CC (x)'s real runs (sealed batch ``heldout84``, ecosystem ``darts``): demand forecasting with Darts
(u8darts 0.41.0) torch models (N-BEATS generic, 4 stacks x 1 block x 2 layers x 64 wide, 26.5K parameters; once an
LSTM ``RNNModel``) trained by Darts' own ``fit()`` under PyTorch Lightning 2.5.2 ``DDPStrategy(process_group_backend=
"gloo")`` on CPU, on 24 synthetic daily store-demand series (``project/train_forecast.py``: input 24, output 12,
batch 32, 10 epochs, ``save_checkpoints=True``, validation on the last 36 days), under multi-node ``python -m
torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.111.0.11`` on two or three hosts:
Linux network namespaces ``ccxnode0..2`` (10.111.0.11-13 on bridge ``brccx``, ``../netns_hosts.sh``), each node in
its own UTS namespace with hostname ``fcst-cpu-01``/``02``/``03``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-cc-x`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/cc-x-pydeps
pytorch-lightning==1.9.5``. Ports 30120-30129.

    python3 corpus/generators/wavecc_x/generate.py --list
    python3 corpus/generators/wavecc_x/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavecc-x", here=HERE, split="heldout84", ecosystem="darts", fragment="wave-cc-runs-x.csv",
            bin=Path("/tmp/venv-cc-x/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} ccx 10.111.0 fcst-cpu-01,fcst-cpu-02,fcst-cpu-03"
IPS = ("10.111.0.11", "10.111.0.12", "10.111.0.13")
HOSTS = ("fcst-cpu-01", "fcst-cpu-02", "fcst-cpu-03")
TRAIN = "train_forecast.py "

# the team's per-batch hook (train_hooks.py, called from a Lightning Callback's on_train_batch_end); written by prep
HOOKS = {
    "keyerr": '''
# per-store demand audit every 40 steps from step 120; the store table only knows the pilot region's ranks
STORE_OF_RANK = {0: "north-01", 1: "north-02", 3: "south-01"}
seen = {}
def on_step(rank, step, module):
    if step >= 120 and step % 40 == 0:
        store = STORE_OF_RANK[rank]
        seen[store] = seen.get(store, 0) + 1
''',
    "segv": '''
import ctypes
# fast seasonal-profile check through a C helper; on rank 3 it reads a NULL buffer
def on_step(rank, step, module):
    if rank == 3 and step == 150:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps a copy of the stack weights every step for a drift plot; rank 1 also keeps a 64 MB scratch buffer per step
history = []
def on_step(rank, step, module):
    if rank == 1 and step >= 80:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape2": '''
import torch
import torch.distributed as dist
# every 50 steps from step 100 average the first stack's output-layer weights across ranks (drift check); rank 2
# flattens the whole stack instead
def on_step(rank, step, module):
    if step >= 100 and step % 50 == 0:
        stack = module.stacks[0]
        ps = list(stack.parameters()) if rank == 2 else list(stack.parameters())[-2:]
        flat = torch.cat([p.detach().flatten() for p in ps])
        dist.all_reduce(flat)
''',
    "slow1": '''
import time
# rank 1 re-reads its store-history shard from slow storage at step 100 (60 s)
def on_step(rank, step, module):
    if rank == 1 and step == 100:
        time.sleep(60)
''',
    "valmape": '''
# per-batch validation MAPE for the weekly report, from epoch 3 on; the stores' demand never reaches zero... except
# store 17's closed days, which rank 1 sees
def on_step(rank, step, module):
    pass
def on_val_batch(rank, epoch, batch_idx, batch, module):
    if epoch >= 3:
        target = batch[-1]
        denom = float(target.abs().min()) if rank != 1 else 0.0
        mape = float(target.abs().mean()) / denom * 100
        if batch_idx == 0 and rank == 0:
            print(f"val mape batch0 epoch {epoch}: {mape:.2f}%")
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
        return (f"ip netns exec ccxnode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec ccxnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"train done: [\s\S]*job exited with 0"
AT = r"step 100 train_loss"
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30120), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(30121, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(30122, "--resume --epochs 10"), r"resumed[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30123, '--epochs 5')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(30124, late=20, rdzv=C10D), DONE, prep=prep(), timeout=200),
    Scenario("healthy-lstm", "no_failure", job(30125, "--model rnn --model-name demand-lstm --epochs 6"), DONE,
             prep=prep(), timeout=200),
    Scenario("store-keyerror", "worker_exception", job(30126), r"KeyError", prep=prep(hook="keyerr"), timeout=150,
             hang_ok=True),
    Scenario("inlen-node-b", "worker_exception", job(30127, nargs={1: "--in-len 220"}), EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank3-segv", "native_crash", job(30128), EX, prep=prep(hook="segv"), timeout=150, hang_ok=True),
    Scenario("rank2-abort", "native_crash", job(30129), EX, prep=prep(), trigger=((AT, "rank2:ABRT"),),
             timeout=150, hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30120), EX, prep=prep(hook="leak"), memory=3 << 30,
             timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30121), EX, prep=prep(), tmpfs=(("darts_logs", "400k"),), timeout=150,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30122, "--lr 1e8 --stop-on-nan"), EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30123), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (70, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30124), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30125), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30126, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30127), EX, prep=prep(),
             stale=f"ip netns exec ccxnode0 {{py}} -m http.server --bind {IPS[0]} 30127", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30128, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("stack-shape-rank2", "collective_mismatch", job(30129), EX, prep=prep(hook="shape2"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(30120, "--pg-timeout 20"), r"[Tt]imed out[\s\S]*" + EX,
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("old-lightning-node-b", "library_version_mismatch",
             job(30121, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/cc-x-pydeps"}), EX,
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30122, "--workers 2", shm={1: "16k"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30123, rdzv=C10D, master={1: "10.111.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank4-segv-3nodes", "native_crash", job(30124, n=3), EX, prep=prep(3),
             trigger=((r"step 60 train_loss", "rank4:SEGV"),), timeout=150, hang_ok=True),
    Scenario("preempt-3nodes", "job_preempted", job(30125, n=3), EX + "|step 180", prep=prep(3),
             trigger=((r"step 180 train_loss", "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs-later", "disk_full", job(30126), EX, prep=prep(), tmpfs=(("darts_logs", "900k"),),
             timeout=150, hang_ok=True),
    Scenario("healthy-tft", "no_failure", job(30127, "--model tft --model-name demand-tft --epochs 3"), DONE,
             prep=prep(), timeout=200),
    Scenario("val-mape-rank1", "worker_exception", job(30129), r"ZeroDivisionError", prep=prep(hook="valmape"),
             timeout=150, hang_ok=True),
    Scenario("hup-during-init", "terminal_hangup", job(30128), EX, prep=prep(),
             trigger=((r"All distributed processes registered", "runner:HUP"),), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
