"""Generate wave K's second set of real runs (sealed batch ``heldout13``): scenario+launcher pairs earlier generators lack.

Launchers: ``torch.multiprocessing.spawn`` (a DDP intent classifier, gloo on CPU); the Lightning ``Trainer`` with
``strategy="ddp_spawn"``; Lightning Fabric launching its own DDP processes (``Fabric.launch()``); ``accelerate
launch`` around the Hugging Face ``Trainer``; a local Ray cluster used through Ray Train (``TorchTrainer``, with and
without DeepSpeed), Ray Tune submitted with the Ray Jobs CLI, Ray Serve (``serve.run``) and plain actors in a
placement group.

Each scenario runs one bash command in a fresh job directory ``/tmp/wavek-b-job/<name>`` (this folder's scripts
are copied there) and captures stdout+stderr combined as ``cmd 2>&1 | tee job.log`` would. It checks that the
expected signature is in the log (else MISSING, nothing written, exit 1) and writes
``corpus/logs/run-wavek-b-<name>/job.log`` and its row of ``corpus/manifest.d/wave-k-runs-b.csv`` (split and batch
``heldout13``).

A scenario's ``trigger`` acts while the job runs, as a person or the cluster would: when the console first matches
a regex, or after a delay, it sends SIGTERM (``term``: a pod eviction) or SIGINT to the job's process group.

Ray scenarios start this generator's own Ray cluster first (not part of the log: the long-running cluster a user
submits to) on non-default ports with ``--temp-dir /tmp/ray-wavek-b`` (GCS 6411, dashboard / job API 8291, Ray
client 10111, workers 13000-13999, two CPUs), and afterwards stop only it (SIGKILL to the processes whose command
line names ``/tmp/ray-wavek-b`` and their descendants; never ``ray stop``). A scenario's ``ray`` dict may carry
environment variables for the cluster (e.g. the memory monitor's threshold) and extra ``ray start`` arguments.

    python corpus/generators/wavek_b/generate.py --list
    python corpus/generators/wavek_b/generate.py --all
    python corpus/generators/wavek_b/generate.py --scenario NAME

Needs root (tmpfs mounts, ``unshare -m``), gcc, the venv ``/tmp/corpus-venv-j`` of ../wavej/README.md (torch
2.13.0+cpu, Ray 2.60, Lightning 2.6.6, transformers 5.24, accelerate 1.15, DeepSpeed) and the layered venv
``/tmp/wavek-b-venv`` (README.md). Run it with any Python that has psutil.
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
FRAGMENT = CORPUS / "manifest.d" / "wave-k-runs-b.csv"
HEADER = ("file", "label", "source", "notes", "split", "ecosystem", "batch")
SOURCE = "corpus/generators/wavek_b/generate.py"
SPLIT = "heldout13"
JOBS = Path("/tmp/wavek-b-job")
VENVS = {"j": Path("/tmp/corpus-venv-j/bin"), "kb": Path("/tmp/wavek-b-venv/bin")}
SCRIPTS = ("spawn_train.py", "pl_spawn.py", "fabric_ckpt.py", "finetune_cls.py", "tune_sweep.py",
           "ray_train_reviews.py", "serve_search.py", "fasttok.c", "placement.py")
RAY_DIR = "/tmp/ray-wavek-b"
RAY_START = ("start --head --port 6411 --dashboard-port 8291 --dashboard-host 127.0.0.1 "
             "--dashboard-agent-listen-port 52411 --ray-client-server-port 10111 --min-worker-port 13000 "
             f"--max-worker-port 13999 --temp-dir {RAY_DIR} --num-cpus 2 --disable-usage-stats")
RAY_ADDRESS = "127.0.0.1:6411"
SUBMIT = "{bin}/ray job submit --address http://127.0.0.1:8291 --working-dir ."
RAYENV = {"RAY_ADDRESS": RAY_ADDRESS, "RAY_DEDUP_LOGS": "0"}
DS_CONFIG = """{
  "train_batch_size": 64,
  "train_micro_batch_size_per_gpu": 16,
  "gradient_accumulation_steps": 1,
  "gradient_clipping": 1.0,
  "optimizer": {"type": "AdamW", "params": {"lr": 2e-3, "betas": [0.9, 0.999], "eps": 1e-8, "weight_decay": 0.01}},
  "zero_optimization": {"stage": 0},
  "steps_per_print": 20,
  "wall_clock_breakdown": false
}
"""
SPAWN_DATA = "mkdir -p data && {py} spawn_train.py --make-data 12000 --data data/intents.jsonl"
REVIEWS_DATA = "mkdir -p data && {py} ray_train_reviews.py --make-data 6000 --data data/reviews.jsonl"
HEADLINES_DATA = "mkdir -p data && {py} pl_spawn.py --make-data 12000 --data data/headlines.csv"
FASTTOK = "gcc -O2 -shared -fPIC -o libfasttok.so fasttok.c"


@dataclass
class Scenario:
    name: str
    label: str
    ecosystem: str
    cmd: str  # bash, run in the job dir; {py} {bin} {submit} {job} are filled in
    expect: str  # regex the log must contain
    venv: str = "j"
    prep: str = ""  # bash run in the job dir before the job (data, builds), not part of the log
    tmpfs: tuple = ()  # ((dir relative to the job dir, size, prefill bytes), ...)
    shm: str = ""  # run the job in a private mount namespace with a /dev/shm tmpfs of this size
    ray: dict | None = None  # {"env": {...}, "args": "..."}: start this generator's Ray cluster first
    trigger: tuple = ()  # (regex | seconds, "term" | "int")
    timeout: int = 300
    env: dict = field(default_factory=dict)


SCENARIOS = [
    # --- torch.multiprocessing.spawn ----------------------------------------------------------------------------------
    Scenario("mpspawn-intents-healthy", "no_failure", "pytorch",
             "{py} spawn_train.py --nprocs 3 --steps 400 --eval-every 100 --eval-rows 600; echo \"job exited with $?\"",
             r"job exited with 0", prep=SPAWN_DATA, env={"MASTER_PORT": "29720"}),
    Scenario("mpspawn-eval-batches-rank-skips-reduce", "collective_mismatch", "pytorch",
             "{py} spawn_train.py --nprocs 3 --steps 400 --eval-every 100 --eval-rows 250 --skip-empty-eval; "
             "echo \"job exited with $?\"",
             r"collective mismatch|mismatch", prep=SPAWN_DATA, env={"MASTER_PORT": "29721"}),
    Scenario("mpspawn-rank0-mc-eval-barrier", "collective_timeout", "pytorch",
             "{py} spawn_train.py --nprocs 3 --steps 400 --eval-every 200 --eval-rows 10000 --mc-samples 100 "
             "--timeout-s 45; echo \"job exited with $?\"",
             r"[Tt]imed out|timeout", prep=SPAWN_DATA.replace("12000", "24000"), env={"MASTER_PORT": "29722"},
             timeout=300),
    Scenario("mpspawn-loader-workers-tiny-dev-shm", "shm_exhausted", "pytorch",
             "{py} spawn_train.py --nprocs 2 --steps 300 --eval-every 100 --eval-rows 600 --num-workers 2 "
             "--batch 512; echo \"job exited with $?\"",
             r"shared memory|No space left on device|Bus error", prep=SPAWN_DATA, shm="256k",
             env={"MASTER_PORT": "29723"}),
    # --- Lightning Trainer ddp_spawn, Lightning Fabric ----------------------------------------------------------------
    Scenario("lightning-ddp-spawn-headlines-healthy", "no_failure", "lightning",
             "{py} pl_spawn.py --devices 2 --epochs 2; echo \"job exited with $?\"",
             r"job exited with 0", prep=HEADLINES_DATA, env={"MASTER_PORT": "29730"}),
    Scenario("lightning-ddp-spawn-new-topic-label", "worker_exception", "lightning",
             "{py} pl_spawn.py --devices 2 --epochs 2; echo \"job exited with $?\"",
             r"out of bounds", prep=HEADLINES_DATA + " --extra-topic-rows 40", env={"MASTER_PORT": "29731"}),
    Scenario("fabric-keep-all-checkpoints-disk-full", "disk_full", "lightning",
             "df -h ckpt | tail -1; {py} fabric_ckpt.py --devices 2 --steps 200 --batch 8 --save-every 20 "
             "--eval-every 20 --ckpt-dir ckpt; echo \"job exited with $?\"",
             r"No space left on device|PytorchStreamWriter failed|file write failed",
             tmpfs=(("ckpt", "150m", 40 * 2**20),), env={"MASTER_PORT": "29732"}, timeout=300),
    Scenario("fabric-two-nodes-second-never-started", "rendezvous_timeout", "lightning",
             "echo \"node $NODE_RANK of 2, master $MASTER_ADDR:$MASTER_PORT\"; {py} fabric_ckpt.py --devices 2 --num-nodes 2 "
             "--pg-timeout-s 60 --steps 200 --batch 8 --save-every 50 --ckpt-dir ckpt; echo \"job exited with $?\"",
             r"[Tt]imed out|timeout|DistStoreError",
             env={"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29733", "NODE_RANK": "0"}, timeout=240),
    # --- accelerate launch + Hugging Face Trainer, layered venv --------------------------------------------------------
    Scenario("accelerate-hf-trainer-old-accelerate", "library_version_mismatch", "transformers",
             "{bin}/accelerate launch --num_processes 2 --num_machines 1 --main_process_port 29740 --mixed_precision no "
             "--dynamo_backend no finetune_cls.py --make_data 4000 --output_dir out --do_train --do_eval "
             "--per_device_train_batch_size 16 --learning_rate 5e-4 --num_train_epochs 2 --logging_steps 10 "
             "--eval_strategy steps --eval_steps 50 --report_to none --seed 42 --use_cpu; echo \"job exited with $?\"",
             r"requires `accelerate", venv="kb", timeout=200),
    # --- Ray Tune via the Ray Jobs CLI ----------------------------------------------------------------------------------
    Scenario("rayjob-tune-churn-sweep-healthy", "no_failure", "ray",
             "{submit} -- python tune_sweep.py --lrs 1e-3,3e-3,1e-2 --widths 64 --epochs 6 --loss focal --standardise "
             "--storage {job}/tune_results; echo \"job exited with $?\"",
             r"Job 'raysubmit_\w+' succeeded", ray={"env": {}}, env=RAYENV, timeout=400),
    Scenario("rayjob-tune-churn-raw-features-nan", "training_divergence", "ray",
             "{submit} -- python tune_sweep.py --lrs 1e-3,3e-3,1e-2 --widths 64 --epochs 6 --loss focal "
             "--storage {job}/tune_results; echo \"job exited with $?\"",
             r"loss is nan|loss is inf|FloatingPointError", ray={"env": {}}, env=RAYENV, timeout=400),
    # --- Ray Serve -----------------------------------------------------------------------------------------------------
    Scenario("rayserve-ctypes-tokenizer-null-query", "native_crash", "ray",
             "{py} serve_search.py --replicas 2 --queries queries.jsonl; echo \"job exited with $?\"",
             r"SIGSEGV|Segmentation fault|segfault|died unexpectedly|crashed",
             prep=FASTTOK + " && {py} serve_search.py --make-queries 3000 --null-every 1300",
             ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("rayserve-activation-cache-memory-monitor", "host_oom_killed", "ray",
             "{py} serve_search.py --replicas 2 --queries queries.jsonl --cache-activations; "
             "echo \"job exited with $?\"",
             r"memory|OutOfMemoryError|killed",
             prep=FASTTOK + " && {py} serve_search.py --make-queries 12000",
             ray={"env": {"RAY_memory_usage_threshold": "0.35"}}, env=RAYENV, timeout=300),
    # --- Ray actors in a placement group --------------------------------------------------------------------------------
    Scenario("rayactors-pg-bundle-custom-resource", "ray_scheduling_stall", "ray",
             "{py} placement.py --shards 4 --bundle-resources '{{\"local_nvme\": 1}}' --pg-timeout 90; "
             "echo \"job exited with $?\"",
             r"not ready|cannot be scheduled|infeasible|Infeasible", ray={"env": {}}, env=RAYENV, timeout=240),
    # --- Ray Train TorchTrainer -----------------------------------------------------------------------------------------
    Scenario("raytrain-reviews-cnn-healthy", "no_failure", "ray",
             "{py} ray_train_reviews.py --workers 2 --loader-workers 2 --epochs 3 --storage {job}/ray_results; "
             "echo \"job exited with $?\"",
             r"job exited with 0", prep=REVIEWS_DATA, ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-reviews-loader-worker-rating-string", "worker_exception", "ray",
             "{py} ray_train_reviews.py --workers 2 --loader-workers 2 --epochs 3 --storage {job}/ray_results; "
             "echo \"job exited with $?\"",
             r"ValueError", prep=REVIEWS_DATA + " --bad-rating-at 4242", ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-deepspeed-reviews-batch-config", "batch_size_mismatch", "ray",
             "cat ds_config.json; {py} ray_train_reviews.py --workers 2 --loader-workers 1 --epochs 2 "
             "--deepspeed ds_config.json --storage {job}/ray_results; echo \"job exited with $?\"",
             r"train_batch_size", prep=REVIEWS_DATA, ray={"env": {}}, env=RAYENV, timeout=300),
    Scenario("raytrain-reviews-driver-evicted-sigterm", "job_preempted", "ray",
             "{py} ray_train_reviews.py --workers 2 --loader-workers 1 --epochs 6 --step-sleep 0.02 "
             "--storage {job}/ray_results; echo \"job exited with $?\"",
             r"SIGTERM|Terminated|signal 15|exited with 143", prep=REVIEWS_DATA, ray={"env": {}}, env=RAYENV,
             trigger=(r"epoch 1 step \d+", "term"), timeout=300),
]


def fill(cmd: str, s: Scenario, job: Path) -> str:
    b = VENVS[s.venv]
    for k, v in {"submit": SUBMIT, "py": str(b / "python"), "bin": str(b), "job": str(job)}.items():
        cmd = cmd.replace("{" + k + "}", v)
    return cmd.replace("{{", "{").replace("}}", "}")


def ray_procs() -> list[psutil.Process]:
    """This generator's Ray cluster: processes naming /tmp/ray-wavek-b, and their descendants."""
    found: dict[int, psutil.Process] = {}
    for proc in psutil.process_iter(["cmdline"]):
        with contextlib.suppress(psutil.Error):
            if any(RAY_DIR in part for part in (proc.info["cmdline"] or [])):
                found[proc.pid] = proc
                for c in proc.children(recursive=True):
                    found[c.pid] = c
    return list(found.values())


