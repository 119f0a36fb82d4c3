"""Generate wave I's real runs (sealed batch ``heldout11``): scenario+launcher pairs the earlier generators lack.

Launchers and shapes: the Ray Jobs CLI (``ray job submit`` against a long-running local Ray cluster, with Ray Data
pipelines, Ray tasks and a GPU actor pool), ``accelerate launch`` running Hugging Face ``Trainer`` scripts (a reward
model, an SFT run) and a TRL script, ``torchrun`` with a torchvision pipeline, the ``deepspeed`` launcher with
``engine.save_checkpoint``, and Lightning Fabric's ``fabric run``.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavei-job/<name>`` (this folder's scripts are
copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would; it checks that the expected
signature is in the output (else MISSING, nothing written, exit 1) and writes ``corpus/logs/run-wavei-<name>/job.log``
and its row of ``corpus/manifest.d/wave-i-runs.csv`` (split and batch ``heldout11``).

Ray scenarios first start this generator's own Ray cluster (not part of the log: the cluster is already running when
the user submits a job) with non-default ports and ``--temp-dir /tmp/ray-wavei``, with the scenario's environment and
``ray start`` flags, and afterwards stop only that cluster (SIGKILL to the processes whose command line names
``/tmp/ray-wavei`` and to their descendants; never ``ray stop``, which stops every Ray cluster on the machine).

    python corpus/generators/wavei/generate.py --list
    python corpus/generators/wavei/generate.py --all
    python corpus/generators/wavei/generate.py --scenario deepspeed-save-checkpoint-rank0-only

Needs root (tmpfs mounts) and the two venvs of README.md (``/tmp/corpus-venv-i``: accelerate, lightning, deepspeed,
transformers, datasets, ray[default] extras; ``/tmp/corpus-venv-i2``: an older trl and torchvision beside the system
torch). Run it with any Python that has psutil (the scenario picks its venv).
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
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

import psutil

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from common import read_fragment, write_fragment  # noqa: E402

CORPUS = HERE.parents[1]
FRAGMENT = CORPUS / "manifest.d" / "wave-i-runs.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavei/generate.py"
SPLIT = "heldout11"
JOBS = Path("/tmp/wavei-job")
VENVS = {"i": Path("/tmp/corpus-venv-i/bin"), "i2": Path("/tmp/corpus-venv-i2/bin")}
SCRIPTS = ("make_sft_data.py", "make_rm_data.py", "make_code_data.py", "sft.py", "rm.py", "sft_trl.py", "vision.py",
           "augment.py", "ds_ckpt.py", "fabric_train.py", "rayjobs/featurize.py", "rayjobs/batch_infer.py",
           "rayjobs/embed_shards.py")
ACC = "{bin}/accelerate launch --multi_gpu --num_machines 1 --mixed_precision no --dynamo_backend no"
HF = "--use_cpu --ddp_backend gloo --report_to none --seed 42"
# this generator's Ray cluster: ports 6391 (GCS), 8271 (dashboard / job API), 52391 (dashboard agent), workers
# 11000-11999; two CPUs (the machine's)
RAY_DIR = "/tmp/ray-wavei"
RAY_START = ("start --head --port 6391 --dashboard-port 8271 --dashboard-host 127.0.0.1 "
             "--dashboard-agent-listen-port 52391 --min-worker-port 11000 --max-worker-port 11999 "
             f"--temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8271 --working-dir ."
DS_CONFIG = """{
  "train_micro_batch_size_per_gpu": 32,
  "gradient_accumulation_steps": 1,
  "optimizer": {"type": "AdamW", "params": {"lr": 0.001, "weight_decay": 0.01}},
  "scheduler": {"type": "WarmupLR", "params": {"warmup_min_lr": 0, "warmup_max_lr": 0.001, "warmup_num_steps": 50}},
  "zero_optimization": {"stage": 2},
  "steps_per_print": 50
}
"""


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {acc} {hf} {submit} are filled in
    expect: str  # regex the output must contain
    notes: str
    venv: str = "i"
    tmpfs: tuple = ()  # ((absolute dir, size), ...) mounted as tmpfs before the run, unmounted after
    ray: dict | None = None  # {"env": {...}, "flags": "..."}: start this generator's Ray cluster first
    timeout: int = 400
    env: dict = field(default_factory=dict)


def ray_threshold(extra_gib: float) -> str:
    """A RAY_memory_usage_threshold ``extra_gib`` GiB above what the (shared) machine uses now."""
    m = psutil.virtual_memory()
    return str(round((m.total - m.available + extra_gib * 2**30) / m.total, 3))


# What each run did and what its log shows (the manifest row's notes).
NOTES = {
"rayjob-data-featurize-memory-monitor":
    "launcher: Ray Jobs CLI (ray job submit --working-dir . to a running local 2-CPU Ray 2.60 cluster); the console of "
    "the submit command. What ran: a Ray Data pipeline (range -> map(make_ticket) -> map_batches(featurize) -> "
    "write_parquet) that turns 20000 synthetic tickets into hashed word n-gram TF-IDF features; the user set "
    "map_batches batch_size=2048, so each task builds a dense 2048 x 131072 float64 matrix (2 GiB) plus copies. "
    "Cause made real: the cluster was started with RAY_memory_usage_threshold 2.5 GiB above the machine's usage at "
    "start (0.152 of 23.5 GB; the monitor counts the whole shared machine) and RAY_task_oom_retries=3; the two "
    "concurrent featurize tasks push the node over it and Ray's memory monitor kills them (real allocations, nothing "
    "sent by hand). Evidence: repeated '(raylet) Task _map_task failed due to oom. There are N oom retries remaining' "
    "with 'Memory on the node ... was 3.63GB used / 23.54GB limit', 'Ray killed 2 worker(s) based on the killing "
    "policy' and a 'Top 10 memory users' table led by ray::Map(make_ticket)->MapBatches(featurize)->Write at 1.4 GB; "
    "then Ray Data aborts the dataset and the driver raises 'ray.exceptions.OutOfMemoryError: 2 worker(s) were "
    "killed due to the node running low on memory'; the CLI prints Job '...' failed, status 'Job entrypoint command "
    "failed with exit code 1'. ray job submit exit code 1. Full log.",
"rayjob-data-gpu-actor-pool-timeout":
    "launcher: Ray Jobs CLI (ray job submit) to a running local CPU-only Ray 2.60 cluster (2 CPUs, no GPU). What ran: "
    "offline batch inference with Ray Data: map_batches over a callable Scorer class with concurrency=2 replicas and "
    "num_gpus=1 per replica (the offline-inference recipe shape), DataContext.wait_for_min_actors_s=150 set by the "
    "script. Cause made real: the replicas ask for {'GPU': 1, 'CPU': 1} on a cluster that has no GPU, so the actor pool "
    "can never start. Evidence: '(autoscaler +5s) Error: No available node types can fulfill resource request {'GPU': "
    "1.0, 'CPU': 1.0}. Add suitable node types to this cluster' repeated every 35 s (5 times), then after 150 s "
    "'ray.exceptions.GetTimeoutError: Timed out while starting actors. This may mean that the cluster does not have "
    "enough resources for the requested actor pool.' from ActorPoolMapOperator.start; Job '...' failed. ray job "
    "submit exit code 1. Full log.",
"rayjob-entrypoint-gpu-never-starts":
    "launcher: Ray Jobs CLI: ray job submit --entrypoint-num-gpus 1 -- python batch_infer.py to a running local "
    "CPU-only Ray 2.60 cluster (2 CPUs, no GPU) whose head was started with RAY_JOB_START_TIMEOUT_SECONDS=120 (the "
    "default is 900 s). Cause made real: the job's entrypoint reserves 1 GPU, which no node has, so the job supervisor "
    "actor is never scheduled and the driver never starts (no line of the script is printed). Evidence: after "
    "'Tailing logs until the job exits' nothing for 120 s, then Job '...' failed with 'Status message: Job supervisor "
    "actor failed to start within 120.0 seconds ... This may be because the job entrypoint's specified resources "
    "(entrypoint_num_cpus, entrypoint_num_gpus, ...) aren't available on the cluster'. ray job submit exit code 1. "
    "Full log (short: the job never ran).",
"rayjob-embed-spill-dir-full":
    "launcher: Ray Jobs CLI (ray job submit) to a running local Ray 2.60 cluster started with --object-store-memory "
    "100000000 and --object-spilling-directory /tmp/wavei-spill, a 64 MB tmpfs (a small local disk). What ran: 32 Ray "
    "tasks each return 16 MiB of embeddings; the driver keeps every ObjectRef until all are done (ray.wait loop), then "
    "ray.get + np.concatenate. Cause made real: the 512 MiB of results exceed the object store, Ray spills them, and "
    "the spill directory fills up. Evidence: '(raylet) ... OSError: [Errno 28] No space left on device' in "
    "external_storage.spill_objects ('An unexpected internal error occurred while the IO worker was spilling objects', "
    "repeated 9x), '(raylet) file_system_monitor.cc:116: /tmp/wavei-spill is over 95% full, available space: 0 GB; "
    "capacity: 0.0625 GB', then the driver's ray.get raises 'ray.exceptions.RayTaskError(OutOfDiskError): "
    "ray::encode_shard() ... ray.exceptions.OutOfDiskError: Local disk is full'; Job '...' failed. ray job submit exit "
    "code 1. Full log.",
"rayjob-data-featurize-healthy":
    "healthy: Ray Jobs CLI (ray job submit) to a running local 2-CPU Ray 2.60 cluster (default memory monitor "
    "settings): the Ray Data ticket featurization pipeline (hashed n-gram TF-IDF features, random projection, Parquet) "
    "with map_batches batch_size=128, 20000 rows written, read back and a ridge fit printed; Ray Data progress "
    "lines; Job '...' succeeded, exit code 0. Full log.",
"rayjob-embed-spill-healthy":
    "healthy: Ray Jobs CLI (ray job submit) to a local Ray 2.60 cluster with a 100 MB object store spilling to "
    "/tmp/wavei-spill, here a 1 GB tmpfs: 32 tasks x 16 MiB of embeddings, all kept by the driver (spilled and "
    "restored without a message), concatenated (512 MiB) and a nearest-neighbour query printed; Job '...' succeeded, "
    "exit code 0. Full log (short).",
"accelerate-hf-reward-zscore-nan":
    "launcher: accelerate launch --multi_gpu --num_processes 2 (torch elastic inside; CPU, gloo) running a reward-model "
    "script on the Hugging Face Trainer (transformers 5.24, accelerate 1.15): GPT-2 with a scalar regression head, "
    "per_device_train_batch_size 8, gradient_accumulation_steps 4, 2 epochs, eval and save every 30 steps, no NaN "
    "check. The script z-scores ratings per annotator before training. Cause made real (a real bad input, nothing "
    "injected): the last record of the export is rated by an annotator with that one rating only, so the "
    "annotator's standard deviation is 0 and the record's label is 0/0 = NaN; the MSE loss of the batch holding it is "
    "NaN, its gradients are NaN, and the AdamW step makes every weight NaN. Evidence: 'rm.py:103: RuntimeWarning: "
    "invalid value encountered in scalar divide' at the label normalisation (the log line before says per-annotator "
    "count min 1), then from the third logging window (step 15) every Trainer log has 'grad_norm': 'nan' while "
    "'loss' reads '0' (the Trainer's logging_nan_inf_filter), and every evaluation reports 'eval_loss': 'nan', "
    "'eval_pearson': 'nan'; the run trains to the end uselessly and exits 0 (job exited with 0). Full log.",
"accelerate-hf-reward-healthy":
    "healthy: accelerate launch --multi_gpu --num_processes 2 (CPU, gloo), the same Hugging Face Trainer reward-model "
    "script with gradient accumulation 4 and its --nan_check callback on, data without the single-rating annotator "
    "(per-annotator count min 112): 2 epochs, finite grad_norm throughout, eval_loss ~1.0 and eval_pearson ~0.68, "
    "train/eval metrics printed, job exited with 0. Full log.",
"accelerate-hf-eval-logits-prlimit":
    "launcher: prlimit --as=4294967296 accelerate launch --multi_gpu --num_processes 2 (CPU, gloo) running an SFT script "
    "on the Hugging Face Trainer: 4 GiB of address space per process (a job wrapper's memory limit, as ulimit -v), a "
    "4000-record evaluation set, a token-accuracy compute_metrics that needs the logits, no eval_accumulation_steps and "
    "no preprocess_logits_for_metrics. Cause made real: at the first evaluation (step 30) the Trainer gathers and "
    "concatenates every evaluation logit (seq x 260 vocab float32 per sample) in host memory until an allocation "
    "fails. Evidence: rank 0 'RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
    "allocate memory: you tried to allocate 728432640 bytes. Error code 12 (Cannot allocate memory)' in "
    "evaluation_loop -> all_preds.add -> nested_concat -> torch.cat, with the eval bar at 56/125; rank 1 fails in the "
    "all_gather with gloo 'Connection closed by peer'; the elastic summary names rank 0 (exitcode 1) as root cause and "
    "rank 1 SIGTERMed; job exited with 1. Full log.",
"accelerate-trl-transformers-import-mismatch":
    "launcher: accelerate launch --multi_gpu --num_processes 2 (CPU) running a TRL SFT script (SFTTrainer, "
    "DataCollatorForCompletionOnlyLM) in an environment where pip installed trl 0.7.10 next to transformers 5.24.0 "
    "(accelerate 1.15, torch 2.13.0+cpu): pip accepted the pair, trl 0.7.10 has no upper bound on transformers. Cause "
    "made real: trl 0.7.10 imports top_k_top_p_filtering, which transformers removed long ago. Evidence: both ranks "
    "'ImportError: cannot import name 'top_k_top_p_filtering' from 'transformers'' raised in trl/core.py line 25 "
    "during 'from trl import ...' at the script's line 19; torch elastic's ChildFailedError summary (both ranks "
    "exitcode 1); job exited with 1. Versions are not printed in the log (paths show trl and transformers). Full log "
    "(short: the job dies at import).",
"torchrun-torchvision-operator-mismatch":
    "launcher: torchrun --nproc-per-node 3 --master-port 29714 (gloo, CPU), TORCH_CPP_LOG_LEVEL=INFO, in an "
    "environment where torchvision 0.20.1 (the PyPI wheel built for torch 2.5) was installed with pip --no-deps next "
    "to torch 2.13.0+cpu. What ran: a DDP CNN job that logs 'process group ready ... torch 2.13.0+cpu' and then "
    "imports its augmentation module (torchvision.transforms). Cause made real: torchvision's compiled operators do "
    "not load into this torch, so registering its meta kernels fails. Evidence: on all 3 ranks 'RuntimeError: "
    "operator torchvision::nms does not exist' from torchvision/_meta_registrations.py (@torch.library.register_fake"
    "(\"torchvision::nms\")) during 'from torchvision import transforms'; torchrun's summary (rank 2 exitcode 1 first, "
    "ranks 0-1 SIGTERMed); job exited with 1. Full log.",
"deepspeed-save-checkpoint-rank0-only":
    "launcher: deepspeed --num_gpus 3 (DeepSpeed 0.19.8 launcher on the CPU accelerator, gloo) running "
    "deepspeed.initialize with ZeRO stage 2 (config printed first), init_distributed timeout 120 s, 300 steps, eval "
    "every 50, checkpoint every 150. Cause made real (a rank-dependent code path): the script calls "
    "engine.save_checkpoint only on rank 0 (if rank == 0), but save_checkpoint is a collective (DeepSpeed requires "
    "every rank to call it): rank 0 waits in its dist.barrier() while ranks 1-2 go on to the next step's ZeRO-2 "
    "gradient all-reduce. Evidence: rank 0 logs 'saving checkpoint checkpoints/step150' and nothing follows for 120 s; "
    "then rank 0 'RuntimeError: [.../gloo/transport/tcp/unbound_buffer.cc:78] Timed out waiting 120000ms for recv "
    "operation to complete' in engine.save_checkpoint -> dist.barrier; ranks 1 and 2 fail in allreduce_gradients -> "
    "allreduce_bucket with gloo 'Connection closed by peer'; the launcher 'Killing subprocess' x3 and '... exits with "
    "return code = 1'; job exited with 1. Full log.",
"deepspeed-save-checkpoint-all-ranks-healthy":
    "healthy: deepspeed --num_gpus 3 (CPU accelerator, gloo), the same ZeRO-2 job with engine.save_checkpoint called on "
    "every rank at steps 150 and 300 ('checkpoint stepN saved' on all ranks), eval accuracy lines, 'training "
    "finished after 300 steps', the launcher's 'Process N exits successfully' x3; job exited with 0. Full log.",
"fabric-linear-scaling-lr-nan-check":
    "launcher: fabric run --accelerator cpu --strategy ddp --devices 2 (Lightning 2.6.6 Fabric CLI; torch elastic "
    "inside), TORCH_CPP_LOG_LEVEL=INFO. What ran: a tabular regression MLP with SGD (momentum 0.9), micro-batch 64, "
    "gradient accumulation 8 with fabric.no_backward_sync, the LR from the linear scaling rule (printed: 0.05 x (64 x 8 "
    "x 2) / 256 = 0.2) reached by a 100-step warmup, and a NaN check that raises. Cause made real: 0.2 is above what "
    "this model tolerates (about 0.08 was stable), so training diverges on its own (no injected value). Evidence: the "
    "per-rank loss lines swing between ~4 and ~125 while the LR warms up, reach 5.6e22 at step 105 and 'loss nan' at step "
    "110, then both ranks raise 'RuntimeError: loss is nan at step 110 (epoch 0); stopping'; torch elastic's summary "
    "(both ranks exitcode 1); job exited with 1. Full log.",
"fabric-json-cache-deep-tree-segv":
    "launcher: fabric run --accelerator cpu --strategy ddp --devices 2 (Lightning Fabric CLI; torch elastic inside), "
    "TORCH_CPP_LOG_LEVEL=INFO, no faulthandler. What ran: a code-expression classifier whose Dataset parses each "
    "expression with a recursive-descent parser on first access (the script raises sys.setrecursionlimit to 1e6 for "
    "deeply nested code) and appends the parse tree to a per-rank JSON-lines cache with json.dumps. Cause made real: "
    "one record comes from a machine-generated file, an expression nested 200000 calls deep; the Python parser copes, "
    "but CPython's C JSON encoder recurses once per level and overflows the C stack: rank 0 dies of SIGSEGV inside "
    "json.dumps shortly after step 32 (no Python traceback). Evidence: both ranks log step lines up to step 32, then rank 1 fails in "
    "fabric.backward with gloo 'Connection closed by peer'; torch elastic's summary: root cause rank 0 'exitcode : -11 "
    "(pid: N) (SIGSEGV)', 'Signal 11 (SIGSEGV) received by PID N', rank 1 SIGTERMed; job exited with 1. Full log.",
"fabric-exprs-healthy":
    "healthy: fabric run --accelerator cpu --strategy ddp --devices 2 (Lightning Fabric CLI), TORCH_CPP_LOG_LEVEL=INFO: "
    "the code-expression classifier (recursive-descent parse, JSON-lines tree cache, gradient accumulation 2) on data "
    "without the machine-generated record, 3 epochs with per-epoch train accuracy, fabric.save on every rank, "
    "'training finished after N optimizer steps' on both ranks; job exited with 0. Full log.",
}

SCENARIOS = [
    # --- Ray Jobs CLI ------------------------------------------------------------------------------------------------
    Scenario("rayjob-data-featurize-memory-monitor", "host_oom_killed", "ray",
             "{submit} -- python featurize.py --tickets 20000 --batch-size 2048 --out /tmp/wavei-job/features",
             r"killed due to the node running low on memory|OutOfMemoryError",
             NOTES["rayjob-data-featurize-memory-monitor"],
             ray={"env": {"RAY_memory_usage_threshold": "{threshold:2.5}", "RAY_task_oom_retries": "3"}, "flags": ""},
             timeout=500),
    Scenario("rayjob-data-gpu-actor-pool-timeout", "ray_scheduling_stall", "ray",
             "{submit} -- python batch_infer.py --prompts 5000 --replicas 2 --gpus-per-replica 1 "
             "--actor-start-timeout 150",
             r"No available node types can fulfill|Timed out while starting actors",
             NOTES["rayjob-data-gpu-actor-pool-timeout"], ray={"env": {}, "flags": ""}, timeout=400),
    Scenario("rayjob-entrypoint-gpu-never-starts", "ray_scheduling_stall", "ray",
             "{submit} --entrypoint-num-gpus 1 -- python batch_infer.py --prompts 5000 --replicas 1",
             r"failed to start within",
             NOTES["rayjob-entrypoint-gpu-never-starts"],
             ray={"env": {"RAY_JOB_START_TIMEOUT_SECONDS": "120"}, "flags": ""}, timeout=300),
    Scenario("rayjob-embed-spill-dir-full", "disk_full", "ray",
             "{submit} -- python embed_shards.py --shards 32 --rows 16384",
             r"OutOfDiskError|No space left on device",
             NOTES["rayjob-embed-spill-dir-full"], tmpfs=(("/tmp/wavei-spill", "64m"),),
             ray={"env": {}, "flags": "--object-store-memory 100000000 --object-spilling-directory /tmp/wavei-spill"},
             timeout=300),
    Scenario("rayjob-data-featurize-healthy", "no_failure", "ray",
             "{submit} -- python featurize.py --tickets 20000 --batch-size 128 --out /tmp/wavei-job/features",
             r"Job '[^']+' succeeded",
             NOTES["rayjob-data-featurize-healthy"], ray={"env": {}, "flags": ""}, timeout=500),
    Scenario("rayjob-embed-spill-healthy", "no_failure", "ray",
             "{submit} -- python embed_shards.py --shards 32 --rows 16384",
             r"Job '[^']+' succeeded",
             NOTES["rayjob-embed-spill-healthy"], tmpfs=(("/tmp/wavei-spill", "1g"),),
             ray={"env": {}, "flags": "--object-store-memory 100000000 --object-spilling-directory /tmp/wavei-spill"},
             timeout=300),
    # --- accelerate launch + Hugging Face Trainer / TRL ---------------------------------------------------------------
    Scenario("accelerate-hf-reward-zscore-nan", "training_divergence", "transformers",
             "mkdir -p data && {py} make_rm_data.py --out data/train.jsonl --n 3000 --late-annotator ann-24 && "
             "{py} make_rm_data.py --out data/eval.jsonl --n 200 --seed 1 && "
             "{acc} --num_processes 2 --main_process_port 29710 rm.py --output_dir out {hf} "
             "--per_device_train_batch_size 8 --gradient_accumulation_steps 4 --learning_rate 5e-4 --num_train_epochs 2 "
             "--logging_steps 5 --eval_strategy steps --eval_steps 30 --save_steps 30; echo \"job exited with $?\"",
             r"'grad_norm': '?nan",
             NOTES["accelerate-hf-reward-zscore-nan"], timeout=400),
    Scenario("accelerate-hf-reward-healthy", "no_failure", "transformers",
             "mkdir -p data && {py} make_rm_data.py --out data/train.jsonl --n 3000 && "
             "{py} make_rm_data.py --out data/eval.jsonl --n 200 --seed 1 && "
             "{acc} --num_processes 2 --main_process_port 29711 rm.py --output_dir out {hf} --nan_check "
             "--per_device_train_batch_size 8 --gradient_accumulation_steps 4 --learning_rate 5e-4 --num_train_epochs 2 "
             "--logging_steps 5 --eval_strategy steps --eval_steps 30 --save_steps 30; echo \"job exited with $?\"",
             r"job exited with 0",
             NOTES["accelerate-hf-reward-healthy"], timeout=400),
    Scenario("accelerate-hf-eval-logits-prlimit", "host_oom_killed", "transformers",
             "mkdir -p data && {py} make_sft_data.py --out data/train.jsonl --n 4000 && "
             "{py} make_sft_data.py --out data/eval.jsonl --n 4000 --seed 1 && "
             "prlimit --as=4294967296 {acc} --num_processes 2 --main_process_port 29712 sft.py --output_dir out {hf} "
             "--do_train --do_eval --per_device_train_batch_size 8 --per_device_eval_batch_size 16 "
             "--gradient_accumulation_steps 4 --learning_rate 1e-3 --max_steps 60 --logging_steps 5 "
             "--eval_strategy steps --eval_steps 30 --save_steps 30; echo \"job exited with $?\"",
             r"can't allocate memory|MemoryError|bad_alloc",
             NOTES["accelerate-hf-eval-logits-prlimit"], timeout=400),
    Scenario("accelerate-trl-transformers-import-mismatch", "library_version_mismatch", "trl",
             "mkdir -p data && {py} make_sft_data.py --out data/train.jsonl --n 2000 && "
             "{acc} --num_processes 2 --main_process_port 29713 sft_trl.py --train_file data/train.jsonl "
             "--max_steps 100; echo \"job exited with $?\"",
             r"cannot import name 'top_k_top_p_filtering'",
             NOTES["accelerate-trl-transformers-import-mismatch"], venv="i2", timeout=200),
    # --- torchrun ----------------------------------------------------------------------------------------------------
    Scenario("torchrun-torchvision-operator-mismatch", "library_version_mismatch", "pytorch",
             "TORCH_CPP_LOG_LEVEL=INFO {bin}/torchrun --nproc-per-node 3 --master-port 29714 vision.py --epochs 2; "
             "echo \"job exited with $?\"",
             r"operator torchvision::nms does not exist",
             NOTES["torchrun-torchvision-operator-mismatch"], venv="i2", timeout=200),
    # --- DeepSpeed launcher ------------------------------------------------------------------------------------------
    Scenario("deepspeed-save-checkpoint-rank0-only", "collective_timeout", "deepspeed",
             "cat ds_zero2.json; {bin}/deepspeed --num_gpus 3 --master_port 29715 ds_ckpt.py --ds-config ds_zero2.json "
             "--steps 300 --log-every 10 --eval-every 50 --save-every 150 --save-on rank0 --timeout 120; "
             "echo \"job exited with $?\"",
             r"Timed out|timed out|[Tt]imeout",
             NOTES["deepspeed-save-checkpoint-rank0-only"], timeout=500),
    Scenario("deepspeed-save-checkpoint-all-ranks-healthy", "no_failure", "deepspeed",
             "cat ds_zero2.json; {bin}/deepspeed --num_gpus 3 --master_port 29716 ds_ckpt.py --ds-config ds_zero2.json "
             "--steps 300 --log-every 10 --eval-every 50 --save-every 150 --save-on all --timeout 120; "
             "echo \"job exited with $?\"",
             r"job exited with 0",
             NOTES["deepspeed-save-checkpoint-all-ranks-healthy"], timeout=500),
    # --- Lightning Fabric (fabric run) -------------------------------------------------------------------------------
    Scenario("fabric-linear-scaling-lr-nan-check", "training_divergence", "lightning",
             "TORCH_CPP_LOG_LEVEL=INFO {bin}/fabric run --accelerator cpu --strategy ddp --devices 2 --main-port 29717 "
             "fabric_train.py --task regress --batch-size 64 --accum 8 --base-lr 0.05 --warmup 100 --steps 400 "
             "--log-every 5 --nan-check; echo \"job exited with $?\"",
             r"loss is (nan|inf)",
             NOTES["fabric-linear-scaling-lr-nan-check"], timeout=400),
    Scenario("fabric-json-cache-deep-tree-segv", "native_crash", "lightning",
             "mkdir -p data && {py} make_code_data.py --out data/exprs.jsonl --n 12000 --generated-file 9071 && "
             "TORCH_CPP_LOG_LEVEL=INFO {bin}/fabric run --accelerator cpu --strategy ddp --devices 2 --main-port 29718 "
             "fabric_train.py --task exprs --data data/exprs.jsonl --epochs 3 --accum 2 --log-every 4; "
             "echo \"job exited with $?\"",
             r"SIGSEGV|exitcode\s*: -11",
             NOTES["fabric-json-cache-deep-tree-segv"], timeout=400),
    Scenario("fabric-exprs-healthy", "no_failure", "lightning",
             "mkdir -p data && {py} make_code_data.py --out data/exprs.jsonl --n 12000 && "
             "TORCH_CPP_LOG_LEVEL=INFO {bin}/fabric run --accelerator cpu --strategy ddp --devices 2 --main-port 29719 "
             "fabric_train.py --task exprs --data data/exprs.jsonl --epochs 3 --accum 2 --log-every 4; "
             "echo \"job exited with $?\"",
             r"job exited with 0",
             NOTES["fabric-exprs-healthy"], timeout=400),
]


def fill(cmd: str, venv: str) -> str:
    b = VENVS[venv]
    for k, v in {"acc": ACC, "hf": HF, "submit": SUBMIT, "py": str(b / "python"), "bin": str(b)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-wavei, and their descendants (workers rename
    themselves ``ray::...``)."""
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if any(RAY_DIR in part for part in (proc.info["cmdline"] or [])):
                found[proc.pid] = proc
                for c in proc.children(recursive=True):
                    found[c.pid] = c
    return list(found.values())


