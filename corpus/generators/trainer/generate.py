#!/usr/bin/env python3
"""Generate held-out logs of realistic training jobs (torchrun/DDP on gloo, and a local Ray cluster).

Workloads (both in this directory, copied into a fresh job directory before each run so the
tracebacks read like a user's job):

* ``train_lm.py`` — a byte-level transformer LM trainer under ``torchrun``: config dump,
  DistributedSampler + DataLoader workers, tqdm bar, metric lines, eval, checkpoints, the torch
  warnings such code really triggers.
* ``rollout_ray.py`` — a Ray RL loop (prompt preprocessing tasks, EnvRunner actors, driver-side
  learner), or a placement-group reservation for learner workers.

Each scenario is one real run; the launcher's combined stdout+stderr (as ``CMD 2>&1 | tee job.log``
would capture it) is written to ``corpus/logs/gen-trainer-<scenario>/job.log``; ``--log-dir``
scenarios copy torchrun's per-rank tree plus ``console.log`` instead. Faults are caused for real:
a ``TRAINER_FAULT`` variable the workload reads (never printed), signals sent from outside by this
script to the launcher or to a process found in its process tree (as a scheduler, a closing
terminal or the kernel OOM killer would), a second job holding the master port, a second node
that is never started. Rows go to ``corpus/manifest.d/trainer.csv`` (split ``heldout``).

Series 2 (``S2(...)``, ``--series 2``) adds ``train_hf.py`` (a Hugging Face ``Trainer`` job) and
``ppo_ray.py`` (a PPO-style Ray job) plus more ``train_lm.py`` shapes; its logs go to
``corpus/logs/gen-trainer2-<scenario>/`` and its rows to ``corpus/manifest.d/trainer2.csv``.

Usage::

    python corpus/generators/trainer/generate.py --list
    python corpus/generators/trainer/generate.py --all
    python corpus/generators/trainer/generate.py --scenario bad-record

Each scenario carries the regex its log must show; a run without it is reported MISSING and
nothing is written for it. Needs torch 2.13 (CPU), ray 2.x and tqdm.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import copy_logdir, fill, read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
MANIFEST = CORPUS / "manifest.d" / "trainer.csv"
MANIFESTS = {1: MANIFEST, 2: CORPUS / "manifest.d" / "trainer2.csv"}  # series -> manifest fragment
SOURCE = "corpus/generators/trainer/generate.py"
PY = sys.executable
_tr = Path(PY).with_name("torchrun")
TORCHRUN = str(_tr) if _tr.exists() else "torchrun"
BASE_PORT = 29850


@dataclass
class Kill:
    """Send ``sig`` once ``after`` (regex) appears in the output (plus ``delay`` seconds).

    target: ``launcher`` (torchrun itself), ``rank:N`` (the worker process with RANK=N) or
    ``loader:N`` (a DataLoader worker process of rank N).
    """

    sig: int
    after: str
    target: str = "launcher"
    delay: float = 0.0


@dataclass
class Other:
    """Another job started before the logged one; its output goes to a scratch file."""

    cmd: list[str]
    ready: str  # regex in its output before the logged job starts
    env: dict[str, str] = field(default_factory=dict)


@dataclass
class Scenario:
    name: str
    label: str
    notes: str
    cmd: list[str]
    expect: str
    env: dict[str, str] = field(default_factory=dict)
    kill: Kill | None = None
    other: Other | None = None
    logdir: bool = False
    ray: bool = False
    timeout: float = 60.0
    series: int = 1  # 1: logs/gen-trainer-*, trainer.csv; 2: logs/gen-trainer2-*, trainer2.csv

    @property
    def rel(self) -> str:
        group = "gen-trainer" if self.series == 1 else f"gen-trainer{self.series}"
        return f"logs/{group}-{self.name}" + ("" if self.logdir else "/job.log")


def T(*a: str) -> list[str]:
    return [TORCHRUN, *a]


TRAIN = "train_lm.py"
RAY = [PY, "rollout_ray.py"]
SA = ["--standalone", "--nproc-per-node", "2"]
STATIC = ["--nnodes", "1", "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port", "{port}"]

SCENARIOS: list[Scenario] = [
    # healthy runs -------------------------------------------------------------------------------
    Scenario("lm-2ranks-120steps", "no_failure",
             "torchrun --standalone 2 ranks, 120 steps, eval every 40, checkpoints at 60/120; finishes normally",
             T(*SA, TRAIN, "--max-steps", "120"), expect=r"Training completed\."),
    Scenario("lm-4loader-workers", "no_failure",
             "static rendezvous, 2 ranks x 4 DataLoader workers (torch warns about worker count), 200 steps, "
             "log every 20, eval every 50, save every 100; finishes normally",
             T(*STATIC, TRAIN, "--max-steps", "200", "--num-workers", "4", "--log-every", "20",
               "--eval-every", "50", "--save-every", "100", "--run-name", "lm-tiny-w4"),
             expect=r"Training completed\."),
    Scenario("lm-single-proc-amp", "no_failure",
             "torchrun --nproc-per-node 1 (no DDP), --amp on CPU (GradScaler/autocast warnings), 150 steps, "
             "eval every 50; finishes normally",
             T("--standalone", "--nproc-per-node", "1", TRAIN, "--max-steps", "150", "--amp", "--eval-every", "50",
               "--save-every", "75", "--batch-size", "24"),
             expect=r"Training completed\."),
    Scenario("lm-3ranks-debug-detail", "no_failure",
             "3 ranks with TORCH_DISTRIBUTED_DEBUG=DETAIL and LOGLEVEL=INFO, 60 steps, eval every 20; finishes normally",
             T("--standalone", "--nproc-per-node", "3", TRAIN, "--max-steps", "60", "--eval-every", "20",
               "--save-every", "30", "--num-workers", "1", "--manual-grad-sync"),
             env={"TORCH_DISTRIBUTED_DEBUG": "DETAIL", "LOGLEVEL": "INFO"}, expect=r"Training completed\."),
    Scenario("lm-logdir-c10d", "no_failure",
             "torchrun --log-dir --tee 3, c10d rendezvous, 2 ranks, 80 steps; per-rank stdout/stderr files + "
             "console.log; finishes normally",
             T("--nnodes", "1", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
               "127.0.0.1:{port}", "--rdzv-id", "lm-run-0311", "--log-dir", "{logdir}", "--tee", "3", TRAIN,
               "--max-steps", "80", "--eval-every", "40", "--save-every", "40"),
             expect=r"Training completed\.", logdir=True),
    Scenario("ray-rl-30iters", "no_failure",
             "Ray RL loop: 8 preprocessing tasks, 2 EnvRunner actors, 30 iterations with eval and checkpoints; "
             "finishes normally",
             [*RAY, "--iterations", "30"], expect=r"done: 30 iterations", ray=True),
    # an exception in the training code ----------------------------------------------------------
    Scenario("bad-record", "worker_exception",
             "one truncated record in rank 1's shard: default_collate in a DataLoader worker raises RuntimeError "
             "(Trying to resize storage that is not resizable) at step 37; rank 0 then loses its peer",
             T(*SA, TRAIN, "--max-steps", "120"), env={"TRAINER_FAULT": "short_record:rank=1:step=37"},
             expect=r"Trying to resize storage that is not resizable|stack expects each tensor"),
    Scenario("eval-reshape", "worker_exception",
             "torchrun --log-dir --redirects 3: at the first eval (step 40) rank 0 reshapes logits with the "
             "configured eval batch size and the last, smaller eval batch raises RuntimeError (shape invalid); "
             "rank 1 waits in the eval all_reduce",
             T(*SA, "--log-dir", "{logdir}", "--redirects", "3", TRAIN, "--max-steps", "120"),
             env={"TRAINER_FAULT": "eval_view:rank=0"}, expect=r"is invalid for input of size", logdir=True),
    Scenario("ray-rollout-keyerror", "worker_exception",
             "Ray RL loop: at iteration 17 a prompt with an unknown task type reaches EnvRunner 1, its reward "
             "function raises KeyError; the driver's ray.get raises RayTaskError(KeyError)",
             [*RAY, "--iterations", "30"], env={"TRAINER_FAULT": "unknown_task:runner=1:iter=17"},
             expect=r"RayTaskError\(KeyError\)", ray=True),
    # killed with SIGKILL (what the kernel OOM killer sends) ----------------------------------------
    Scenario("loader-worker-killed", "host_oom_killed",
             "this script sends SIGKILL from outside to a DataLoader worker process of rank 1 after step 30, as "
             "the kernel OOM killer would",
             T(*SA, TRAIN, "--max-steps", "200", "--step-sleep", "0.05"),
             kill=Kill(signal.SIGKILL, r"step 30/200", "loader:1"),
             expect=r"DataLoader worker \(pid \d+\) is killed by signal"),
    Scenario("rank-killed", "host_oom_killed",
             "this script sends SIGKILL (kill -9) from outside to the rank 1 worker process after step 50, as the "
             "kernel OOM killer would; torchrun reports exitcode -9",
             T(*SA, TRAIN, "--max-steps", "300", "--step-sleep", "0.05"),
             kill=Kill(signal.SIGKILL, r"step 50/300", "rank:1"), expect=r"exitcode\s*: -9"),
    # a collective that never completes ------------------------------------------------------------
    Scenario("stalled-read", "collective_timeout",
             "a sample read on rank 1 blocks 45 s at step 25 (process group timeout 15 s); rank 0's next DDP "
             "forward times out in gloo (buffer broadcast, 'Timed out waiting 15000ms for send operation')",
             T(*SA, TRAIN, "--max-steps", "120", "--timeout-s", "15"),
             env={"TRAINER_FAULT": "slow_read:rank=1:step=25:secs=45"},
             expect=r"Timed out waiting \d+ms for (send|recv) operation"),
    # ranks issue different collectives / shapes ----------------------------------------------------
    Scenario("eval-gather-detail", "collective_mismatch",
             "TORCH_DISTRIBUTED_DEBUG=DETAIL, --manual-grad-sync (DDP segfaults under DETAIL on this torch 2.13 CPU "
             "build); eval all_gathers per-sample losses although the eval shards are "
             "51 and 50 samples, so ranks issue all_gather with different shapes at step 40",
             T(*SA, TRAIN, "--max-steps", "120", "--timeout-s", "20", "--manual-grad-sync"),
             env={"TRAINER_FAULT": "gather_eval", "TORCH_DISTRIBUTED_DEBUG": "DETAIL"},
             expect=r"Detected mismatch between collectives"),
    Scenario("eval-gather", "collective_mismatch",
             "no debug mode; eval all_gathers per-sample losses of unequal eval shards (51 vs 50) at step 40; "
             "rank 1 aborts with gloo::EnforceNotMet (Received data size doesn't match expected size)",
             T(*SA, TRAIN, "--max-steps", "120", "--timeout-s", "20"),
             env={"TRAINER_FAULT": "gather_eval"}, expect=r"gloo::EnforceNotMet"),
    # launch problems --------------------------------------------------------------------------------
    Scenario("second-node-absent", "rendezvous_timeout",
             "torchrun --nnodes 2 c10d rendezvous (join_timeout=15), LOGLEVEL=INFO; the second node is never started",
             T("--nnodes", "2", "--nproc-per-node", "2", "--rdzv-backend", "c10d", "--rdzv-endpoint",
               "127.0.0.1:{port}", "--rdzv-id", "lm-run-0921", "--rdzv-conf", "join_timeout=15", TRAIN),
             env={"LOGLEVEL": "INFO"}, expect=r"RendezvousTimeoutError"),
    Scenario("port-held-by-other-job", "port_in_use",
             "a first training job (static rendezvous, --master-port P) is still running when this second job is "
             "started with the same --master-port; the log is the second job",
             T(*STATIC, TRAIN, "--max-steps", "120", "--run-name", "lm-tiny-b"),
             other=Other(T(*STATIC, TRAIN, "--max-steps", "2000", "--step-sleep", "0.2", "--run-name", "lm-tiny-a"),
                         ready=r"step 10/2000"),
             expect=r"EADDRINUSE|[Aa]ddress already in use"),
    # signals from outside ----------------------------------------------------------------------------
    Scenario("external-sigterm", "job_preempted",
             "SIGTERM sent to the torchrun process from outside after step 40 (as a scheduler preempting the job)",
             T(*SA, TRAIN, "--max-steps", "400", "--step-sleep", "0.05"),
             kill=Kill(signal.SIGTERM, r"step 40/400", "launcher"), expect=r"got signal: 15|SIGTERM"),
    Scenario("external-sighup", "terminal_hangup",
             "SIGHUP sent to the torchrun process from outside after step 30 (as when the terminal/ssh session closes)",
             T(*SA, TRAIN, "--max-steps", "400", "--step-sleep", "0.05"),
             kill=Kill(signal.SIGHUP, r"step 30/400", "launcher"), expect=r"got signal: 1\b|SIGHUP"),
    # Ray scheduling ---------------------------------------------------------------------------------
    Scenario("ray-learner-placement", "ray_scheduling_stall",
             "Ray job on a 2-CPU local cluster: after preprocessing, a PACK placement group of 3 x {CPU: 1} for "
             "learner workers never becomes ready; the driver gives up after 40 s with TimeoutError",
             [*RAY, "--placement", "--learners", "3", "--pg-timeout", "40"],
             expect=r"was not scheduled within", ray=True),
]


# --- series 2: a Hugging Face Trainer job, more train_lm shapes, a second Ray job ------------------
# logs/gen-trainer2-<name>/job.log, rows in corpus/manifest.d/trainer2.csv
HF = ["train_hf.py", "--do_train", "--use_cpu", "--ddp_backend", "gloo", "--report_to", "none", "--log_level", "info",
      "--output_dir", "outputs/gpt2-tiny-clm"]
PPO = [PY, "ppo_ray.py"]
STATIC4 = ["--nnodes", "1", "--nproc-per-node", "4", "--master-addr", "127.0.0.1", "--master-port", "{port}"]


def S2(*a, **kw) -> Scenario:
    return Scenario(*a, series=2, **kw)


SCENARIOS += [
    # healthy runs -------------------------------------------------------------------------------
    S2("hf-2ranks-60steps", "no_failure",
       "HF Trainer (transformers 5, accelerate) under torchrun --standalone, 2 ranks, 60 steps, eval and save every "
       "30, final evaluate; finishes normally",
       T(*SA, *HF, "--do_eval", "--max_steps", "60", "--per_device_train_batch_size", "8", "--logging_steps", "10",
         "--eval_strategy", "steps", "--eval_steps", "30", "--save_steps", "30", "--dataloader_num_workers", "2"),
       expect=r"\*\*\*\*\* eval metrics \*\*\*\*\*"),
    S2("hf-4ranks-grad-accum", "no_failure",
       "HF Trainer, static rendezvous, 4 ranks, gradient_accumulation_steps 2, 40 steps, logging_first_step, eval "
       "every 20, save at 40, 1 DataLoader worker per rank; finishes normally",
       T(*STATIC4, *HF, "--do_eval", "--max_steps", "40", "--per_device_train_batch_size", "4",
         "--gradient_accumulation_steps", "2", "--logging_steps", "5", "--logging_first_step", "--eval_strategy",
         "steps", "--eval_steps", "20", "--save_steps", "40", "--dataloader_num_workers", "1", "--learning_rate",
         "3e-4", "--warmup_steps", "5"),
       expect=r"\*\*\*\*\* eval metrics \*\*\*\*\*"),
    S2("lm-4ranks-logdir", "no_failure",
       "train_lm.py, 4 ranks, torchrun --log-dir --redirects 3 (per-rank stdout/stderr files + console.log), "
       "manual gradient all_reduce, 50 steps, eval every 25; finishes normally",
       T("--standalone", "--nproc-per-node", "4", "--log-dir", "{logdir}", "--redirects", "3", TRAIN,
         "--max-steps", "50", "--eval-every", "25", "--save-every", "50", "--num-workers", "0", "--log-every", "5",
         "--manual-grad-sync", "--run-name", "lm-tiny-4r"),
       expect=r"Training completed\.", logdir=True),
    S2("ppo-ray-40iters", "no_failure",
       "ppo_ray.py on a local 2-CPU Ray instance: 2 Generator actors, reward tasks, a Learner actor, 40 iterations; "
       "finishes normally",
       [*PPO, "--iterations", "40"], expect=r"finished 40 iterations", ray=True),
    # an exception in the training code ----------------------------------------------------------
    S2("hf-loader-keyerror", "worker_exception",
       "HF Trainer, 2 ranks: a record in rank 1's data lacks its 'text' field; KeyError raised in a DataLoader "
       "worker (data loading) around step 20; rank 0 then loses its peer",
       T(*SA, *HF, "--max_steps", "80", "--per_device_train_batch_size", "8", "--logging_steps", "10",
         "--dataloader_num_workers", "2", "--save_steps", "1000"),
       env={"TRAINER_FAULT": "missing_field:rank=1:step=20"}, expect=r"KeyError"),
    S2("hf-forward-indexerror", "worker_exception",
       "HF Trainer, 4 ranks, no DataLoader workers: one sample on rank 2 holds token id 50257 in a 256-token "
       "vocabulary; IndexError in the embedding during the forward pass around step 12",
       T("--standalone", "--nproc-per-node", "4", *HF, "--max_steps", "60", "--per_device_train_batch_size", "4",
         "--logging_steps", "5", "--dataloader_num_workers", "0", "--save_steps", "1000"),
       env={"TRAINER_FAULT": "bad_token:rank=2:step=12"}, expect=r"IndexError"),
    S2("hf-checkpoint-typeerror", "worker_exception",
       "HF Trainer, 2 ranks: at the first checkpoint (step 25) the user's on_save callback on rank 0 json.dumps a "
       "tensor, TypeError (not JSON serializable) after the weights were written; rank 1 waits in the next step",
       T(*SA, *HF, "--do_eval", "--max_steps", "75", "--per_device_train_batch_size", "8", "--logging_steps", "5",
         "--eval_strategy", "steps", "--eval_steps", "25", "--save_steps", "25", "--dataloader_num_workers", "1"),
       env={"TRAINER_FAULT": "meta_tensor"}, expect=r"TypeError: .*JSON serializable"),
    S2("ppo-ray-long-prompt", "worker_exception",
       "ppo_ray.py: at iteration 6 an over-long prompt reaches Generator 1, whose rollout loop raises ValueError; "
       "the driver's ray.get raises RayTaskError(ValueError)",
       [*PPO, "--iterations", "12"], env={"TRAINER_FAULT": "long_prompt:actor=1:iter=6"},
       expect=r"RayTaskError\(ValueError\)", ray=True),
    # killed with SIGKILL (what the kernel OOM killer sends) ----------------------------------------
    S2("hf-rank-killed", "host_oom_killed",
       "HF Trainer, 4 ranks: this script sends SIGKILL (kill -9) from outside to the rank 2 process after the "
       "step-20 loss line, as the kernel OOM killer would",
       T(*STATIC4, *HF, "--max_steps", "400", "--per_device_train_batch_size", "4", "--logging_steps", "10",
         "--dataloader_num_workers", "0", "--save_steps", "1000"),
       kill=Kill(signal.SIGKILL, r"'epoch': '[0-9.]+'\}(?s:.*)'epoch': '[0-9.]+'\}", "rank:2"),
       expect=r"exitcode\s*: -9"),
    S2("hf-loader-worker-killed", "host_oom_killed",
       "HF Trainer, 2 ranks x 2 DataLoader workers: this script sends SIGKILL from outside to a DataLoader worker "
       "of rank 0 after the first eval, as the kernel OOM killer would",
       T(*SA, *HF, "--do_eval", "--max_steps", "400", "--per_device_train_batch_size", "8", "--logging_steps", "10",
         "--eval_strategy", "steps", "--eval_steps", "20", "--save_steps", "1000", "--dataloader_num_workers", "2",
         "--dataloader_persistent_workers"),
       kill=Kill(signal.SIGKILL, r"'eval_loss'", "loader:0", delay=0.5),
       expect=r"DataLoader worker \(pid \d+\) is killed by signal"),
    S2("ppo-ray-reward-oom", "host_oom_killed",
       "ppo_ray.py with RAY_memory_usage_threshold=0.3: at iteration 4 a reward task keeps allocating 64 MiB "
       "tables; Ray's memory monitor kills the worker and the driver gets OutOfMemoryError",
       [*PPO, "--iterations", "12"], env={"TRAINER_FAULT": "reward_cache:iter=4",
                                           "RAY_memory_usage_threshold": "0.3"},
       expect=r"OutOfMemoryError", ray=True),
    # a collective that never completes ------------------------------------------------------------
    S2("hf-stalled-batch-pg-timeout", "collective_timeout",
       "HF Trainer, the script calls init_process_group('gloo', timeout=15 s) itself (--pg_timeout_s; the Trainer "
       "ignores --ddp_timeout with --use_cpu): a sample read on rank 1 blocks 45 s around step 12 (no DataLoader "
       "workers); rank 0's next collective times out in gloo",
       T(*SA, *HF, "--max_steps", "200", "--per_device_train_batch_size", "8", "--logging_steps", "5",
         "--dataloader_num_workers", "0", "--save_steps", "1000", "--pg_timeout_s", "15"),
       env={"TRAINER_FAULT": "slow_batch:rank=1:step=12:secs=45"},
       expect=r"Timed out waiting \d+ms|[Tt]imed out after"),
    S2("lm-4ranks-stall-allreduce", "collective_timeout",
       "train_lm.py, 4 ranks, manual gradient all_reduce, process group timeout 12 s: a sample read on rank 3 "
       "blocks 40 s at step 15; ranks 0-2 time out in the all_reduce",
       T("--standalone", "--nproc-per-node", "4", TRAIN, "--max-steps", "100", "--timeout-s", "12", "--num-workers",
         "0", "--log-every", "5", "--manual-grad-sync", "--batch-size", "8"),
       env={"TRAINER_FAULT": "slow_read:rank=3:step=15:secs=40"},
       expect=r"Timed out waiting \d+ms for (send|recv) operation"),
    # ranks issue different collectives / shapes ----------------------------------------------------
    S2("hf-eval-shard-allreduce", "collective_mismatch",
       "HF Trainer, 2 ranks, 101 eval samples: after the first evaluation (step 20) a user callback all_reduces a "
       "per-sample statistics vector of the rank's eval shard (51 vs 50 elements); gloo aborts rank 1 "
       "(gloo::EnforceNotMet) and rank 0 sees the connection drop",
       T(*SA, *HF, "--do_eval", "--eval_samples", "101", "--max_steps", "60", "--per_device_train_batch_size", "8",
         "--logging_steps", "10", "--eval_strategy", "steps", "--eval_steps", "20", "--save_steps", "1000",
         "--dataloader_num_workers", "1"),
       env={"TRAINER_FAULT": "shard_stats"}, expect=r"EnforceNotMet|Detected mismatch"),
    # launch problems --------------------------------------------------------------------------------
    S2("hf-second-node-c10d", "rendezvous_timeout",
       "HF Trainer job launched with torchrun --nnodes 2 (c10d, join_timeout=20, last_call_timeout=5, --max-restarts "
       "1); the second node is never started",
       T("--nnodes", "2", "--nproc-per-node", "2", "--max-restarts", "1", "--rdzv-backend", "c10d", "--rdzv-endpoint",
         "127.0.0.1:{port}", "--rdzv-id", "clm-2node-17", "--rdzv-conf", "join_timeout=20,last_call_timeout=5",
         *HF, "--max_steps", "60"),
       expect=r"RendezvousTimeoutError"),
    S2("hf-second-node-static", "rendezvous_timeout",
       "HF Trainer job launched with torchrun --nnodes 2 --node-rank 0 (static rendezvous, --rdzv-conf timeout=20); "
       "the node with rank 1 is never started",
       T("--nnodes", "2", "--node-rank", "0", "--nproc-per-node", "2", "--master-addr", "127.0.0.1", "--master-port",
         "{port}", "--rdzv-conf", "timeout=20", *HF, "--max_steps", "60"),
       expect=r"DistStoreError|Timed out after \d+ seconds waiting for clients|RendezvousTimeoutError"),
    S2("hf-port-held-by-http-server", "port_in_use",
       "a 'python -m http.server P' left running on the node holds the port; this HF Trainer job is started with "
       "static rendezvous and --master-port P",
       T(*STATIC, *HF, "--max_steps", "60"),
       other=Other([PY, "-m", "http.server", "{port}", "--bind", "127.0.0.1"], ready=r"Serving HTTP"),
       expect=r"EADDRINUSE|[Aa]ddress already in use"),
    # signals from outside ----------------------------------------------------------------------------
    S2("hf-sigterm-during-eval", "job_preempted",
       "HF Trainer, 2 ranks: SIGTERM sent to the torchrun process from outside while the second evaluation runs "
       "(as Slurm does at preemption / time limit)",
       T(*SA, *HF, "--do_eval", "--max_steps", "400", "--per_device_train_batch_size", "8", "--logging_steps", "10",
         "--eval_strategy", "steps", "--eval_steps", "20", "--save_steps", "40", "--dataloader_num_workers", "1",
         "--eval_accumulation_steps", "1"),
       kill=Kill(signal.SIGTERM, r"Running Evaluation(?s:.*)Running Evaluation", "launcher", delay=0.1),
       expect=r"got signal: 15|SIGTERM"),
    S2("hf-sighup-logdir", "terminal_hangup",
       "HF Trainer, 2 ranks, torchrun --log-dir --tee 3 (per-rank files + console.log): SIGHUP sent to the torchrun "
       "process from outside after about 30 steps (as when the terminal/ssh session closes)",
       T(*SA, "--log-dir", "{logdir}", "--tee", "3", *HF, "--max_steps", "400", "--per_device_train_batch_size",
         "8", "--logging_steps", "10", "--save_steps", "1000", "--dataloader_num_workers", "1"),
       kill=Kill(signal.SIGHUP, r"'loss'(?s:.*)'loss'(?s:.*)'loss'", "launcher"),
       expect=r"got signal: 1\b|SIGHUP", logdir=True),
    # Ray scheduling ---------------------------------------------------------------------------------
    S2("ppo-ray-gpu-learners", "ray_scheduling_stall",
       "ppo_ray.py --placement on a CPU-only 2-CPU local Ray instance: a STRICT_PACK placement group of 2 x "
       "{CPU: 1, GPU: 1} for learner actors is infeasible; the driver's ray.get(pg.ready(), timeout=25) raises "
       "GetTimeoutError",
       [*PPO, "--placement", "--learners", "2", "--pg-timeout", "25"], expect=r"GetTimeoutError", ray=True),
]

# --- process tree helpers -------------------------------------------------------------------------
def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            stat = Path(f"/proc/{d}/stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        kids.setdefault(ppid, []).append(int(d))
    return kids


def _descendants(pid: int) -> list[int]:
    kids, out, todo = _children(), [], [pid]
    while todo:
        p = todo.pop()
        for c in kids.get(p, []):
            out.append(c)
            todo.append(c)
    return out


def _env_of(pid: int) -> dict[str, str]:
    try:
        raw = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return {}
    return dict(kv.split("=", 1) for kv in raw.decode("utf-8", "replace").split("\0") if "=" in kv)


def _ppid(pid: int) -> int:
    try:
        return int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
    except OSError:
        return -1


def _rank_pid(root: int, rank: int) -> int | None:
    """The worker process with RANK=rank (its parent, the launcher, has no RANK of that value)."""
    for p in _descendants(root):
        if _env_of(p).get("RANK") == str(rank) and _env_of(_ppid(p)).get("RANK") != str(rank):
            return p
    return None


def _target_pid(root: int, target: str) -> int | None:
    if target == "launcher":
        return root
    kind, n = target.split(":")
    rp = _rank_pid(root, int(n))
    if kind == "rank" or rp is None:
        return rp
    kids = sorted(_children().get(rp, []))
    return kids[0] if kids else None


def _kill_tree(root: int) -> None:
    for p in [root, *_descendants(root)]:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass


def _kill_ray_leftovers(ray_tmp: str) -> None:
    """End Ray processes of this run only (found by their RAY_TMPDIR), never others."""
    for d in os.listdir("/proc"):
        if d.isdigit() and int(d) != os.getpid() and _env_of(int(d)).get("RAY_TMPDIR") == ray_tmp:
            try:
                os.kill(int(d), signal.SIGKILL)
            except ProcessLookupError:
                pass


# --- running ---------------------------------------------------------------------------------------
def _base_env(ray_tmp: str | None) -> dict[str, str]:
    env = dict(os.environ)
    for k in ("TORCH_DISTRIBUTED_DEBUG", "LOGLEVEL", "MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE",
              "LOCAL_RANK", "TRAINER_FAULT", "RAY_ADDRESS"):
        env.pop(k, None)
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONUNBUFFERED"] = "1"
    if ray_tmp:
        env["RAY_TMPDIR"] = ray_tmp
    return env


def run(s: Scenario, port: int) -> tuple[bytes, Path, float]:
    job = Path(tempfile.mkdtemp(prefix="job-", dir=tempfile.gettempdir()))
    for f in ("train_lm.py", "rollout_ray.py", "train_hf.py", "ppo_ray.py"):
        shutil.copy(HERE / f, job / f)
    subs = {"port": str(port), "logdir": str(job / "logs")}
    ray_tmp = tempfile.mkdtemp(prefix="rt", dir="/tmp") if s.ray else None
    env = _base_env(ray_tmp)
    env.update(s.env)

    other = None
    if s.other:
        oenv = _base_env(None)
        oenv.update(s.other.env)
        ofile = open(job / "other.out", "wb")
        other = subprocess.Popen(fill(s.other.cmd, subs), cwd=job, env=oenv, stdout=ofile,
                                 stderr=subprocess.STDOUT, start_new_session=True)
        t_o = time.monotonic()
        while time.monotonic() - t_o < 45:
            if re.search(s.other.ready, (job / "other.out").read_text("utf-8", "replace")):
                break
            time.sleep(0.2)
        else:
            raise RuntimeError("the other job never became ready")

    t0 = time.monotonic()
    proc = subprocess.Popen(fill(s.cmd, subs), cwd=job, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    chunks: list[bytes] = []

    def reader() -> None:
        assert proc.stdout is not None
        for chunk in iter(lambda: proc.stdout.read1(65536), b""):
            chunks.append(chunk)

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    fired = False
    while proc.poll() is None and time.monotonic() - t0 < s.timeout:
        time.sleep(0.05)
        if s.kill and not fired and re.search(s.kill.after, b"".join(chunks).decode("utf-8", "replace")):
            time.sleep(s.kill.delay)
            pid = _target_pid(proc.pid, s.kill.target)
            if pid is None:
                raise RuntimeError(f"no process for {s.kill.target}")
            os.kill(pid, s.kill.sig)
            fired = True
    if proc.poll() is None:
        print(f"  !! {s.name}: wall-clock limit {s.timeout}s hit, process tree killed", file=sys.stderr)
        _kill_tree(proc.pid)
    proc.wait()
    th.join(timeout=5)
    wall = time.monotonic() - t0
    if other is not None:
        _kill_tree(other.pid)
        other.wait()
    if ray_tmp:
        time.sleep(1.0)
        _kill_ray_leftovers(ray_tmp)
        shutil.rmtree(ray_tmp, ignore_errors=True)
    return b"".join(chunks), job, wall


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--all", action="store_true")
    g.add_argument("--scenario", action="append", help="scenario name (repeatable)")
    g.add_argument("--list", action="store_true")
    ap.add_argument("--series", type=int, choices=sorted(MANIFESTS),
                    help="with --all/--list: only this series (1: gen-trainer-*, 2: gen-trainer2-*)")
    args = ap.parse_args()
    if args.list:
        for s in SCENARIOS:
            if args.series and s.series != args.series:
                continue
            print(f"{s.name:28} {s.label:22} {' '.join(s.cmd[1:] if not s.ray else s.cmd[1:])}")
        return 0
    names = {s.name for s in SCENARIOS}
    if args.scenario and not set(args.scenario) <= names:
        print(f"unknown scenario {sorted(set(args.scenario) - names)}; see --list", file=sys.stderr)
        return 2
    chosen = ([s for s in SCENARIOS if not args.series or s.series == args.series] if args.all
              else [s for s in SCENARIOS if s.name in set(args.scenario)])
    rows = {}
    for n, mf in MANIFESTS.items():
        rows[n] = {k: r for k, r in read_fragment(mf).items() if (CORPUS / k).exists()}
    bad = []
    for s in chosen:
        port = BASE_PORT + SCENARIOS.index(s)
        out, job, wall = run(s, port)
        text = out.decode("utf-8", "replace")
        if s.logdir:
            text += "\n".join(p.read_text("utf-8", "replace") for p in sorted((job / "logs").rglob("*"))
                              if p.is_file())
        m = re.search(s.expect, text)
        dest = CORPUS / s.rel
        if m:
            if s.logdir:
                copy_logdir(job, dest, out)
            else:
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(out)
            rows[s.series][s.rel] = [s.rel, s.label, SOURCE, s.notes, "heldout"]
        else:
            bad.append(s.name)
            miss = Path(tempfile.gettempdir()) / f"trainer-missing-{s.name}.log"
            miss.write_text(text)
            print(f"  output kept in {miss}", file=sys.stderr)
        shutil.rmtree(job, ignore_errors=True)
        line = next((ln for ln in text.splitlines() if m and m.group(0) in ln), "")
        print(f"{'ok     ' if m else 'MISSING'} {s.name:28} {s.label:22} {wall:5.1f}s "
              f"{len(text.splitlines()):4d} lines  {line.strip()[:100]}", flush=True)
    for n in {s.series for s in chosen}:
        write_fragment(MANIFESTS[n], rows[n], ("file", "label", "source", "notes", "split"))
    if bad:
        print(f"MISSING signature in: {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