def stop_ray() -> None:
    for _ in range(5):
        procs = ray_procs()
        if not procs:
            return
        for proc in procs:
            with contextlib.suppress(psutil.Error):
                proc.kill()
        time.sleep(1)


def start_ray(spec: dict, env: dict, job: Path) -> None:
    renv = dict(env)
    renv.pop("RAY_ADDRESS", None)
    renv.update({k: v.replace("{job}", str(job)) for k, v in spec.get("env", {}).items()})
    for attempt in range(4):  # a start right after the previous cluster was killed sometimes fails; retry
        stop_ray()
        time.sleep(3)
        r = subprocess.run(f"{VENVS['j'] / 'ray'} {RAY_START} {spec.get('args', '')}", shell=True, env=renv,
                           capture_output=True, text=True, timeout=120)
        if r.returncode == 0:
            break
        print(f"  ray start failed (attempt {attempt + 1}): {r.stderr.strip().splitlines()[-1:]}", flush=True)
    else:
        raise SystemExit("ray start failed")
    for _ in range(60):  # the job API answers once the dashboard and its agent are up
        with contextlib.suppress(Exception):
            with urllib.request.urlopen("http://127.0.0.1:8291/api/jobs/", timeout=2) as resp:
                if resp.status == 200:
                    break
        time.sleep(1)
    time.sleep(3)
    print("  ray cluster up", flush=True)


