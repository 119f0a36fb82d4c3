"""Generate wave H's real runs (sealed batch ``heldout10``): launchers and scenario+launcher pairs the earlier
generators lack: Open MPI ``mpirun`` launching torch.distributed gloo ranks (rank/world from ``OMPI_COMM_WORLD_*``) and
the Hugging Face Trainer; a local Slurm cluster (``sbatch``/``srun``, with and without torchrun inside); the Hugging
Face Trainer + ``datasets`` under torchrun; Ray Train ``TorchTrainer`` running the Hugging Face Trainer.

Each scenario runs one bash command in a fresh job directory ``/tmp/waveh-job/<name>`` (this folder's scripts are
copied there), captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would, or, for ``sbatch`` jobs, keeps the
job's own output file (``slurm-<jobid>.out``, what a Slurm user reads) as ``job.log``; checks that the expected
signature is in the output (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-waveh-<name>/job.log``
and its row of ``corpus/manifest.d/wave-h-runs.csv`` (split and batch ``heldout10``).

    python corpus/generators/waveh/generate.py --list
    python corpus/generators/waveh/generate.py --all
    python corpus/generators/waveh/generate.py --scenario mpirun-detail-eval-shard-mismatch

Needs root (tmpfs mounts, a cgroup-v1 memory cgroup), Open MPI (``apt-get install openmpi-bin``), a running one-node
Slurm cluster (``apt-get install slurm-wlm munge``, then ``slurm_setup.sh``), Ray 2.60 in the system Python, and the
venv of ../waveg/README.md plus ``transformers datasets`` and a ``torchrun`` entry point (see README.md).
"""
from __future__ import annotations

import argparse
import contextlib
import glob
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
FRAGMENT = CORPUS / "manifest.d" / "wave-h-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/waveh/generate.py"
SPLIT = "heldout10"
JOBS = Path("/tmp/waveh-job")
BIN = Path(sys.executable).parent
MEMCG = Path("/sys/fs/cgroup/memory")
SCRIPTS = ("job.py", "make_data.py", "train_hf.py", "ray_hf.py", "tracking_server.py", "train.sbatch",
           "torchrun.sbatch")
MPI = "mpirun --allow-run-as-root --oversubscribe"
HF_ARGS = ("--use_cpu --ddp_backend gloo --report_to none --do_train --per_device_train_batch_size 8 "
           "--logging_steps 5 --seed 42")
# Ray's memory monitor threshold set N GiB above what the (shared) machine uses when the run starts
RAY_THRESHOLD = ("$({py} -c 'import psutil; m = psutil.virtual_memory(); "
                 "print(round((m.total - m.available + 5 * 2**30) / m.total, 3))')")


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {mpi} {hf} {ray_threshold} are filled in
    expect: str  # regex the output must contain
    notes: str
    tmpfs: tuple = ()  # (relative dir, size) mounted as tmpfs before the run
    memory: int = 0  # bytes: the job runs in a cgroup-v1 memory cgroup with this limit (kernel OOM killer)
    slurm_out: bool = False  # keep the sbatch job's slurm-<id>.out (one) as job.log instead of the console
    timeout: int = 300


