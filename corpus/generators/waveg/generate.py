"""Generate part C of wave G (sealed batch ``heldout9``): real runs on CPU whose scenario+launcher pairs the earlier
waves lack: a rank killed by SIGSEGV in a ctypes-loaded C library (a NULL pointer), a rank deadlocked on a Python lock
while the others time out in gloo's all_reduce, a ``timeout`` wall-clock limit ending a ``torch.multiprocessing.spawn``
job whose ranks handle SIGTERM, SIGHUP to one node of a two-node torchrun job, a master port taken by another program
under ``mp.spawn``, a second node started with a wrong ``--master-addr``, a collate function meeting a null record
under accelerate, DeepSpeed ``save_checkpoint`` filling a small tmpfs, a Lightning NaN from a real bad input (log of a
zero count), DataLoader workers with a 1 MB /dev/shm (private mount namespace), and healthy torchrun, accelerate,
DeepSpeed ZeRO-1 and Lightning early-stopping runs.

Each scenario runs one bash command in a fresh job directory ``/tmp/waveg-job/<name>`` (this folder's scripts are
copied there), captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would (or keeps the per-node logs the
command writes, ``files``), checks that the expected signature is in the output (else MISSING, nothing written,
exit 1) and writes ``corpus/logs/run-waveg-<name>/`` and its row of ``corpus/manifest.d/wave-g-runs.csv``.

    python corpus/generators/waveg/generate.py --list
    python corpus/generators/waveg/generate.py --all
    python corpus/generators/waveg/generate.py --scenario torchrun-ctypes-null-stats-segv

Needs root (a tmpfs mount, ``unshare -m``), gcc, and the venv of corpus/generators/wavec/README.md (accelerate,
lightning, deepspeed next to the running interpreter; torch from the system site-packages).
"""
from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-g-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveg/generate.py"
SPLIT = "heldout9"
JOBS = Path("/tmp/waveg-job")
BIN = Path(sys.executable).parent
ACC = "{bin}/accelerate launch --multi_gpu --num_machines 1 --mixed_precision no --dynamo_backend no"
MEMCG = Path("/sys/fs/cgroup/memory")
SCRIPTS = ("job.py", "spawn.py", "train_pl.py", "train_acc.py", "acc_tokens.py", "ds_train.py", "ray_tune.py", "fastnorm.c")
# Ray's memory monitor threshold set 3 GiB above what the (shared) machine uses when the run starts
RAY_THRESHOLD = ("$({py} -c 'import psutil; m = psutil.virtual_memory(); "
                 "print(round((m.total - m.available + 3 * 2**30) / m.total, 3))')")

DS_CONFIGS = {
    "curriculum.json": '{"stage_steps": 25, "noise_by_rank": {"0": [0.5, 0.25, 0.1, 0.0], "1": [0.5, 0.25, 0.1]}}\n',
    "ds_plain.json": '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 1,\n'
                     ' "steps_per_print": 20}\n',
    "ds_zero1.json": '{"train_batch_size": 32, "train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 1,\n'
                     ' "zero_optimization": {"stage": 1}, "zero_allow_untested_optimizer": true,\n'
                     ' "steps_per_print": 20}\n',
}


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {acc} are filled in
    expect: str  # regex the output must contain
    notes: str
    tmpfs: str = ""  # size of a tmpfs mounted at ./ckpt
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    files: tuple = ()  # per-node logs the command writes in the job dir: kept instead of job.log (row = the folder)
    signal_after: tuple = ()  # (regex or seconds since start, signal, SIGKILL the job this many s later or 0)
    timeout: int = 240