def stop_ray() -> None:
    for _ in range(3):
        procs = ray_procs()
        if not procs:
            return
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        time.sleep(1)


def start_ray(spec: dict, env: dict) -> None:
    stop_ray()
    renv = dict(env)
    for k, v in spec["env"].items():
        m = re.fullmatch(r"\{threshold:([\d.]+)\}", v)
        renv[k] = ray_threshold(float(m.group(1))) if m else v
    cmd = f"{VENVS['i'] / 'ray'} {RAY_START} {spec['flags']}"
    r = subprocess.run(cmd, shell=True, env=renv, capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise SystemExit(f"ray start failed:\n{r.stdout}\n{r.stderr}")
    print(f"  ray cluster up ({' '.join(f'{k}={renv[k]}' for k in spec['env'])} {spec['flags']})", flush=True)
    for _ in range(60):  # the job API answers once the dashboard and its agent are up
        with contextlib.suppress(Exception):
            with urllib.request.urlopen("http://127.0.0.1:8271/api/jobs/", timeout=2) as resp:
                if resp.status == 200:
                    break
        time.sleep(1)
    time.sleep(5)


def kill_job(pid: int) -> None:
    """SIGKILL the job's process group and every descendant."""
    with contextlib.suppress(psutil.Error):
        procs = psutil.Process(pid).children(recursive=True)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)
        for c in procs:
            with contextlib.suppress(psutil.Error):
                c.kill()