SCENARIOS = [
    # --- Open MPI mpirun ---------------------------------------------------------------------------------------------
    Scenario("mpirun-healthy-4ranks", "no_failure", "mpi",
             "{py} make_data.py --csv data/train.csv --rows 8192 && export MASTER_ADDR=127.0.0.1 MASTER_PORT=29610 "
             "TORCH_CPP_LOG_LEVEL=INFO && {mpi} -np 4 -x MASTER_ADDR -x MASTER_PORT -x TORCH_CPP_LOG_LEVEL "
             "-x OMP_NUM_THREADS {py} job.py --epochs 2 --log-every 8 --eval-every 40 --save-every 60 --save-dir ckpt; "
             "echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Open MPI mpirun -np 4 (as root, --oversubscribe on 2 cores) launching a torch.distributed gloo "
             "job whose ranks read their rank/world size from OMPI_COMM_WORLD_RANK/SIZE and rendezvous through "
             "MASTER_ADDR/MASTER_PORT (env://), TORCH_CPP_LOG_LEVEL=INFO; MLP regression over a CSV file, gradients "
             "averaged by a hand-written all_reduce, evaluations every 40 steps, checkpoints by rank 0; 2 epochs, "
             "every rank logs 'training finished' and the job exits 0 (the command line echoes the exit status)"),
    Scenario("mpirun-hf-trainer-healthy", "no_failure", "mpi",
             "export MASTER_ADDR=127.0.0.1 MASTER_PORT=29611 && {mpi} -np 3 -x PATH -x MASTER_ADDR -x MASTER_PORT "
             "-x OMP_NUM_THREADS -x PYTHONUNBUFFERED {py} train_hf.py --output_dir out {hf} --do_eval --max_steps 90 "
             "--eval_strategy steps --eval_steps 30 --save_steps 45 --learning_rate 5e-4; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Open MPI mpirun -np 3 launching a run_clm.py-style Hugging Face Trainer script on CPU (gloo; "
             "accelerate reads OMPI_COMM_WORLD_* for the multi-CPU set-up), a GPT-2 built from a config, a text "
             "dataset built and tokenised with `datasets` under main_process_first, 90 steps with evaluations every "
             "30 and checkpoints every 45 steps, final train/eval metrics; exits 0"),
    Scenario("mpirun-feature-cache-cgroup-oom", "host_oom_killed", "mpi",
             "{py} make_data.py --csv data/train.csv --rows 8192 && export MASTER_ADDR=127.0.0.1 MASTER_PORT=29612 && "
             "{mpi} --tag-output -np 3 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS {py} job.py --epochs 3 "
             "--feature-cache --expand 32768 --log-every 4 --eval-every 40 --sleep 0.05; echo \"job exited with $?\"",
             r"signal 9|Killed",
             "Open MPI mpirun -np 3 --tag-output, torch.distributed gloo ranks (rank from OMPI_COMM_WORLD_RANK): each "
             "rank memoises the expanded (random Fourier, 32768 floats = 128 KiB) features of every record it reads "
             "and never evicts them, so every rank's RSS grows ~4-6 MiB per step (the log's own 'rss' column); the job "
             "runs in a memory cgroup limited to 1.9 GB (a container/job memory limit), and the kernel OOM killer "
             "SIGKILLs one rank (rank 0 in this run, at ~790 MiB after step 72; dmesg: 'Memory cgroup out of memory: Killed process'); the other ranks fail in "
             "all_reduce ('Connection closed by peer') and mpirun reports 'exited on signal 9 (Killed)'",
             memory=1_900_000_000),
    Scenario("mpirun-csv-empty-field-valueerror", "worker_exception", "mpi",
             "{py} make_data.py --csv data/train.csv --rows 8192 --empty-field 4711 && export MASTER_ADDR=127.0.0.1 "
             "MASTER_PORT=29613 && {mpi} -np 4 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS {py} job.py "
             "--epochs 2 --log-every 5 --eval-every 25 --sleep 0.05; echo \"job exited with $?\"",
             r"ValueError",
             "Open MPI mpirun -np 4, torch.distributed gloo ranks reading a CSV training file parsed on access; row "
             "4711 of the export has an empty last feature field (a missing value): the rank whose shuffled shard "
             "reaches it (rank 3, after step 15) raises \"ValueError: could not convert string to float: ''\" in the "
             "Dataset's __getitem__, the other ranks fail in all_reduce ('Connection closed by peer'); mpirun aborts the job ('Primary job terminated normally, but 1 process returned a non-zero "
             "exit code', 'The first process to do so was: ... Exit code: 1') and stops the other ranks"),
    Scenario("mpirun-detail-eval-shard-mismatch", "collective_mismatch", "mpi",
             "{py} make_data.py --csv data/train.csv --rows 4099 && export MASTER_ADDR=127.0.0.1 MASTER_PORT=29614 "
             "TORCH_DISTRIBUTED_DEBUG=DETAIL && {mpi} -np 4 -x MASTER_ADDR -x MASTER_PORT -x TORCH_DISTRIBUTED_DEBUG "
             "-x OMP_NUM_THREADS {py} job.py --epochs 2 --eval-by-hand --eval-records 3 --eval-every 20 --log-every 4; "
             "echo \"job exited with $?\"",
             r"[Mm]ismatch between collectives",
             "Open MPI mpirun -np 4, torch.distributed gloo with TORCH_DISTRIBUTED_DEBUG=DETAIL: the held-out eval set "
             "(3 records) is split by hand with records[rank::world], so rank 3 has no eval records and skips the "
             "eval all_reduce (an `if shard:` guard) while ranks 0-2 call it; at the first evaluation (step 20) the "
             "DETAIL wrapper reports 'Detected mismatch between collectives on ranks' (ALLREDUCE of shape [2] on "
             "ranks 0-2 vs the next gradient ALLREDUCE of shape [5313] on rank 3) and mpirun aborts the job"),
    Scenario("mpirun-master-port-stale-job", "port_in_use", "mpi",
             "{py} make_data.py --csv data/train.csv --rows 8192 && export MASTER_ADDR=127.0.0.1 MASTER_PORT=29615 "
             "TORCH_CPP_LOG_LEVEL=INFO && ({mpi} -np 2 -x MASTER_ADDR -x MASTER_PORT -x OMP_NUM_THREADS {py} job.py "
             "--epochs 100 --sleep 0.1 --log-every 100 > earlier-run.log 2>&1 & echo $! > earlier.pid) && sleep 20 && "
             "{mpi} -np 4 -x MASTER_ADDR -x MASTER_PORT -x TORCH_CPP_LOG_LEVEL -x OMP_NUM_THREADS {py} job.py "
             "--epochs 2 --log-every 8 --pg-timeout 60; echo \"job exited with $?\"; kill $(cat earlier.pid)",
             r"EADDRINUSE|[Aa]ddress already in use",
             "Open MPI mpirun -np 4 torch.distributed gloo job (MASTER_PORT=29615, TORCH_CPP_LOG_LEVEL=INFO) started "
             "while an earlier run of the same job (2 ranks, same MASTER_ADDR/MASTER_PORT, output to another file, "
             "not in this log) is still training on the host: rank 0's TCPStore server cannot bind the port "
             "('DistNetworkError: The server socket has failed to listen on any local network address. port: 29615 "
             "... EADDRINUSE'); meanwhile ranks 1-2 reached the earlier run's TCPStore on that port and logged 'process "
             "group ready'; mpirun aborts the job. The earlier run was stopped afterwards"),
    Scenario("mpirun-stale-lock-hang-timeout", "silent_hang", "mpi",
             "{py} make_data.py --csv data/train.csv --rows 8192 && mkdir -p cache && "
             "(flock cache/eval.lock sleep 100000 >/dev/null 2>&1 & echo $! > holder.pid) && "
             "export MASTER_ADDR=127.0.0.1 MASTER_PORT=29616 && timeout 120 {mpi} -np 3 -x MASTER_ADDR -x MASTER_PORT "
             "-x OMP_NUM_THREADS {py} job.py --epochs 3 --log-every 5 --eval-every 150 --eval-cache cache --sleep 0.05; "
             "echo \"job exited with $?\"; kill $(cat holder.pid)",
             r"acquiring eval cache lock[\s\S]*job exited with 124",
             "Open MPI mpirun -np 3 torch.distributed gloo job (default 30 min process-group timeout) wrapped in "
             "`timeout 120` by the user: before the first evaluation (step 150) rank 0 builds an eval cache under an "
             "exclusive fcntl.flock on cache/eval.lock while ranks 1-2 wait at a barrier; the lock is held by a "
             "leftover process of an earlier job (a stale lock holder still alive on the host), so rank 0 blocks "
             "forever with no error: the log stops after rank 0's 'acquiring eval cache lock' line and the others' "
             "step-150 lines; no timeout or error fires, and after 120 s `timeout` sends SIGTERM to mpirun, which "
             "exits without a message (exit 124) while the blocked ranks stay alive (the generator killed them and "
             "the lock holder afterwards)", timeout=240),
    # --- Slurm ------------------------------------------------------------------------------------------------------
    Scenario("slurm-sbatch-time-limit", "job_preempted", "slurm",
             "{py} make_data.py --csv data/train.csv --rows 8192 && sbatch --wait --time=1 train.sbatch --epochs 30 "
             "--sleep 0.1 --log-every 10 --save-every 250 --save-dir ckpt; echo \"sbatch exited with $?\"",
             r"DUE TO TIME LIMIT",
             "Slurm (slurmctld + slurmd 22.05 on one node) sbatch job, `--time=1` (one minute) on the command line, "
             "2 tasks started by srun, each a torch.distributed gloo rank (rank/world from SLURM_PROCID/SLURM_NTASKS, "
             "MASTER_ADDR from scontrol show hostnames): training 30 epochs needs several minutes, so at the time "
             "limit slurmstepd cancels the job ('*** JOB N ON vm CANCELLED AT ... DUE TO TIME LIMIT ***'), srun "
             "forwards the termination and reports 'tasks 0-1: Terminated'. Log: the job's slurm-<id>.out file",
             slurm_out=True, timeout=300),
    Scenario("slurm-srun-feature-cache-mem-limit", "host_oom_killed", "slurm",
             "{py} make_data.py --csv data/train.csv --rows 8192 && export MASTER_ADDR=$(hostname) MASTER_PORT=29617 && "
             "srun --ntasks 2 --mem 1800M --label {py} job.py --epochs 3 --feature-cache --expand 32768 --log-every 2 "
             "--eval-every 40 --sleep 0.05; echo \"srun exited with $?\"",
             r"exceeded memory limit|Exceeded job memory limit",
             "Slurm srun run from the console (`--ntasks 2 --mem 1800M --label`), 2 torch.distributed gloo ranks "
             "(rank from SLURM_PROCID): each rank memoises expanded per-record features (128 KiB each) without "
             "eviction, so the step's memory grows by ~10 MiB per step (the 'rss' column: ~6 and ~4 MiB per rank); Slurm's job accounting "
             "(jobacct_gather/linux with OverMemoryKill) sees the step pass its 1800M limit: slurmstepd "
             "'StepId=N.0 exceeded memory limit (... > ...), being killed', srun 'Exceeded job memory limit', the "
             "tasks are killed ('task N: Killed')", timeout=300),
    Scenario("slurm-sbatch-mmap-shard-rewritten-sigbus", "native_crash", "slurm",
             "{py} make_data.py --raw data/train.f32 --rows 16384 && sbatch --wait train.sbatch --mmap-data "
             "data/train.f32 --epochs 3 --sleep 0.05 --log-every 5 --refresh-step 300 --refresh-data "
             "'python make_data.py --raw data/train.f32 --rows 16384 --seed 1 --chunk 512 --chunk-sleep 0.5'; "
             "echo \"sbatch exited with $?\"",
             r"Bus error",
             "Slurm sbatch job, 2 srun tasks (torch.distributed gloo ranks) reading training records from a raw "
             "float32 file through numpy.memmap; at step 300 (epoch 1) rank 0 starts the next epoch's data-prep step, which "
             "rewrites the same file in place (opened with 'wb': truncated, then refilled slowly) instead of writing a "
             "new file and renaming it: the ranks' mappings now reach past the end of the file and both processes "
             "die of SIGBUS when they touch those pages (no Python traceback); srun: 'tasks 0-1: Bus error', exit "
             "135. Log: the job's slurm-<id>.out file (the prep step's own 'wrote ... records' line included)",
             slurm_out=True, timeout=300),
    Scenario("slurm-sbatch-torchrun-nnodes-rdzv-timeout", "rendezvous_timeout", "slurm",
             "{py} make_data.py --csv data/train.csv --rows 8192 && NNODES=2 JOIN_TIMEOUT=90 sbatch --wait "
             "torchrun.sbatch --epochs 2 --log-every 10; echo \"sbatch exited with $?\"",
             r"RendezvousTimeoutError",
             "Slurm sbatch job with one node (#SBATCH --nodes=1) whose script starts one torchrun agent per node "
             "with srun, c10d rendezvous on the first node, but is submitted with NNODES=2 (the node count of an "
             "earlier two-node set-up): torchrun (LOGLEVEL=INFO) waits for a second agent that never comes and after "
             "the rendezvous join_timeout (90 s, set in the script) raises RendezvousTimeoutError; srun 'task 0: "
             "Exited with exit code 1'. Log: the job's slurm-<id>.out file", slurm_out=True, timeout=300),
    Scenario("slurm-sbatch-torchrun-healthy", "no_failure", "slurm",
             "{py} make_data.py --csv data/train.csv --rows 8192 && sbatch --wait torchrun.sbatch --epochs 2 "
             "--log-every 10 --eval-every 50 --save-every 100 --save-dir ckpt; echo \"sbatch exited with $?\"",
             r"srun exited with 0",
             "healthy: Slurm sbatch job (one node) running one torchrun agent per node under srun (LOGLEVEL=INFO, "
             "c10d rendezvous on the first node, 2 workers): 2 epochs with evaluations and checkpoints, torchrun "
             "reports the workers finished, srun exits 0. Log: the job's slurm-<id>.out file",
             slurm_out=True, timeout=300),
    Scenario("slurm-sbatch-srun-healthy", "no_failure", "slurm",
             "{py} make_data.py --csv data/train.csv --rows 8192 && sbatch --wait --time=10 train.sbatch --epochs 3 "
             "--log-every 10 --eval-every 50 --save-every 120 --save-dir ckpt; echo \"sbatch exited with $?\"",
             r"srun exited with 0",
             "healthy: Slurm sbatch job (`--time=10`), 2 srun tasks as torch.distributed gloo ranks (rank/world from "
             "SLURM_PROCID/SLURM_NTASKS): 3 epochs with evaluations and checkpoints, 'training finished' on both "
             "ranks, srun exits 0. Log: the job's slurm-<id>.out file", slurm_out=True, timeout=300),
    Scenario("slurm-sbatch-stale-lock-barrier-timeout", "collective_timeout", "slurm",
             "{py} make_data.py --csv data/train.csv --rows 8192 && mkdir -p cache && "
             "(flock cache/eval.lock sleep 100000 >/dev/null 2>&1 & echo $! > holder.pid) && SLURM_KILL_BAD_EXIT=1 "
             "sbatch --wait train.sbatch --epochs 3 --log-every 5 --eval-every 100 --eval-cache cache --pg-timeout 45 "
             "--sleep 0.05; echo \"sbatch exited with $?\"; kill $(cat holder.pid)",
             r"[Tt]imed out|[Tt]imeout",
             "Slurm sbatch job, 2 srun tasks as torch.distributed gloo ranks with a 45 s process-group timeout "
             "(--pg-timeout 45), submitted with SLURM_KILL_BAD_EXIT=1 (srun --kill-on-bad-exit): before the first "
             "evaluation (step 100) rank 0 builds an eval cache under an exclusive fcntl.flock on cache/eval.lock "
             "while rank 1 waits in a barrier; the lock is held by a leftover process of an earlier job on the node, "
             "so rank 0 blocks; after 45 s rank 1's gloo barrier times out, rank 1 exits 1 and srun kills rank 0. "
             "Log: the job's slurm-<id>.out file", slurm_out=True, timeout=300),
    # --- Hugging Face Trainer + datasets under torchrun -------------------------------------------------------------
    Scenario("hf-torchrun-sgd-lr-nan", "training_divergence", "transformers",
             "torchrun --standalone --nproc-per-node 3 train_hf.py --output_dir out {hf} --do_eval --max_steps 150 "
             "--optim sgd --learning_rate 1.5 --lr_scheduler_type constant --max_grad_norm 0 --eval_strategy steps "
             "--eval_steps 50 --save_strategy no; echo \"job exited with $?\"",
             r"nan",
             "torchrun --standalone 3 CPU processes (gloo) running a run_clm.py-style Hugging Face Trainer script "
             "(GPT-2 from a config, datasets map/group_texts): plain SGD with learning rate 1.5, a constant schedule "
             "and gradient clipping switched off (--max_grad_norm 0): the loss climbs from ~7 to ~3.5e13 within 15 "
             "steps, then grad_norm is nan and the parameters are NaN; with logging_nan_inf_filter on (the default) "
             "the logged loss shows 0 while grad_norm and eval_loss are nan; nothing stops the run, which finishes "
             "its 150 steps (train_loss = 1.16e12, the mean of the finite windows) and exits 0", timeout=300),
    Scenario("hf-torchrun-checkpoint-tmpfs-full", "disk_full", "transformers",
             "torchrun --standalone --nproc-per-node 2 train_hf.py --output_dir out {hf} --max_steps 120 "
             "--save_steps 20; echo \"job exited with $?\"",
             r"No space left on device|os error 28",
             "torchrun --standalone 2 CPU processes (gloo), Hugging Face Trainer with save_steps 20 and no "
             "save_total_limit, output_dir on a 3 MB tmpfs (a small scratch volume): checkpoints 20 and 40 fit, at "
             "checkpoint-60 safetensors fails on rank 0 ('SafetensorError: Error while serializing: I/O error: No "
             "space left on device (os error 28)'), rank 1 loses its peer (gloo 'Connection closed by peer') and "
             "torchrun reports the failure", tmpfs=(("out", "3m"),), timeout=300),
    Scenario("hf-torchrun-datasets-cache-enospc", "disk_full", "transformers",
             "torchrun --standalone --nproc-per-node 2 train_hf.py --output_dir out {hf} --max_steps 60 "
             "--dataset_cache_dir hf_cache --train_docs 4000; echo \"job exited with $?\"",
             r"No space left on device|Errno 28",
             "torchrun --standalone 2 CPU processes (gloo), Hugging Face Trainer script whose datasets cache "
             "(--dataset_cache_dir) is on a 16 MB tmpfs: building the raw dataset and tokenising fit, but "
             "group_texts' Dataset.map writes a ~17 MB cache file and pyarrow's write fails with 'OSError: [Errno 28] "
             "No space left on device' inside datasets' map worker, raised on rank 0 and then on rank 1 (which runs the "
             "map after rank 0 leaves main_process_first); torchrun reports rank 0's exitcode 1, SIGTERMs rank 1; "
             "no training step ran", tmpfs=(("hf_cache", "16m"),), timeout=300),
    Scenario("hf-torchrun-datasets-healthy", "no_failure", "transformers",
             "torchrun --standalone --nproc-per-node 2 train_hf.py --output_dir out {hf} --do_eval --max_steps 120 "
             "--eval_strategy steps --eval_steps 40 --save_steps 40 --save_total_limit 2 --learning_rate 5e-4 "
             "--dataset_cache_dir hf_cache; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: torchrun --standalone 2 CPU processes (gloo) running the run_clm.py-style Hugging Face "
             "Trainer script with its datasets cache on local disk: dataset built, tokenised and grouped with "
             "Dataset.map under main_process_first, 120 steps with evaluations and checkpoints every 40 steps "
             "(save_total_limit 2), final train/eval metrics with perplexity; exits 0", timeout=300),
    # --- Ray Train TorchTrainer + Hugging Face Trainer --------------------------------------------------------------
    Scenario("raytrain-hf-token-stats-memory-monitor", "host_oom_killed", "ray",
             "RAY_memory_usage_threshold={ray_threshold} {py} ray_hf.py --max-steps 400 --batch-size 4 "
             "--vocab-size 50257 --token-stats --name gpt2-token-stats; echo \"job exited with $?\"",
             r"low on memory|memory monitor|OOM",
             "Ray Train TorchTrainer (Ray 2.60, Train v2, 2 CPU workers, gloo) running the Hugging Face Trainer "
             "(prepare_trainer, RayTrainReportCallback) on a GPT-2 with a 50257-token vocabulary; a Trainer subclass "
             "keeps every step's logits (4 x 64 x 50257 floats, ~50 MB) for a token-calibration report and never "
             "frees them, so each worker grows ~50 MB per step; Ray's memory monitor (threshold set 5 GiB above the "
             "node's usage at start with RAY_memory_usage_threshold) kills the workers ('worker(s) were killed due to "
             "the node running low on memory', top memory users are the two RayTrainWorker processes) and the "
             "TrainController fails the run (max failures 0)", timeout=400),
    Scenario("raytrain-hf-tracking-server-hang", "silent_hang", "ray",
             "({py} tracking_server.py --port 8765 --stall-after 6 > tracking-server.log 2>&1 & echo $! > server.pid) "
             "&& sleep 2 && timeout 240 {py} ray_hf.py --max-steps 300 --tracking-url http://127.0.0.1:8765/api/log "
             "--name gpt2-tracked; echo \"job exited with $?\"; kill $(cat server.pid)",
             r"job exited with 124",
             "Ray Train TorchTrainer (2 CPU workers, gloo, default 30 min process-group timeout) running the Hugging "
             "Face Trainer; a TrainerCallback on the world-process-zero worker posts every logged metrics dict to an "
             "experiment-tracking server with urllib.request.urlopen and no timeout; after 6 requests the tracking "
             "server stops answering (its handler blocks on a lock; connections are still accepted), so worker 0 "
             "blocks in the HTTP read inside on_log and worker 1 waits in DDP's gradient all_reduce: no error, no "
             "timeout, the log just stops after worker 0's step-25 metrics; the user's `timeout 240` then sends SIGTERM "
             "(exit 124)", timeout=360),
    Scenario("raytrain-hf-healthy-checkpoints", "no_failure", "ray",
             "{py} ray_hf.py --max-steps 80 --name gpt2-byte-lm; echo \"job exited with $?\"",
             r"job exited with 0",
             "healthy: Ray Train TorchTrainer (2 CPU workers, gloo) running the Hugging Face Trainer with "
             "prepare_trainer and RayTrainReportCallback: 80 steps, evaluations and checkpoints every 20 steps "
             "reported to Ray Train's storage path, the driver prints the final metrics and checkpoint; exits 0",
             timeout=300),
]

