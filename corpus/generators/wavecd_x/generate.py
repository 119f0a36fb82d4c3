"""Generate wave CD (x)'s real runs (sealed batch ``heldout85``, ecosystem ``flair``): a small Flair 0.15.1
``SequenceTagger`` (one-hot word embeddings + character embeddings built from the corpus, BiLSTM, no CRF) trained
with Flair's ``ModelTrainer.train(..., multi_gpu=True)`` over gloo on CPU (torch 2.13.0+cpu) on a synthetic CoNLL
NER corpus (``project/train_ner.py``), under multi-node ``python -m torch.distributed.run --nnodes N
--nproc-per-node 2 --node-rank K --master-addr 10.113.0.11`` on two or three hosts: Linux network namespaces
``cdxnode0..2`` (10.113.0.11-13 on bridge ``brcdx``, ``../netns_hosts.sh``), each node in its own UTS namespace with
hostname ``nlp-train-07``/``08``/``09``. Every node starts from one job shell in the background; their output goes to
one console (the job.log), then the shell's ``job exited with N``.

Uses the shared harness (``../harness.py``). Needs root (netns, tmpfs, cgroups) and the venv ``/tmp/venv-cd-x`` (see
README.md). Ports 30140-30149.

    python3 corpus/generators/wavecd_x/generate.py --list
    python3 corpus/generators/wavecd_x/generate.py --scenario NAME
"""
from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
import harness  # noqa: E402
from harness import Scenario, Wave  # noqa: E402

WAVE = Wave(tag="wavecd-x", here=HERE, split="heldout85", ecosystem="flair", fragment="wave-cd-runs-x.csv",
            bin=Path("/tmp/venv-cd-x/bin"), project=HERE / "project")
NETNS = f"{HERE.parent / 'netns_hosts.sh'} cdx 10.113.0 nlp-train-07,nlp-train-08,nlp-train-09"
IPS = ("10.113.0.11", "10.113.0.12", "10.113.0.13")
HOSTS = ("nlp-train-07", "nlp-train-08", "nlp-train-09")
TRAIN = "train_ner.py "