SCENARIOS = [
    # --- native code, Python deadlock, preemption, hangup ---------------------------------------------------------
    Scenario("torchrun-ctypes-null-stats-segv", "native_crash", "pytorch",
             "gcc -O2 -shared -fPIC -o libfastnorm.so fastnorm.c && "
             "torchrun --standalone --nproc-per-node 3 job.py --steps 60 --native-norm --stats-shards 4 "
             "--shard-steps 10 --log-every 2 --eval-every 0; echo \"job exited with $?\"",
             r"SIGSEGV|Signals\.SIGSEGV|exitcode\s*: -11",
             "torchrun 3 ranks (gloo, CPU): every batch is normalised in place by a small C library (fastnorm.c, "
             "libfastnorm.so) called through ctypes with per-shard feature statistics; the shard id is computed "
             "modulo one shard too many, so at step 20 rank 2 finds no statistics and passes None (a NULL pointer) "
             "to the C function, which dereferences it: rank 2 dies of SIGSEGV with no Python traceback, ranks 0 "
             "and 1 wait in DDP's all_reduce and torchrun stops them"),
    Scenario("torchrun-metrics-lock-deadlock", "collective_timeout", "pytorch",
             "torchrun --standalone --nproc-per-node 3 job.py --steps 200 --metrics-rank 1 --metrics-cap 400 "
             "--timeout 25 --log-every 5 --eval-every 0; echo \"job exited with $?\"",
             r"[Tt]imed out|[Tt]imeout",
             "torchrun 3 ranks (gloo, CPU), process-group timeout 25 s: rank 1 buffers per-sample metrics and, when "
             "the buffer fills at step 25, calls flush() while holding the buffer's non-reentrant threading.Lock, "
             "which flush() takes again: rank 1 deadlocks silently in Python; ranks 0 and 2 wait in DDP's gradient "
             "all_reduce until gloo's 25 s timeout fails it, and torchrun stops the job", timeout=200),
    Scenario("mpspawn-timeout-sigterm-checkpoint", "job_preempted", "pytorch",
             "MASTER_ADDR=127.0.0.1 MASTER_PORT=29871 timeout 45 {py} spawn.py --nprocs 2 --steps 3000 --sleep 0.05 "
             "--log-every 20 --eval-every 200 --sigterm-checkpoint; echo \"job exited with $?\"",
             r"received SIGTERM",
             "a torch.multiprocessing.spawn job (2 processes, gloo) started under `timeout 45` (a wall-clock limit "
             "in the job script): after 45 s timeout sends SIGTERM to the job's process group; both ranks' SIGTERM "
             "handlers log it, save a checkpoint and exit 143, timeout exits 124", timeout=120),
    Scenario("torchrun-2node-node1-sighup", "terminal_hangup", "pytorch",
             "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29872 --rdzv-id "
             "waveg --max-restarts 0 job.py --steps 1000 --sleep 0.1 --log-every 10 --eval-every 100 > node0.log 2>&1 & "
             "setsid bash -c 'echo $$ > node1.pgid; exec torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d "
             "--rdzv-endpoint 127.0.0.1:29872 --rdzv-id waveg --max-restarts 0 job.py --steps 1000 --sleep 0.1 "
             "--log-every 10 --eval-every 100 > node1.log 2>&1' & "
             "sleep 40; kill -HUP -- -$(cat node1.pgid); wait; rm node1.pgid",
             r"SIGHUP",
             "two torchrun agents (nodes) of one job, 2 workers each, c10d rendezvous on 127.0.0.1:29872, "
             "--max-restarts 0, each started from its own terminal: after 40 s node 1's terminal closes and its whole "
             "session gets SIGHUP: node 1's agent forwards it to its workers ('Sending process N closing signal "
             "SIGHUP') and exits with 'SignalException: Process N got signal: 1' (node1.log); node 0's workers lose "
             "their peers, its agent stops them (SIGTERM) and fails with RendezvousConnectionError, since the c10d "
             "store was hosted by node 1's agent in this run (node0.log)",
             files=("node0.log", "node1.log"), timeout=200),
    # --- launch and rendezvous ------------------------------------------------------------------------------------
    Scenario("mpspawn-master-port-taken", "port_in_use", "pytorch",
             "{py} -m http.server 29873 >/dev/null 2>&1 & sleep 2; "
             "MASTER_ADDR=127.0.0.1 MASTER_PORT=29873 {py} spawn.py --nprocs 2 --steps 30 --timeout 30; "
             "echo \"job exited with $?\"; kill %1",
             r"[Aa]ddress already in use|EADDRINUSE",
             "a torch.multiprocessing.spawn job (2 processes, init_process_group timeout 30 s) with MASTER_PORT=29873 "
             "while an HTTP server (another user's program) already listens on that port: rank 0's TCPStore cannot "
             "bind it", timeout=150),
    Scenario("torchrun-2node-wrong-master-addr", "rendezvous_timeout", "pytorch",
             "torchrun --nnodes 2 --node-rank 0 --nproc-per-node 2 --master-addr 127.0.0.1 --master-port 29874 "
             "--rdzv-conf timeout=40 job.py --steps 30 > node0.log 2>&1 & "
             "torchrun --nnodes 2 --node-rank 1 --nproc-per-node 2 --master-addr 10.254.0.17 --master-port 29874 "
             "--rdzv-conf timeout=40 job.py --steps 30 > node1.log 2>&1 & wait",
             r"[Tt]imed out|[Tt]imeout|DistStoreError|RendezvousTimeoutError",
             "a 2-node torchrun job (static rendezvous, --rdzv-conf timeout=40, 2 workers per node): node 0 runs the "
             "store on 127.0.0.1:29874, node 1 was started with a wrong --master-addr (10.254.0.17, not the "
             "master): something other than a TCPStore answered there (this sandbox's network proxy), so node 1's "
             "store client fails its ping ('invalid value returned from server'), retries and gives up after 40 s "
             "(DistNetworkError), while node 0 waits for the missing node ('Timed out after 41 seconds waiting for "
             "clients. 1/2 clients joined.')", files=("node0.log", "node1.log"), timeout=200),
    # --- application, data, disk, divergence ----------------------------------------------------------------------
    Scenario("accelerate-collate-null-tokens", "worker_exception", "accelerate",
             "{acc} --num_processes 2 --main_process_port 29875 acc_tokens.py --epochs 2 --bad-record 1300; "
             "echo \"job exited with $?\"",
             r"NoneType",
             "accelerate launch 2 CPU processes over variable-length token records with a hand-written collate_fn "
             "(pad_batch); training record 1300 has tokens=None (an empty text field read as null): the rank whose "
             "shuffled batch holds it raises TypeError in pad_batch (len(None)); the other rank loses its peer in "
             "the next collective and the launcher stops the job", timeout=200),
    Scenario("deepspeed-save-checkpoint-tmpfs-full", "disk_full", "deepspeed",
             "cat ds_plain.json; {bin}/deepspeed --num_gpus 2 --master_port 29876 ds_train.py "
             "--ds-config ds_plain.json --hidden 384 --steps 200 --log-every 10 --save-every 20 --save-dir ckpt; "
             "echo \"job exited with $?\"",
             r"No space left on device|errno 28|Errno 28|unexpected pos|iostream error",
             "DeepSpeed launcher + deepspeed.initialize (CPU, gloo), 2 processes, engine.save_checkpoint('ckpt', "
             "tag=stepN) every 20 steps into a checkpoint directory on a 4 MB tmpfs (a small scratch volume): "
             "the checkpoints (model + optimizer state) fill it and rank 0's torch.save inside save_checkpoint fails "
             "as PyTorch's zip writer does on a full disk ('RuntimeError: basic_ios::clear: iostream error', then "
             "'[enforce fail at inline_container.cc:672] . unexpected pos N vs M'; no 'No space left' text); rank 1 "
             "loses its peer in save_checkpoint's barrier and the launcher kills the job",
             tmpfs="4m", timeout=240),
    Scenario("lightning-log-zero-count-nan", "training_divergence", "lightning",
             "{py} train_pl.py --devices 2 --epochs 3 --log-feature --zero-count 700; echo \"job exited with $?\"",
             r"nan",
             "Lightning Trainer DDP 2 CPU processes: one input feature is log(count) computed from a count column, and "
             "record 700 has count 0 (a real bad input row): the batch holding it gives -inf input, the loss becomes "
             "inf/NaN, the parameters turn NaN and train_loss/val_loss stay nan for the rest of training; nothing "
             "checks it and the job exits 0", timeout=200),
    Scenario("accelerate-loader-small-dev-shm", "shm_exhausted", "accelerate",
             "unshare -m bash -c 'mount -t tmpfs -o size=1m tmpfs /dev/shm && exec {acc} --num_processes 2 "
             "--main_process_port 29877 train_acc.py --steps 30 --accum 1 --workers 2 --feature-dim 12288'; "
             "echo \"job exited with $?\"",
             r"[Ss]hared memory|shm|No space left|Bus error|bus error",
             "accelerate launch 2 CPU processes with 2 DataLoader workers per rank, in a container whose /dev/shm is "
             "a 1 MB tmpfs (a private mount namespace): each batch (16 records x 12288 floats, 768 KiB) is passed "
             "from the workers to the rank through shared memory, which is too small", timeout=200),
    Scenario("raytune-ctypes-null-stats-segv", "native_crash", "ray",
             "gcc -O2 -shared -fPIC -o libfastnorm.so fastnorm.c && "
             "{py} ray_tune.py --iters 30 --trials 2 --native-norm --features v1,v2 --sleep 0.1; "
             "echo \"job exited with $?\"",
             r"SIGSEGV|[Ss]egmentation|crashed|unexpected system error|died",
             "Ray Tune sweep on a 2-CPU local Ray cluster: 2 learning rates x 2 feature versions (v1, v2), each trial "
             "normalises its batches with a small C library (fastnorm.c) through ctypes using the statistics of its "
             "feature version; v2's statistics were never computed, so the v2 trials pass None (a NULL pointer) and "
             "their worker processes die of SIGSEGV in the C code; Tune reports those trials as errored while the v1 "
             "trials finish", timeout=300),
    Scenario("deepspeed-loader-small-dev-shm", "shm_exhausted", "deepspeed",
             "cat ds_plain.json; unshare -m bash -c 'mount -t tmpfs -o size=2m tmpfs /dev/shm && exec {bin}/deepspeed "
             "--num_gpus 2 --master_port 29880 ds_train.py --ds-config ds_plain.json --steps 40 --log-every 5 "
             "--workers 2'; echo \"job exited with $?\"",
             r"[Ss]hared memory|shm|No space left|Bus error|bus error",
             "DeepSpeed launcher, 2 processes, each feeding raw 3x64x64 images (16 per batch, 768 KiB) through a "
             "DataLoader with 2 worker processes, in a container whose /dev/shm is a 2 MB tmpfs (a private mount "
             "namespace). In this run the job died before any batch: DeepSpeed's CPU accelerator builds its shared-memory "
             "comm op at init ('deepspeed_shm_comm_op built successfully' twice), then rank 1 died of SIGSEGV (the launcher: "
             "'exits with return code = -11') with no Python traceback, and the launcher killed rank 0; the same command "
             "with the host's /dev/shm (a control run, not kept) trained 40 steps and exited 0", timeout=200),
    Scenario("torchrun-restarts-ctypes-null-stats-segv", "native_crash", "pytorch",
             "gcc -O2 -shared -fPIC -o libfastnorm.so fastnorm.c && "
             "torchrun --standalone --nproc-per-node 2 --max-restarts 2 job.py --steps 60 --native-norm "
             "--stats-shards 3 --shard-steps 15 --log-every 5 --eval-every 0; echo \"job exited with $?\"",
             r"SIGSEGV|exitcode\s*: -11",
             "torchrun 2 ranks (gloo) with --max-restarts 2: each batch is normalised by a ctypes-loaded C library "
             "(fastnorm.c) with per-shard statistics; the shard id is computed modulo one shard too many, so at step "
             "30 rank 1 passes None (a NULL pointer) and dies of SIGSEGV (rank 0: 'Connection reset by peer' in DDP's "
             "all_reduce; torchrun: 'failed (exitcode: -11) local_rank: 1'). torchrun restarts the worker group: in the "
             "second attempt rank 0's 'Gloo connectFullMesh failed ... Connection refused' to a peer address that "
             "no longer answers and the group fails again; the third attempt's workers printed nothing and hung in "
             "start-up until the generator SIGKILLed the whole job after 240 s (the log ends without torchrun's "
             "summary). Label: the first failure, rank 1's SIGSEGV in the C library; the rest are symptoms",
             timeout=240),
    Scenario("torchrun-2node-healthy", "no_failure", "pytorch",
             "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29881 --rdzv-id "
             "wavegok job.py --steps 60 --epochs 2 --log-every 10 --eval-every 30 > node0.log 2>&1 & p0=$!; "
             "torchrun --nnodes 2 --nproc-per-node 2 --rdzv-backend c10d --rdzv-endpoint 127.0.0.1:29881 --rdzv-id "
             "wavegok job.py --steps 60 --epochs 2 --log-every 10 --eval-every 30 > node1.log 2>&1 & p1=$!; "
             "wait $p0; echo \"node 0 exited with $?\" >> node0.log; wait $p1; echo \"node 1 exited with $?\" >> node1.log",
             r"node 0 exited with 0[\s\S]*node 1 exited with 0",
             "healthy: two torchrun agents (nodes) on one host, 2 workers each, c10d rendezvous on 127.0.0.1:29881, 2 "
             "epochs of 60 steps with all_reduced evaluations and end-of-epoch monitored_barrier; both exit 0 (the "
             "job script appends each node's exit status to its log)", files=("node0.log", "node1.log"), timeout=240),
    Scenario("raytune-checkpoint-storage-tmpfs-full", "disk_full", "ray",
             "{py} ray_tune.py --iters 40 --trials 2 --ckpt-kb 400 --storage ckpt --sleep 0.1; "
             "echo \"job exited with $?\"",
             r"No space left on device|[Ee]rrno 28|ENOSPC",
             "Ray Tune lr sweep, 2 trials on a 2-CPU local Ray cluster, each reporting a ~400 KiB checkpoint (model, "
             "optimizer, replay sample) with every result; the run's storage_path is a 6 MB tmpfs (a small scratch "
             "volume) that the persisted checkpoints fill", tmpfs="6m", timeout=300),
    Scenario("deepspeed-curriculum-stage-indexerror", "worker_exception", "deepspeed",
             "cat curriculum.json; {bin}/deepspeed --num_gpus 2 --master_port 29882 ds_train.py --ds-config ds_plain.json "
             "--steps 120 --log-every 5 --curriculum curriculum.json --stage-steps 25; echo \"job exited with $?\"",
             r"IndexError",
             "DeepSpeed launcher + deepspeed.initialize (CPU, gloo), 2 processes, a per-rank input-noise curriculum read "
             "from curriculum.json (one noise level per 25-step stage); rank 1's list has 3 stages, rank 0's 4: at step "
             "76 rank 1 raises IndexError: list index out of range; rank 0 loses its peer in the next collective and "
             "the launcher kills the job", timeout=200),
    Scenario("deepspeed-metrics-lock-deadlock", "silent_hang", "deepspeed",
             "{bin}/deepspeed --num_gpus 2 --master_port 29883 ds_train.py --ds-config ds_plain.json --steps 200 "
             "--log-every 5 --metrics-rank 1 --metrics-cap 400 --timeout 30; echo \"job exited with $?\"",
             r"\[rank1\] ds_train: step 20 loss(?![\s\S]*step 25 loss)",
             "DeepSpeed launcher + deepspeed.initialize (CPU, gloo, init_distributed timeout 30 s), 2 processes: rank 1 "
             "buffers per-sample losses and, when the buffer fills at step 25, calls flush() while holding the buffer's "
             "non-reentrant threading.Lock, which flush() takes again: rank 1 deadlocks silently. Both ranks stop "
             "logging after step 20; the 30 s process-group timeout never produced an error in the 195 s that "
             "followed (why was not investigated), and the generator SIGKILLed the whole job after 200 s as a user or "
             "scheduler would, so the log simply ends (no launcher summary)",
             timeout=200),
    Scenario("lightning-metrics-lock-deadlock", "collective_timeout", "lightning",
             "{py} train_pl.py --devices 2 --epochs 3 --metrics-rank 1 --metrics-cap 640 --pg-timeout 30; "
             "echo \"job exited with $?\"",
             r"[Tt]imed out|[Tt]imeout [^3]|pair closure",
             "Lightning Trainer DDP 2 CPU processes, DDPStrategy(timeout=30 s): rank 1 buffers per-sample losses and, "
             "when the buffer fills (step 20), calls flush() while holding the buffer's non-reentrant "
             "threading.Lock, which flush() takes again: rank 1 deadlocks silently in training_step; rank 0 waits in "
             "DDP's gradient all_reduce until gloo's 30 s timeout fails it", timeout=200),
    Scenario("raytune-healthy-checkpoints", "no_failure", "ray",
             "{py} ray_tune.py --iters 15 --trials 2 --ckpt-kb 100 --sleep 0.1; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Ray Tune lr sweep, 2 trials x 15 iterations on a 2-CPU local Ray cluster, each result reported "
             "with a ~100 KiB checkpoint persisted to the run's storage path; prints the best trial and exits 0",
             timeout=300),
    # --- healthy runs ------------------------------------------------------------------------------------------------
    Scenario("torchrun-healthy-native-norm", "no_failure", "pytorch",
             "gcc -O2 -shared -fPIC -o libfastnorm.so fastnorm.c && "
             "torchrun --standalone --nproc-per-node 3 job.py --steps 60 --epochs 2 --native-norm --stats-shards 4 "
             "--log-every 4 --eval-every 30; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: torchrun 3 ranks (gloo, CPU), every batch normalised in place by a ctypes-loaded C library "
             "with valid per-shard statistics, evaluations every 30 steps and end-of-epoch monitored_barrier; exits 0"),
    Scenario("accelerate-healthy-token-collate", "no_failure", "accelerate",
             "{acc} --num_processes 2 --main_process_port 29878 acc_tokens.py --epochs 2; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: accelerate launch 2 CPU processes, variable-length token records padded by a collate_fn, "
             "2 epochs with an evaluation gathered by gather_for_metrics after each; exits 0", timeout=200),
    Scenario("deepspeed-healthy-zero1-ckpt", "no_failure", "deepspeed",
             "cat ds_zero1.json; {bin}/deepspeed --num_gpus 2 --master_port 29879 ds_train.py --ds-config ds_zero1.json "
             "--steps 120 --log-every 10 --save-every 60 --save-dir ckpt; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: DeepSpeed launcher + deepspeed.initialize with ZeRO stage 1 (CPU, gloo), 2 processes, client "
             "SGD (zero_allow_untested_optimizer), checkpoints saved with engine.save_checkpoint at steps 60 and 120; "
             "exits 0", timeout=240),
    Scenario("lightning-healthy-early-stop", "no_failure", "lightning",
             "{py} train_pl.py --devices 2 --epochs 30 --early-stop 2 --lr 1e-2; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Lightning Trainer DDP 2 CPU processes, validation every 16 steps, ModelCheckpoint and "
             "EarlyStopping(val_loss, patience 2, min_delta 0.05): training stops before max_epochs when val_loss "
             "stops improving; exits 0", timeout=300),
]