# what the log shows that carries the cause, and how the job ended (checked against the committed logs)
EVIDENCE = {
    "mpirun-healthy-4ranks": ("every rank's 'training finished: N steps' line, 'job exited with 0'", "exit 0"),
    "mpirun-hf-trainer-healthy": ("'***** train metrics *****' and '***** eval metrics *****' blocks, 'Training "
                                  "completed', 'job exited with 0'", "exit 0"),
    "mpirun-feature-cache-cgroup-oom": ("the 'rss' column growing every logged step, then mpirun's 'mpirun noticed "
                                        "that process rank 0 with PID 0 on node vm exited on signal 9 (Killed)'; the "
                                        "other ranks' gloo 'Connection closed by peer' / 'Connection reset by peer' "
                                        "are symptoms", "mpirun exit 137"),
    "mpirun-csv-empty-field-valueerror": ("[rank3] traceback ending in \"ValueError: could not convert string to float: "
                                          "''\" in the Dataset's __getitem__; mpirun's 'The first process to do so was: "
                                          "Process name: [[...],3] Exit code: 1'", "mpirun exit 1"),
    "mpirun-detail-eval-shard-mismatch": ("'RuntimeError: Detected mismatch between collectives on ranks. Rank 3 is "
                                          "running collective: CollectiveFingerPrint(SequenceNumber=26, "
                                          "OpType=ALLREDUCE, TensorShape=[5313] ...' vs TensorShape=[2] on ranks 0-2, "
                                          "after rank 3's 'step 20: no eval records on this rank'", "mpirun exit 1"),
    "mpirun-master-port-stale-job": ("rank 0's 'torch.distributed.DistNetworkError: The server socket has failed to "
                                     "listen on any local network address. port: 29615, useIpv6: false, code: -98, "
                                     "name: EADDRINUSE, message: address already in use' (after the c10d INFO line "
                                     "'Failed to bind to ipv6 address, trying ipv4')", "mpirun exit 1"),
    "mpirun-stale-lock-hang-timeout": ("rank 0's last line 'acquiring eval cache lock cache/eval.lock' right after "
                                       "step 150, ranks 1-2 stop at their step-150 lines, no error or timeout line, "
                                       "then 'job exited with 124' (timeout's status)", "exit 124 (timeout)"),
    "slurm-sbatch-time-limit": ("'slurmstepd-vm: error: *** JOB 7 ON vm CANCELLED AT ... DUE TO TIME LIMIT ***', "
                                "'*** STEP 7.0 ... DUE TO TIME LIMIT ***', 'srun: forcing job termination', 'srun: "
                                "error: vm: tasks 0-1: Terminated' while the ranks were still training",
                                "sbatch --wait exit 1"),
    "slurm-srun-feature-cache-mem-limit": ("the growing 'rss' column, then 'slurmstepd-vm: error: StepId=17.0 exceeded "
                                           "memory limit (1978634240 > 1887436800), being killed', 'srun: Exceeded job "
                                           "memory limit', 'srun: error: vm: tasks 0-1: Killed'", "srun exit 137"),
    "slurm-sbatch-mmap-shard-rewritten-sigbus": ("rank 0's 'starting data prep for epoch 2: python make_data.py --raw "
                                                 "data/train.f32 ...' at step 300, the ranks' output stops, 'srun: "
                                                 "error: vm: tasks 0-1: Bus error', 'srun exited with 135' (128+7, "
                                                 "SIGBUS)", "srun exit 135, sbatch --wait exit 135"),
    "slurm-sbatch-torchrun-nnodes-rdzv-timeout": ("torchrun's launch config 'min_nodes : 2' / 'max_nodes : 2' with "
                                                  "rdzv_configs {'join_timeout': '90', ...}, 'Rendezvous'ing worker "
                                                  "group', then after 90 s a traceback through next_rendezvous ending in "
                                                  "'torch.distributed.elastic.rendezvous.api.RendezvousTimeoutError'; "
                                                  "'srun: error: vm: task 0: Exited with exit code 1'",
                                                  "srun exit 1, sbatch --wait exit 1"),
    "slurm-sbatch-torchrun-healthy": ("both ranks' 'training finished', torchrun's 'worker group successfully "
                                      "finished', 'srun exited with 0'", "exit 0"),
    "slurm-sbatch-srun-healthy": ("both ranks' 'training finished: 381 steps', 'srun exited with 0'", "exit 0"),
    "slurm-sbatch-stale-lock-barrier-timeout": ("rank 0's last line 'acquiring eval cache lock cache/eval.lock' at "
                                                "step 100, then rank 1's traceback through dist.barrier ending in "
                                                "'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out "
                                                "waiting 45000ms for recv operation to complete', 'srun: error: vm: "
                                                "task 1: Exited with exit code 1', srun terminating the step ('task 0: "
                                                "Terminated')", "srun exit 143, sbatch --wait exit 143"),
    "hf-torchrun-datasets-healthy": ("'***** train metrics *****' / '***** eval metrics *****' blocks with "
                                     "perplexity, 'Training completed', 'job exited with 0'", "exit 0"),
    "hf-torchrun-sgd-lr-nan": ("the Trainer's log dicts: 'loss' 7.297 -> 7123 -> 3.477e+13, then 'grad_norm': 'nan' "
                               "with 'loss': '0' (NaN windows filtered) for the rest of the run, every 'eval_loss': "
                               "'nan'", "exit 0"),
    "hf-torchrun-checkpoint-tmpfs-full": ("'Saving model checkpoint to out/checkpoint-60', then [rank0] "
                                          "'safetensors._safetensors_rust.SafetensorError: Error while serializing: I/O "
                                          "error: No space left on device (os error 28)'; rank 1's gloo 'Connection "
                                          "closed by peer' and torchrun's ChildFailedError (rank 0 exitcode 1, rank 1 "
                                          "-15) follow", "torchrun exit 1"),
    "hf-torchrun-datasets-cache-enospc": ("'Grouping texts in chunks of 64' / 'Caching processed dataset at "
                                          ".../hf_cache/...', then [rank0] and [rank1] tracebacks through datasets' "
                                          "arrow_writer ending in 'OSError: [Errno 28] No space left on device'",
                                          "torchrun exit 1"),
    "raytrain-hf-token-stats-memory-monitor": ("'4 worker(s) were killed due to the node running low on memory', 'OOM "
                                               "kill reason: Memory usage 6358904832B exceeded threshold of "
                                               "6319015936B', top memory users the two ray::RayTrainWorker processes "
                                               "(~2 GB each), 'ray.exceptions.OutOfMemoryError'; worker 0's gloo "
                                               "'Connection closed by peer' and ray.train.WorkerGroupError follow",
                                               "driver exit 1"),
    "raytrain-hf-tracking-server-hang": ("worker 0's Trainer log dicts stop at step 25 (epoch 0.1953) of 300 with no "
                                         "error from any worker or the controller; the driver's '*** SIGTERM received "
                                         "at time=... ***' from `timeout 240`, 'job exited with 124'",
                                         "exit 124 (timeout)"),
    "raytrain-hf-healthy-checkpoints": ("'Training completed', checkpoints reported ('Checkpoint successfully created "
                                        "at'), the driver's 'training finished: metrics=...', 'job exited with 0'",
                                        "exit 0"),
}