# the team's per-batch hook (train_hooks.py, called from a Flair TrainerPlugin's after_training_batch); written by prep
HOOKS = {
    "keyerr": '''
# per-shard label audit from epoch 2; the shard table was written for the 3-rank smoke-test setup
SHARD_OF_RANK = {0: "news-a", 1: "news-b", 2: "news-c"}
seen = {}
def on_batch(rank, epoch, batch_no, trainer):
    if epoch >= 2 and batch_no == 4:
        shard = SHARD_OF_RANK[rank]
        seen[shard] = seen.get(shard, 0) + 1
''',
    "segv": '''
import ctypes
# embedding-norm fast path through a C helper; on rank 2 it reads a NULL buffer
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 2 and epoch == 2 and batch_no == 8:
        ctypes.string_at(0)
''',
    "leak": '''
import torch
# keeps a copy of the embeddings per batch for a later "drift" plot; rank 1 also keeps a 64 MB scratch copy
history = []
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 1 and (epoch >= 2 or batch_no >= 10):
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "shape3": '''
import torch
import torch.distributed as dist
# every 5 batches from epoch 2 average the flattened LSTM weights across ranks (drift check); rank 3 pads one
def on_batch(rank, epoch, batch_no, trainer):
    if epoch >= 2 and batch_no % 5 == 4:
        flat = torch.cat([p.detach().flatten() for k, p in trainer.model.named_parameters() if k.startswith("rnn.")])
        if rank == 3:
            flat = torch.cat([flat, torch.zeros(1)])
        dist.all_reduce(flat)
''',
    "abort3": '''
import ctypes
# the team's C tokenizer-stats helper, called at the start of every epoch from epoch 3; it aborts on rank 3
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 3 and epoch == 3 and batch_no == 0:
        ctypes.CDLL(None).abort()
''',
    "zerodiv0": '''
# per-class entity ratio for the team dashboard, logged by rank 0 from epoch 3; MISC never occurs in this corpus
counts = {"PER": 0, "ORG": 0, "LOC": 0, "MISC": 0}
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 0 and epoch == 3 and batch_no == 10:
        ratios = {k: counts["PER"] / v for k, v in counts.items()}
        print(f"entity ratios: {ratios}", flush=True)
''',
    "leak5": '''
import torch
# keeps a copy of the batch activations per batch for a later plot; rank 5 also keeps a 64 MB scratch copy
history = []
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 5 and epoch >= 2:
        history.append(torch.ones(16 * 1024 * 1024))
''',
    "slow4": '''
import time
# rank 4 rebuilds its gazetteer cache at the start of epoch 2 (45 s)
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 4 and epoch == 2 and batch_no == 0:
        time.sleep(45)
''',
    "slow1": '''
import time
# rank 1 re-reads its gazetteer from slow storage in epoch 2 (60 s)
def on_batch(rank, epoch, batch_no, trainer):
    if rank == 1 and epoch == 2 and batch_no == 3:
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
        return (f"ip netns exec cdxnode{i} unshare --uts --mount bash -c 'hostname {HOSTS[i]} && mount -t tmpfs -o "
                f"size={shm} tmpfs /dev/shm && cd {{job}} && exec {cmd}'")
    return f"ip netns exec cdxnode{i} unshare --uts bash -c 'hostname {HOSTS[i]} && cd {{job}} && exec {cmd}'"


def job(port: int, args: str = "", n: int = 2, env: dict | None = None, master: dict | None = None, late: float = 1,
        only: tuple | None = None, rdzv: str = "", procs: int = 2, shm: dict | None = None,
        nargs: dict | None = None) -> str:
    env, master, shm, nargs = env or {}, master or {}, shm or {}, nargs or {}
    return harness.multinode_job(
        lambda i: node(i, port, n, (args + " " + nargs.get(i, "")).strip(), env.get(i, "GLOO_SOCKET_IFNAME=eth0"),
                       master.get(i, IPS[0]), procs, rdzv, shm.get(i, "")),
        n, late, only)


C10D = "--rdzv-backend c10d --rdzv-endpoint {master}:{port} --rdzv-conf join_timeout=40 "
DONE = r"training done: test_score=[\s\S]*job exited with 0"
AT = r"epoch 2 - iter 6/"
EX = r"exited with"
SCENARIOS = [
    Scenario("healthy-2nodes", "no_failure", job(30140), DONE, prep=prep(), timeout=200),
    Scenario("healthy-3nodes", "no_failure", job(30141, "--epochs 3", n=3), DONE, prep=prep(3), timeout=200),
    Scenario("healthy-resume", "no_failure", job(30142, "--resume-from out-ner/model_epoch_2.pt --base-path "
             "out-ner-ft --epochs 3 --lr 0.05"), r"resumed weights[\s\S]*" + DONE,
             prep=prep(extra=f"({job(30143, '--epochs 2')}) > /dev/null 2>&1"), timeout=200),
    Scenario("healthy-late-node", "no_failure", job(30144, late=20, rdzv=C10D), DONE, prep=prep(), timeout=200),
    Scenario("healthy-chunked", "no_failure", job(30145, "--batch-size 32 --chunk-size 8 --no-char --epochs 5"),
             DONE, prep=prep(), timeout=200),
    Scenario("shard-keyerror", "worker_exception", job(30146), r"KeyError", prep=prep(hook="keyerr"), timeout=150,
             hang_ok=True),
    Scenario("seed-per-rank-node-b", "worker_exception", job(30147, nargs={1: "--seed-per-rank"}),
             r"Dataset must be the same[\s\S]*" + EX, prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-segv", "native_crash", job(30148), EX, prep=prep(hook="segv"), timeout=150, hang_ok=True),
    Scenario("rank1-leak-oom", "host_oom_killed", job(30149), EX, prep=prep(hook="leak"), memory=3 << 30,
             timeout=150, hang_ok=True),
    Scenario("ckpt-tmpfs", "disk_full", job(30140), EX, prep=prep(), tmpfs=(("out-ner", "300k"),), timeout=150,
             hang_ok=True),
    Scenario("huge-lr", "training_divergence", job(30141, "--lr 3e38 --max-grad-norm 0 --stop-on-nan"), r"nan[\s\S]*" + EX,
             prep=prep(), timeout=150, hang_ok=True),
    Scenario("rank-stopped", "silent_hang", job(30142), AT, prep=prep(),
             trigger=((AT, "rank1:STOP"), (80, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("preempt", "job_preempted", job(30143), EX + "|" + AT, prep=prep(), trigger=((AT, "scheduler:15"),),
             timeout=150, hang_ok=True),
    Scenario("terminal-hup", "terminal_hangup", job(30144), EX + "|" + AT, prep=prep(),
             trigger=((AT, "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("node-b-missing", "rendezvous_timeout", job(30145, only=(0,), rdzv=C10D), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("port-taken", "port_in_use", job(30146), EX, prep=prep(),
             stale=f"ip netns exec cdxnode0 {{py}} -m http.server --bind {IPS[0]} 30146", stale_ready=r"Serving HTTP",
             timeout=100, hang_ok=True),
    Scenario("ifname-node-b", "nccl_network_config", job(30147, env={1: "GLOO_SOCKET_IFNAME=ib0"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("rnn-shape-rank3", "collective_mismatch", job(30148), EX, prep=prep(hook="shape3"), timeout=120,
             hang_ok=True),
    Scenario("slow-rank1-pg20", "collective_timeout", job(30149, "--pg-timeout 20"), r"[Tt]imed out[\s\S]*" + EX,
             prep=prep(hook="slow1"), timeout=150, hang_ok=True),
    Scenario("wrong-master-node-b", "rendezvous_timeout", job(30140, rdzv=C10D, master={1: "10.113.0.99"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("rank3-abort", "native_crash", job(30141), EX, prep=prep(hook="abort3"), timeout=150, hang_ok=True),
    Scenario("data-path-node-b", "worker_exception", job(30142, nargs={1: "--data data/ner-synth-v2"}), EX,
             prep=prep(), timeout=120, hang_ok=True),
    Scenario("preempt-3nodes-eval", "job_preempted", job(30143, n=3), EX + "|" + AT, prep=prep(3),
             trigger=((r"EPOCH 2 done[\s\S]*Saving model", "scheduler:15"),), timeout=150, hang_ok=True),
    Scenario("healthy-wide-onehot", "no_failure", job(30144, "--no-char --hidden 64 --lr 0.2 --epochs 5 "
             "--save-every 2 --batch-size 24"), DONE, prep=prep(), timeout=200),
    Scenario("final-model-tmpfs", "disk_full", job(30145, "--save-every 0"), EX, prep=prep(),
             tmpfs=(("out-ner", "100k"),), timeout=150, hang_ok=True),
    Scenario("leak-oom-node-c", "host_oom_killed", job(30146, "--epochs 3", n=3), EX, prep=prep(3, hook="leak5"),
             memory=4 << 30, timeout=150, hang_ok=True),
    Scenario("rank0-zerodiv", "worker_exception", job(30147), r"ZeroDivisionError[\s\S]*" + EX,
             prep=prep(hook="zerodiv0"), timeout=150, hang_ok=True),
    Scenario("rank2-stopped-epoch3", "silent_hang", job(30148), r"epoch 3 - iter 10/", prep=prep(),
             trigger=((r"epoch 3 - iter 10/", "rank2:STOP"), (75, "scheduler:15")), timeout=200, hang_ok=True),
    Scenario("ifname-node-a", "nccl_network_config", job(30149, env={0: "GLOO_SOCKET_IFNAME=eth1"}), EX, prep=prep(),
             timeout=120, hang_ok=True),
    Scenario("hup-3nodes-epoch3", "terminal_hangup", job(30140, n=3), EX + "|epoch 3", prep=prep(3),
             trigger=((r"epoch 3 - iter 3/", "runner:HUP"),), timeout=150, hang_ok=True),
    Scenario("slow-rank4-3nodes-pg15", "collective_timeout", job(30141, "--pg-timeout 15 --epochs 3", n=3),
             r"[Tt]imed out[\s\S]*" + EX, prep=prep(3, hook="slow4"), timeout=150, hang_ok=True),
    Scenario("stale-store-port", "port_in_use", job(30142), EX, prep=prep(),
             stale=(f"ip netns exec cdxnode0 {{py}} -c \"import time; from torch.distributed import TCPStore; "
                    f"s = TCPStore('{IPS[0]}', 30142, is_master=True, wait_for_workers=False); print('store up', "
                    f"flush=True); time.sleep(600)\""), stale_ready=r"store up", timeout=100, hang_ok=True),
    Scenario("tag-type-node-b", "worker_exception", job(30143, nargs={1: "--tag-type upos"}),
             r"Error[\s\S]*job exited with 1", prep=prep(), timeout=120, hang_ok=True),
]

if __name__ == "__main__":
    harness.main(WAVE, SCENARIOS)
