"""Generate wave CB (y)'s real runs (sealed batch ``heldout83``, ecosystem ``ms-swift``): LoRA SFT with ms-swift 4.6.0
(``swift sft``; transformers 5.19.0 Trainer, peft 0.20.0, accelerate 1.16.0) of a tiny Qwen2-architecture model
built from a config (``project/build_assets.py``: 2 layers, hidden 64, own 400-token BPE tokenizer, random init) on
synthetic calculator chats, on CPU over gloo. ColossalAI, the framework first asked for, was not usable: every
release (0.5.0 and colossalai-nightly 2025.7.12) pins ``torch>=2.2.0,<=2.5.1`` and the system torch is 2.13.0 (see
README.md), so this wave uses the brief's first free fallback.

The team's entry point ``project/sft.sh`` runs ``swift sft`` with its defaults (plus the team's plugin
``project/team_plugin.py``: a per-step hook module and a NaN guard); swift's own launcher turns ``NNODES``,
``NODE_RANK``, ``NPROC_PER_NODE``, ``MASTER_ADDR``, ``MASTER_PORT`` into ``python -m torch.distributed.run``. Hosts:
Linux network namespaces ``cbynode0..2`` (10.110.0.11-13 on bridge ``brcby``, ``../netns_hosts.sh``), each node in
its own UTS namespace with hostname ``sft-cpu-21``/``22``/``23``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-cb-y``
(see README.md). Ports 30110-30119.

    python3 corpus/generators/wavecb_y/generate.py --list
    python3 corpus/generators/wavecb_y/generate.py --scenario NAME
"""
from __future__ import annotations

import contextlib
import sys
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402


def _is_torchrun(p: psutil.Process) -> bool:
    """The launcher a scheduler or a closed terminal signals: the torchrun that ``swift sft`` starts on each node."""
    with contextlib.suppress(psutil.Error):
        return "torch.distributed.run" in " ".join(p.cmdline())
    return False


WAVE = Wave(tag="wavecb-y", here=HERE, split="heldout83", ecosystem="ms-swift", fragment="wave-cb-runs-y.csv",
            bin=Path("/tmp/venv-cb-y/bin"), project=HERE / "project", is_runner=_is_torchrun, runner_recursive=True)
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cby 10.110.0 sft-cpu-21,sft-cpu-22,sft-cpu-23"
IPS = ("10.110.0.11", "10.110.0.12", "10.110.0.13")
HOSTS = ("sft-cpu-21", "sft-cpu-22", "sft-cpu-23")
BUILD = "{py} build_assets.py"