class Tracker:
    """Every process seen below the job's shell (pid, create time), to kill what a run leaves behind."""

    def __init__(self, pids: list[int]) -> None:
        self.roots, self.seen = pids, {}

    def poll(self) -> None:
        for root in self.roots:
            with contextlib.suppress(psutil.Error):
                for c in psutil.Process(root).children(recursive=True):
                    with contextlib.suppress(psutil.Error):
                        self.seen.setdefault(c.pid, c.create_time())

    def kill_all(self) -> None:
        for root in self.roots:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(root, signal.SIGKILL)
        for pid, created in self.seen.items():
            with contextlib.suppress(psutil.Error):
                p = psutil.Process(pid)
                if p.create_time() == created:
                    p.kill()
        for proc in psutil.process_iter():  # what stayed in a job's session (re-parented to init)
            with contextlib.suppress(psutil.Error, ProcessLookupError):
                if proc.pid not in self.roots and os.getsid(proc.pid) in self.roots:
                    proc.kill()


def sh_quote(s: str) -> str:
    return "'" + s.replace("'", "'\"'\"'") + "'"


def run(s: Scenario) -> bool:
    job = JOBS / s.name
    if job.exists():
        for d, *_ in s.tmpfs:
            subprocess.run(["umount", str(job / d)], stderr=subprocess.DEVNULL)
        shutil.rmtree(job)
    job.mkdir(parents=True)
    for src in SCRIPTS:
        shutil.copy(HERE / src, job / Path(src).name)
    (job / "ds_config.json").write_text(DS_CONFIG)
    for d, size, prefill in s.tmpfs:
        (job / d).mkdir()
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(job / d)], check=True)
        if prefill:  # what an earlier run left in the same checkpoint volume
            (job / d / "previous-run").mkdir()
            with open(job / d / "previous-run" / "step-00400.ckpt", "wb") as f:
                f.write(os.urandom(prefill))
    b = VENVS[s.venv]
    env = dict(os.environ, PATH=f"{b}:{os.environ['PATH']}", OMP_NUM_THREADS="1", PYTHONUNBUFFERED="1",
               HF_HOME=str(job / "hf_home"), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1", RAY_AUTH_MODE="disabled",
               TORCH_EXTENSIONS_DIR=str(job / "torch_extensions"), **s.env)
    for k in ("PYTHONPATH", "VIRTUAL_ENV", "RAY_ADDRESS"):
        if k not in s.env:
            env.pop(k, None)
    if s.prep:
        subprocess.run(["bash", "-c", fill(s.prep, s, job)], cwd=job, env=env, check=True)
    if s.ray is not None:
        start_ray(s.ray, env, job)
    out = bytearray()
    c = fill(s.cmd, s, job)
    if s.shm:  # a container-sized /dev/shm: a private mount namespace with its own tmpfs there
        c = "unshare -m bash -c " + sh_quote(f"mount -t tmpfs -o size={s.shm} tmpfs /dev/shm && {c}")
    start = time.time()
    p = subprocess.Popen(["bash", "-c", c], cwd=job, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                         start_new_session=True)

    def pump() -> None:
        for chunk in iter(lambda: p.stdout.read1(65536), b""):
            out.extend(chunk)

    t = threading.Thread(target=pump, daemon=True)
    t.start()
    tracker = Tracker([p.pid])
    fired = not s.trigger
    timed_out = False
    while p.poll() is None:
        tracker.poll()
        if not fired:
            what, action = s.trigger
            hit = (time.time() - start >= what) if isinstance(what, (int, float)) else \
                re.search(what, out.decode(errors="replace")) is not None
            if hit:
                fired = True
                print(f"  trigger: {action} after {time.time() - start:.0f} s", flush=True)
                os.killpg(p.pid, signal.SIGTERM if action == "term" else signal.SIGINT)
        if time.time() - start > s.timeout:
            timed_out = True
            print(f"  {s.name}: still running after {s.timeout} s, killed", flush=True)
            break
        time.sleep(0.2)
    tracker.kill_all()
    p.wait()
    t.join(5)
    if s.ray is not None:
        stop_ray()
    for d, *_ in s.tmpfs:
        subprocess.run(["umount", str(job / d)])
    (job / "console.log").write_bytes(out)  # kept for a look at a MISSING run
    text = out.decode(errors="replace")
    ok = re.search(s.expect, text) is not None and not timed_out
    if ok:
        dest = CORPUS / "logs" / f"run-wavek-b-{s.name}"
        dest.mkdir(parents=True, exist_ok=False)  # never overwrite a committed run
        (dest / "job.log").write_bytes(bytes(out))
    print(f"{'ok     ' if ok else 'MISSING'} {s.name} ({len(text.splitlines())} lines, rc {p.returncode}, "
          f"{time.time() - start:.0f} s{', timed out' if timed_out else ''})", flush=True)
    return ok


def row_key(s: Scenario) -> str:
    return f"logs/run-wavek-b-{s.name}/job.log"


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
    from notes import NOTES  # noqa: E402  (what each committed run showed; written after the runs)

    chosen = [s for s in SCENARIOS if a.all or s.name in a.scenario]
    bad = 0
    for s in chosen:
        key = row_key(s)
        ok = (CORPUS / key).exists() if a.refresh_rows else run(s)
        bad += not ok
        rows = read_fragment(FRAGMENT)
        if ok and s.name in NOTES:
            rows[key] = [key, s.label, SOURCE, NOTES[s.name], SPLIT, s.ecosystem, SPLIT]
        write_fragment(FRAGMENT, rows, HEADER)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