def row_notes(s: "Scenario") -> str:
    evidence, ended = EVIDENCE[s.name]
    return f"{s.notes}. Evidence: {evidence}. Ended: {ended}. Full log of a real run on CPU (nothing edited)."


def fill(cmd: str) -> str:
    subs = {"mpi": MPI, "hf": HF_ARGS, "ray_threshold": RAY_THRESHOLD, "py": sys.executable}
    for k, v in subs.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def own_memcg() -> Path:
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, ctrl, path = line.split(":", 2)
        if "memory" in ctrl.split(","):
            return MEMCG / path.lstrip("/")
    raise SystemExit("no cgroup-v1 memory controller")


class Tracker:
    """Every process seen below the job's shell (pid, create time): some launchers leave ranks behind when they
    are signalled (mpirun under ``timeout``), and Ray starts its daemons in sessions of their own."""

    def __init__(self, pid: int) -> None:
        self.root, self.seen = pid, {}

    def poll(self) -> None:
        with contextlib.suppress(psutil.Error):
            for c in psutil.Process(self.root).children(recursive=True):
                with contextlib.suppress(psutil.Error):
                    self.seen.setdefault(c.pid, c.create_time())

    def kill_all(self) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.root, signal.SIGKILL)
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                if p.create_time() == created:
                    p.kill()
        for proc in psutil.process_iter():  # what stayed in the job's session (re-parented to init)
            with contextlib.suppress(psutil.Error, ProcessLookupError):
                if proc.pid != self.root and os.getsid(proc.pid) == self.root:
                    proc.kill()