HOOKS = {
    "shard-index": '''
# per-rank data-shard audit every 50 steps from step 150; the shard list was written for the 3-rank test setup
SHARDS = ["calc-a.jsonl", "calc-b.jsonl", "calc-c.jsonl"]
audited = []
def on_step(rank, step, model):
    if step >= 150 and step % 50 == 0:
        audited.append((step, SHARDS[rank]))
''',
    "save-meta": '''
import json
import os
# after each checkpoint save, rank 0 writes the team's run card next to it (the eval loss is kept as a tensor)
import torch
def on_save(rank, step, output_dir):
    if rank == 0:
        card = {"step": step, "base": "qwen2-tiny", "score": torch.tensor(0.5 + step / 1000)}
        with open(os.path.join(output_dir, f"checkpoint-{step}", "run_card.json"), "w") as f:
            json.dump(card, f)
''',
    "segv": '''
import ctypes
# token-histogram fast path through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, step, model):
    if rank == 2 and step == 70:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps a copy of every step's LoRA weights for a "trajectory" plot; rank 1 also keeps a 64 MB scratch buffer per step
history = []
def on_step(rank, step, model):
    if rank == 1 and step >= 40:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape0": '''
import torch
import torch.distributed as dist
# every 100 steps from step 200 average the flattened lora_A weights across ranks (drift check); rank 0 adds a flag
def on_step(rank, step, model):
    if step >= 200 and step % 100 == 0:
        flat = torch.cat([p.detach().flatten() for k, p in model.named_parameters() if "lora_A" in k])
        if rank == 0:
            flat = torch.cat([flat, torch.ones(1)])
        dist.all_reduce(flat)
''',
    "abort3": '''
import ctypes
# after each checkpoint save, rank 3 checksums its shard of the checkpoint through the team's C helper; at
# checkpoint-150 the helper hits a failed assertion and aborts
def on_save(rank, step, output_dir):
    if rank == 3 and step == 150:
        ctypes.CDLL(None).abort()
''',
    "side2": '''
import time
from datetime import timedelta
import torch
import torch.distributed as dist
# every 50 steps the ranks sum their step counters over a side gloo group with a short (20 s) timeout (the team's
# liveness check); rank 2 re-reads its data shard from slow storage at step 100 (60 s) first
_group = None
def on_step(rank, step, model):
    global _group
    if _group is None:
        _group = dist.new_group(backend="gloo", timeout=timedelta(seconds=20))
    if rank == 2 and step == 100:
        time.sleep(60)
    if step % 50 == 0:
        dist.all_reduce(torch.tensor([float(step)]), group=_group)
''',
    "lrscale5": '''
# per-rank LR-scale audit at every eval step; the table was written for the 5-rank debug setup
LR_SCALE = {0: 1.0, 1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}
def on_step(rank, step, model):
    if step % 100 == 0:
        assert LR_SCALE[rank] > 0
''',
    "ckptcopy2": '''
import torch
# after each checkpoint save from checkpoint-100, rank 2 keeps an in-memory "EMA snapshot" for the team's
# averaging experiment; the buffer was sized for the 7B model config (1 GiB each)
snapshots = []
def on_save(rank, step, output_dir):
    if rank == 2 and step >= 100:
        snapshots.append(torch.ones(256 * 1024 * 1024))
''',
    "slow2": '''
import time
# rank 2 re-reads its data shard from slow storage at step 80 (60 s)
def on_step(rank, step, model):
    if rank == 2 and step == 80:
        time.sleep(60)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "", build: str = "") -> str:
    s = f"{NETNS} up {n} && {BUILD} {build}".rstrip()
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, shm: str) -> str:
    cmd = (f"env {env} NNODES={n} NODE_RANK={i} NPROC_PER_NODE={procs} MASTER_ADDR={master} MASTER_PORT={port} "
           f"nice -n 5 ./sft.sh {args}").rstrip()
    if shm:  # a node whose /dev/shm is a tiny tmpfs (its own mount namespace)
        return (f"ip netns exec cbynode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec cbynode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, procs: int = 2, shm: dict | None = None, nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, shm.get(i, "")),
        n, late, only)


DONE = r"End time of running main[\s\S]*job exited with 0"
EX = r"exited with"
AT = r"'global_step/max_steps': '100/300'"
CKPT150 = r"Saving model checkpoint to \S+/checkpoint-150"
# torchrun reads its options from PET_* variables too: swift passes only the static ones, these switch to c10d
C10D = "PET_RDZV_BACKEND=c10d PET_RDZV_ENDPOINT=10.110.0.11:{port} PET_RDZV_CONF=join_timeout=40"


def c10d(port: int, n: int = 2, extra: dict | None = None) -> dict:
    extra = extra or {}
    return {i: f"GLOO_SOCKET_IFNAME=eth0 {C10D.format(port=port)} {extra.get(i, '')}".strip() for i in range(n)}


SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30110), DONE, prep=prep(), timeout=240),
    Scenario("healthy-3nodes", "no_failure", job(30111, n=3), DONE, prep=prep(3), timeout=240),
    Scenario("healthy-resume", "no_failure", job(30112, "--resume_from_checkpoint output/calc-lora/checkpoint-150"),
             r"checkpoint-150[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30113, '--max_steps 150')}) > /dev/null 2>&1"), timeout=240),
    Scenario("healthy-late-node", "no_failure", job(30114, late=25), DONE, prep=prep(), timeout=240),
    Scenario("healthy-full-tqdm", "no_failure", job(30115, "--tuner_type full --learning_rate 1e-3 --disable_tqdm false"
             " --save_steps 100"), DONE, prep=prep(), timeout=240),
    Scenario("shard-indexerror", "worker_exception", job(30116), r"IndexError[\s\S]*" + EX,
             prep=prep(hook="shard-index"), timeout=180, hang_ok=True),
    Scenario("runcard-json-save", "worker_exception", job(30117), r"not JSON serializable[\s\S]*" + EX,
             prep=prep(hook="save-meta"), timeout=180, hang_ok=True),
    Scenario("dataset-path-typo", "worker_exception", job(30118, "--dataset data/train_v2.jsonl"), EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank2-segv", "native_crash", job(30119), EX, prep=prep(hook="segv"), timeout=180, hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30110), EX, prep=prep(hook="leak"), memory=4 << 30,
             timeout=180, hang_ok=True),
    Scenario("rank2-snapshot-oom", "host_oom_killed", job(30112), EX, prep=prep(hook="ckptcopy2"), memory=4 << 30,
             timeout=180, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30111), EX, prep=prep(), tmpfs=(("output/calc-lora", "700k"),),
             timeout=180, hang_ok=True),
    Scenario("huge-lr-nan", "training_divergence", job(30112, "--learning_rate 1e6"), r"nan[\s\S]*" + EX,
             prep=prep(), timeout=180, hang_ok=True),
    Scenario("huge-lr-guard", "training_divergence", job(30115, "--learning_rate 3e5 --logging_nan_inf_filter false"),
             r"nan_guard[\s\S]*" + EX, prep=prep(), timeout=180, hang_ok=True),
    Scenario("rank3-abort-ckpt", "native_crash", job(30116), EX, prep=prep(hook="abort3"), timeout=180, hang_ok=True),
    Scenario("dataset-cache-tmpfs", "disk_full", job(30118, env={i: "GLOO_SOCKET_IFNAME=eth0 MODELSCOPE_CACHE={job}/cache"
             for i in range(2)}), EX, prep=prep(), tmpfs=(("cache", "64k"),), timeout=150, hang_ok=True),
    Scenario("3nodes-lrscale-rank5", "worker_exception", job(30119, n=3), r"KeyError[\s\S]*" + EX,
             prep=prep(3, hook="lrscale5"), timeout=240, hang_ok=True),
    Scenario("rank0-stopped-ckpt", "silent_hang", job(30110), CKPT150, prep=prep(),
             trigger=((CKPT150, "rank0:STOP"), (100, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt-data-prep", "job_preempted", job(30111), EX, prep=prep(),
             trigger=((r"Dataset Token Length", "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("rank2-stopped", "silent_hang", job(30113), AT, prep=prep(),
             trigger=((AT, "rank2:STOP"), (90, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30114), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=180, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30115), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=180, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30116, env=c10d(30116), only=(0,)), EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30117, env=c10d(30117) | {1: "GLOO_SOCKET_IFNAME=eth0 "
             + C10D.format(port=30117).replace("10.110.0.11", "10.110.0.91")}), EX, prep=prep(), timeout=150,
             hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30118), EX, prep=prep(),
             stale=f"ip netns exec cbynode0 {{py}} -m http.server --bind {IPS[0]} 30118", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30119, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("loraa-shape-rank0", "collective_mismatch", job(30110), EX, prep=prep(hook="shape0"), timeout=180,
             hang_ok=True),
    Scenario("slow-rank2-timeout20", "no_failure", job(30111, "--ddp_timeout 20"), EX,
             prep=prep(hook="slow2"), timeout=180, hang_ok=True),
    Scenario("side-group-timeout20", "collective_timeout", job(30117), r"[Tt]imed out[\s\S]*" + EX,
             prep=prep(hook="side2"), timeout=180, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30112, "--dataloader_num_workers 2", shm={1: "16k"}), EX,
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("old-tokenizers-node-b", "library_version_mismatch",
             job(30113, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/cb-y-pydeps"}), r"tokenizers[\s\S]*" + EX,
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("split-batches-6", "no_failure", job(30114, "--per_device_train_batch_size 6 "
             "--accelerator_config configs/accelerate_split.json"), EX,
             prep=prep(extra="mkdir -p configs && echo '{\"split_batches\": true, \"dispatch_batches\": false}' > "
                             "configs/accelerate_split.json"), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
