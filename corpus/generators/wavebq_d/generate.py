"""Generate wave BQ (d)'s real runs (sealed batch ``heldout72``, ecosystem ``accelerate``): pre-training of a tiny GPT-2
causal LM on a synthetic product-description corpus with a custom Hugging Face Accelerate loop
(``project/train_prodlm.py``: ``accelerator.prepare``/``backward``/``clip_grad_norm_``, ``accelerator.save_state``
checkpoints of the FSDP model with SHARDED_STATE_DICT, ``accelerate.logging``) under Accelerate's FSDP plugin
(``fsdp_config.yaml``: ``distributed_type: FSDP``, fsdp_version 2, FULL_SHARD-style resharding, transformer-based
auto-wrap of ``GPT2Block``) launched with **multi-node** ``ACCELERATE_USE_CPU=1 accelerate launch --config_file
fsdp_config.yaml --num_machines 2 --machine_rank K --main_process_ip 10.75.0.11`` (torchrun underneath; gloo) on two
or three hosts: Linux network namespaces ``bqdnode0..2`` (10.75.0.11-13 on one bridge, ``../netns_hosts.sh``), each
node in its own UTS namespace with hostname ``ml-node-a1``/``a2``/``a3``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Accelerate 1.16 only switches to FSDP on accelerator devices (on CPU it stays MULTI_CPU and ignores the plugin), so
the training script turns the FSDP plugin on itself when it finds MULTI_CPU (see the README).

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bq-d``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install transformers==4.57.6 accelerate==1.16.0``); the
library-version scenario also needs ``pip install --no-deps --target /tmp/bqd-oldtok tokenizers==0.21.4``.
Ports 39700-39999.

    python3 corpus/generators/wavebq_d/generate.py --list
    python3 corpus/generators/wavebq_d/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebq-d", here=HERE, split="heldout72", ecosystem="accelerate", bin=Path("/tmp/venv-bq-d/bin"),
            fragment="wave-bq-runs-d.csv", project=HERE / "project", extra_env={"HF_HUB_OFFLINE": "1"})
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bqd 10.75.0 ml-node-a1,ml-node-a2,ml-node-a3"
IPS = ("10.75.0.11", "10.75.0.12", "10.75.0.13")
HOSTS = ("ml-node-a1", "ml-node-a2", "ml-node-a3")
CLI_FSDP = ("--use_fsdp --fsdp_version 2 --fsdp_reshard_after_forward false --fsdp_auto_wrap_policy "
            "TRANSFORMER_BASED_WRAP --fsdp_transformer_layer_cls_to_wrap GPT2Block --fsdp_state_dict_type "
            "SHARDED_STATE_DICT ")


def prep(n: int = 2, hook: str = "", strategy: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_corpus.py '{hook}' '{strategy}'" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, launch: str) -> str:
    inner = (f"hostname {HOSTS[i]} && cd {{job}} && exec env ACCELERATE_USE_CPU=1 {env} nice -n 5 {{bin}}/accelerate "
             f"launch {launch} --num_machines {n} --num_processes {n * procs} --machine_rank {i} --main_process_ip "
             f"{master} --main_process_port {port} train_prodlm.py {args}")
    return f"ip netns exec bqdnode{i} unshare --uts bash -c '{inner}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None,
        late: float = 1, only: tuple | None = None, launch: str = "--config_file fsdp_config.yaml ",
        procs: int = 2, pre: str = "", tee: tuple = ()) -> str:
    env, master = env or {}, master or {}
    # tee: these nodes' output also appended to node-logs/<host>.log through `tee` (a pipeline in the job shell)
    out = lambda i: f" 2>&1 | tee -a node-logs/{HOSTS[i]}.log" if i in tee else ""  # noqa: E731
    return pre + ("mkdir -p node-logs; " if tee else "") + harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs,
                       launch) + out(i), n, late, only)


CFG = "--config_file fsdp_config.yaml "
C10D = CFG + "--rdzv_backend c10d --rdzv_conf join_timeout=40 "
DONE = r"training complete[\s\S]*job exited with 0"
LONG = "--max-steps 3000"
AT40 = r"Saved checkpoint outputs/prodlm/checkpoints/step_40 in"
# the whole of ml-node-a2 going away: every process in its network namespace SIGKILLed a few seconds after step 40's
# checkpoint (a watcher started in the background of the job shell; it prints nothing). The job shell then prints
# 'Killed' for ml-node-a2's launcher, so the first failure is in the log: labelled host_oom_killed, not
# peer_process_died
NODE_LOSS = ("(while [ ! -e outputs/prodlm/checkpoints/step_40/scheduler.bin ]; do sleep 0.5; done; sleep 4; "
             "ip netns pids bqdnode1 | xargs -r kill -9) >/dev/null 2>&1 & ")
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(39710, "--max-steps 300"), DONE, prep=prep(), timeout=400),
    Scenario("healthy-3nodes", "no_failure", job(39720, "--max-steps 200 --global-batch 24", n=3, procs=1), DONE,
             prep=prep(3), timeout=400),
    Scenario("healthy-resume", "no_failure", job(39730, "--max-steps 240"), r"Resuming from checkpoint[\s\S]*" + DONE,
             prep=prep() + f" && ({job(39731, '--max-steps 120')}) > /dev/null 2>&1", timeout=400),
    Scenario("healthy-late-node", "no_failure", job(39740, "--max-steps 200", late=20, launch=C10D), DONE,
             prep=prep(), timeout=400),
    Scenario("healthy-cli-flags", "no_failure", job(39750, "--max-steps 200", launch=CLI_FSDP), DONE,
             prep=prep(strategy="SHARD_GRAD_OP"), timeout=400),
    Scenario("rank-sigkill", "host_oom_killed", job(39760, LONG), r"exited with", prep=prep(),
             trigger=((AT40, "rank3:KILL"),), timeout=300, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(39770, LONG), r"exited with", prep=prep(hook="segv"), timeout=300,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(39780, "--max-steps 400 --lr 300"), r"exited with", prep=prep(),
             timeout=300, hang_ok=True),
    Scenario("rank-keyerror", "worker_exception", job(39790, LONG), r"KeyError", prep=prep(hook="keyerr"),
             timeout=300, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(39800, LONG + " --dim 256"), r"exited with", prep=prep(),
             tmpfs=(("outputs", "4m"),), timeout=300, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(39810, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bqdnode0 {{py}} -m http.server --bind {IPS[0]} 39810", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("node2-missing", "rendezvous_timeout", job(39820, LONG, only=(0,), launch=C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("preempt", "job_preempted", job(39830, LONG), r"exited with|step_40", prep=prep(),
             trigger=((AT40, "scheduler:15"),), timeout=300, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(39840, LONG), r"exited with|step_40", prep=prep(),
             trigger=((AT40, "runner:HUP"),), timeout=300, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(39850, LONG), r"step_40", prep=prep(),
             trigger=((AT40, "rank1:STOP"), (100, "scheduler:15")), timeout=300, hang_ok=True),
    Scenario("global-batch-30", "batch_size_mismatch", job(39860, LONG + " --global-batch 30"), r"exited with",
             prep=prep(), timeout=200, hang_ok=True),
    Scenario("short-batch-gather", "collective_mismatch", job(39870, LONG, launch=CFG + "--debug "),
             r"exited with", prep=prep(hook="short"), timeout=200, hang_ok=True),
    Scenario("ifname-node2", "nccl_network_config", job(39880, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=200, hang_ok=True),
    Scenario("old-tokenizers-node2", "library_version_mismatch",
             job(39890, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bqd-oldtok"}), r"tokenizers",
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("node2-lost", "host_oom_killed", job(39900, LONG, pre=NODE_LOSS), r"exited with", prep=prep(),
             timeout=200, hang_ok=True),
    # the same node loss, but ml-node-a2's output goes through `tee` into a per-node log file, so the job shell has no
    # 'Killed' line: only ml-node-a1's side of the broken connection is in the console (peer_process_died)
    Scenario("node2-lost-teed", "peer_process_died", job(39940, LONG, pre=NODE_LOSS, tee=(1,)), r"exited with",
             prep=prep(), timeout=200, hang_ok=True),
    Scenario("rank-abort", "native_crash", job(39910, LONG), r"exited with", prep=prep(hook="abort"), timeout=300,
             hang_ok=True),
    Scenario("cgroup-oom", "host_oom_killed", job(39920, LONG + " --dim 1024 --layers 4 --global-batch 64"),
             r"exited with", prep=prep(), memory=2_000_000_000, timeout=300, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout", job(39930, LONG, master={1: "10.75.0.99"}, launch=C10D),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
