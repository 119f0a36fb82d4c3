"""Generate wave CB (x)'s real runs (sealed batch ``heldout83``, ecosystem ``olmo-core``): pretraining smoke runs of a
tiny Llama-like transformer with AllenAI's OLMo-core 3.0.0 (``olmo_core.train.Trainer`` with its checkpointer,
console logger and DDP train module, ``prepare_training_environment(backend="gloo")`` on CPU) built from a config
(``TransformerConfig.llama_like(d_model=64, n_layers=2, n_heads=4, vocab_size=512)``, 172,352 parameters) on a
synthetic token file the script writes itself (``project/train_olmo.py``: 150 steps, 16 x 64-token instances per
step, a progress line every 5 steps and a metrics block every 10, a checkpoint ``stepN`` every 50) under multi-node
``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.109.0.11`` on two or
three hosts: Linux network namespaces ``cbxnode0..2`` (10.109.0.11-13 on bridge ``brcbx``, ``../netns_hosts.sh``),
each node in its own UTS namespace with hostname ``lm-cpu-21``/``22``/``23``. Every node starts from one job shell in
the background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-cb-x`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/cb-x-pydeps
ai2-olmo-core==2.1.0 omegaconf antlr4-python3-runtime==4.9.3``. Ports 30100-30109.

    python3 corpus/generators/wavecb_x/generate.py --list
    python3 corpus/generators/wavecb_x/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavecb-x", here=HERE, split="heldout83", ecosystem="olmo-core", fragment="wave-cb-runs-x.csv",
            bin=Path("/tmp/venv-cb-x/bin"), project=HERE / "project")
HOSTS = ("lm-cpu-21", "lm-cpu-22", "lm-cpu-23")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cbx 10.109.0 {','.join(HOSTS)}"
IPS = ("10.109.0.11", "10.109.0.12", "10.109.0.13")
TRAIN = "train_olmo.py "

# the team's per-step hook (train_hooks.py, called from a trainer Callback's post_step); written by prep
HOOKS = {
    "keyerr": '''
# per-source token accounting every 20 steps from step 60; the source table was written for the 3-rank test setup
SOURCE_OF_RANK = {0: "web", 1: "code", 2: "papers"}
seen = {}
def on_step(rank, step, trainer):
    if step >= 60 and step % 20 == 0:
        src = SOURCE_OF_RANK[rank]
        seen[src] = seen.get(src, 0) + 1
''',
    "segv": '''
import ctypes
# activation-stats fast path through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, step, trainer):
    if rank == 2 and step == 70:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps a copy of every step's embedding for a later drift plot; rank 1 also keeps a 64 MB scratch buffer per step
history = []
def on_step(rank, step, trainer):
    if rank == 1 and step >= 40:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 20 steps from step 60 average the flattened norm weights across ranks (drift check); rank 3 pads one
def on_step(rank, step, trainer):
    if step >= 60 and step % 20 == 0:
        model = trainer.train_module.model
        flat = torch.cat([p.detach().flatten() for k, p in model.named_parameters() if "norm" in k])
        if rank == 3:
            flat = torch.cat([flat, torch.zeros(1)])
        dist.all_reduce(flat)
''',
    "abort3": '''
import ctypes
# the team's compiled grad-stats extension asserts on rank 3 after step 100 (stands in for it: libc abort())
def on_step(rank, step, trainer):
    if rank == 3 and step == 100:
        ctypes.CDLL(None).abort()
''',
    "slow4": '''
import time
# rank 4 runs a blocking shard-integrity scan after step 100 (70 s)
def on_step(rank, step, trainer):
    if rank == 4 and step == 100:
        time.sleep(70)
''',
    "slow1": '''
import time
# rank 1 re-reads its data shard from slow storage at step 60 (60 s)
def on_step(rank, step, trainer):
    if rank == 1 and step == 60:
        time.sleep(60)
''',
}


# a token file re-exported with a 1024-entry tokenizer: three documents hold ids >= 512 (the model's vocab)
BADTOK = ("{py} -c 'import numpy as np, os; g = np.random.default_rng(11); "
          "d = [np.append(g.integers(2, 512, int(n)), 0) for n in g.integers(40, 300, 2600)]; "
          "[d.__setitem__(i, np.append(g.integers(600, 1024, 120), 0)) for i in (700, 1500, 2300)]; "
          "os.makedirs(\"data\", exist_ok=True); np.concatenate(d).astype(np.uint16).tofile(\"data/synthetic-tokens.npy\")'")

# the held-out file for in-loop eval re-exported with the 1024-entry tokenizer: one document holds ids >= 512
BADEVAL = ("{py} -c 'import numpy as np, os; g = np.random.default_rng(3); "
           "d = [np.append(g.integers(2, 512, int(n)), 0) for n in g.integers(40, 300, 120)]; "
           "d[50] = np.append(g.integers(600, 1024, 100), 0); "
           "os.makedirs(\"data\", exist_ok=True); np.concatenate(d).astype(np.uint16).tofile(\"data/heldout-tokens.npy\")'")


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
        return (f"ip netns exec cbxnode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec cbxnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, ENV),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


ENV = "GLOO_SOCKET_IFNAME=eth0 OLMO_SHARED_FS=1"  # the team's launch env: ckpt/ and data/ are on the shared job dir
C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training finished at step 150[\s\S]*job exited with 0"
AT = r"\[step=60/150"
AT110 = r"\[step=110/150"
CK100 = r"Saving checkpoint for step 100"
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30100), DONE, prep=prep(), timeout=240),
    Scenario("healthy-3nodes", "no_failure", job(30101, "--global-batch 24", n=3), DONE, prep=prep(3), timeout=240),
    Scenario("healthy-resume", "no_failure", job(30102), r"step80[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30103, '--steps 80 --save-interval 40')}) > /dev/null 2>&1"), timeout=240),
    Scenario("healthy-late-node", "no_failure", job(30104, late=20, rdzv=C10D), DONE, prep=prep(), timeout=240),
    Scenario("healthy-workers-lr", "no_failure", job(30105, "--workers 2 --lr 1e-3 --steps 150"), DONE, prep=prep(),
             timeout=240),
    Scenario("healthy-eval", "no_failure", job(30106, "--eval-interval 50"), r"Finished lm evals[\s\S]*" + DONE,
             prep=prep(), timeout=240),
    Scenario("source-keyerror", "worker_exception", job(30106), r"KeyError", prep=prep(hook="keyerr"), timeout=150,
             hang_ok=True),
    Scenario("no-shared-fs-flag", "worker_exception", job(30106, env={0: "GLOO_SOCKET_IFNAME=eth0",
             1: "GLOO_SOCKET_IFNAME=eth0"}), r"OLMoConfigurationError[\s\S]*" + EX, prep=prep(), timeout=90,
             hang_ok=True),
    Scenario("token-ids-over-vocab", "worker_exception", job(30109), r"Token IDs[\s\S]*" + EX,
             prep=prep(extra=BADTOK), timeout=150, hang_ok=True),
    Scenario("heldout-ids-over-vocab", "worker_exception", job(30107, "--eval-interval 50"),
             r"Token IDs[\s\S]*" + EX, prep=prep(extra=BADEVAL), timeout=150, hang_ok=True),
    Scenario("resume-dmodel-96", "worker_exception", job(30107, "--d-model 96"), EX,
             prep=prep(extra=f"({job(30108, '--steps 40 --save-interval 20')}) > /dev/null 2>&1"),
             timeout=150, hang_ok=True),
    Scenario("rank2-segv", "native_crash", job(30109), EX, prep=prep(hook="segv"), timeout=150, hang_ok=True),
    Scenario("rank3-abort-step100", "native_crash", job(30108), EX, prep=prep(hook="abort3"), timeout=150,
             hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30100), EX, prep=prep(hook="leak"), memory=3 << 30,
             timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30101), EX, prep=prep(), tmpfs=(("ckpt", "3m"),), timeout=150,
             hang_ok=True),
    Scenario("data-cache-tmpfs", "disk_full", job(30103), EX, prep=prep(), tmpfs=(("data/cache", "8k"),),
             timeout=150, hang_ok=True),
    Scenario("lr-1e6", "training_divergence", job(30102, "--lr 1e6"), r"loss encountered[\s\S]*" + EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank1-stopped", "silent_hang", job(30103), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (80, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("rank4-stopped-3nodes", "silent_hang", job(30106, "--global-batch 24", n=3), AT110, prep=prep(3),
             trigger=((AT110, "rank4:STOP"), (75, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30104), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("preempt-ckpt-3nodes", "job_preempted", job(30108, "--global-batch 24", n=3), EX + "|" + CK100,
             prep=prep(3), trigger=((CK100, "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30105), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-22-missing", "rendezvous_timeout", job(30106, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30107), EX, prep=prep(),
             stale=f"ip netns exec cbxnode0 {{py}} -m http.server --bind {IPS[0]} 30107", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-22", "nccl_network_config", job(30108, env={1: "GLOO_SOCKET_IFNAME=ib0 OLMO_SHARED_FS=1"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("norm-shape-rank3", "collective_mismatch", job(30109), EX, prep=prep(hook="shape3"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(30100, "--pg-timeout 20"), r"[Tt]imed out[\s\S]*" + EX,
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("slow-rank4-pg20-3nodes", "collective_timeout", job(30109, "--pg-timeout 20 --global-batch 24", n=3),
             r"[Tt]imed out[\s\S]*" + EX, prep=prep(3, hook="slow4"), timeout=150, hang_ok=True),
    Scenario("old-olmo-core-node-22", "library_version_mismatch",
             job(30101, env={1: f"{ENV} PYTHONPATH=/tmp/cb-x-pydeps"}), r"olmo_core[\s\S]*" + EX,
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("tiny-shm-node-22", "shm_exhausted", job(30102, "--workers 2", shm={1: "16k"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("global-batch-24", "batch_size_mismatch", job(30103, "--global-batch 24"),
             r"must be divisible[\s\S]*" + EX, prep=prep(), timeout=120, hang_ok=True),
    Scenario("3nodes-global-batch-16", "batch_size_mismatch", job(30105, n=3), r"must be divisible[\s\S]*" + EX,
             prep=prep(3), timeout=120, hang_ok=True),
    Scenario("wrong-master-node-22", "rendezvous_timeout", job(30104, rdzv=C10D, master={1: "10.109.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
