"""Generate wave BQ (e)'s real runs (sealed batch ``heldout72``, ecosystem ``deepspeed``): a support-ticket priority
classifier (P1-P4; a tiny ``BertForSequenceClassification``, 2 layers, hidden 64) trained with the Hugging Face
``Trainer`` and DeepSpeed ZeRO (``--deepspeed configs/ds_zero2.json`` with "auto" values; the Trainer's torch AdamW
and linear schedule as DeepSpeed client optimizer/scheduler) on CPU (DeepSpeed's CPU accelerator, gloo), launched
**multi-node** with the ``deepspeed`` launcher per node:

    deepspeed --hostfile hostfile --no_ssh --num_nodes 2 --num_gpus 2 --node_rank K --master_addr 10.76.0.11
              --master_port P train.py ...

on two or three hosts: Linux network namespaces ``bqenode0..2`` (10.76.0.11-13 on one bridge, ``../netns_hosts.sh``),
each node in its own UTS namespace with hostname ``dgx-b01``/``02``/``03``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bq-e``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install deepspeed transformers accelerate`` -> deepspeed
0.19.8, transformers 5.25.0, accelerate 1.16.0). Ports 40000-40499.

    python3 corpus/generators/wavebq_e/generate.py --list
    python3 corpus/generators/wavebq_e/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebq-e", here=HERE, split="heldout72", ecosystem="deepspeed", bin=Path("/tmp/venv-bq-e/bin"),
            fragment="wave-bq-runs-e.csv", project=HERE / "project",
            # DeepSpeed JIT-builds its CPU shm comm op; keep the build cache outside the emptied HOME (as wave BK a)
            extra_env={"TORCH_EXTENSIONS_DIR": "/tmp/wavebq-e-job/ext", "HF_HUB_OFFLINE": "1"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bqe 10.76.0 dgx-b01,dgx-b02,dgx-b03"
IPS = ("10.76.0.11", "10.76.0.12", "10.76.0.13")
HOSTS = ("dgx-b01", "dgx-b02", "dgx-b03")
TRAIN = ("--output_dir outputs/ticket-priority --per_device_train_batch_size 8 --learning_rate 3e-3 "
         "--warmup_steps 10 --weight_decay 0.01 --logging_steps 5 --save_steps 40 --eval_strategy steps "
         "--eval_steps 40 --report_to none --ddp_backend gloo --log_level info --average_tokens_across_devices False "
         "--seed 42")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_tickets.py {hook}" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, cfg: str) -> str:
    hostfile = "hostfile" if n == 2 else "hostfile3"
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env {env} nice -n 5 {{bin}}/deepspeed --hostfile {hostfile} "
             f"--no_ssh --num_nodes {n} --num_gpus {procs} --node_rank {i} --master_addr {master} --master_port {port} "
             f"train.py {TRAIN} --deepspeed {cfg} {args}")
    return f"ip netns exec bqenode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "--max_steps 120", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, procs: int = 2, cfg: str = "configs/ds_zero2.json") -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, cfg),
        n, late, only)


OLD_SITE = "/tmp/wavebq-e-job/node-site"
DONE = r"rank 0: training complete[\s\S]*job exited with 0"
LONG = "--max_steps 1500"
AT40 = r"rank 3: checkpoint-40 saved"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(40010), DONE, prep=prep(), timeout=400),
    Scenario("healthy-3nodes-zero1", "no_failure", job(40020, n=3, procs=1, cfg="configs/ds_zero1.json"), DONE,
             prep=prep(3), timeout=400),
    Scenario("healthy-resume", "no_failure", job(40030, "--max_steps 160"), r"resuming from[\s\S]*" + DONE,
             prep=prep() + f" && ({job(40031, '--max_steps 80')}) > /dev/null 2>&1", timeout=400),
    Scenario("healthy-late-node", "no_failure", job(40040, late=25), DONE, prep=prep(), timeout=400),
    Scenario("healthy-legacy-config", "no_failure", job(40050, cfg="configs/ds_zero2_legacy.json"), DONE, prep=prep(),
             timeout=400),
    Scenario("rank-keyerror", "worker_exception", job(40060, LONG), r"exited with", prep=prep(hook="keyerr"),
             timeout=300, hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(40070, LONG), r"exited with", prep=prep(),
             trigger=((AT40, "rank3:KILL"),), timeout=300, hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(40080, LONG + " --hidden_size 768 --layers 12"), r"exited with",
             prep=prep(), memory=3_000_000_000, timeout=300, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(40090, LONG), r"exited with", prep=prep(hook="segv"), timeout=300,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(40100, "--max_steps 120 --learning_rate 80"), r"exited with",
             prep=prep(), timeout=400, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(40110, LONG), r"exited with", prep=prep(),
             tmpfs=(("outputs", "1m"),), timeout=300, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(40120, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bqenode0 {{py}} -m http.server --bind {IPS[0]} 40120", stale_ready=r"Serving HTTP",
             timeout=200, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(40130, LONG + " --ddp_timeout 60", only=(0,)),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(40140, LONG), r"exited with|checkpoint-40", prep=prep(),
             trigger=((AT40, "scheduler:15"),), timeout=300, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(40150, LONG), r"exited with|checkpoint-40", prep=prep(),
             trigger=((AT40, "runner:HUP"),), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(40160, LONG), r"checkpoint-40", prep=prep(),
             trigger=((AT40, "rank1:STOP"), (150, "scheduler:15")), timeout=300, hang_ok=True),
    Scenario("batch-config-3nodes", "batch_size_mismatch", job(40170, n=3, cfg="configs/ds_zero2_4x8.json"),
             r"exited with", prep=prep(3), timeout=300, hang_ok=True),
    # dropped: with plain gloo the mismatched all_reduce hung silently at step 47 (no error in 300 s); the team's
    # rerun with TORCH_DISTRIBUTED_DEBUG=DETAIL (below) is what was kept
    # Scenario("stat-shape", "collective_mismatch", job(40180, LONG), r"exited with", prep=prep(hook="shape"),
    #          timeout=300, hang_ok=True),
    Scenario("stat-shape-debug", "collective_mismatch",
             job(40185, LONG, env={i: "TORCH_DISTRIBUTED_DEBUG=DETAIL GLOO_SOCKET_IFNAME=eth0" for i in (0, 1)}),
             r"exited with", prep=prep(hook="shape"), timeout=240, hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(40190, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(40200, LONG + " --ddp_timeout 60", master={1: "10.76.0.99"}),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
    # dgx-b02's image carries an older accelerate on its PYTHONPATH (site dir made by pip --target in prep)
    Scenario("node2-old-accelerate", "library_version_mismatch",
             job(40210, LONG, env={1: f"PYTHONPATH={OLD_SITE} GLOO_SOCKET_IFNAME=eth0"}), r"exited with",
             prep=prep(extra=f"{{bin}}/pip install -q --no-deps --target {OLD_SITE} accelerate==1.0.1"), timeout=200,
             hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
