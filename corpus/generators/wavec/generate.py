"""Generate wave C (sealed batch ``heldout5``) of issue 12: real runs on CPU under launchers and shapes the earlier
fresh waves do not have: ``python -m torch.distributed.run --max-restarts``, a memory-limited cgroup whose kernel
OOM killer SIGKILLs a rank, DataLoader worker processes that raise or segfault, a /dev/shm too small for the worker
batches, torch.distributed.checkpoint on a full filesystem, Ray Train worker groups, DeepSpeed engines, accelerate
with a process-group timeout or a busy port, Lightning with a missing node or a rank that stops printing, signals
from ``timeout`` and from a closed terminal, and healthy runs with restarts, overflow skips or many warnings.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavec-job/<name>`` (the scripts of this folder
are copied there), captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would, checks that the injected
fault's signature is in the output (else MISSING, exit 1) and writes ``corpus/logs/run-wavec-<name>/job.log`` and
the row of ``corpus/manifest.d/wave-c-runs.csv``.

    python corpus/generators/wavec/generate.py --list
    python corpus/generators/wavec/generate.py --all
    python corpus/generators/wavec/generate.py --scenario distrun-restarts-cgroup-oom
    python corpus/generators/wavec/generate.py --all --refresh-rows    # notes edited: rewrite rows only

Needs root (tmpfs mounts, a cgroup-v1 memory cgroup under this process's own, ``unshare -m`` for a private
/dev/shm) and the venv of corpus/generators/fresh/README.md (accelerate, lightning, deepspeed next to the running
interpreter; torch and ray from the system site-packages).
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
FRAGMENT = CORPUS / "manifest.d" / "wave-c-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavec/generate.py"
SPLIT = "heldout5"
JOBS = Path("/tmp/wavec-job")
BIN = Path(sys.executable).parent
ACC = "{bin}/accelerate launch --multi_gpu --num_processes {n} --num_machines 1 --mixed_precision no --dynamo_backend no"
DISTRUN = "{py} -m torch.distributed.run"
MEMCG = Path("/sys/fs/cgroup/memory")


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {acc2} {acc3} {distrun} {cg} are filled in
    expect: str  # regex the output must contain
    notes: str
    tmpfs: str = ""  # size of a tmpfs mounted at ./ckpt for the run
    shm: str = ""  # size of a private tmpfs mounted over /dev/shm (unshare -m) for the run
    memory: int = 0  # bytes: the job runs in a memory cgroup with this limit (the kernel OOM killer enforces it)
    signal_after: tuple = ()  # (regex or seconds since start, signal, "group"|"leader", SIGKILL the group s later or 0)
    timeout: int = 240


SCENARIOS = [
    # --- host memory: a real kernel OOM kill inside a memory-limited cgroup -------------------------------------
    Scenario("distrun-restarts-cgroup-oom", "host_oom_killed", "pytorch",
             "{distrun} --nnodes 1 --nproc-per-node 2 --max-restarts 1 --monitor-interval 1 --rdzv-backend static "
             "--master-addr 127.0.0.1 --master-port 29731 train.py --steps 40 --fault leak --fault-rank 1 --fault-step 4",
             r"exitcode\s*: -9",
             "python -m torch.distributed.run --max-restarts 1, 2 ranks (gloo, CPU) inside a cgroup-v1 memory cgroup "
             "limited to 1.2 GB (as a container limit): rank 1 keeps 96 MiB of activations per step from step 4; the "
             "kernel OOM killer SIGKILLs it (no Python error), the agent restarts the worker group, the restarted rank 1 "
             "leaks again and is SIGKILLed again; torchrun reports exitcode -9 (SIGKILL)", memory=1_200_000_000),
    Scenario("deepspeed-cgroup-oom", "host_oom_killed", "deepspeed",
             "{bin}/deepspeed --num_gpus 3 train.py --steps 40 --fault leak --fault-rank 2 --fault-step 3",
             r"return code = -9",
             "DeepSpeed launcher, 3 processes of the gloo script inside a memory cgroup limited to 1.6 GB: rank 2 "
             "keeps 96 MiB of activations per step from step 3 until the kernel OOM killer SIGKILLs it; the launcher "
             "kills the rest and reports 'exits with return code = -9'", memory=1_600_000_000),
    # --- DataLoader worker processes -------------------------------------------------------------------------
    Scenario("accelerate-loader-worker-raise", "worker_exception", "accelerate",
             "{acc2} train_acc.py --steps 30 --workers 2 --fault loader-raise --fault-rank 1 --fault-step 7",
             r"Caught ValueError in DataLoader worker",
             "accelerate launch, 2 CPU processes, DataLoader with 2 worker processes: a worker of rank 1 raises "
             "ValueError on a corrupt record at step 7; the rank re-raises 'Caught ValueError in DataLoader worker "
             "process N' and torchrun (inside accelerate) stops the other rank"),
    Scenario("lightning-loader-worker-segv", "native_crash", "lightning",
             "{py} train_pl.py --devices 2 --steps 30 --workers 2 --fault loader-segv --fault-rank 1 --fault-step 9",
             r"segmentation fault encountered in worker",
             "Lightning Trainer DDP 2 CPU processes, DataLoader with 2 worker processes: record 304 segfaults the "
             "worker that loads it (ctypes.string_at(0) in __getitem__); Lightning's DistributedSampler interleaves "
             "samples, so it is a worker of rank 0 (the error shows after rank 0's step 27 line); torch prints 'ERROR: Unexpected segmentation fault "
             "encountered in worker.', rank 0 raises 'DataLoader worker (pid(s) N) exited unexpectedly' and rank 1 "
             "loses its peer"),
    Scenario("lightning-small-dev-shm", "shm_exhausted", "lightning",
             "df -h /dev/shm; {py} train_pl.py --devices 2 --steps 20 --workers 2 --big",
             r"shared memory|No space left|Bus error|shm",
             "Lightning Trainer DDP 2 CPU processes, 2 DataLoader workers per rank passing 8 MiB batches through "
             "shared memory, run in a private mount namespace whose /dev/shm is a 4 MiB tmpfs (a container's small "
             "default /dev/shm): the workers cannot place their batches in /dev/shm", shm="4m"),
    # --- disk full: torch.distributed.checkpoint --------------------------------------------------------------
    Scenario("distrun-dcp-disk-full", "disk_full", "pytorch",
             "{distrun} --standalone --nproc-per-node 2 train.py --steps 30 --hidden 4096 --lr 0.002 --dcp-dir ckpt "
             "--ckpt-every 5; echo \"exit status $?\"; df -h ckpt",
             r"No space left|Errno 28|CheckpointException",
             "python -m torch.distributed.run 2 ranks: torch.distributed.checkpoint.save of the model+optimizer "
             "(0.56 MB) every 5 steps into ./ckpt, a 1 MiB tmpfs; a save runs out of space and DCP raises "
             "CheckpointException on every rank carrying the writer's OSError", tmpfs="1m"),
    # --- divergence caught by other checks -------------------------------------------------------------------
    Scenario("distrun-gradnorm-nonfinite", "training_divergence", "pytorch",
             "{distrun} --standalone --nproc-per-node 3 train.py --steps 30 --fault gradnorm --fault-rank 0 --fault-step 12",
             r"non-finite",
             "python -m torch.distributed.run 3 ranks: from step 12 rank 0's loss overflows float32; after the "
             "gradient all_reduce every rank's clip_grad_norm_(error_if_nonfinite=True) raises 'The total norm of "
             "order 2.0 for gradients from `parameters` is non-finite'"),
    Scenario("lightning-detect-anomaly", "training_divergence", "lightning",
             "{py} train_pl.py --devices 2 --steps 30 --workers 0 --fault anomaly --fault-rank 1 --fault-step 8",
             r"returned nan values",
             "Lightning Trainer(detect_anomaly=True) DDP 2 CPU processes: at step 8 rank 1's loss takes sqrt of a "
             "negative number; autograd's anomaly mode raises \"Function 'SqrtBackward0' returned nan values in its "
             "0th output\" with the forward trace; rank 0 then loses its peer"),
    # --- config checks ----------------------------------------------------------------------------------------
    Scenario("deepspeed-engine-batch-assert", "batch_size_mismatch", "deepspeed",
             "cat ds_config.json; {bin}/deepspeed --num_gpus 2 ds_train.py --ds-config ds_config.json --steps 20",
             r"train_batch_size is not equal",
             "DeepSpeed launcher + deepspeed.initialize (CPU accelerator, gloo), 2 processes: the config was written "
             "for 4 ranks (train_batch_size 64 = 16 x 1 x 4) and launched with 2; DeepSpeedConfig's batch assertion "
             "fails on both ranks ('64 != 16 * 1 * 2'), the launcher reports return code 1"),
    # --- Ray Train worker groups ------------------------------------------------------------------------------
    Scenario("raytrain-worker-keyerror", "worker_exception", "ray",
             "{py} ray_train.py --workers 2 --steps 16 --fault raise --fault-rank 1 --fault-step 9",
             r"WorkerGroupError|KeyError",
             "Ray Train TorchTrainer, 2 CPU workers (gloo) on a local Ray cluster: worker rank 1 reads a record "
             "without the 'x' key at step 9 (KeyError); the controller's failure policy raises "
             "ray.train.WorkerGroupError in the driver", timeout=300),
    Scenario("raytrain-collective-mismatch", "collective_mismatch", "ray",
             "TORCH_DISTRIBUTED_DEBUG=DETAIL {py} ray_train.py --workers 2 --steps 16 --fault mismatch --fault-rank 1 "
             "--fault-step 6",
             r"[Mm]ismatch|WorkerGroupError",
             "Ray Train TorchTrainer, 2 CPU workers (gloo), TORCH_DISTRIBUTED_DEBUG=DETAIL: at step 6 worker rank 1 "
             "all_reduces one flattened gradient (577 elements) where rank 0 reduces the first weight ([32, 16]); "
             "torch's collective fingerprint check reports the mismatch", timeout=300),
    Scenario("raytrain-placement-unschedulable", "ray_scheduling_stall", "ray",
             "{py} ray_train.py --workers 3 --cpus-per-worker 1 --steps 10",
             r"[Ii]nsufficient|pending|cannot be scheduled|[Ii]nfeasible|resources",
             "Ray Train TorchTrainer asks for 3 workers x 1 CPU on a 2-CPU local cluster: the worker group's "
             "placement group cannot be scheduled: after 60 s the controller raises WorkerGroupStartupTimeoutError "
             "('waiting for 3 workers ... insufficient cluster resources') and retries (FailurePolicy RETRY); the user "
             "interrupts the driver (SIGINT) at 60 s, Ray Train starts a graceful abort, and the job is SIGKILLed 30 s "
             "later while the controller is still retrying",
             signal_after=(60.0, signal.SIGINT, "leader", 30), timeout=200),
    # --- rendezvous, ports -----------------------------------------------------------------------------------
    Scenario("lightning-second-node-missing", "rendezvous_timeout", "lightning",
             "MASTER_ADDR=127.0.0.1 MASTER_PORT=29741 NODE_RANK=0 {py} train_pl.py --devices 2 --num-nodes 2 "
             "--steps 20 --timeout 30",
             r"[Tt]imed out|TimeoutError|DistStoreError",
             "Lightning Trainer(num_nodes=2, devices=2) DDP on CPU, only node 0 is started (node 1's job never "
             "began): node 0's 2 ranks wait in init_process_group for 4 and the store times out after 30 s"),
    Scenario("deepspeed-port-held", "port_in_use", "deepspeed",
             "{py} -m http.server 29752 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 2; "
             "{bin}/deepspeed --num_gpus 2 --master_port 29752 ds_train.py --ds-config ds_fp16.json --steps 20; "
             "echo \"deepspeed exited with $?\"; kill %1",
             r"[Aa]ddress already in use|EADDRINUSE|errno: 98",
             "DeepSpeed launcher --master_port 29752 while a leftover HTTP server holds 127.0.0.1:29752: rank 0's "
             "TCPStore server cannot bind the port in deepspeed.init_distributed"),
    # --- collectives that never complete --------------------------------------------------------------------
    Scenario("accelerate-uneven-gather-timeout", "collective_timeout", "accelerate",
             "{acc2} train_acc.py --steps 20 --workers 0 --fault uneven --fault-rank 1 --fault-step 6 --timeout 15",
             r"Timed out waiting \d+ms",
             "accelerate launch 2 CPU processes, InitProcessGroupKwargs(timeout=15 s): rank 1's shard ends at step 6 "
             "and it goes to the final wait_for_everyone barrier while rank 0 calls accelerator.gather for step 6; "
             "gloo times out on both ('Timed out waiting 15000ms for send/recv operation')"),
    Scenario("lightning-rank-stops-printing", "silent_hang", "lightning",
             "{py} train_pl.py --devices 2 --steps 100 --workers 0 --fault hang --fault-rank 1 --fault-step 45",
             r"step 44",
             "Lightning Trainer DDP 2 CPU processes, default 30 min process-group timeout: at step 45 rank 1 blocks "
             "reading a FIFO no one writes (stuck I/O) and stops printing; rank 0 waits in the gradient all_reduce; "
             "about 35 s later (45 s after the start) the user presses Ctrl-C (SIGINT to the process group), which does not break the "
             "wait, and after 20 s more the job is SIGKILLed: no error names the stuck rank",
             signal_after=(45.0, signal.SIGINT, "group", 20), timeout=150),
    # --- signals from outside ----------------------------------------------------------------------------------
    Scenario("deepspeed-timeout-term", "job_preempted", "deepspeed",
             "timeout -s TERM 30 {bin}/deepspeed --num_gpus 2 train.py --steps 500 --sleep 0.1; "
             "echo \"job exited with $?\"",
             r"job exited with 124|sigkill_handler|Killing subprocess",
             "a job script runs the DeepSpeed launcher (2 processes of the gloo script) under 'timeout -s TERM 30' "
             "(a wall-time limit): after 30 s the launcher gets SIGTERM, kills its subprocesses and exits; the "
             "script reports exit status 124"),
    Scenario("accelerate-terminal-closed", "terminal_hangup", "accelerate",
             "{acc2} train_acc.py --steps 400 --workers 0",
             r"SIGHUP",
             "accelerate launch 2 CPU processes from an interactive shell; the terminal closes: SIGHUP to the whole "
             "foreground process group (launcher and ranks) at step ~40; torch elastic inside accelerate logs "
             "'Received 1 death signal, shutting down workers', sends SIGHUP to the ranks and raises "
             "'SignalException: Process N got signal: 1'", signal_after=(r"\[rank1\] step 40 ", signal.SIGHUP, "group", 30)),
    # =========================== second round ===========================================================
    Scenario("mpspawn-cgroup-oom", "host_oom_killed", "pytorch",
             "MASTER_PORT=29772 {py} spawn.py --nprocs 3 --steps 40 --fault leak --fault-rank 2 --fault-step 3",
             r"SIGKILL",
             "torch.multiprocessing.spawn, 3 processes (gloo, CPU), no launcher, inside a memory cgroup limited to "
             "1.5 GB: rank 2 keeps 96 MiB of activations per step from step 3 until the kernel OOM killer SIGKILLs it; "
             "the parent raises ProcessExitedException 'process 2 terminated with signal SIGKILL'",
             memory=1_500_000_000),
    Scenario("raytrain-cgroup-oom", "host_oom_killed", "ray",
             "{py} ray_train.py --workers 2 --steps 60 --fault leak --fault-rank 1 --fault-step 3",
             r"memory|OOM|SIGKILL|died",
             "Ray Train TorchTrainer, 2 CPU workers, the whole local Ray cluster inside a memory cgroup limited to "
             "2.5 GB: worker rank 1 keeps 96 MiB per step from step 3 until the kernel OOM killer SIGKILLs it (dmesg: "
             "'Memory cgroup out of memory: Killed process N (ray::RayTrainWo)'; Ray gives workers oom_score_adj "
             "1000); Ray reports 'Worker unexpectedly exits with a connection error code 2 ... (1) the process was "
             "killed by the OOM killer ... (3) ... SIGSEGV', rank 0 loses its peer, the driver raises WorkerGroupError", memory=2_500_000_000, timeout=300),
    Scenario("raytrain-worker-segv", "native_crash", "ray",
             "{py} ray_train.py --workers 2 --steps 20 --fault segv --fault-rank 0 --fault-step 7",
             r"SIGSEGV|[Ss]egmentation|died|WorkerGroupError",
             "Ray Train TorchTrainer, 2 CPU workers (gloo): worker rank 0 reads address 0 through ctypes.string_at "
             "at step 7; Ray's handler prints '*** SIGSEGV received' and 'Fatal Python error: Segmentation fault' with the "
             "stack, the raylet reports the worker's death, rank 1 sees 'Connection reset by peer' and the driver "
             "raises WorkerGroupError",
             timeout=300),
    Scenario("raytrain-checkpoint-disk-full", "disk_full", "ray",
             "{py} ray_train.py --workers 2 --steps 30 --ckpt-every 3 --pad 60000 --storage $PWD/ckpt; df -h ckpt",
             r"No space left|Errno 28",
             "Ray Train TorchTrainer, 2 CPU workers reporting a checkpoint (model, optimizer and 240 KB of extra "
             "state) every 3 steps; RunConfig(storage_path) is ./ckpt, a 1 MiB tmpfs: persisting a checkpoint to "
             "storage fails in pyarrow's file writer: 'OSError: [Errno 28] Error writing bytes to file. Detail: [errno 28] "
             "No space left on device' on both workers", tmpfs="1m", timeout=300),
    Scenario("deepspeed-fp16-scale-floor", "training_divergence", "deepspeed",
             "{bin}/deepspeed --num_gpus 2 --master_port 29773 ds_train.py --ds-config ds_fp16.json --steps 50 "
             "--inf-from 12",
             r"Reducing dynamic loss scale from 2\.0 to 1",
             "DeepSpeed engine fp16 (CPU accelerator, gloo), 2 processes: from step 12 every loss is inf (the run has "
             "diverged); the dynamic loss scaler halves the scale on each overflow until min_loss_scale 1 and every "
             "later step is skipped; the loop prints 'loss inf' to step 49 and the launcher reports success"),
    Scenario("deepspeed-rank-stuck-ctrl-c", "silent_hang", "deepspeed",
             "{bin}/deepspeed --num_gpus 2 --master_port 29774 ds_train.py --ds-config ds_fp16.json --steps 400 "
             "--hang-rank 1 --hang-step 60",
             r"step 59",
             "DeepSpeed engine (CPU, gloo), 2 processes, 30 min process-group timeout: at step 60 rank 1 blocks "
             "reading a FIFO nobody writes (stuck I/O) and stops printing; rank 0 waits in the next gradient "
             "all_reduce; 60 s after the start the user presses Ctrl-C (SIGINT to the process group) and the "
             "launcher kills its subprocesses", signal_after=(60.0, signal.SIGINT, "group", 20)),
    # =========================== third round ============================================================
    Scenario("raytrain-stalled-worker-timeout", "collective_timeout", "ray",
             "{py} ray_train.py --workers 2 --steps 20 --fault stall --fault-rank 1 --fault-step 8 --pg-timeout 20",
             r"Timed out|timed out|Timeout",
             "Ray Train TorchTrainer, 2 CPU workers, TorchConfig(backend='gloo', timeout_s=20): at step 8 worker "
             "rank 1 sleeps 90 s (a slow remote read) before its gradient all_reduce; rank 0's all_reduce times out "
             "after 20 s and the driver raises WorkerGroupError", timeout=300),
    Scenario("lightning-timeout-term", "job_preempted", "lightning",
             "timeout -s TERM 40 {py} train_pl.py --devices 2 --steps 100000 --workers 0 --sleep 0.1; echo \"job exited with $?\"",
             r"Received SIGTERM",
             "a job script runs a Lightning Trainer (DDP, 2 CPU processes) under 'timeout -s TERM 40' (a wall-time "
             "limit): after 40 s the launching process (rank 0) gets SIGTERM; Lightning's signal connector prints "
             "'[rank: 0] Received SIGTERM: 15' and '[rank: 1] Received SIGTERM: 15' (forwarded to rank 1), the ranks "
             "stop and the script reports exit status 124 (in an earlier run of this scenario the ranks hung after "
             "the SIGTERM instead, until the generator SIGKILLed the job)"),
    Scenario("accelerate-timeout-term", "job_preempted", "accelerate",
             "timeout -s TERM 30 {acc2} --main_process_port 29775 train_acc.py --steps 100000 --workers 0 --sleep 0.1; "
             "echo \"job exited with $?\"",
             r"SIGTERM|job exited with 124",
             "a job script runs accelerate launch (2 CPU processes) under 'timeout -s TERM 30' (a wall-time limit): "
             "after 30 s the launcher gets SIGTERM; torch elastic inside accelerate logs 'Received 15 death signal, "
             "shutting down workers', sends SIGTERM to the ranks and raises 'SignalException: Process N got signal: "
             "15'; the script reports exit status 124"),
    Scenario("mpspawn-loader-worker-raise", "worker_exception", "pytorch",
             "MASTER_PORT=29776 {py} spawn.py --nprocs 2 --steps 30 --workers 2 --fault loader-raise --fault-rank 0 "
             "--fault-step 11",
             r"Caught ValueError in DataLoader worker",
             "torch.multiprocessing.spawn, 2 processes (gloo), DataLoader with 2 worker processes: a worker of rank 0 "
             "raises ValueError on a corrupt record at step 11; rank 0 re-raises 'Caught ValueError in DataLoader "
             "worker process N', the parent terminates rank 1 and raises ProcessRaisedException"),
    Scenario("raytrain-healthy-checkpoints", "no_failure", "ray",
             "{py} ray_train.py --workers 2 --steps 30 --ckpt-every 10 --storage $PWD/ckpt; ls -R ckpt | head -20",
             r"training finished",
             "healthy: Ray Train TorchTrainer, 2 CPU workers (gloo) on a local cluster, 30 steps, a checkpoint every 10 "
             "steps persisted to a 16 MiB tmpfs storage path; the driver prints the final metrics and exits 0",
             tmpfs="16m", timeout=300),
    # --- healthy runs ----------------------------------------------------------------------------------------
    Scenario("deepspeed-fp16-overflow-skips", "no_failure", "deepspeed",
             "{bin}/deepspeed --num_gpus 2 ds_train.py --ds-config ds_fp16.json --steps 40 --inf-step 12",
             r"Reducing dynamic loss scale[\s\S]*training finished",
             "healthy: DeepSpeed engine fp16 (CPU accelerator, gloo), 2 processes, log_level info: step 12's loss "
             "is inf; DeepSpeed's fp16 optimizer logs 'Reducing dynamic loss scale from 131072.0 to 65536.0', skips the "
             "step (step=20, skipped=1) and raises the scale again later; training continues to 40 steps and the launcher reports both processes exit successfully"),
    Scenario("accelerate-port-busy-fallback", "no_failure", "accelerate",
             "{py} -m http.server 29750 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 2; "
             "{acc2} --main_process_port 29750 train_acc.py --steps 40; echo \"accelerate exited with $?\"; kill %1",
             r"accelerate exited with 0",
             "healthy: accelerate launch --main_process_port 29750 while an HTTP server holds that port; accelerate "
             "1.15 warns 'Port `29750` is already in use ... will attempt to launch in a standalone-like mode', picks a "
             "free port, trains 40 steps on 2 CPU processes and exits 0"),
    Scenario("lightning-healthy-warnings", "no_failure", "lightning",
             "{py} -W default train_pl.py --devices 2 --steps 40 --workers 1 --noisy",
             r"max_steps=40|training finished",
             "healthy: Lightning Trainer DDP 2 CPU processes with the default logger, checkpointing and a progress "
             "bar, python -W default: Lightning's tips, a deprecation warning from each rank and the 'number of "
             "training batches (42) is smaller than the logging interval' warning; trains 40 steps and exits 0"),

]

DS_CONFIGS = {
    "ds_config.json": '{"train_batch_size": 64, "train_micro_batch_size_per_gpu": 16, "gradient_accumulation_steps": 1,\n'
                      ' "optimizer": {"type": "Adam", "params": {"lr": 0.001, "torch_adam": true}}, "steps_per_print": 10}\n',
    "ds_fp16.json": '{"train_batch_size": 16, "train_micro_batch_size_per_gpu": 8, "gradient_accumulation_steps": 1,\n'
                    ' "optimizer": {"type": "Adam", "params": {"lr": 0.001, "torch_adam": true}},\n'
                    ' "fp16": {"enabled": true, "initial_scale_power": 16, "loss_scale_window": 10},\n'
                    ' "steps_per_print": 10, "log_level": "info"}\n',
}


def fill(cmd: str, cg: str) -> str:
    subs = {"acc2": ACC.replace("{n}", "2"), "acc3": ACC.replace("{n}", "3"), "distrun": DISTRUN,
            "py": sys.executable, "bin": str(BIN), "cg": cg}
    for k, v in subs.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        subprocess.run(["umount", str(job / "ckpt")], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in ("workload.py", "train_pl.py", "train_acc.py", "ray_train.py", "ds_train.py", "spawn.py"):
        shutil.copy(HERE / src, job / ("train.py" if src == "workload.py" else src))
    for name, text in DS_CONFIGS.items():
        (job / name).write_text(text)
    if s.tmpfs:
        (job / "ckpt").mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={s.tmpfs}", "tmpfs", str(job / "ckpt")], check=True)
    cg = ""
    cmd = fill(s.cmd, "")
    if s.memory:
        cgdir = own_memcg() / f"wavec-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
        cmd = f"echo $$ > {cg}/cgroup.procs; {cmd}"
    argv = ["bash", "-c", cmd]
    if s.shm:  # a private mount namespace: /dev/shm replaced for this job only
        argv = ["unshare", "-m", "--propagation", "private", "bash", "-c",
                f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {cmd}"]
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    out = bytearray()
    p = subprocess.Popen(argv, cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
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
            when, sig, target, kill_after = s.signal_after
            due = (time.time() - start >= when) if isinstance(when, float) else re.search(when, out.decode(errors="replace"))
            if due:
                fired = time.time()
                (os.killpg if target == "group" else os.kill)(p.pid, sig)
        elif fired and s.signal_after[3] and time.time() - fired >= s.signal_after[3]:
            break
    if p.poll() is None:  # still running: SIGKILL the whole job (as `kill -9` or a scheduler would; leaves no trace),
        # descendants included: `timeout` moves itself and its child into a process group of their own
        procs = psutil.Process(p.pid).children(recursive=True)
        os.killpg(p.pid, signal.SIGKILL)
        for c in procs:
            with contextlib.suppress(psutil.Error):
                c.kill()
    p.wait()
    reader.join(5)
    if s.tmpfs:
        subprocess.run(["umount", str(job / "ckpt")])
    if cg:
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None
    (job / "output.log").write_bytes(out)  # kept for a look at a MISSING run
    if ok:
        dest = CORPUS / "logs" / f"run-wavec-{s.name}"
        dest.mkdir(parents=True, exist_ok=True)
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, {len(out)} bytes, "
          f"rc {p.returncode})", flush=True)
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
            print(f"{s.name:36} {s.label:22} {s.ecosystem}")
        return
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        ok = (CORPUS / "logs" / f"run-wavec-{s.name}" / "job.log").exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        key = f"logs/run-wavec-{s.name}/job.log"
        if ok:
            rows[key] = [key, s.label, SOURCE, s.notes, SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