def fill(cmd: str) -> str:
    for k, v in {"acc": ACC, "py": sys.executable, "bin": str(BIN)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def kill_job(pid: int) -> None:
    """SIGKILL the job's process group and every descendant (``timeout`` and Ray start groups of their own)."""
    with contextlib.suppress(psutil.Error):
        procs = psutil.Process(pid).children(recursive=True)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        for c in procs:
            with contextlib.suppress(psutil.Error):
                c.kill()


def kill_leftovers(sid: int) -> None:
    """SIGKILL what the job left behind in its session after the shell exited (a rank whose launcher died first,
    orphaned and re-parented to init, e.g. a Lightning rank 1 still connecting to a store that never answers)."""
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if proc.pid != sid and os.getsid(proc.pid) == sid:
                proc.kill()


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        subprocess.run(["umount", str(job / "ckpt")], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / src)
    for name, text in DS_CONFIGS.items():
        (job / name).write_text(text)
    if s.tmpfs:
        (job / "ckpt").mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={s.tmpfs}", "tmpfs", str(job / "ckpt")], check=True)
    cmd, cg = fill(s.cmd), ""
    if s.memory:
        cgdir = own_memcg() / f"waveg-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
        cmd = f"echo $$ > {cg}/cgroup.procs; {cmd}"
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    out = bytearray()
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    start, fired = time.time(), 0.0
    while p.poll() is None and time.time() - start < s.timeout:
        time.sleep(0.2)
        if s.signal_after and not fired:
            when, sig, kill_after = s.signal_after
            due = (time.time() - start >= when) if isinstance(when, float) else re.search(when, out.decode(errors="replace"))
            if due:
                fired = time.time()
                os.killpg(p.pid, sig)
        elif fired and time.time() - fired >= s.signal_after[2]:
            break
    if p.poll() is None:
        kill_job(p.pid)
    p.wait()
    kill_leftovers(p.pid)
    reader.join(5)
    if s.tmpfs:
        subprocess.run(["umount", str(job / "ckpt")])
    if cg:
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    # no `ray stop --force` here (wave F had it): it kills every Ray process on the machine, other users' too;
    # the driver's own cluster stops with the driver, or with kill_job's descendants when the job is killed
    if s.files:  # per-node logs; the shell's own output (if any) goes first in the check
        out = bytearray(out + b"".join((job / f).read_bytes() for f in s.files if (job / f).exists()))
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None
    (job / "output.log").write_bytes(out)  # kept for a look at a MISSING run
    if ok:
        dest = CORPUS / "logs" / f"run-waveg-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        for f in s.files:
            shutil.copy(job / f, dest / f)
        if not s.files:
            (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, {len(out)} bytes, "
          f"rc {p.returncode}, {time.time() - start:.0f} s)", flush=True)
    return ok


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--scenario", action="append", default=[])
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--refresh-rows", action="store_true", help="rewrite the rows of logs already present, no runs")
    a = ap.parse_args()
    if a.list:
        for s in SCENARIOS:
            print(f"{s.name:40} {s.label:22} {s.ecosystem}")
        return
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-waveg-{s.name}" + ("" if s.files else "/job.log")
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok:
            rows[key] = [key, s.label, SOURCE, s.notes, SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
