"""Generate wave BS (e)'s real runs (sealed batch ``heldout74``, ecosystem ``fastai``): a customer-churn classifier
(fastai 2.8 tabular learner: a small MLP with embeddings on a generated customer table, ``project/train_churn.py``)
trained data-parallel with ``learn.distrib_ctx()`` (fastai.distributed, Accelerate underneath, gloo on CPU), with
SaveModelCallback (every epoch, with optimizer), EarlyStoppingCallback, CSVLogger, TerminateOnNaNCallback and a small
step logger, started on every host by **multi-node** ``ACCELERATE_USE_CPU=1 accelerate launch --multi_gpu
--num_machines N --machine_rank K --main_process_ip 10.79.0.11`` or torchrun (``python -m torch.distributed.run --nnodes N --node-rank K``, the venv's python) on two or
three hosts: Linux network namespaces ``bsenode0..2`` (10.79.0.11-13 on one bridge, ``../netns_hosts.sh``), each node
in its own UTS namespace with hostname ``vision-node-01``/``02``/``03``. Every node starts from one job shell in the
background; their output goes to one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroup v1) and the venv ``/tmp/venv-bs-e``
(``--system-site-packages`` over torch 2.13.0+cpu; ``pip install fastai accelerate`` -> fastai 2.8.12, fastcore
2.2.41, accelerate 1.16.0; the torch/torchvision pip pulled in were removed again so the system torch is used). The
version-mismatch run also needs ``pip install --no-deps --target /tmp/bs-e-pandas21 pandas==2.1.4``. Ports
29790-29799.

    python3 corpus/generators/wavebs_e/generate.py --list
    python3 corpus/generators/wavebs_e/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavebs-e", here=HERE, split="heldout74", ecosystem="fastai", bin=Path("/tmp/venv-bs-e/bin"),
            fragment="wave-bs-runs-e.csv", project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} bse 10.79.0 vision-node-01,vision-node-02,vision-node-03"
IPS = ("10.79.0.11", "10.79.0.12", "10.79.0.13")
HOSTS = ("vision-node-01", "vision-node-02", "vision-node-03")


def prep(n: int = 2, hook: str = "", extra: str = "") -> str:
    return f"{NETNS} up {n} && {{py}} make_data.py '{hook}'" + (f" && {extra}" if extra else "")


def node(i: int, port: int, n: int, args: str, env: str, master: str, procs: int, rdzv: str, launcher: str) -> str:
    if launcher == "accelerate":
        cmd = (f"env ACCELERATE_USE_CPU=1 {env} nice -n 5 {{bin}}/accelerate launch --multi_gpu --num_machines {n} "
               f"--num_processes {n * procs} --machine_rank {i} --main_process_ip {master} --main_process_port {port} "
               f"{rdzv}train_churn.py {args}")
    else:
        cmd = (f"env ACCELERATE_USE_CPU=1 {env} nice -n 5 {{bin}}/python -m torch.distributed.run --nnodes {n} --nproc-per-node {procs} --node-rank {i} "
               f"--master-addr {master} --master-port {port} {rdzv.format(master=master, port=port)}train_churn.py {args}")
    return f"ip netns exec bsenode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, launcher: str = "accelerate") -> str:
    env, master = env or {}, master or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, args, env.get(i, "GLOO_SOCKET_IFNAME=eth0"), master.get(i, IPS[0]), procs, rdzv,
                       launcher), n, late, only)


# a whole host going away: every process of node 1's namespace SIGKILLed once the run logged step 60 (the watcher
# prints nothing; the job shell itself reports the killed background launcher as "Killed ...")
def node_loss(port: int, args: str) -> str:
    watch = ("(for k in $(seq 600); do grep -q \"step   60\" {job}/console.txt 2>/dev/null && break; sleep 0.5; "
             "done; for p in $(ip netns pids bsenode1); do kill -9 $p; done) >/dev/null 2>&1 & ")
    return watch + "{ " + job(port, args) + "; } 2>&1 | tee {job}/console.txt"


ACC_C10D = "--rdzv_backend c10d --rdzv_conf join_timeout=40 "
TR_C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "  # per node
DONE = r"training complete[\s\S]*job exited with 0"
LONG = "--epochs 40 --patience 40"
AT60 = r"step   60 \|"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(29790, "--epochs 8"), DONE, prep=prep(), timeout=400),
    Scenario("healthy-3nodes-torchrun", "no_failure", job(29791, "--epochs 8", n=3, procs=1, launcher="torchrun"),
             DONE, prep=prep(3), timeout=400),
    Scenario("healthy-resume", "no_failure", job(29792, "--epochs 8 --resume 3 --patience 0"),
             r"resumed from[\s\S]*" + DONE,
             prep=prep(extra=f"({job(29793, '--epochs 4 --patience 0')}) > /dev/null 2>&1"), timeout=400),
    # the same resume with early stopping left on: fastai's EarlyStoppingCallback reads recorder.values[-1] after the
    # epochs that fit_one_cycle(start_epoch=...) skips, before any epoch was recorded (found by healthy-resume's
    # first try, which had early stopping on)
    Scenario("resume-earlystop", "worker_exception", job(29792, "--epochs 8 --resume 3"), r"IndexError",
             prep=prep(extra=f"({job(29793, '--epochs 4 --patience 0')}) > /dev/null 2>&1"), timeout=200,
             hang_ok=True),
    Scenario("healthy-late-node", "no_failure", job(29794, "--epochs 6", late=20, rdzv=ACC_C10D), DONE, prep=prep(),
             timeout=400),
    Scenario("healthy-warnings", "no_failure",
             job(29795, "--epochs 6", env={0: "GLOO_SOCKET_IFNAME=eth0 PYTHONWARNINGS=default",
                                          1: "GLOO_SOCKET_IFNAME=eth0 PYTHONWARNINGS=default"}), DONE,
             prep=prep(), timeout=400),
    Scenario("callback-keyerror", "worker_exception", job(29796, LONG), r"KeyError", prep=prep(hook="keyerr"),
             timeout=200, hang_ok=True),
    Scenario("rank-sigkill", "host_oom_killed", job(29797, LONG), r"exited with", prep=prep(),
             trigger=((AT60, "rank3:KILL"),), timeout=200, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(29798, LONG, launcher="torchrun"), r"exited with",
             prep=prep(hook="segv"), timeout=200, hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(29799, "--epochs 8 --lr 300"), r"exited with", prep=prep(),
             timeout=200, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(29790, LONG), r"exited with", prep=prep(),
             tmpfs=(("runs/churn/models", "1m"),), timeout=200, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(29791, LONG), r"exited with", prep=prep(),
             stale=f"ip netns exec bsenode0 {{py}} -m http.server --bind {IPS[0]} 29791", stale_ready=r"Serving HTTP",
             timeout=120, hang_ok=True),
    Scenario("node1-missing", "rendezvous_timeout", job(29792, LONG, only=(0,), rdzv=ACC_C10D), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("wrong-master", "rendezvous_timeout",
             job(29793, LONG, master={1: "10.79.0.99"}, rdzv=TR_C10D, launcher="torchrun"),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(29794, LONG), AT60, prep=prep(),
             trigger=((AT60, "rank1:STOP"), (120, "scheduler:15")), timeout=250, hang_ok=True),
    Scenario("preempt", "job_preempted", job(29795, LONG), r"exited with|step   60", prep=prep(),
             trigger=((AT60, "scheduler:15"),), timeout=200, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(29796, LONG), r"exited with|step   60", prep=prep(),
             trigger=((AT60, "runner:HUP"),), timeout=200, hang_ok=True),
    Scenario("audit-shape", "collective_mismatch", job(29797, LONG), r"exited with", prep=prep(hook="shape"),
             timeout=200, hang_ok=True),
    Scenario("audit-shape-detail", "collective_mismatch",
             job(29797, LONG, env={0: "GLOO_SOCKET_IFNAME=eth0 TORCH_DISTRIBUTED_DEBUG=DETAIL",
                                  1: "GLOO_SOCKET_IFNAME=eth0 TORCH_DISTRIBUTED_DEBUG=DETAIL"}), r"exited with",
             prep=prep(hook="shape"), timeout=200, hang_ok=True),
    Scenario("audit-shape-rank3", "collective_mismatch", job(29797, LONG), r"exited with", prep=prep(hook="shape3"),
             timeout=120, hang_ok=True),
    Scenario("node-lost", "host_oom_killed", node_loss(29798, LONG), r"exited with", prep=prep(), timeout=200,
             hang_ok=True),
    Scenario("ifname-node1", "nccl_network_config", job(29799, LONG, env={1: "GLOO_SOCKET_IFNAME=ib0"}),
             r"exited with", prep=prep(), timeout=150, hang_ok=True),
    Scenario("pandas-abi-node1", "library_version_mismatch",
             job(29790, LONG, env={1: "GLOO_SOCKET_IFNAME=eth0 PYTHONPATH=/tmp/bs-e-pandas21"}), r"exited with",
             prep=prep(), timeout=150, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