def slurm_ok() -> bool:
    return subprocess.run(["scontrol", "ping"], capture_output=True, text=True).stdout.count("UP") > 0


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        for d, _ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    (job / "data").mkdir()
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / src)
    for d, size in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
    if s.slurm_out and not slurm_ok():
        print(f"MISSING {s.name}: no Slurm controller answers (run slurm_setup.sh)", flush=True)
        return False
    cmd, cg = fill(s.cmd), ""
    if s.memory:
        cgdir = own_memcg() / f"waveh-{s.name}"
        cgdir.mkdir(exist_ok=True)
        (cgdir / "memory.limit_in_bytes").write_text(str(s.memory))
        cg = str(cgdir)
        cmd = f"echo $$ > {cg}/cgroup.procs; {cmd}"
    env = dict(os.environ, PATH=f"{BIN}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    env.pop("PYTHONPATH", None)
    out = bytearray()
    p = subprocess.Popen(["bash", "-c", cmd], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)
    tracker = Tracker(p.pid)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    start = time.time()
    while p.poll() is None and time.time() - start < s.timeout:
        tracker.poll()
        time.sleep(0.2)
    timed_out = p.poll() is None
    if timed_out and s.name.startswith("slurm-"):
        # this host's one-node cluster, started for these runs: cancel what the run left queued or running
        ids = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True).stdout.split()
        if ids:
            subprocess.run(["scancel", *ids])
    tracker.kill_all()
    p.wait()
    reader.join(5)
    for d, _ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    if cg:
        time.sleep(1)
        subprocess.run(["rmdir", cg], stderr=subprocess.DEVNULL)
    (job / "console.log").write_bytes(out)  # kept for a look at a MISSING run
    if s.slurm_out:
        outs = sorted(glob.glob(str(job / "slurm-*.out")))
        log = Path(outs[0]).read_bytes() if len(outs) == 1 else b""
    else:
        log = bytes(out)
    text = log.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-waveh-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(log)
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, {len(log)} bytes, "
          f"rc {p.returncode}, {time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
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
            print(f"{s.name:45} {s.label:22} {s.ecosystem}")
        return
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-waveh-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok:
            rows[key] = [key, s.label, SOURCE, row_notes(s), SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