def kill_leftovers(sid: int) -> None:
    """SIGKILL what the job left behind in its session after the shell exited."""
    for proc in psutil.process_iter():
        with contextlib.suppress(psutil.Error, ProcessLookupError):
            if proc.pid != sid and os.getsid(proc.pid) == sid:
                proc.kill()


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / Path(src).name)
    (job / "ds_zero2.json").write_text(DS_CONFIG)
    for d, size in s.tmpfs:
        subprocess.run(["umount", d], stderr=subprocess.DEVNULL)
        Path(d).mkdir(parents=True, exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", d], check=True)
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               HF_HOME=str(job / "hf_home"), HF_HUB_OFFLINE="1", RAY_AUTH_MODE="disabled", **s.env)
    env.pop("PYTHONPATH", None)
    env.pop("VIRTUAL_ENV", None)
    start = time.time()
    if s.ray is not None:
        start_ray(s.ray, env)
    out = bytearray()
    p = subprocess.Popen(["bash", "-c", fill(s.cmd, s.venv)], cwd=job, env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, start_new_session=True)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    while p.poll() is None and time.time() - start < s.timeout:
        time.sleep(0.5)
    if p.poll() is None:
        print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
        kill_job(p.pid)
    p.wait()
    kill_leftovers(p.pid)
    reader.join(5)
    if s.ray is not None:
        stop_ray()
    for d, _ in s.tmpfs:
        subprocess.run(["umount", d])
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None
    (job / "output.log").write_bytes(out)  # kept for a look at a MISSING run
    if ok:
        dest = CORPUS / "logs" / f"run-wavei-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
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
            print(f"{s.name:48} {s.label:26} {s.ecosystem}")
        return
    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = f"logs/run-wavei-{s.name}/job.log"
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok:
            rows[key] = [key, s.label, SOURCE, s.notes, SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
