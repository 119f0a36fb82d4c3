"""Generate wave CA (x)'s real runs (generator and script carried over from wave BZ (x), which never wrote its
manifest; every log rerun here) (sealed batch ``heldout82``, ecosystem ``peft``): LoRA (and once IA3) fine-tuning
with Hugging Face PEFT 0.21.2 + transformers 5.25.0 ``Trainer`` (accelerate 1.16.0) of a tiny GPT-2 built from a
config (2 layers, n_embd 128, 2 heads, vocab 128, 64-token context; 0.44M parameters, LoRA r=8 on c_attn/c_proj:
22,528 trainable) on synthetic token ids (``project/train_lora.py``: ``use_cpu=True``, ``ddp_backend="gloo"``,
300 steps, a log dict every 10, ``checkpoint-N`` every 100, then ``save_pretrained`` of the adapter and optionally
``merge_and_unload``) under multi-node ``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K
--master-addr 10.106.0.11`` on two or three hosts: Linux network namespaces ``caxnode0..2`` (10.106.0.11-13 on bridge
``brcax``, ``../netns_hosts.sh``), each node in its own UTS namespace with hostname ``lora-node-a``/``b``/``c``. Every
node starts from one job shell in the background; their output goes to one console (the job.log), then the shell's
``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-ca-x`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/ca-x-pydeps accelerate==1.0.1``.
Ports 30070-30079.

    python3 corpus/generators/waveca_x/generate.py --list
    python3 corpus/generators/waveca_x/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="waveca-x", here=HERE, split="heldout82", ecosystem="peft", fragment="wave-ca-runs-x.csv",
            bin=Path("/tmp/venv-ca-x/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cax 10.106.0 lora-node-a,lora-node-b,lora-node-c"
IPS = ("10.106.0.11", "10.106.0.12", "10.106.0.13")
HOSTS = ("lora-node-a", "lora-node-b", "lora-node-c")
TRAIN = "train_lora.py "

# the team's per-step hook (train_hooks.py, called from a TrainerCallback's on_step_end); written by prep
HOOKS = {
    "keyerr": '''
# per-shard token audit every 50 steps from step 100; the shard table was written for the 3-rank test setup
SHARD_OF_RANK = {0: "code-a", 1: "code-b", 2: "code-c"}
seen = {}
def on_step(rank, step, model):
    if step >= 100 and step % 50 == 0:
        shard = SHARD_OF_RANK[rank]
        seen[shard] = seen.get(shard, 0) + 1
''',
    "segv": '''
import ctypes
# adapter-norm fast path through a C helper; on rank 2 it reads a NULL buffer
def on_step(rank, step, model):
    if rank == 2 and step == 100:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps every step's LoRA weights for a later "trajectory" plot; rank 1 also keeps a 64 MB scratch copy per step
history = []
def on_step(rank, step, model):
    if rank == 1 and step >= 60:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 50 steps from step 100 average the flattened LoRA-B weights across ranks (drift check); rank 3 pads one
def on_step(rank, step, model):
    if step >= 100 and step % 50 == 0:
        flat = torch.cat([p.detach().flatten() for k, p in model.named_parameters() if "lora_B" in k])
        if rank == 3:
            flat = torch.cat([flat, torch.zeros(1)])
        dist.all_reduce(flat)
''',
    "slow1": '''
import time
# rank 1 re-reads its data shard from slow storage at step 100 (60 s)
def on_step(rank, step, model):
    if rank == 1 and step == 100:
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
        return (f"ip netns exec caxnode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec caxnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"train done: global_step=300[\s\S]*job exited with 0"
AT = r"'epoch': '0.7812'"  # the step-100 log line of a 2-node job (4 ranks x 8 = 32 samples/step of 4096)
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30070, "--merge-out merged"), DONE + "", prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(30071, n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(30072, "--resume"), r"checkpoint-150[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30073, '--max-steps 150 --save-steps 50')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(30074, late=20, rdzv=C10D), DONE, prep=prep(), timeout=200),
    Scenario("healthy-ia3", "no_failure", job(30075, "--method ia3 --lr 3e-2"), DONE, prep=prep(), timeout=200),
    Scenario("shard-keyerror", "worker_exception", job(30076), r"KeyError", prep=prep(hook="keyerr"), timeout=150,
             hang_ok=True),
    Scenario("target-modules-node-b", "worker_exception", job(30077, "--ddp-timeout 40",
             nargs={1: "--target-modules q_proj,v_proj"}), r"Target modules[\s\S]*" + EX, prep=prep(), timeout=150,
             hang_ok=True),
    Scenario("adapter-size-mismatch", "worker_exception", job(30078, "--init-adapter adapters/sft-v1 --n-embd 96"),
             r"size mismatch[\s\S]*" + EX,
             prep=prep(extra=f"({job(30079, '--max-steps 20 --adapter-out adapters/sft-v1')}) > /dev/null 2>&1"),
             timeout=150, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(30070), EX, prep=prep(hook="segv"), timeout=150, hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30071), EX, prep=prep(hook="leak"), memory=3 << 30,
             timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30072), EX, prep=prep(), tmpfs=(("out-lora", "600k"),), timeout=150,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30073, "--lr 1e9 --stop-on-nan"), r"nan[\s\S]*" + EX, prep=prep(),
             timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30074), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (80, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30075), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30076), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30077, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30078), EX, prep=prep(),
             stale=f"ip netns exec caxnode0 {{py}} -m http.server --bind {IPS[0]} 30078", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30079, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("lorab-shape-rank3", "collective_mismatch", job(30070), EX, prep=prep(hook="shape3"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(30076, "--pg-timeout 20"), r"[Tt]imed out[\s\S]*" + EX,
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("old-accelerate-node-b", "library_version_mismatch",
             job(30072, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/ca-x-pydeps"}), r"accelerate[\s\S]*" + EX,
             prep=prep(), timeout=100, hang_ok=True),
    Scenario("tiny-shm-node-b", "shm_exhausted", job(30073, "--workers 2", shm={1: "16k"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("split-batch-6", "batch_size_mismatch", job(30074, "--split-batches --batch-size 6"),
             r"round multiple[\s\S]*" + EX, prep=prep(), timeout=120, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30075, rdzv=C10D, master={1: "10.106.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
