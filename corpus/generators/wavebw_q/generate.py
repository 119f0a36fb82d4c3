"""Generate wave BW (q)'s real runs (sealed batch ``heldout78``, ecosystem ``diffusers``): a tiny unconditional DDPM
(Diffusers 0.42.1 ``UNet2DModel``, sample_size 16, block_out_channels (32, 64), DownBlock2D + AttnDownBlock2D,
``DDPMScheduler`` 1000 steps, ``diffusers.optimization.get_scheduler`` cosine, ``EMAModel``, a ``DDPMPipeline``
sample + ``save_pretrained`` every epoch and ``accelerator.save_state`` checkpoints every 20 steps) trained with
Accelerate 1.16.0 (``Accelerator(cpu=True)``, DDP over gloo) by the team's script
``project/train_unconditional_tiny.py`` (written after Diffusers' examples/unconditional_image_generation/
train_unconditional.py) on 96 synthetic 32x32 PNGs (``project/make_shapes.py``), launched with multi-node
``python -m torch.distributed.run --nnodes N --nproc-per-node 2 --node-rank K --master-addr 10.91.0.11`` on two or
three hosts: network namespaces ``bwqnode0..2`` (10.91.0.11-13 on bridge ``brbwq``, ``../netns_hosts.sh``), each node
in its own UTS namespace with hostname ``diff-node-a``/``b``/``c``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup) and the venv ``/tmp/venv-bw-q`` (see
README.md); the version-mismatch run also needs ``pip install --no-deps --target /tmp/bw-q-pydeps
huggingface_hub==0.20.3``. Ports 29920-29929.

    python3 corpus/generators/wavebw_q/generate.py --list
    python3 corpus/generators/wavebw_q/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebw-q", here=HERE, split="heldout78", ecosystem="diffusers", fragment="wave-bw-runs-q.csv",
            bin=Path("/tmp/venv-bw-q/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bwq 10.91.0 diff-node-a,diff-node-b,diff-node-c"
IPS = ("10.91.0.11", "10.91.0.12", "10.91.0.13")
HOSTS = ("diff-node-a", "diff-node-b", "diff-node-c")
TRAIN = "train_unconditional_tiny.py --use_ema --num_epochs 8 "

# the team's optional hooks (train_hooks.py next to the script): setup(accelerator, model) after prepare,
# on_step(accelerator, step, batch, loss) after every optimizer step; written by prep
HOOKS = {
    "segv": '''
import ctypes
import torch.distributed as dist
# activation statistics from the UNet's mid block through a C helper; on rank 2 it gets a NULL buffer from step 25
state = {"step": 0}
def _mid_stats(module, inputs, output):
    if dist.get_rank() == 2 and state["step"] >= 25:
        ctypes.string_at(0)
def setup(accelerator, model):
    accelerator.unwrap_model(model).mid_block.register_forward_hook(_mid_stats)
def on_step(accelerator, step, batch, loss):
    state["step"] = step
''',
    "grow": '''
import torch
# keeps every batch's noise-prediction statistics "for later analysis"; on rank 3 a debug flag keeps 256 MB a step
kept = []
def on_step(accelerator, step, batch, loss):
    if accelerator.process_index == 3 and step >= 10:
        kept.append(torch.ones(64 * 1024 * 1024))
''',
    "shape3": '''
import torch
# every 10 steps average a per-rank pixel histogram across ranks; rank 3 builds it with one extra bin
def on_step(accelerator, step, batch, loss):
    if step % 10 == 0:
        nb = 65 if accelerator.process_index == 3 else 64
        hist = torch.histc(batch["input"].float(), bins=nb, min=-1, max=1)
        accelerator.reduce(hist, reduction="mean")
''',
    "slow1": '''
import time
# rank 1 uploads its sample grid to the team's share at step 12 (a stalled NFS write)
def on_step(accelerator, step, batch, loss):
    if accelerator.process_index == 1 and step == 12:
        time.sleep(75)
''',
}


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    s = f"{NETNS} up {n} && {{py}} make_shapes.py"
    if hook:
        s += f" && cat > train_hooks.py <<'HOOK'\n{HOOKS[hook].lstrip()}HOOK\n"
    return s + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, rdzv: str, pre: str, uts: str) -> str:
    cmd = (f"env {env} nice -n 5 {{py}} -m torch.distributed.run --nnodes {n} --nproc-per-node 2 "
           f"--node-rank {i} --master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}"
           f"{TRAIN}{args}")
    return f"ip netns exec bwqnode{i} unshare {uts} bash -c 'hostname {HOSTS[i]} && {pre}cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", node_args: dict | None = None, pre: dict | None = None) -> str:
    env, master, node_args, pre = env or {}, master or {}, node_args or {}, pre or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + node_args.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), rdzv, pre.get(i, ""), "--uts --mount" if i in pre else "--uts"),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"Training finished\.[\s\S]*job exited with 0"
AT = r"\| step 24/"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29920), DONE, prep=prep(), timeout=150),
    Scenario("healthy-3nodes", "no_failure", job(29921, n=3), DONE, prep=prep(3), timeout=150),
    Scenario("healthy-resume", "no_failure", job(29922, "--resume_from_checkpoint latest"),
             r"Resuming from checkpoint checkpoint-20[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29923, '--max_grad_norm 1.0 --num_epochs 4')}) > /dev/null 2>&1"), timeout=150),
    Scenario("healthy-late-node", "no_failure", job(29924, late=20, rdzv=C10D), DONE, prep=prep(), timeout=150),
    Scenario("res17-node1", "worker_exception", job(29925, node_args={1: "--resolution 17"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("midblock-segv", "native_crash", job(29926), r"exited with", prep=prep(hook="segv"), timeout=120,
             hang_ok=True),
    Scenario("rank3-grows", "host_oom_killed", job(29927), r"exited with", prep=prep(hook="grow"),
             memory=3 * 1024 ** 3, timeout=120, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29928), r"exited with", prep=prep(),
             tmpfs=(("ddpm-shapes-16", "6m"),), timeout=120, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29929, "--learning_rate 1e4 --max_grad_norm 1e9 --lr_warmup_steps 0"),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29920), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (60, "scheduler:15")), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29921), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "scheduler:15"),), timeout=120, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29922), r"exited with|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29923, only=(0,), rdzv=C10D), r"exited with", prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29924), r"exited with|Address already in use", prep=prep(),
             stale=f"ip netns exec bwqnode0 {{py}} -m http.server --bind {IPS[0]} 29924", stale_ready=r"Serving HTTP",
             timeout=90, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29925, env={1: "GLOO_SOCKET_IFNAME=ib0"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("hist-shape-rank3", "collective_mismatch", job(29926), r"exited with", prep=prep(hook="shape3"),
             timeout=120, hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(29927, "--pg_timeout 20"), r"exited with",
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("old-hub-node1", "library_version_mismatch",
             job(29929, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bw-q-pydeps"}), r"exited with",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("tiny-shm-node1", "shm_exhausted", job(29920, "--dataloader_num_workers 2 --train_batch_size 8 "
                                                           "--resolution 32 --sample_size 32",
                                                    pre={1: "mount -t tmpfs -o size=64k tmpfs /dev/shm && "}),
             r"exited with", prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
